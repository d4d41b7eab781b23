"""Where an ETL load spends its time: every SQL statement of ``run_etl`` timed, plus the Python phases.

``core.etl.pipeline._connect`` is wrapped (in this process only, nothing in ``core`` is
edited) so the staging connection logs the wall time of each ``execute``/``executemany``
with the statement's first words and the function of ``core.etl`` that issued it. The
Python work outside SQL (hashing and UTF-8 validation in ``sources._scan``) is timed the
same way. Used by ``bench.etl_throughput`` at a reduced size, or on its own::

    python -m bench.etl_profile FILE.csv [--data-dir DIR]
"""
from __future__ import annotations

import argparse
import contextlib
import json
import re
import shutil
import sys
import time
import traceback
from pathlib import Path

_TABLE = re.compile(r"(?:CREATE(?: OR REPLACE)?(?: TEMP)? (?:TABLE|VIEW)(?: IF NOT EXISTS)?|INSERT INTO|COPY)\s+([\w.]+)",
                    re.IGNORECASE)


def _label(sql: str) -> str:
    text = " ".join(str(sql).split())
    m = _TABLE.search(text[:200])
    if m:
        verb = text.split()[0].upper()
        if verb == "CREATE":
            verb = "CREATE"
        return f"{verb} {m.group(1)}"
    return text[:60]


def _caller() -> str:
    for fr in reversed(traceback.extract_stack()[:-2]):
        if "/core/" in fr.filename and "bench" not in fr.filename:
            return f"{Path(fr.filename).parent.name}/{Path(fr.filename).name}:{fr.name}"
    return "?"


class TimedConnection:
    """A DuckDB connection that records the wall time of every statement."""

    def __init__(self, con, log: list):
        self._con, self._log = con, log

    def execute(self, sql, *args, **kwargs):
        t0 = time.perf_counter()
        try:
            self._con.execute(sql, *args, **kwargs)
        finally:
            self._log.append({"sql": _label(sql), "donde": _caller(), "s": time.perf_counter() - t0})
        return self

    def executemany(self, sql, *args, **kwargs):
        t0 = time.perf_counter()
        try:
            self._con.executemany(sql, *args, **kwargs)
        finally:
            self._log.append({"sql": _label(sql), "donde": _caller(), "s": time.perf_counter() - t0})
        return self

    def __getattr__(self, name):
        return getattr(self._con, name)


@contextlib.contextmanager
def instrumented(log: list):
    """Wrap ``_connect`` and ``sources._scan`` while the block runs."""
    from core.etl import pipeline, sources

    orig_connect, orig_scan = pipeline._connect, sources._scan

    def connect(settings, work):
        return TimedConnection(orig_connect(settings, work), log)

    def scan(path, bom):
        t0 = time.perf_counter()
        try:
            return orig_scan(path, bom)
        finally:
            log.append({"sql": "(Python) sha256 + validación UTF-8 del archivo", "donde": "etl/sources.py:_scan",
                        "s": time.perf_counter() - t0})

    pipeline._connect, sources._scan = connect, scan
    try:
        yield
    finally:
        pipeline._connect, sources._scan = orig_connect, orig_scan


def profile_load(csv_path: Path, data_dir: Path, allow_error: bool = False) -> dict:
    """Run ``run_etl`` on one file with every statement timed; returns the sorted breakdown.

    With ``allow_error`` a refused or failed load still returns its breakdown, the error
    and the statement that was running when it failed."""
    from core.config import load_settings
    from core.etl import SourceSpec, run_etl

    data_dir = Path(data_dir)
    if data_dir.exists():
        shutil.rmtree(data_dir)
    settings = load_settings(data_dir)
    log: list = []
    from bench.common import quiet_fds

    error = None
    peak = [0]
    t0 = time.perf_counter()
    with _rss_watch(peak), instrumented(log), quiet_fds():
        try:
            result = run_etl([SourceSpec(Path(csv_path))], settings)
        except Exception as exc:
            if not allow_error:
                raise
            result, error = None, f"{type(exc).__name__}: {exc}"
            detail = getattr(exc, "hints", None)
            if detail:
                error += " | " + " ".join(map(str, detail))[:400]
    total = time.perf_counter() - t0
    agg: dict[tuple[str, str], dict] = {}
    for item in log:
        key = (item["sql"], item["donde"])
        a = agg.setdefault(key, {"sentencia": item["sql"], "donde": item["donde"], "veces": 0, "s": 0.0})
        a["veces"] += 1
        a["s"] += item["s"]
    rows = sorted(agg.values(), key=lambda a: -a["s"])
    timed = sum(a["s"] for a in rows)
    for a in rows:
        a["s"] = round(a["s"], 3)
        a["pct"] = round(100 * a["s"] / total, 1) if total else None
    shutil.rmtree(data_dir, ignore_errors=True)
    out = {"total_s": round(total, 2), "medido_s": round(timed, 2), "otros_s": round(total - timed, 2),
           "celdas": (result.summary.get("row_counts") or {}).get("incidents") if result else None,
           "pico_rss_mb": round(peak[0] / 2**20, 1), "sentencias": rows}
    if error:
        last = log[-1] if log else {}
        out["error"] = error
        out["fallo_en"] = {"sentencia": last.get("sql"), "donde": last.get("donde"), "s": round(last.get("s", 0), 2),
                           "inicio_s": round(sum(x["s"] for x in log[:-1]), 1)}
        out["orden"] = [{"sentencia": x["sql"], "donde": x["donde"], "s": round(x["s"], 2)} for x in log
                        if x["s"] >= 1.0]
    return out


@contextlib.contextmanager
def _rss_watch(peak: list, interval: float = 0.05):
    """Record this process's peak RSS (sampled) while the block runs."""
    import threading

    import psutil

    proc = psutil.Process()
    stop = threading.Event()

    def sample():
        while not stop.is_set():
            try:
                peak[0] = max(peak[0], proc.memory_info().rss)
            except psutil.Error:
                pass
            stop.wait(interval)

    th = threading.Thread(target=sample, daemon=True)
    th.start()
    try:
        yield
    finally:
        stop.set()
        th.join()


MONTHS = ("Enero", "Febrero", "Marzo", "Abril", "Mayo", "Junio", "Julio", "Agosto", "Septiembre", "Octubre",
          "Noviembre", "Diciembre")


def single_pass(csv_path: Path, work: Path, memory_limit: str = "1GB", threads: int = 2) -> dict:
    """A reference, not a product: the least an IDM_NM load must do, in one DuckDB pass.

    Read the CSV (text, latin-1), map the distinct municipality and crime labels (small
    tables), unpivot the 12 months, hash the row id, sort like ``new_incidents`` and write
    Parquet, with the ETL's memory limit. No quarantine, no duplicate check, no merge with
    a previous version: it bounds from below what the real ETL could reach."""
    import duckdb

    work = Path(work)
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    q = lambda p: "'" + str(p).replace("'", "''") + "'"
    names = ["anio", "clave_ent", "entidad", "cve", "municipio", "bien", "tipo", "subtipo", "modalidad"] + \
        [m.lower() for m in MONTHS]
    months = ", ".join(m.lower() for m in MONTHS)
    mcase = "CASE columna " + " ".join(f"WHEN '{m.lower()}' THEN {i}" for i, m in enumerate(MONTHS, 1)) + " END"
    slug = lambda c: f"trim(regexp_replace(lower(strip_accents({c})), '[^a-z0-9]+', '_', 'g'), '_')"
    t0 = time.perf_counter()
    con = duckdb.connect(str(work / "ref.duckdb"))
    con.execute(f"SET memory_limit = '{memory_limit}'")
    con.execute(f"SET threads = {int(threads)}")
    con.execute(f"SET temp_directory = {q(work / 'spill')}")
    con.execute("SET enable_progress_bar = false")
    con.execute(f"""CREATE TABLE raw AS SELECT row_number() OVER () + 1 AS source_row, *
                    FROM read_csv({q(csv_path)}, header = true, all_varchar = true, encoding = 'latin-1',
                                  names = {names})""")
    t1 = time.perf_counter()
    con.execute(f"""CREATE TABLE ent_map AS SELECT DISTINCT clave_ent, cve, municipio,
                    lpad(trim(cve), 5, '0') AS cve_municipio, 'MUN.' || upper({slug('municipio')}) AS entidad_id
                    FROM raw""")
    con.execute(f"""CREATE TABLE crime_map AS SELECT DISTINCT bien, tipo, subtipo, modalidad,
                    {slug('subtipo')} AS delito, {slug('modalidad')} AS metodo FROM raw""")
    con.execute(f"""COPY (
        SELECT (md5_number_lower(concat_ws('|', e.cve_municipio, strftime(fecha, '%Y-%m'), c.delito, c.metodo))
                & 9223372036854775807::UBIGINT)::BIGINT AS row_id,
               fecha, e.cve_municipio, e.entidad_id, c.delito, c.metodo, eventos, source_row
        FROM (SELECT *, make_date(TRY_CAST(anio AS INTEGER), {mcase}, 1) AS fecha,
                     TRY_CAST(trim(valor) AS BIGINT) AS eventos
              FROM (UNPIVOT (SELECT source_row, anio, clave_ent, cve, municipio, bien, tipo, subtipo, modalidad,
                                    {months} FROM raw)
                    ON {months} INTO NAME columna VALUE valor)
              WHERE trim(valor) <> '') u
        JOIN ent_map e USING (clave_ent, cve, municipio) JOIN crime_map c USING (bien, tipo, subtipo, modalidad)
        ORDER BY c.delito, fecha, e.cve_municipio) TO {q(work / 'incidents.parquet')} (FORMAT parquet, COMPRESSION zstd)""")
    t2 = time.perf_counter()
    cells = con.execute(f"SELECT count(*) FROM read_parquet({q(work / 'incidents.parquet')})").fetchone()[0]
    con.close()
    shutil.rmtree(work, ignore_errors=True)
    return {"total_s": round(t2 - t0, 2), "lectura_s": round(t1 - t0, 2), "resto_s": round(t2 - t1, 2), "celdas": cells}


def main(argv: list[str] | None = None) -> int:
    """CLI: print the breakdown of one load as JSON."""
    p = argparse.ArgumentParser(prog="python -m bench.etl_profile")
    p.add_argument("csv")
    p.add_argument("--data-dir", default=None)
    args = p.parse_args(argv)
    data_dir = Path(args.data_dir) if args.data_dir else Path(args.csv).with_suffix(".profile-data")
    out = profile_load(Path(args.csv), data_dir)
    sys.stdout.write(json.dumps(out, ensure_ascii=False, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
