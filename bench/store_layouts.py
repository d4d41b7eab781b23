"""Item 4, the design question behind the ETL target: one row per cell (today's store) or one per line.

The bare copy writes the file's wide lines; our store writes one row per monthly cell, 12
per line. Keeping the lines wide (12 month columns) and unpivoting when reading would make
the load cheaper. This measures both sides of that trade on the national file, in one
DuckDB session and from one typed read: the write of each layout (same keys, ids and
provenance) and the read of four query shapes the tools use, against the long file and
against a view that unpivots the wide one, with and without a year predicate the view can
push below its UNNEST (a window filter on ``fecha`` cannot be). A reference, not a product:
no checks, labels or publication (see ``bench.etl_profile.single_pass`` for the floor).
"""

from __future__ import annotations

import shutil
import statistics
import time
from pathlib import Path

from bench.etl_profile import LABELS
from core.text import MONTHS

PARQUET = "FORMAT parquet, COMPRESSION zstd, PARQUET_VERSION V2"
# (name, SQL over {v} with {a}: an extra year predicate for the wide view, parameters)
QUERIES = (
    (
        "municipios del país con más eventos de un delito en un año",
        "SELECT entidad_id, sum(eventos) AS s FROM {v} WHERE delito = ? AND fecha BETWEEN DATE '2024-01-01' "
        "AND DATE '2024-12-01' {a} GROUP BY 1 ORDER BY s DESC LIMIT 5",
        "AND anio = 2024",
    ),
    (
        "serie mensual de un delito en un estado, 10 años",
        "SELECT fecha, sum(eventos) FROM {v} WHERE delito = ? AND estado_id = ? {a} GROUP BY 1 ORDER BY 1",
        "",
    ),
    (
        "municipios de un estado con evidencia, 2 años",
        "SELECT entidad_id, sum(eventos) AS s, min(row_id), count(*) FROM {v} WHERE delito = ? AND estado_id = ? "
        "AND fecha >= DATE '2023-01-01' {a} GROUP BY 1 ORDER BY s DESC",
        "AND anio >= 2023",
    ),
    (
        "todo el país por delito, un año",
        "SELECT delito, sum(eventos) FROM {v} WHERE fecha >= DATE '2024-01-01' AND delito <> ? {a} GROUP BY 1",
        "AND anio >= 2024",
    ),
)


def _q(p) -> str:
    return "'" + str(p).replace("'", "''") + "'"


def _timed(con, sql: str, params: list | None = None) -> float:
    t0 = time.perf_counter()
    con.execute(sql, params or []).fetchall()
    return time.perf_counter() - t0


def run(csv_path: Path, work: Path, repeats: int = 5, threads: int = 2) -> dict:
    """Write both layouts from one typed read and time the query shapes on each."""
    import duckdb

    work = Path(work)
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    types = {c: "INTEGER" if c == "anio" else "VARCHAR" for c in LABELS} | dict.fromkeys(MONTHS, "BIGINT")
    columns = "{" + ", ".join(f"'{c}': '{t}'" for c, t in types.items()) + "}"
    months = ", ".join(MONTHS)
    con = duckdb.connect()
    for sql in (
        f"SET threads = {int(threads)}",
        "SET enable_progress_bar = false",
        "SET GLOBAL parquet_metadata_cache = true",
    ):
        con.execute(sql)
    copy_s = _timed(
        con,
        f"COPY (SELECT * FROM read_csv({_q(csv_path)}, encoding = 'latin-1', header = true)) "
        f"TO {_q(work / 'copia.parquet')} (FORMAT parquet)",
    )
    (work / "copia.parquet").unlink()
    con.execute(f"""CREATE TABLE raw AS SELECT * FROM read_csv({_q(csv_path)}, header = true, columns = {columns},
                    encoding = 'latin-1', auto_detect = false)""")
    for name, col in (("cve_t", "cve_municipio"), ("est_t", "clave_ent"), ("del_t", "subtipo"), ("met_t", "modalidad")):
        con.execute(f"CREATE TYPE {name} AS ENUM (SELECT DISTINCT {col} FROM raw WHERE {col} IS NOT NULL ORDER BY 1)")
    keys = """rowid + 2 AS source_row, anio, cve_municipio::BIGINT AS cve_i, cve_municipio::cve_t AS cve_municipio,
              clave_ent::est_t AS estado_id, cve_municipio::cve_t AS entidad_id, subtipo::del_t AS delito,
              modalidad::met_t AS metodo, (hash(subtipo, modalidad) % 17179869184)::BIGINT AS kh"""
    base = "kh * 536870912 + cve_i * 4096 + (anio - 1900) * 12"
    long_path, wide_path = work / "larga.parquet", work / "ancha.parquet"
    long_s = _timed(
        con,
        f"""COPY (SELECT {base} + m AS row_id, make_date(anio, m + 1, 1) AS fecha, cve_municipio,
                                   estado_id, entidad_id, delito, metodo, eventos, source_row
                            FROM (SELECT *, unnest([{months}]) AS eventos, unnest(range(12)) AS m
                                  FROM (SELECT {keys}, {months} FROM raw))
                            WHERE eventos IS NOT NULL) TO {_q(long_path)} ({PARQUET})""",
    )
    wide_s = _timed(
        con,
        f"""COPY (SELECT {base} AS row_base, * EXCLUDE (kh, cve_i)
                            FROM (SELECT {keys}, {months} FROM raw)) TO {_q(wide_path)} ({PARQUET})""",
    )
    con.execute("DROP TABLE raw")
    con.execute(f"CREATE VIEW larga AS SELECT *, year(fecha) AS anio FROM read_parquet({_q(long_path)})")
    con.execute(f"""CREATE VIEW ancha AS SELECT row_base + m AS row_id, make_date(anio, m + 1, 1) AS fecha, anio,
                    cve_municipio, estado_id, entidad_id, delito, metodo, eventos, source_row
                    FROM (SELECT *, unnest([{months}]) AS eventos, unnest(range(12)) AS m
                          FROM read_parquet({_q(wide_path)}))
                    WHERE eventos IS NOT NULL""")
    delito, estado = con.execute("SELECT delito, estado_id FROM larga WHERE eventos > 0 LIMIT 1").fetchall()[0]
    queries = []
    for name, sql, extra in QUERIES:
        params = [delito, estado] if "estado_id = ?" in sql else [delito]
        row = {"consulta": name}
        for key, view, a in (("larga_ms", "larga", ""), ("ancha_ms", "ancha", ""), ("ancha_anio_ms", "ancha", extra)):
            if key == "ancha_anio_ms" and not extra:
                row[key] = None
                continue
            text = sql.format(v=view, a=a)
            _timed(con, text, params)  # warm the footer cache
            row[key] = round(1000 * statistics.median(_timed(con, text, params) for _ in range(repeats)), 1)
        queries.append(row)
    con.close()
    sizes = {
        "larga_mb": round(long_path.stat().st_size / 2**20, 1),
        "ancha_mb": round(wide_path.stat().st_size / 2**20, 1),
    }
    shutil.rmtree(work, ignore_errors=True)
    return {
        "copia_en_proceso_s": round(copy_s, 2),
        "escritura_larga_s": round(long_s, 2),
        "escritura_ancha_s": round(wide_s, 2),
        **sizes,
        "consultas": queries,
        "repeticiones": repeats,
    }
