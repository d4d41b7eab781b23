"""Where an ETL load spends its time: every SQL statement of ``run_etl`` timed, plus the Python phases.

``core.etl.pipeline._connect`` is wrapped (in this process only, nothing in ``core`` is
edited) so the staging connection logs the wall time of each ``execute``/``executemany``
with the statement's first words and the function of ``core.etl`` that issued it. The
Python work outside SQL (hashing and UTF-8 validation in ``sources._scan``) is timed the
same way; what is left (Python between statements, copying the files of the version) is
``otros_s``. ``single_pass`` is the floor of the current design to set the ETL against.
Used by ``bench.etl_throughput`` at a reduced size, or on its own::

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

_TABLE = re.compile(
    r"(?:CREATE(?: OR REPLACE)?(?: TEMP)? (?:TABLE|VIEW)(?: IF NOT EXISTS)?|INSERT INTO|COPY)\s+([\w.]+)", re.IGNORECASE
)


def _label(sql: str) -> str:
    text = " ".join(str(sql).split())
    if text[:6].upper() == "COPY (":  # a query streamed to a file: name the file, not the query's first words
        to = re.findall(r"\)\s+TO\s+'([^']*)'", text)
        body = "UNPIVOT" if "UNPIVOT" in text.upper() else "SELECT"
        return f"COPY (… {body} …) TO {Path(to[-1]).name if to else '…'}"
    m = _TABLE.search(text[:200])
    if m:
        verb = text.split()[0].upper()
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
        """Run a statement on the wrapped connection and log its time and caller."""
        t0 = time.perf_counter()
        try:
            self._con.execute(sql, *args, **kwargs)
        finally:
            self._log.append({"sql": _label(sql), "donde": _caller(), "s": time.perf_counter() - t0})
        return self

    def executemany(self, sql, *args, **kwargs):
        """Run a statement for many parameter sets and log its time and caller."""
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
            log.append(
                {
                    "sql": "(Python) sha256 + validación UTF-8 del archivo",
                    "donde": "etl/sources.py:_scan",
                    "s": time.perf_counter() - t0,
                }
            )

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
    out = {
        "total_s": round(total, 2),
        "medido_s": round(timed, 2),
        "otros_s": round(total - timed, 2),
        "celdas": (result.summary.get("row_counts") or {}).get("incidents") if result else None,
        "pico_rss_mb": round(peak[0] / 2**20, 1),
        "sentencias": rows,
    }
    if error:
        last = log[-1] if log else {}
        out["error"] = error
        out["fallo_en"] = {
            "sentencia": last.get("sql"),
            "donde": last.get("donde"),
            "s": round(last.get("s", 0), 2),
            "inicio_s": round(sum(x["s"] for x in log[:-1]), 1),
        }
        out["orden"] = [
            {"sentencia": x["sql"], "donde": x["donde"], "s": round(x["s"], 2)} for x in log if x["s"] >= 1.0
        ]
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


MONTHS = (
    "Enero",
    "Febrero",
    "Marzo",
    "Abril",
    "Mayo",
    "Junio",
    "Julio",
    "Agosto",
    "Septiembre",
    "Octubre",
    "Noviembre",
    "Diciembre",
)
LABELS = ("anio", "clave_ent", "entidad", "cve_municipio", "municipio", "bien_juridico", "tipo", "subtipo", "modalidad")
FLOOR = (
    "lectura tipada a memoria y una sola escritura `COPY (… UNPIVOT …)` de celdas angostas con `row_id` "
    "aritmético y claves ENUM, en Parquet v2 zstd; sin revisiones, catálogo de etiquetas, resumen ni publicación"
)


def single_pass(csv_path: Path, work: Path, memory_limit: str = "1GB", threads: int = 2) -> dict:
    """A reference, not a product: the floor of the current design, in one DuckDB session.

    What the direct path of ``core.etl.direct`` reads and writes, and nothing else: the typed
    read of the CSV into an in-memory table (months as DOUBLE), the distinct municipality and
    crime labels mapped in SQL to ENUM keys, and one streamed ``COPY (… UNPIVOT …)`` of the
    narrow cells (arithmetic row id, date, keys, count, source file and line) to Parquet v2
    with zstd, under the ETL's memory limit and threads. No checks, no label catalogue, no
    summary pass, no publication: the real ETL's time minus this one is what those cost.
    DuckDB's bare copy of the same file is timed here too (``copia_en_proceso_s``), so the
    floor and the in-process profile compare with a copy that pays no interpreter start.
    (Before 58e77a0 this function sorted and md5-hashed every cell, like the ETL of then.)"""
    import duckdb

    work = Path(work)
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    q = lambda p: "'" + str(p).replace("'", "''") + "'"
    types = {c: "INTEGER" if c == "anio" else "VARCHAR" for c in LABELS} | dict.fromkeys(MONTHS, "DOUBLE")
    columns = "{" + ", ".join(f"'{c}': '{t}'" for c, t in types.items()) + "}"
    months = ", ".join(MONTHS)
    month_no = "CASE mes " + " ".join(f"WHEN '{m}' THEN {i}" for i, m in enumerate(MONTHS, 1)) + " END"
    slug = lambda c: f"trim(regexp_replace(lower(strip_accents({c})), '[^a-z0-9]+', '_', 'g'), '_')"
    out = work / "incidents.parquet"
    t0 = time.perf_counter()
    with duckdb.connect() as bare:  # the bare copy, as bench.etl_throughput.COPY_SCRIPT runs it
        bare.execute("SET enable_progress_bar = false")
        bare.execute(
            f"COPY (SELECT * FROM read_csv({q(csv_path)}, encoding = 'latin-1', header = true)) "
            f"TO {q(work / 'copia.parquet')} (FORMAT parquet)"
        )
    copy_s = time.perf_counter() - t0
    (work / "copia.parquet").unlink()
    t0 = time.perf_counter()
    con = duckdb.connect(str(work / "ref.duckdb"))
    for sql in (
        f"SET memory_limit = '{memory_limit}'",
        f"SET threads = {int(threads)}",
        f"SET temp_directory = {q(work / 'spill')}",
        "SET preserve_insertion_order = true",
        "SET enable_progress_bar = false",
        "ATTACH ':memory:' AS mem (COMPRESS)",
    ):
        con.execute(sql)
    con.execute(f"""CREATE TABLE mem.raw AS SELECT * FROM read_csv({q(csv_path)}, header = true, columns = {columns},
                    encoding = 'latin-1', auto_detect = false, parallel = true)""")
    t1 = time.perf_counter()
    con.execute("""CREATE TABLE mem.ent AS SELECT DISTINCT clave_ent, entidad, cve_municipio, municipio,
                    lpad(trim(cve_municipio), 5, '0') AS cve, 'EST.' || lpad(trim(clave_ent), 2, '0') AS est
                    FROM mem.raw""")
    con.execute(f"""CREATE TABLE mem.crime AS SELECT *, row_number() OVER () AS kh_i, {slug("subtipo")} AS delito,
                    {slug("modalidad")} AS metodo
                    FROM (SELECT DISTINCT bien_juridico, tipo, subtipo, modalidad FROM mem.raw)""")
    for name, col, src in (
        ("cve_t", "cve", "ent"),
        ("est_t", "est", "ent"),
        ("eid_t", "'MUN.' || cve", "ent"),
        ("del_t", "delito", "crime"),
        ("met_t", "metodo", "crime"),
    ):
        con.execute(f"CREATE TYPE {name} AS ENUM (SELECT DISTINCT {col} FROM mem.{src} WHERE {col} IS NOT NULL)")
    con.execute(f"CREATE TYPE src_t AS ENUM ({q(Path(csv_path).name)})")
    n = con.execute(f"""COPY (
        SELECT kh_i * {1 << 29} + cve_i * {1 << 12} + (anio - 1900) * 12 + m - 1 AS row_id,
               make_date(anio, m, 1) AS fecha,
               cve_e AS cve_municipio, est_e AS estado_id, eid_e AS entidad_id, delito_e AS delito, metodo_e AS metodo,
               eventos::BIGINT AS eventos, {q(Path(csv_path).name)}::src_t AS source_file, source_row
        FROM (SELECT *, {month_no} AS m FROM (
            UNPIVOT (SELECT r.rowid + 2 AS source_row, r.anio, e.cve::BIGINT AS cve_i, e.cve::cve_t AS cve_e,
                            e.est::est_t AS est_e, ('MUN.' || e.cve)::eid_t AS eid_e, c.kh_i,
                            c.delito::del_t AS delito_e, c.metodo::met_t AS metodo_e, {months}
                     FROM mem.raw r JOIN mem.ent e USING (clave_ent, entidad, cve_municipio, municipio)
                     JOIN mem.crime c USING (bien_juridico, tipo, subtipo, modalidad))
            ON {months} INTO NAME mes VALUE eventos))
        ) TO {q(out)} (FORMAT parquet, COMPRESSION zstd, PARQUET_VERSION V2)""").fetchone()[0]
    t2 = time.perf_counter()
    con.close()
    shutil.rmtree(work, ignore_errors=True)
    return {
        "total_s": round(t2 - t0, 2),
        "lectura_s": round(t1 - t0, 2),
        "resto_s": round(t2 - t1, 2),
        "celdas": n,
        "que_hace": FLOOR,
        "copia_en_proceso_s": round(copy_s, 2),
    }


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
