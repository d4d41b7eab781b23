"""Item 3: analysis-tool latency on a national-size store, next to hand-written DuckDB SQL.

The store is built by the REAL ETL (``core.etl.run_etl``) from a synthetic IDM_NM file of
the whole country (``bench.synth``). For every case the plan goes through
``core.api.execute`` and its tool timing (``Execution.timings_ms["0:<tool>"]``) is
recorded next to the wall time of one hand-written SQL statement that computes the same
result rows straight from the version's Parquet files, in the same process, interleaved
run by run (so neighbours' load hits both alike). The answers are compared row by row.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
import shutil
import time
from dataclasses import asdict
from pathlib import Path

import duckdb

from bench import synth
from bench.common import ROOT, norm_cell, quiet_fds, ratio, same_rows, stats
from bench.national_cases import (
    TOOL_P95_MS,
    TOOL_RATIO,
    Case,
    NationalConfig,
    Paths,
    cases,
)

# -- building the store -------------------------------------------------------------------------


def build_bundled(work: Path) -> Path:
    """The bundled store (data/raw/manifest.json) built by the real ETL; returns its version folder."""
    from core.cli import load_manifest
    from core.config import DEFAULT_DATA_DIR, load_settings
    from core.etl import run_etl

    settings = load_settings(work / "bundled")
    if settings.store_dir.exists():
        shutil.rmtree(settings.store_dir)
    with quiet_fds():
        result = run_etl(load_manifest(DEFAULT_DATA_DIR / "raw"), settings)
    return settings.store_dir / "versions" / result.dataset_version


def _stamp(cfg: NationalConfig, profile_dir: Path | None) -> str:
    """What the built store depends on: the generator, its settings and the bundled data."""
    h = hashlib.sha256()
    h.update(
        json.dumps(
            {k: v for k, v in asdict(cfg).items() if k in ("per_state", "years", "crimes", "seed")}, sort_keys=True
        ).encode()
    )
    h.update(Path(synth.__file__).read_bytes())
    for f in sorted((ROOT / "core" / "etl").glob("*.py")):
        h.update(f.read_bytes())
    if profile_dir is not None and (profile_dir / "metadata.json").is_file():
        h.update(json.loads((profile_dir / "metadata.json").read_text(encoding="utf-8"))["content_hash"].encode())
    return h.hexdigest()[:16]


def build_national(
    cfg: NationalConfig,
    work: Path,
    profile: synth.Profile | None = None,
    profile_dir: Path | None = None,
    reuse: bool = True,
) -> dict:
    """Generate the synthetic country and load it through ``run_etl``; returns the description.

    With ``reuse`` a store built earlier from the same generator, settings, bundled data
    and ETL code is kept (its build is not a measurement)."""
    from core.config import load_settings
    from core.etl import SourceSpec, run_etl
    from core.etl.publish import Depot

    work = Path(work)
    work.mkdir(parents=True, exist_ok=True)
    if profile is None:
        profile_dir = build_bundled(work)
        profile = synth.load_profile(profile_dir)
    stamp = _stamp(cfg, profile_dir)
    settings = load_settings(work / "data")
    stamp_file = work / "store.json"
    if reuse and stamp_file.is_file() and Depot(settings.store_dir).current_id():
        old = json.loads(stamp_file.read_text(encoding="utf-8"))
        if old.get("stamp") == stamp and old.get("dataset_version") == Depot(settings.store_dir).current_id():
            return old | {"reutilizado": True}
    t0 = time.perf_counter()
    info = synth.generate(work / "csv", profile, cfg.per_state, cfg.years, cfg.crimes, cfg.seed)
    gen_s = time.perf_counter() - t0
    if settings.data_dir.exists():
        shutil.rmtree(settings.data_dir)
    specs = [SourceSpec(Path(info["path"]), procedencia="bench: sintético nacional")]
    if info.get("poblacion"):
        specs.append(SourceSpec(Path(info["poblacion"]["path"]), procedencia="bench: población sintética"))
    t0 = time.perf_counter()
    with quiet_fds():
        result = run_etl(specs, settings)
    etl_s = time.perf_counter() - t0
    shutil.rmtree(work / "csv", ignore_errors=True)
    out = {
        "stamp": stamp,
        "generador": {k: v for k, v in info.items() if k not in ("path", "poblacion")},
        "generacion_s": round(gen_s, 2),
        "etl_s": round(etl_s, 2),
        "dataset_version": result.dataset_version,
        "row_counts": result.summary.get("row_counts"),
        "cuarentena": result.summary.get("cuarentena"),
        "data_dir": str(settings.data_dir),
        "reutilizado": False,
    }
    stamp_file.write_text(json.dumps(out, ensure_ascii=False, indent=2), encoding="utf-8")
    return out


# -- running ------------------------------------------------------------------------------------


def _rows(env: dict) -> list[list]:
    return env["data"]["inline"]["rows"] if env.get("status") == "ok" else None


def run_case(case: Case, settings, paths: Paths, con: duckdb.DuckDBPyConnection, runs: int, warmup: int) -> dict:
    """Warm up, then ``runs`` interleaved (tool, SQL) pairs; timings and the comparison."""
    from core import api

    sql, params = case.sql(paths)
    tool_ms, exec_ms, sql_ms = [], [], []
    equal_all, worst, why, n_rows, env_meta = True, 0.0, "", None, {}
    for i in range(warmup + runs):
        t0 = time.perf_counter()
        result = api.execution(case.plan, settings=settings, user="bench")
        t1 = time.perf_counter()
        got = con.execute(sql, params).fetchall()
        t2 = time.perf_counter()
        env = result.last
        if env.get("status") != "ok":
            return {"caso": case.name, "herramienta": case.tool, "error": env.get("error"), "plan": case.plan}
        key = next((k for k in result.timings_ms if k.endswith(":" + case.tool)), None)
        rows = _rows(env)
        ok, diff, reason = same_rows(rows, [list(r) for r in got])
        equal_all &= ok
        worst = worst if math.isnan(diff) else max(worst, diff)
        why = why or reason
        n_rows = len(rows)
        env_meta = {
            "date_range_effective": env["meta"].get("date_range_effective"),
            "range_adjusted": env["meta"].get("range_adjusted"),
            "warnings": env["meta"].get("warnings"),
        }
        if i >= warmup:
            tool_ms.append(result.timings_ms[key])
            exec_ms.append((t1 - t0) * 1000)
            sql_ms.append((t2 - t1) * 1000)
    t, s = stats(tool_ms), stats(sql_ms)
    return {
        "caso": case.name,
        "herramienta": case.tool,
        "nota": case.note,
        "plan": case.plan,
        "tool_ms": t,
        "execute_ms": stats(exec_ms),
        "sql_ms": s,
        "ratio_p50": ratio(t["p50"], s["p50"]),
        "ratio_p95": ratio(t["p95"], s["p95"]),
        "filas": n_rows,
        "respuestas_iguales": equal_all,
        "max_diff": worst,
        "diferencia": why,
        "cumple_p95": t["p95"] is not None and t["p95"] <= TOOL_P95_MS,
        "cumple_ratio": ratio(t["p95"], s["p95"]) is not None and ratio(t["p95"], s["p95"]) <= TOOL_RATIO,
        "meta": env_meta,
        "sql": " ".join(sql.split()),
        "muestras": {"tool_ms": [round(x, 2) for x in tool_ms], "sql_ms": [round(x, 2) for x in sql_ms]},
    }


@contextlib.contextmanager
def _instrumented(log: list):
    """Time every store query, the evidence step and the artifact write (this process only)."""
    from core import tools
    from core.dataset import store as st
    from core.engine import execute as ex

    state = {"evidence": False}
    orig_q, orig_ev, orig_wa = st.Store.query, ex._evidence, ex.write_artifact
    orig_cols = getattr(tools.ToolContext, "query_columns", None)

    def timed(fn):
        def run(self, sql, params=()):
            t0 = time.perf_counter()
            try:
                return fn(self, sql, params)
            finally:
                kind = "evidencia" if state["evidence"] else "sql_herramienta"
                log.append((kind, (time.perf_counter() - t0) * 1000, " ".join(sql.split())[:90]))

        return run

    query = timed(orig_q)

    def evidence(ctx, out):
        state["evidence"] = True
        try:
            return orig_ev(ctx, out)
        finally:
            state["evidence"] = False

    def artifact(*args, **kwargs):
        t0 = time.perf_counter()
        try:
            return orig_wa(*args, **kwargs)
        finally:
            log.append(("artefacto", (time.perf_counter() - t0) * 1000, ""))

    st.Store.query, ex._evidence, ex.write_artifact = query, evidence, artifact
    if orig_cols is not None:  # statements fetched as columns (older cores lack it)
        tools.ToolContext.query_columns = timed(orig_cols)
    try:
        yield
    finally:
        st.Store.query, ex._evidence, ex.write_artifact = orig_q, orig_ev, orig_wa
        if orig_cols is not None:
            tools.ToolContext.query_columns = orig_cols


def breakdown(case: Case, settings, runs: int = 5) -> dict:
    """Median split of one tool's time: its own queries, the evidence queries, the artifact, the rest."""
    from core import api

    runs_out: list[dict] = []
    for _ in range(runs):
        log: list = []
        with _instrumented(log):
            result = api.execution(case.plan, settings=settings, user="bench")
        key = next((k for k in result.timings_ms if k.endswith(":" + case.tool)), None)
        total = result.timings_ms.get(key, 0.0)
        one = {"tool_ms": total}
        for k in ("sql_herramienta", "evidencia", "artefacto"):
            one[k] = round(sum(ms for kind, ms, _ in log if kind == k), 2)
        one["python"] = round(max(0.0, total - one["sql_herramienta"] - one["evidencia"] - one["artefacto"]), 2)
        one["consultas_herramienta"] = sum(1 for kind, _, _ in log if kind == "sql_herramienta")
        one["consultas_evidencia"] = sum(1 for kind, _, _ in log if kind == "evidencia")
        one["consultas"] = [(kind, round(ms, 2), text) for kind, ms, text in log if kind != "artefacto"]
        runs_out.append(one)
    runs_out.sort(key=lambda r: r["tool_ms"])
    out = runs_out[len(runs_out) // 2]  # the run with the median tool time, whole
    out["corridas"] = len(runs_out)
    return out


def run(
    cfg: NationalConfig,
    work: Path,
    log=print,
    profile: synth.Profile | None = None,
    profile_dir: Path | None = None,
    reuse: bool = True,
) -> dict:
    """Build the national store and time every case; returns the JSON section."""
    from core.config import load_settings
    from core.etl.publish import Depot

    log(f"[national] generando {sum(cfg.per_state.values())} municipios × {len(cfg.years)} años")
    built = build_national(cfg, work, profile, profile_dir, reuse)
    log(
        f"[national] ETL {built['etl_s']} s → {built['dataset_version']} {built['row_counts']}"
        + (" (reutilizado)" if built.get("reutilizado") else "")
    )
    settings = load_settings(built["data_dir"])
    depot = Depot(settings.store_dir)
    paths = Paths(depot.version_dir(depot.current_id()))
    con = duckdb.connect()
    con.execute("SET enable_progress_bar = false")
    out = []
    for case in cases(cfg):
        res = run_case(case, settings, paths, con, cfg.runs, cfg.warmup)
        if "error" not in res:
            res["desglose"] = breakdown(case, settings, runs=max(3, min(5, cfg.runs)))
        out.append(res)
        if "error" in res:
            log(f"[national] {case.name}: ERROR {res['error']}")
        else:
            log(
                f"[national] {case.name}: tool p50 {res['tool_ms']['p50']} p95 {res['tool_ms']['p95']} ms; "
                f"SQL p50 {res['sql_ms']['p50']} p95 {res['sql_ms']['p95']} ms; ratio p95 {res['ratio_p95']}; "
                f"iguales={res['respuestas_iguales']} {res['diferencia']}"
            )
    con.close()
    return {
        "config": {k: v for k, v in asdict(cfg).items() if k != "per_state"}
        | {"municipios": sum(cfg.per_state.values()), "estados": len(cfg.per_state)},
        "store": built,
        "casos": out,
        "objetivos": {"tool_p95_ms": TOOL_P95_MS, "ratio_max": TOOL_RATIO},
    }


def rows_repr(rows) -> list:
    """Rows as plain JSON (for debugging output)."""
    return [[norm_cell(c) for c in r] for r in rows]
