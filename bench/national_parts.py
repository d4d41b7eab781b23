"""Issue 14, item 8: the default store build and the national store build (36 real municipal Parquet parts).

``python -m bench.national_parts`` builds, as subprocesses measured with psutil (wall time, peak RSS of the
process tree), the default store (``python -m core build``: Guanajuato + state-level files, target ≤ 60 s),
the national store (``build --nacional``: the same plus 20,157,512 municipal rows, target peak RSS ≤ 2 GB),
and DuckDB's bare ``COPY (SELECT … FROM read_parquet(glob)) TO`` Parquet of the same parts. The parts' own
load is the national build minus the default build; the target is ≤ 2× the bare copy. Writes
``bench/out/national_parts.json``.

``python -m bench.national_parts --profile [DIR]`` instead builds the national store once in this process
with every SQL statement of the load timed (``bench.etl_profile.instrumented``) and writes the statements
that took longest, with where they were issued, to ``bench/out/national_parts_profile.json``: where the
parts' load spends its time.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

from bench.common import GB, OUT_DIR, ROOT, ratio, run_measured
from core.config import load_settings

BUILD_S = 60.0
RSS_GB = 2.0
COPY_RATIO = 2.0
COPY_SCRIPT = """
import sys, duckdb
src, dst = sys.argv[1], sys.argv[2]
con = duckdb.connect()
con.execute("SET threads = 2")
con.execute("SET enable_progress_bar = false")
q = lambda p: "'" + p.replace("'", "''") + "'"
con.execute(f"COPY (SELECT * FROM read_parquet({q(src)})) TO {q(dst)} (FORMAT parquet)")
print(con.execute(f"SELECT count(*) FROM read_parquet({q(dst)})").fetchone()[0])
"""


def _load() -> list[float]:
    """The machine's load average (1, 5, 15 min) when a run ends: it is shared, so each figure carries it."""
    return [round(x, 2) for x in os.getloadavg()]


def _build(work: Path, *extra: str) -> dict:
    shutil.rmtree(work, ignore_errors=True)
    cmd = [sys.executable, "-m", "core", "--data-dir", str(work), "build", "--quiet", *extra]
    run = run_measured(cmd, cwd=ROOT)
    if run.returncode != 0:
        raise RuntimeError(run.stderr)
    summary = json.loads(run.stdout)
    return {
        "wall_s": round(run.wall_s, 2),
        "load_average": _load(),
        "peak_rss_gb": round(run.peak_rss_bytes / GB, 3),
        "observations": summary["row_counts"]["observations"],
        "quarantine": summary["cuarentena"],
    }


def measure(repeat: int = 1) -> dict:
    """Both builds and the bare copy, ``repeat`` times each (alternating), with their ratios."""
    parts = load_settings().national_parts
    out: dict = {"parts": str(parts), "default": [], "national": [], "copy": []}
    with tempfile.TemporaryDirectory(prefix="bench-np-") as tmp:
        work = Path(tmp)
        for _ in range(repeat):
            out["default"].append(_build(work / "default"))
            print("default", out["default"][-1], flush=True)  # partial results survive a later failure
            out["national"].append(_build(work / "national", "--nacional"))
            print("national", out["national"][-1], flush=True)
            dst = work / "copy.parquet"
            run = run_measured([sys.executable, "-c", COPY_SCRIPT, str(parts / "*.parquet"), str(dst)], cwd=ROOT)
            out["copy"].append(
                {
                    "wall_s": round(run.wall_s, 2),
                    "load_average": _load(),
                    "peak_rss_gb": round(run.peak_rss_bytes / GB, 3),
                    "rows": int(run.stdout.split()[-1]),
                }
            )
    best = {k: min(r["wall_s"] for r in v) for k, v in out.items() if isinstance(v, list)}
    parts_load = round(best["national"] - best["default"], 2)
    out["summary"] = {
        "default_build_s": best["default"],
        "default_ok": best["default"] <= BUILD_S,
        "national_build_s": best["national"],
        "national_peak_rss_gb": max(r["peak_rss_gb"] for r in out["national"]),
        "national_rss_ok": max(r["peak_rss_gb"] for r in out["national"]) <= RSS_GB,
        "parts_load_s": parts_load,
        "bare_copy_s": best["copy"],
        "parts_vs_copy": ratio(parts_load, best["copy"]),
        "national_vs_copy": ratio(best["national"], best["copy"]),
        # the 1-minute load when each kept run ended: the machine is shared, a busy copy makes the ratio look good
        "load_1m": {k: min(v, key=lambda r: r["wall_s"])["load_average"][0] for k, v in out.items() if k in best},
    }
    return out


def profile(data_dir: Path, top: int = 25) -> dict:
    """Build the national store once with every statement timed; the ``top`` longest, summed per statement."""
    import time

    from bench.etl_profile import instrumented
    from core.cli import load_manifest
    from core.etl import run_etl
    from core.etl.national import national_settings, national_specs

    shutil.rmtree(data_dir, ignore_errors=True)
    settings = load_settings(data_dir)
    specs = national_specs(settings, load_manifest(ROOT / "data" / "raw"))
    log: list = []
    t0 = time.perf_counter()
    with instrumented(log):
        result = run_etl(specs, national_settings(settings))
    total = time.perf_counter() - t0
    shutil.rmtree(data_dir, ignore_errors=True)
    agg: dict[tuple[str, str], float] = {}
    for item in log:
        key = (item["sql"], item["donde"])
        agg[key] = agg.get(key, 0.0) + item["s"]
    rows = sorted(agg.items(), key=lambda kv: -kv[1])[:top]
    return {
        "total_s": round(total, 1),
        "load_average": _load(),
        "observations": result.summary["row_counts"]["observations"],
        "sentencias": [{"s": round(v, 2), "sentencia": k[0], "donde": k[1]} for k, v in rows],
    }


def run(repeat: int, out_dir: Path, log) -> dict:
    """``bench.run``'s «builds» section: measure, write ``out_dir/national_parts.json``, return its summary."""
    if repeat < 1:
        log("[builds] omitido en esta escala (las 36 partes reales tardan minutos)")
        return {"omitido": "escala de prueba: las partes nacionales reales no se construyen"}
    log(f"[builds] almacén por omisión y nacional ({repeat}×), copia de las partes")
    result = measure(repeat)
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "national_parts.json").write_text(json.dumps(result, indent=2), encoding="utf-8")
    s = result["summary"]
    log(
        f"[builds] por omisión {s['default_build_s']} s; nacional {s['national_build_s']} s, pico "
        f"{s['national_peak_rss_gb']} GB; partes {s['parts_load_s']} s = {s['parts_vs_copy']}× la copia"
    )
    return {"summary": s, "corridas": {k: v for k, v in result.items() if k != "summary"}}


def main() -> int:
    """Run the measurement and write bench/out/national_parts.json (or, with --profile, the statement profile)."""
    if len(sys.argv) > 1 and sys.argv[1] == "--profile":
        with tempfile.TemporaryDirectory(prefix="bench-np-prof-") as tmp:
            out = profile(Path(sys.argv[2]) if len(sys.argv) > 2 else Path(tmp) / "data")
        OUT_DIR.mkdir(parents=True, exist_ok=True)
        (OUT_DIR / "national_parts_profile.json").write_text(json.dumps(out, indent=2), encoding="utf-8")
        print(json.dumps(out, indent=2))
        return 0
    result = measure(int(sys.argv[1]) if len(sys.argv) > 1 else 1)
    OUT_DIR.mkdir(parents=True, exist_ok=True)
    (OUT_DIR / "national_parts.json").write_text(json.dumps(result, indent=2), encoding="utf-8")
    print(json.dumps(result["summary"], indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
