"""Item 2: latency (and accuracy) of the question pipeline over the evaluation set.

Runs only when ``evals/harness.py`` and ``evals/questions.json`` exist, over the first set and the dev
part of the new one (``evals/v2/dev_*.json``; the held-out part is never timed here, so its failures are
never printed). The bundled
store is built by the real ETL in a temporary folder; every conversation of the set is
asked with ``Assistant(settings, use_cache=False).ask(q, conversation, planner="rules")``
(one fresh ``Conversation`` per conversation, so follow-ups keep their context), once to
warm up and ``passes`` times measured. Each turn's ``timings_ms`` gives the stages.
"""

from __future__ import annotations

import shutil
import time
from pathlib import Path

from bench.common import ROOT, stats

PIPELINE_P95_MS = 150.0
QUESTIONS = ROOT / "evals" / "questions.json"
DEV_FILES = ROOT / "evals" / "v2" / "dev_*.json"
EVALUATION = ROOT / "evals" / "harness.py"
STAGES = ("intake", "route", "govern", "analyze", "plan", "validate", "execute", "compose", "audit", "total")


def available() -> tuple[bool, str]:
    """Whether item 2 can run, and why not."""
    missing = [str(p.relative_to(ROOT)) for p in (EVALUATION, QUESTIONS) if not p.is_file()]
    return (not missing, "falta " + ", ".join(missing) if missing else "")


def audit_probe(folder: Path, n: int = 60) -> dict:
    """What one audit record costs: a fresh ``AuditLog`` per record (as ``core.ask.audit.stage`` and
    ``core.api.execute`` do with ``with AuditLog.for_settings(...)``; its thread's SQLite connection
    stays open, see ``core.audit.connection``), one log kept open, and a connection opened and closed
    per record (what every record paid before the connections were kept)."""
    from core.audit.log import AuditLog

    folder = Path(folder)
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    fresh, kept, reopened = [], [], []
    for i in range(n):
        t0 = time.perf_counter()
        with AuditLog(folder / "nuevo.sqlite3") as log:
            log.append(kind="bench", user="bench", role="bench", status="ok", payload={"i": i})
        fresh.append((time.perf_counter() - t0) * 1000)
    for i in range(n):
        t0 = time.perf_counter()
        log = AuditLog(folder / "reabierto.sqlite3")
        log.append(kind="bench", user="bench", role="bench", status="ok", payload={"i": i})
        log.disconnect()
        reopened.append((time.perf_counter() - t0) * 1000)
    log = AuditLog(folder / "abierto.sqlite3")
    for i in range(n):
        t0 = time.perf_counter()
        log.append(kind="bench", user="bench", role="bench", status="ok", payload={"i": i})
        kept.append((time.perf_counter() - t0) * 1000)
    log.close()
    shutil.rmtree(folder, ignore_errors=True)
    return {
        "registro_con_log_nuevo_ms": stats(fresh),
        "registro_con_log_abierto_ms": stats(kept),
        "registro_con_conexion_nueva_ms": stats(reopened),
        "n": n,
    }


def run(work: Path, log=print, passes: int = 1, questions_file: Path | None = None) -> dict:
    """Warm up once over the whole set, then time ``passes`` passes; accuracy from the last one."""
    import duckdb

    from core.ask.context import Assistant
    from core.ask.pipeline import Conversation
    from core.cli import load_manifest
    from core.config import DEFAULT_DATA_DIR, load_settings
    from core.etl import run_etl

    ev = __import__("evals.harness", fromlist=["load_questions"])
    raw = DEFAULT_DATA_DIR / "raw"
    work = Path(work)
    settings = load_settings(work / "data")
    if settings.data_dir.exists():
        shutil.rmtree(settings.data_dir)
    from bench.common import quiet_fds

    with quiet_fds():
        run_etl(load_manifest(raw), settings)
    convs = ev.load_files([questions_file] if questions_file else [QUESTIONS, DEV_FILES])
    assistant = Assistant(settings, use_cache=False)
    con = ev.RawViews.create(duckdb.connect(), raw)
    oracle = ev.Oracle(con)
    timings: dict[str, list[float]] = {s: [] for s in STAGES}
    report = ev.Report()
    n_turns = sum(len(c["turns"]) for c in convs)
    log(f"[pipeline] {len(convs)} conversaciones, {n_turns} preguntas; 1 pasada de calentamiento + {passes} medidas")
    for p in range(passes + 1):
        measured = p > 0
        for conv in convs:
            conversation = Conversation()
            for i, t in enumerate(conv["turns"]):
                try:
                    turn = assistant.ask(t["q"], conversation, planner="rules")
                except Exception as exc:  # noqa: BLE001 - a crash fails the turn, the benchmark goes on
                    if measured and p == passes:
                        report.checks.append(
                            ev.Check(
                                conv["id"],
                                conv["category"],
                                i + 1,
                                t["q"],
                                t["expect"]["kind"],
                                False,
                                None,
                                None,
                                f"excepción: {exc}",
                            )
                        )
                    continue
                if not measured:
                    continue
                for s in STAGES:
                    if s in turn.timings_ms:
                        timings[s].append(turn.timings_ms[s])
                if p == passes:
                    expect, models = t["expect"], conv.get("_expects")
                    if models:  # the new set: the oracle computes the figure, its checker scores it
                        expected = oracle.expected(models[i])
                        ok, got, why = ev.check_v2(turn.as_dict(), models[i], expected)
                    else:
                        expected = ev.expected_of(expect, con)
                        ok, got, why = ev.check_turn(turn.as_dict(), expect, expected)
                    report.checks.append(
                        ev.Check(
                            conv["id"], conv["category"], i + 1, t["q"], expect["kind"], bool(ok), expected, got, why
                        )
                    )
    con.close()
    probe = audit_probe(work / "auditoria")
    per_stage = {s: stats(v) for s, v in timings.items() if v}
    total = per_stage.get("total", {})
    acc = report.as_dict()
    acc.pop("failures", None)
    return {
        "conversaciones": len(convs),
        "preguntas": n_turns,
        "pasadas_medidas": passes,
        "etapas_ms": per_stage,
        "exactitud": acc,
        "objetivo_p95_ms": PIPELINE_P95_MS,
        "auditoria": probe,
        "cumple_p95": total.get("p95") is not None and total["p95"] <= PIPELINE_P95_MS,
        "fallas": [
            {"id": c.conv_id, "turno": c.turn, "pregunta": c.question, "motivo": c.reason} for c in report.failures
        ][:20],
    }
