"""A/B of two versions of ``core/`` at the same moment, on the same data: before/after a change.

    git archive <commit> core catalogs | tar -x -C /tmp/antes      # read-only for the repo
    python -m bench.ab /tmp/antes --nota "antes de <commit>"

Each version runs in its own subprocess (``cwd`` = the folder whose ``core/`` is imported;
``bench`` always comes from this checkout), alternating A, B, A, B so that the machine's
load hits both alike. What runs: the national tool cases over the national store of the
last ``bench.run`` (each version gets its own data folder whose ``store`` links to it, so
audit logs and artifacts stay apart) and the per-statement ETL profile on the reduced
(10 %) file. The result goes to ``bench/out/ab.json`` and into ``results.json["ab"]``, and
BENCHMARKS.md is rewritten with it.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from bench.common import OUT_DIR, ROOT, percentile, ratio

WORKER = """
import json, sys
from bench import ab
print("@@" + json.dumps(ab.worker(json.loads(sys.argv[1])), default=str))
"""


def worker(task: dict) -> dict:
    """Run one task in this interpreter (called in a subprocess)."""
    import core

    out = {"core": str(Path(core.__file__).resolve().parent)}
    if task["kind"] == "tools":
        import duckdb

        from bench import national
        from core.config import load_settings
        from core.etl.publish import Depot

        cfg = national.NationalConfig(**task.get("cfg", {}))
        settings = load_settings(task["data_dir"])
        depot = Depot(settings.store_dir)
        con = duckdb.connect()
        paths = national.Paths(depot.version_dir(depot.current_id()), con, Path(task["data_dir"]) / "parquet_copia")
        con.execute("SET enable_progress_bar = false")
        out["casos"] = {}
        for case in national.cases(cfg):
            res = national.run_case(case, settings, paths, con, task["runs"], task["warmup"])
            if "error" not in res:
                res["desglose"] = national.breakdown(case, settings, runs=3)
                res["desglose"].pop("consultas", None)
            res.pop("sql", None)
            out["casos"][case.name] = res
    elif task["kind"] == "etl":
        from bench import etl_profile

        prof = etl_profile.profile_load(Path(task["csv"]), Path(task["data_dir"]), allow_error=True)
        prof["sentencias"] = prof["sentencias"][:12]
        out["perfil"] = prof
    return out


def _run(task: dict, cwd: Path) -> dict:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.run(
        [sys.executable, "-c", WORKER, json.dumps(task)], cwd=cwd, env=env, text=True, capture_output=True, check=False
    )
    line = next((ln for ln in proc.stdout.splitlines() if ln.startswith("@@")), None)
    if proc.returncode != 0 or line is None:
        raise RuntimeError(f"worker falló en {cwd}: {proc.stderr[-2000:]}")
    return json.loads(line[2:])


def _merge_tools(parts: list[dict]) -> dict:
    cases: dict = {}
    for part in parts:
        for name, c in part["casos"].items():
            agg = cases.setdefault(name, {"tool": [], "sql": [], "iguales": True, "evidencia": [], "desglose": []})
            if "error" in c:
                agg["error"] = c["error"]
                continue
            agg["tool"] += c["muestras"]["tool_ms"]
            agg["sql"] += c["muestras"]["sql_ms"]
            agg["iguales"] &= c["respuestas_iguales"]
            agg["desglose"].append(c.get("desglose") or {})
    out = {}
    for name, a in cases.items():
        t50, s50 = percentile(a["tool"], 50), percentile(a["sql"], 50)
        d = a["desglose"][-1] if a["desglose"] else {}
        out[name] = {
            "tool_p50": round(t50, 2) if t50 else None,
            "tool_p95": round(percentile(a["tool"], 95), 2),
            "sql_p50": round(s50, 2) if s50 else None,
            "ratio_p50": ratio(t50, s50),
            "ratio_p95": ratio(percentile(a["tool"], 95), percentile(a["sql"], 95)),
            "iguales": a["iguales"],
            "n": len(a["tool"]),
            "consultas": [d.get("consultas_herramienta"), d.get("consultas_evidencia")],
            "evidencia_ms": d.get("evidencia"),
            "error": a.get("error"),
        }
    return out


def run(other: Path, scale: str = "full", runs: int = 10, rounds: int = 2, note: str | None = None, log=print) -> dict:
    """A = the version in ``other``, B = this checkout; ``rounds`` alternations of each task."""
    from bench import synth
    from bench.etl_profile import single_pass
    from bench.etl_throughput import _copy_once, _fraction

    other = Path(other).resolve()
    work = OUT_DIR / "work" / scale
    store = work / "national" / "data" / "store"
    if not (store / "CURRENT").is_file():
        raise SystemExit(f"No hay almacén nacional en {store}: corra antes `python -m bench.run --scale {scale}`.")
    tmp = Path(tempfile.mkdtemp(prefix="ab-", dir=work))
    dirs = {}
    for label in ("A", "B"):
        d = tmp / label / "data"
        d.mkdir(parents=True)
        (d / "store").symlink_to(store)
        dirs[label] = d
    versions = {"A": other, "B": ROOT}
    profile = synth.load_profile(next((work / "bundled" / "store" / "versions").glob("gx-*")))
    per_state = _fraction(dict(synth.MUNICIPALITIES_PER_STATE), 0.1)
    csv = synth.generate(
        tmp / "csv", profile, per_state, list(range(2015, 2025)), "all", name="IDM_NM_ab", population=False
    )["path"]
    tools: dict = {"A": [], "B": []}
    etl: dict = {"A": [], "B": []}
    cores = {}
    for i in range(rounds):
        for label in ("A", "B"):
            log(f"[ab] ronda {i + 1}: herramientas {label} ({versions[label]})")
            res = _run({"kind": "tools", "data_dir": str(dirs[label]), "runs": runs, "warmup": 2}, versions[label])
            cores[label] = res["core"]
            tools[label].append(res)
        for label in ("A", "B"):
            log(f"[ab] ronda {i + 1}: ETL {label}")
            res = _run({"kind": "etl", "csv": csv, "data_dir": str(tmp / label / "etl")}, versions[label])
            etl[label].append(res["perfil"])
    copy = _copy_once(Path(csv), tmp)
    ref = single_pass(Path(csv), tmp / "ref")
    out = {
        "nota": note,
        "A": str(other),
        "B": str(ROOT),
        "core_importado": cores,
        "corridas_por_ronda": runs,
        "rondas": rounds,
        "herramientas": {k: _merge_tools(v) for k, v in tools.items()},
        "etl_10pct": {
            k: [
                {
                    "total_s": p["total_s"],
                    "pico_rss_mb": p.get("pico_rss_mb"),
                    "error": p.get("error"),
                    "sentencias": [[s["sentencia"], s["s"]] for s in p["sentencias"][:6]],
                }
                for p in v
            ]
            for k, v in etl.items()
        },
        "copia_s": copy["wall_s"],
        "una_pasada_s": ref["total_s"],
        "celdas_10pct": ref["celdas"],
    }
    import shutil

    shutil.rmtree(tmp, ignore_errors=True)
    return out


def main(argv: list[str] | None = None) -> int:
    """CLI: run the A/B, store it and rewrite BENCHMARKS.md."""
    p = argparse.ArgumentParser(prog="python -m bench.ab")
    p.add_argument("otra", help="carpeta con core/ y catalogs/ de la otra versión (A); B = este checkout")
    p.add_argument("--scale", default="full")
    p.add_argument("--runs", type=int, default=10)
    p.add_argument("--rondas", type=int, default=2)
    p.add_argument("--nota", default=None)
    p.add_argument("--md", default=str(ROOT / "BENCHMARKS.md"))
    args = p.parse_args(argv)
    res = run(Path(args.otra), args.scale, args.runs, args.rondas, args.nota)
    OUT_DIR.mkdir(parents=True, exist_ok=True)
    (OUT_DIR / "ab.json").write_text(json.dumps(res, ensure_ascii=False, indent=2, default=str), encoding="utf-8")
    results_path = OUT_DIR / "results.json"
    if results_path.is_file():
        from bench.report import render

        results = json.loads(results_path.read_text(encoding="utf-8"))
        results["ab"] = res
        results_path.write_text(json.dumps(results, ensure_ascii=False, indent=2, default=str), encoding="utf-8")
        if args.md:
            Path(args.md).write_text(render(results), encoding="utf-8")
    print(json.dumps({k: v for k, v in res.items() if k != "herramientas"}, ensure_ascii=False, default=str)[:2000])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
