"""Merge a load into the current version: slice ownership, diff and digest; the next version's tables are built
by ``core.etl.assembly`` and written here.

A file *owns* the (state, crime, month) slices it publishes: the months with a value in
a wide file, or every month of the declared/inferred coverage of a long file (where an
absent cell is a zero). The newest owner of a slice wins, so reloading the same content
changes nothing and a revised file replaces exactly the months it republishes.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import duckdb

from core.etl import curate, observations
from core.etl.publish import Depot

EMPTY_DDL = {
    "incidents": """row_id BIGINT, fecha DATE, cve_municipio VARCHAR, estado_id VARCHAR, entidad_id VARCHAR,
        delito VARCHAR, metodo VARCHAR, eventos BIGINT, source_file VARCHAR, source_row BIGINT""",
    "annual": """row_id BIGINT, anio INTEGER, cve_municipio VARCHAR, cve_ent VARCHAR, estado_id VARCHAR,
        entidad_id VARCHAR, municipio VARCHAR, delito VARCHAR, eventos BIGINT, metodologia VARCHAR,
        parcial BOOLEAN, meses INTEGER, source_file VARCHAR, source_row BIGINT""",
    "population": """cve_municipio VARCHAR, entidad_id VARCHAR, estado_id VARCHAR, anio INTEGER,
        poblacion BIGINT, fuente VARCHAR, source_file VARCHAR, source_row BIGINT""",
    "entities": """entidad_id VARCHAR, nivel VARCHAR, cve VARCHAR, cve_ent VARCHAR, estado_id VARCHAR,
        label VARCHAR, nombre_corto VARCHAR, aliases VARCHAR, parent_id VARCHAR""",
    "crimes": """delito VARCHAR, subtipo VARCHAR, tipo VARCHAR, tipo_key VARCHAR, bien_juridico VARCHAR,
        sinonimos VARCHAR, descripcion VARCHAR, granularity VARCHAR, nivel VARCHAR, incluye VARCHAR,
        en_datos BOOLEAN""",
    "methods": """metodo VARCHAR, modalidad VARCHAR, violencia VARCHAR, sinonimos VARCHAR, en_datos BOOLEAN""",
    "coverage": """estado_id VARCHAR, delito VARCHAR, granularity VARCHAR, desde DATE, hasta DATE, meses INTEGER""",
    "quarantine": """load_id VARCHAR, source_file VARCHAR, source_row BIGINT, motivo VARCHAR,
        valores VARCHAR, loaded_at VARCHAR""",
    **observations.EMPTY_DDL,  # the national files' tables (docs/decisions/0011)
}


def sql_literal(path: Path | str) -> str:
    """A file path as a quoted SQL string literal (for statements without parameters)."""
    return "'" + str(path).replace("'", "''") + "'"


INCIDENT_COLUMNS = (
    "row_id, fecha, cve_municipio, estado_id, entidad_id, delito, metodo, eventos, source_file, source_row"
)


def attach_current(con: duckdb.DuckDBPyConnection, depot: Depot) -> None:
    """Expose the current version's tables as ``cur_<table>`` (empty tables if none).

    A table the version keeps only in its query database (``DB_ONLY``, see ``write_tables``) is read there."""
    from core.etl import query_db  # it imports this module

    vid = depot.current_id()
    for table, ddl in EMPTY_DDL.items():
        path = depot.table_path(table)
        db_only = vid and path is None and table in DB_ONLY
        source = query_db.relation(con, depot.version_dir(vid), table) if db_only else None
        if path is None and source is None:
            con.execute(f"CREATE OR REPLACE TEMP TABLE cur_{table} ({ddl})")
        elif table == "incidents" and path is not None:
            _attach_incidents(con, path)
        else:
            con.execute(f"CREATE OR REPLACE TEMP VIEW cur_{table} AS SELECT * FROM {source or _parquet(path)}")


def _parquet(path: Path) -> str:
    return f"read_parquet({sql_literal(path)})"


def _attach_incidents(con: duckdb.DuckDBPyConnection, path: Path) -> None:
    """The current cells with today's row ids (versions before the narrow layout hashed them)."""
    src = f"read_parquet({sql_literal(path)})"
    names = {r[0] for r in con.execute(f"DESCRIBE SELECT * FROM {src}").fetchall()}
    if "municipio" not in names:  # narrow layout: row ids already built by curate.row_id_sql
        con.execute(f"CREATE OR REPLACE TEMP VIEW cur_incidents AS SELECT {INCIDENT_COLUMNS} FROM {src}")
        return
    pairs = con.execute(f"SELECT DISTINCT delito, metodo FROM {src}").fetchall()
    con.execute("CREATE OR REPLACE TEMP TABLE cur_kh (delito VARCHAR, metodo VARCHAR, kh BIGINT)")
    if pairs:
        con.executemany("INSERT INTO cur_kh VALUES (?, ?, ?)", [(d, m, curate.key_hash(d, m)) for d, m in pairs])
    cols = INCIDENT_COLUMNS.replace("row_id", curate.row_id_sql("k.kh", "i.cve_municipio", "i.fecha") + " AS row_id", 1)
    cols = cols.replace("delito, metodo", "i.delito, i.metodo").replace(
        "fecha, cve_municipio", "i.fecha, i.cve_municipio", 1
    )
    con.execute(f"""CREATE OR REPLACE TEMP VIEW cur_incidents AS SELECT {cols}
                    FROM {src} i JOIN cur_kh k ON i.delito = k.delito AND i.metodo = k.metodo""")


def ensure_batches(con: duckdb.DuckDBPyConnection) -> None:
    """Create the batch tables a load may not have filled."""
    from core.etl.layouts import reference  # the layouts import this module

    con.execute(curate.CURATED_DDL)
    con.execute(curate.LABELS_DDL)
    con.execute(curate.QUARANTINE_DDL)
    con.execute(reference.ANNUAL_DDL)
    con.execute(reference.POPULATION_DDL)
    con.execute(reference.ENTITY_DDL)
    observations.ensure_batches(con)
    con.execute(
        "CREATE TABLE IF NOT EXISTS owned (load_seq INTEGER, estado_id VARCHAR, delito VARCHAR, fecha DATE, kind VARCHAR)"
    )


def define_curated_all(con: duckdb.DuckDBPyConnection, direct_views: list[str]) -> None:
    """``curated_all``: the cells curated cell by cell plus those of directly loaded files."""
    parts = ["SELECT * FROM curated_batch"] + [f"SELECT * FROM {v}" for v in direct_views]
    if len(direct_views) == 1 and not con.execute("SELECT count(*) FROM curated_batch").fetchone()[0]:
        # One file, loaded directly: its cells alone, keys kept as the ENUMs the query database stores (a UNION
        # with the empty text table would cast 29 M keys to text for every reader; they read the same values).
        parts = parts[1:]
    con.execute("CREATE OR REPLACE VIEW curated_all AS " + " UNION ALL ".join(parts))


# Per (file, state, crime, month): cells, events and the two integer digests of the cells.
# One pass over the curated cells answers ownership, coverage, per-crime reports, the
# first-load diff and (when the cells are the whole version) the content digest.
SUMMARY_COLUMNS = """load_seq, estado_id, delito, fecha, count(*) AS n, sum(eventos) AS ev, bit_xor(row_id) AS x,
                     sum((row_id % 1000000007) * eventos) AS w"""


def summarize_cells(con: duckdb.DuckDBPyConnection, seq: int | None = None, direct: list[str] = ()) -> None:
    """(Re)build ``cell_summary`` for every file (directly loaded files bring theirs) or for one."""
    if seq is None:
        parts = [f"SELECT {SUMMARY_COLUMNS} FROM curated_batch GROUP BY ALL"] + [f"SELECT * FROM {t}" for t in direct]
        con.execute("CREATE OR REPLACE TABLE cell_summary AS " + " UNION ALL ".join(parts))
        return
    con.execute("DELETE FROM cell_summary WHERE load_seq = ?", [seq])
    con.execute(
        f"INSERT INTO cell_summary SELECT {SUMMARY_COLUMNS} FROM curated_all WHERE load_seq = ? GROUP BY ALL", [seq]
    )


def add_owned_observed(con: duckdb.DuckDBPyConnection, seq: int) -> None:
    """A wide file owns exactly the cells it carries; its months join the coverage."""
    con.execute(
        "INSERT INTO owned SELECT load_seq, estado_id, delito, fecha, 'cells' FROM cell_summary WHERE load_seq = ?",
        [seq],
    )


def add_owned_range(con: duckdb.DuckDBPyConnection, seq: int, first: str, last: str) -> None:
    """A long file owns every month of its coverage for each (state, crime) it carries:
    an absent cell there is a zero, so older cells in those slices must go."""
    con.execute(
        """INSERT INTO owned
           SELECT DISTINCT c.load_seq, c.estado_id, c.delito, m.fecha::DATE, 'slice'
           FROM (SELECT DISTINCT load_seq, estado_id, delito FROM curated_batch WHERE load_seq = ?) c,
                (SELECT unnest(generate_series(?::DATE, ?::DATE, INTERVAL 1 MONTH)) AS fecha) m""",
        [seq, first, last],
    )


DIGEST_SQL = {
    # Integer sums instead of an md5 per cell: row ids are already hashes of the keys, and a
    # changed count moves the weighted sum by (row_id mod p) x the change.
    "incidents": """SELECT coalesce(sum(n), 0), coalesce(sum(ev), 0), coalesce(bit_xor(x), 0), coalesce(sum(w), 0)
                    FROM new_incidents_summary""",
    "annual": "SELECT count(*), coalesce(sum(eventos), 0), coalesce(bit_xor(md5_number_lower(concat_ws('|', row_id, eventos, metodologia, parcial, meses))), 0) FROM new_annual",
    "population": "SELECT count(*), coalesce(sum(poblacion), 0), coalesce(bit_xor(md5_number_lower(concat_ws('|', cve_municipio, anio, fuente, poblacion))), 0) FROM new_population",
    "coverage": "SELECT count(*), 0, coalesce(bit_xor(md5_number_lower(concat_ws('|', estado_id, delito, granularity, desde, hasta))), 0) FROM new_coverage",
    "entities": "SELECT count(*), 0, coalesce(bit_xor(md5_number_lower(concat_ws('|', entidad_id, label, cve))), 0) FROM new_entities",
    **observations.DIGEST_SQL,
}


def content_digest(con: duckdb.DuckDBPyConnection, extra: dict | None = None) -> str:
    """sha256 over order-independent digests of the data tables (not sources or quarantine)."""
    parts = {name: [str(v) for v in con.execute(sql).fetchone()] for name, sql in DIGEST_SQL.items()}
    if extra:
        parts["extra"] = extra
    # Not core.text.canonical_json: its separators would change every published version id.
    blob = json.dumps(parts, sort_keys=True).encode()
    return hashlib.sha256(blob).hexdigest()


def current_cells(con: duckdb.DuckDBPyConnection) -> int:
    """Cells of the current version (0 for an empty store)."""
    return con.execute("SELECT count(*) FROM cur_incidents").fetchone()[0]


# The tables a version keeps only in its query database when the load wrote them there (``query_db.attach_new``):
# the national build's 20 M observations are written once, not also as Parquet (docs/decisions/0015, session 20),
# and the curated cells, which that database holds as ``incidents_cells`` (session 24). Readers of a version's table
# go through ``query_db.relation``; versions published with the Parquet file still load.
DB_ONLY = ("observations", "incidents")


def write_tables(con: duckdb.DuckDBPyConnection, folder: Path) -> dict[str, int]:
    """Write every ``new_<table>`` as Parquet into ``folder``, then the version's query database
    (``core.etl.query_db``); returns row counts. When the load attached that database (``query_db.attach_new``)
    its other tables are added there, and ``query_db.finish`` moves it into ``folder``; the ``DB_ONLY`` tables
    get no Parquet file: their rows are written there once (``incidents`` from ``new_incidents``)."""
    from core.etl import query_db  # it imports this module

    built = query_db.attached(con)
    counts = {}
    for table in EMPTY_DDL:
        path = folder / f"{table}.parquet"
        if built and table in DB_ONLY:  # its rows are (or go) in the query database: not written a second time
            counts[table] = con.execute(f"SELECT count(*) FROM new_{table}").fetchone()[0]
            continue
        # COPY and CREATE VIEW take no prepared parameters: our own paths, quoted.
        # COPY answers with the number of rows it wrote: no second pass to count them.
        counts[table] = con.execute(
            f"COPY new_{table} TO {sql_literal(path)} (FORMAT parquet, COMPRESSION zstd, PARQUET_VERSION V2)"
        ).fetchone()[0]
    if built:
        query_db.fill(folder, con, built, obs_coverage="new_obs_coverage", cells="new_incidents")
    else:
        query_db.write(folder, con, obs_coverage="new_obs_coverage")
    return counts
