"""``make bench`` → ``python -m bench.run``: every benchmark, one JSON file and BENCHMARKS.md.

    python -m bench.run                       # everything implemented, full size
    python -m bench.run --only national,etl --scale small
    python -m bench.run --report-only         # rewrite BENCHMARKS.md from bench/out/results.json

Sections: ``national`` (item 3, tool latency vs hand-written SQL on a national store),
``etl`` (item 4, ETL throughput vs DuckDB's bare CSV → Parquet copy), ``pipeline``
(item 2, question pipeline; runs only once ``evals/questions.json`` exists) and
``browser`` (item 5, Enter in Consultar's chat to the rendered answer in Chromium) and ``conversation``
(issue 15 §2, the same measure at every turn of a 20-turn conversation) and ``api`` (issue 16 §6, concurrent
clients on the HTTP API while a steward publishes a new version).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from bench import synth
from bench.common import OUT_DIR, ROOT, cpu_steal, machine

SECTIONS = ("national", "etl", "builds", "pipeline", "browser", "conversation", "api")
NOT_YET = "no implementado aún"


@dataclass
class Scale:
    """Sizes and repetitions of one run."""

    name: str
    national: object
    etl: object
    pipeline_passes: int = 1
    browser_repeats: int = 5
    browser_questions: int | None = None  # how many of bench.browser.QUESTIONS (None: all)
    conversation_repeats: int = 3  # conversations of bench.conversation (issue 15 §2)
    conversation_turns: int = 20
    api_clients: int = 50  # concurrent clients of bench.api_load (issue 16 §6)
    api_requests: int = 200  # requests each client sends
    builds_repeats: int = 1  # bench.national_parts: the real 36 parts, whatever the scale (0: skipped)


def scale(name: str) -> Scale:
    """``full`` (the country), ``small`` (~10 % of the municipalities) or ``toy`` (the smoke test)."""
    from bench.etl_throughput import EtlConfig
    from bench.national import NationalConfig

    full = dict(synth.MUNICIPALITIES_PER_STATE)
    tenth = {k: max(1, round(n / 10)) for k, n in full.items()}
    if name == "full":
        return Scale(
            name,
            NationalConfig(runs=40, warmup=2),
            EtlConfig(etl_repeats=3, copy_repeats=3, profile_fraction=0.1),
            pipeline_passes=2,
        )
    if name == "small":
        return Scale(
            name,
            NationalConfig(per_state=tenth, runs=40, warmup=2),
            EtlConfig(per_state=tenth, etl_repeats=3, copy_repeats=3, profile_fraction=1.0),
            api_clients=10,
            api_requests=200,  # ~1 min: the publication (25 s or more) ends while the clients still ask
        )
    if name == "toy":  # 3 municipalities × 2 crimes × 1 year; a ~1 MB CSV
        return Scale(
            name,
            NationalConfig(
                per_state={"15": 3},
                years=[2024],
                crimes=["homicidio_doloso", "violencia_familiar"],
                estado_grande=None,
                runs=2,
                warmup=1,
            ),
            EtlConfig(per_state={"15": 8}, etl_repeats=1, copy_repeats=1, profile_fraction=None),
            builds_repeats=0,  # the real national parts take minutes: not a toy
            browser_repeats=1,
            browser_questions=1,
            conversation_repeats=1,
            conversation_turns=3,
            api_clients=3,
            api_requests=5,
        )
    raise ValueError(f"escala desconocida: {name}")


def _log(msg: str) -> None:
    sys.stdout.write(f"{datetime.now():%H:%M:%S} {msg}\n")
    sys.stdout.flush()


def run(only: list[str], scale_name: str, out_dir: Path, md_path: Path | None, reuse: bool = True, log=_log) -> dict:
    """Run the chosen sections; write ``results.json`` (and BENCHMARKS.md unless ``md_path`` is None)."""
    from bench import browser, conversation, etl_throughput, national, pipeline

    t_start = time.perf_counter()
    out_dir = Path(out_dir)
    work = out_dir / "work" / scale_name
    work.mkdir(parents=True, exist_ok=True)
    sc = scale(scale_name)
    results: dict = {
        "generado": datetime.now(UTC).isoformat(timespec="seconds"),
        "escala": scale_name,
        "secciones_pedidas": only,
        "maquina": machine(),
        "robo_cpu_inicio_pct": cpu_steal(),
        "secciones": {},
    }
    log(
        f"[bench] escala {scale_name}; secciones {', '.join(only)}; máquina {results['maquina']['nproc']} núcleos, "
        f"carga {results['maquina']['carga_promedio']}"
    )
    profile = profile_dir = None
    if "national" in only or "etl" in only:
        profile_dir = national.build_bundled(work)
        profile = synth.load_profile(profile_dir)
    for section in only:
        t0 = time.perf_counter()
        if section == "national":
            res = national.run(sc.national, work / "national", log, profile, profile_dir, reuse)
        elif section == "etl":
            res = etl_throughput.run(sc.etl, work / "etl", profile, log)
        elif section == "builds":
            from bench import national_parts

            res = national_parts.run(sc.builds_repeats, out_dir, log)
        elif section == "pipeline":
            ok, why = pipeline.available()
            if not ok:
                log(f"[pipeline] {NOT_YET} ({why}); se omite")
                res = {"omitido": f"{NOT_YET}: {why}"}
            else:
                res = pipeline.run(work / "pipeline", log, passes=sc.pipeline_passes)
        elif section == "browser":
            res = browser.run(
                work / "browser", log, questions=browser.QUESTIONS[: sc.browser_questions], repeats=sc.browser_repeats
            )
        elif section == "conversation":
            res = conversation.run(
                work / "conversation", log, repeats=sc.conversation_repeats, turns=sc.conversation_turns
            )
        elif section == "api":
            from bench import api_load

            try:
                res = api_load.run(work / "api", log, clients=sc.api_clients, requests=sc.api_requests)
            except Exception as exc:  # noqa: BLE001 - a broken run is reported in BENCHMARKS.md, not a crash
                log(f"[api] error: {exc}")
                res = {"error": f"{type(exc).__name__}: {exc}"[:300]}
        else:
            raise ValueError(section)
        res["duracion_s"] = round(time.perf_counter() - t0, 1)
        results["secciones"][section] = res
    results["maquina_fin"] = {"carga_promedio": machine()["carga_promedio"]}
    results["robo_cpu_fin_pct"] = cpu_steal()
    results["duracion_total_s"] = elapsed = round(time.perf_counter() - t_start, 1)
    out_dir.mkdir(parents=True, exist_ok=True)
    results = _merge(out_dir / "results.json", results)  # a partial run keeps the earlier run's total
    (out_dir / "results.json").write_text(
        json.dumps(results, ensure_ascii=False, indent=2, default=str), encoding="utf-8"
    )
    log(f"[bench] {out_dir / 'results.json'} escrito ({elapsed} s)")
    if md_path is not None:
        from bench.report import render

        Path(md_path).write_text(render(results), encoding="utf-8")
        log(f"[bench] {md_path} escrito")
    return results


def _merge(path: Path, new: dict) -> dict:
    """A partial run (``--only``) replaces its sections in an earlier results.json of the same scale."""
    if set(new["secciones"]) >= set(SECTIONS) or not path.is_file():
        return new
    try:
        old = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError):
        return new
    if old.get("escala") != new["escala"]:
        return new
    for name, section in new["secciones"].items():
        section["generado"] = new["generado"]
        old["secciones"][name] = section
    old.setdefault("actualizaciones", []).append(
        {
            "generado": new["generado"],
            "secciones": list(new["secciones"]),
            "duracion_s": new["duracion_total_s"],
            "carga_promedio": new["maquina"]["carga_promedio"],
        }
    )
    return old


def main(argv: list[str] | None = None) -> int:
    """CLI entry point."""
    p = argparse.ArgumentParser(prog="python -m bench.run", description="Benchmarks de Casandra.")
    p.add_argument(
        "--only",
        default="national,etl,pipeline,browser,conversation,api",
        help="secciones separadas por comas: national, etl, pipeline, browser, conversation, api",
    )
    p.add_argument("--scale", choices=["small", "full", "toy"], default="full")
    p.add_argument("--out", default=str(OUT_DIR), help="carpeta de resultados (por omisión bench/out)")
    p.add_argument("--md", default=str(ROOT / "BENCHMARKS.md"), help="dónde escribir BENCHMARKS.md ('' = no escribir)")
    p.add_argument("--fresh", action="store_true", help="reconstruir el almacén nacional aunque exista")
    p.add_argument("--report-only", action="store_true", help="solo reescribir BENCHMARKS.md desde results.json")
    p.add_argument(
        "--antes",
        help="con --report-only: results.json de una corrida anterior para la sección "
        "«Antes y después» (se guarda resumido en results.json)",
    )
    p.add_argument("--nota-antes", default=None, help="qué cambió entre «antes» y esta corrida (texto libre)")
    args = p.parse_args(argv)
    if args.report_only:
        from bench.report import render

        path = Path(args.out) / "results.json"
        results = json.loads(path.read_text(encoding="utf-8"))
        if args.antes:
            from bench.report import summarize

            before = json.loads(Path(args.antes).read_text(encoding="utf-8"))
            if args.nota_antes:
                before["nota_antes"] = args.nota_antes
            results["antes"] = summarize(before)
            path.write_text(json.dumps(results, ensure_ascii=False, indent=2, default=str), encoding="utf-8")
        Path(args.md).write_text(render(results), encoding="utf-8")
        _log(f"[bench] {args.md} reescrito desde {Path(args.out) / 'results.json'}")
        return 0
    only = [s.strip() for s in args.only.split(",") if s.strip()]
    unknown = [s for s in only if s not in SECTIONS]
    if unknown:
        p.error(f"secciones desconocidas: {', '.join(unknown)} (use {', '.join(SECTIONS)})")
    run(only, args.scale, Path(args.out), Path(args.md) if args.md else None, reuse=not args.fresh)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
