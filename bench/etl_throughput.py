"""Item 4: ETL throughput on a national-size IDM_NM file (latin-1) against DuckDB's bare CSV → Parquet copy.

Both run as subprocesses of this one; their wall time and the peak RSS of the whole
process tree are sampled every 50 ms with psutil. Runs alternate (ETL, copy, ETL, copy…)
so that load from neighbouring processes hits both alike. A statement-level breakdown of
one load (``bench.etl_profile``) runs afterwards on a reduced file.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from bench import synth
from bench.common import GB, MB, ROOT, ratio, run_measured, stats

# Issue 14 §8, as decided: the load ≤ 1.0× DuckDB's bare UNPIVOT → Parquet of the same file (the same cells,
# none of the checks) and ≤ 2.5× its bare read_csv → Parquet copy (the wide rows as they come).
ETL_RATIO = 2.5
ETL_UNPIVOT_RATIO = 1.0
ETL_RSS_GB = 2.0

COPY_SCRIPT = """
import sys, duckdb
src, dst = sys.argv[1], sys.argv[2]
con = duckdb.connect()
con.execute("SET enable_progress_bar = false")
q = lambda p: "'" + p.replace("'", "''") + "'"
con.execute(f"COPY (SELECT * FROM read_csv({q(src)}, encoding = 'latin-1', header = true)) TO {q(dst)} (FORMAT parquet)")
print(con.execute(f"SELECT count(*) FROM read_parquet({q(dst)})").fetchone()[0])
"""

# The least a long (cell-per-row) store costs: the same read, the 12 months unpivoted into
# rows, written as Parquet. No labels, checks, ids or provenance: a floor, not a product.
UNPIVOT_SCRIPT = """
import sys, duckdb
src, dst = sys.argv[1], sys.argv[2]
con = duckdb.connect()
con.execute("SET enable_progress_bar = false")
q = lambda p: "'" + p.replace("'", "''") + "'"
months = "Enero, Febrero, Marzo, Abril, Mayo, Junio, Julio, Agosto, Septiembre, Octubre, Noviembre, Diciembre"
con.execute(f"COPY (UNPIVOT (SELECT * FROM read_csv({q(src)}, encoding = 'latin-1', header = true)) "
            f"ON {months} INTO NAME mes VALUE eventos) TO {q(dst)} (FORMAT parquet)")
print(con.execute(f"SELECT count(*) FROM read_parquet({q(dst)})").fetchone()[0])
"""


@dataclass
class EtlConfig:
    """The national file and how often to run each side."""

    per_state: dict[str, int] = field(default_factory=lambda: dict(synth.MUNICIPALITIES_PER_STATE))
    years: list[int] = field(default_factory=lambda: list(range(2015, 2025)))
    crimes: str | list[str] = "all"
    etl_repeats: int = 3
    copy_repeats: int = 3
    profile_fraction: float | None = 0.1  # statement breakdown on ~10 % of the municipalities (None: skip)
    floor_full: bool = True  # the design's floor (etl_profile.single_pass) on the national file itself
    layouts: bool = True  # one row per cell against one per line (bench.store_layouts), same file
    diagnose_failure: bool = True  # a failed load is re-run in-process with every statement timed
    retry_memory_limit: str | None = "4GB"  # and, if it ran out of memory, measured again with this limit
    seed: int = 20260115


def _fraction(per_state: dict[str, int], f: float) -> dict[str, int]:
    return {k: max(1, round(n * f)) for k, n in per_state.items()}


def _etl_once(csv: Path, data_dir: Path, memory_limit: str | None = None) -> dict:
    if data_dir.exists():
        shutil.rmtree(data_dir)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    if memory_limit:
        env["CASANDRA_ETL_MEMORY_LIMIT"] = memory_limit
    cmd = [sys.executable, "-m", "core", "--data-dir", str(data_dir), "etl", str(csv), "--quiet", "--user", "bench"]
    s = run_measured(cmd, env=env, cwd=ROOT)
    out = {
        "wall_s": round(s.wall_s, 2),
        "peak_rss_mb": round(s.peak_rss_bytes / MB, 1),
        "cpu_s": s.cpu_s,
        "returncode": s.returncode,
        "muestras": s.samples,
    }
    if s.returncode == 0:
        try:
            summary = json.loads(s.stdout)
            out["dataset_version"] = summary.get("dataset_version")
            out["row_counts"] = summary.get("row_counts")
            out["cuarentena"] = summary.get("cuarentena")
        except json.JSONDecodeError:
            out["stdout"] = s.stdout[-800:]
    else:
        out["stderr"] = s.stderr[-1500:]
    shutil.rmtree(data_dir, ignore_errors=True)
    return out


def _copy_once(csv: Path, work: Path, script: str = COPY_SCRIPT) -> dict:
    dst = work / "copia.parquet"
    dst.unlink(missing_ok=True)
    s = run_measured([sys.executable, "-c", script, str(csv), str(dst)], cwd=work)
    out = {
        "wall_s": round(s.wall_s, 2),
        "peak_rss_mb": round(s.peak_rss_bytes / MB, 1),
        "cpu_s": s.cpu_s,
        "returncode": s.returncode,
        "filas": s.stdout.strip()[-20:] if s.returncode == 0 else None,
    }
    if s.returncode != 0:
        out["stderr"] = s.stderr[-1500:]
    dst.unlink(missing_ok=True)
    return out


def run(cfg: EtlConfig, work: Path, profile: synth.Profile, log=print) -> dict:
    """Generate the file, time the ETL and the bare copy, and break one load down by statement."""
    work = Path(work)
    work.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    info = synth.generate(
        work, profile, cfg.per_state, cfg.years, cfg.crimes, cfg.seed, name="IDM_NM_nacional", population=False
    )
    gen_s = time.perf_counter() - t0
    csv = Path(info["path"])
    log(
        f"[etl] archivo {info['bytes'] / MB:.0f} MB, {info['rows']:,} filas, {info['cells']:,} celdas "
        f"(generado en {gen_s:.1f} s)"
    )
    etl, copy, unpivot = [], [], []
    for i in range(max(cfg.etl_repeats, cfg.copy_repeats)):
        if i < cfg.etl_repeats:
            etl.append(_etl_once(csv, work / "data"))
            log(
                f"[etl] python -m core etl: {etl[-1]['wall_s']} s, pico RSS {etl[-1]['peak_rss_mb']} MB "
                f"(rc {etl[-1]['returncode']})"
            )
        if i < cfg.copy_repeats:
            copy.append(_copy_once(csv, work))
            log(f"[etl] DuckDB read_csv → Parquet: {copy[-1]['wall_s']} s, pico RSS {copy[-1]['peak_rss_mb']} MB")
            unpivot.append(_copy_once(csv, work, UNPIVOT_SCRIPT))
            log(f"[etl] DuckDB read_csv → UNPIVOT → Parquet: {unpivot[-1]['wall_s']} s")
    ok_etl = [r for r in etl if r["returncode"] == 0]
    ok_copy = [r for r in copy if r["returncode"] == 0]
    u_wall = stats([r["wall_s"] for r in unpivot if r["returncode"] == 0])
    e_wall, c_wall = stats([r["wall_s"] for r in ok_etl]), stats([r["wall_s"] for r in ok_copy])
    e_rss = max((r["peak_rss_mb"] for r in ok_etl), default=None)
    res = {
        "config": {k: v for k, v in asdict(cfg).items() if k != "per_state"}
        | {"municipios": sum(cfg.per_state.values())},
        "archivo": {k: v for k, v in info.items() if k not in ("path", "delitos")} | {"generacion_s": round(gen_s, 2)},
        "etl": {
            "corridas": etl,
            "wall_s": e_wall,
            "pico_rss_mb_max": e_rss,
            "celdas_por_s": round(info["cells"] / e_wall["p50"]) if e_wall["p50"] else None,
            "mb_por_s": round(info["bytes"] / MB / e_wall["p50"], 2) if e_wall["p50"] else None,
        },
        "copia_duckdb": {
            "corridas": copy,
            "wall_s": c_wall,
            "pico_rss_mb_max": max((r["peak_rss_mb"] for r in ok_copy), default=None),
            "mb_por_s": round(info["bytes"] / MB / c_wall["p50"], 2) if c_wall["p50"] else None,
        },
        "despivote_duckdb": {"corridas": unpivot, "wall_s": u_wall},
        "ratio_p50": ratio(e_wall["p50"], c_wall["p50"]),
        "ratio_despivote_p50": ratio(e_wall["p50"], u_wall["p50"]),
        "objetivos": {"ratio_max": ETL_RATIO, "ratio_despivote_max": ETL_UNPIVOT_RATIO, "pico_rss_gb_max": ETL_RSS_GB},
    }
    res["cumple_ratio"] = res["ratio_p50"] is not None and res["ratio_p50"] <= ETL_RATIO
    rd = res["ratio_despivote_p50"]
    res["cumple_despivote"] = rd is not None and rd <= ETL_UNPIVOT_RATIO
    res["cumple_rss"] = e_rss is not None and e_rss <= ETL_RSS_GB * GB / MB
    failed = [r for r in etl if r["returncode"] != 0]
    if failed:
        res["falla"] = {"corridas_fallidas": len(failed), "stderr": failed[0].get("stderr", "")[:600]}
        if cfg.diagnose_failure:
            from bench import etl_profile

            log("[etl] la ETL falló: se repite en este proceso con cada sentencia cronometrada")
            diag = etl_profile.profile_load(csv, work / "diagnostico", allow_error=True)
            diag["sentencias"] = diag["sentencias"][:15]
            res["falla"]["diagnostico"] = diag
            log(f"[etl] diagnóstico: {diag.get('error', 'sin error')[:160]}; falló en {diag.get('fallo_en')}")
        oom = "RESOURCE_LIMIT" in failed[0].get("stderr", "") or "memoria" in failed[0].get("stderr", "")
        if oom and cfg.retry_memory_limit:
            r = _etl_once(csv, work / "data", memory_limit=cfg.retry_memory_limit)
            r["memory_limit"] = cfg.retry_memory_limit
            res["falla"]["reintento"] = r
            res["falla"]["ratio_reintento"] = ratio(r["wall_s"], c_wall["p50"]) if r["returncode"] == 0 else None
            log(
                f"[etl] con CASANDRA_ETL_MEMORY_LIMIT={cfg.retry_memory_limit}: {r['wall_s']} s, "
                f"pico RSS {r['peak_rss_mb']} MB (rc {r['returncode']})"
            )
    if cfg.floor_full:
        from bench import etl_profile

        floor = etl_profile.single_pass(csv, work / "piso")
        floor["ratio_copia_en_proceso"] = ratio(floor["total_s"], floor["copia_en_proceso_s"])
        res["piso_completo"] = floor
        log(
            f"[etl] piso del diseño en el archivo nacional: {floor['total_s']} s (lectura {floor['lectura_s']} s, "
            f"escritura {floor['resto_s']} s); copia en el mismo proceso {floor['copia_en_proceso_s']} s"
        )
    if cfg.layouts:
        from bench import store_layouts

        res["disenos"] = store_layouts.run(csv, work / "disenos")
        log(
            f"[etl] escritura por celda {res['disenos']['escritura_larga_s']} s, por línea "
            f"{res['disenos']['escritura_ancha_s']} s (copia {res['disenos']['copia_en_proceso_s']} s)"
        )
    csv.unlink(missing_ok=True)
    if cfg.profile_fraction:
        from bench import etl_profile

        part = _fraction(cfg.per_state, cfg.profile_fraction)
        pinfo = synth.generate(
            work / "perfil", profile, part, cfg.years, cfg.crimes, cfg.seed, name="IDM_NM_perfil", population=False
        )
        log(f"[etl] perfil por sentencia en {pinfo['cells']:,} celdas ({cfg.profile_fraction:.0%} de los municipios)")
        prof = etl_profile.profile_load(Path(pinfo["path"]), work / "perfil" / "data")
        cp = _copy_once(Path(pinfo["path"]), work / "perfil")
        prof["una_pasada"] = etl_profile.single_pass(Path(pinfo["path"]), work / "perfil" / "ref")
        log(
            f"[etl] perfil: ETL {prof['total_s']} s, piso del diseño (single_pass) {prof['una_pasada']['total_s']} s, "
            f"copia {cp['wall_s']} s"
        )
        prof["archivo"] = {
            "bytes": pinfo["bytes"],
            "filas": pinfo["rows"],
            "celdas": pinfo["cells"],
            "municipios": pinfo["municipios"],
        }
        prof["copia_duckdb_s"] = cp["wall_s"]
        prof["sentencias"] = prof["sentencias"][:15]
        res["perfil"] = prof
        shutil.rmtree(work / "perfil", ignore_errors=True)
    return res
