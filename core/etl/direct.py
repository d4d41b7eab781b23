"""Direct load of a clean IDM_NM file: typed read, maps, unpivot, in three DuckDB statements.

The general path (``load`` → ``curate``) keeps every cell as text until it has checked it,
so that one bad cell is quarantined with its line and month while the rest of the row is
kept. That costs a text copy of every cell. A national SESNSP file is clean: every month
is an integer or empty, every label and municipality code is known. For such a file the
direct path reads the months as integers straight from the CSV, resolves the distinct
labels, refuses (returns ``None``) at the first sign of anything the general path would
quarantine, and writes curated cells in one ``INSERT … UNPIVOT``. The caller then runs the
general path on that file, so the outcome is identical either way, only faster.

The cells go to a Parquet file of the load's folder, or, when they are the whole next version (a first load of
this one file, ``core.etl.pipeline``), straight into the next version's query database as its
``incidents_cells``: written once (docs/decisions/0015, session 24).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import duckdb

from core.config import Limits
from core.etl import curate, state_sums
from core.etl.load import quote_ident
from core.etl.merge import sql_literal
from core.etl.query_cells import CELL_COLUMNS
from core.etl.sources import SourceFile
from core.text import MONTHS

if TYPE_CHECKING:
    from core.etl.layouts import Layout

# What the general path accepts as a count or a year; anything else goes back to it.
MAX_COUNT = 1_000_000_000
YEARS = (1990, 2100)
# Parquet v2 stores the integer columns (row ids, lines, counts) delta-encoded: 3x faster
# to write than v1's dictionary attempt on 29 M distinct row ids, and smaller.
PARQUET_OPTIONS = "FORMAT parquet, COMPRESSION zstd, PARQUET_VERSION V2"


@dataclass
class DirectLoad:
    """What the direct path loaded from one file: its cells are in ``path`` (or a table), read as ``view``."""

    rows: int
    cells: int
    path: Path | None
    view: str
    summary: str  # its rows of ``cell_summary`` (see core.etl.merge.summarize_cells)


def load_direct(
    con: duckdb.DuckDBPyConnection,
    source: SourceFile,
    layout: Layout,
    seq: int,
    limits: Limits,
    known: curate.KnownEntities,
    crimes: dict,
    methods: dict,
    out_dir: Path,
    cells_table: str | None = None,
) -> DirectLoad | None:
    """Curate a clean IDM_NM file into a Parquet file of cells, or into ``cells_table`` (the next version's
    ``incidents_cells``, with its columns) when given; ``None`` when it needs the general path."""
    if source.underscore:
        # The typed read would take '1_000' for 1000 (DuckDB's casts accept digit separators);
        # the general path sees the text and quarantines it. SESNSP files hold no underscore.
        return None
    # The typed rows live in an in-memory database: they are read once and dropped, and
    # writing them to the staging file would cost more than reading the CSV.
    con.execute("ATTACH IF NOT EXISTS ':memory:' AS direct_mem (COMPRESS)")
    table = f"direct_mem.raw_{seq}"
    loaded = None
    try:
        target = cells_table or Path(out_dir) / f"direct_{seq}.parquet"
        loaded = _load(con, source, layout, seq, limits, known, crimes, methods, table, target)
    except duckdb.ConversionException:
        pass  # a month that is not a number, a year that is not a year: cell by cell
    except duckdb.InvalidInputException:
        pass  # a malformed line: the general path quarantines it with its number
    finally:
        for t in (table, f"{table}_ent", f"{table}_crime", f"{table}_src", f"{table}_ent_e", f"{table}_crime_e"):
            con.execute(f"DROP TABLE IF EXISTS {t}")
        if loaded is None and cells_table:  # the general path writes the cells: none may be left here
            con.execute(f"DROP TABLE IF EXISTS {cells_table}")
    return loaded


def _load(
    con, source: SourceFile, layout: Layout, seq: int, limits: Limits, known, crimes, methods, table: str, target
) -> DirectLoad | None:
    # Months as DOUBLE, not BIGINT: DuckDB would round '3.5' into 4, where the general path
    # quarantines a non-integer count.
    types = {c: ("DOUBLE" if c in MONTHS else "INTEGER" if c == "anio" else "VARCHAR") for c in layout.columns}
    columns = "{" + ", ".join(f"'{c}': '{t}'" for c, t in types.items()) + "}"
    # rowid of a table filled in file order is the data line number minus 2 (header = line 1).
    con.execute(
        f"""CREATE OR REPLACE TABLE {table} AS
            SELECT * FROM read_csv(?, header = true, columns = {columns}, delim = ?, quote = '"',
                                   encoding = ?, max_line_size = ?, null_padding = false, parallel = true,
                                   auto_detect = false)""",
        [str(source.path), source.delimiter, source.duckdb_encoding, limits.max_line_bytes],
    )
    months = [quote_ident(m) for m in MONTHS]
    fractional = " OR ".join(f"{m} <> floor({m})" for m in months)
    rows, y_min, y_max, y_null, v_min, v_max, n_frac, n_keys = con.execute(
        f"""SELECT count(*), min(anio), max(anio), count(*) - count(anio),
                   min(least({", ".join(months)})), max(greatest({", ".join(months)})),
                   count(*) FILTER (WHERE {fractional}),
                   count(DISTINCT hash(anio, cve_municipio, bien_juridico, tipo, subtipo, modalidad))
            FROM {table}"""
    ).fetchone()
    if rows == 0 or y_null or y_min < YEARS[0] or y_max > YEARS[1]:
        return None
    if n_frac or (v_min is not None and (v_min < 0 or v_max > MAX_COUNT)):
        return None
    if n_keys != rows:
        # Two lines with one year, municipality code and crime labels repeat cells (the key
        # depends on nothing else); a hash collision only costs the general path.
        return None
    ents = con.execute(f"SELECT DISTINCT clave_ent, entidad, cve_municipio, municipio FROM {table}").fetchall()
    labels = con.execute(f"SELECT DISTINCT bien_juridico, tipo, subtipo, modalidad FROM {table}").fetchall()
    longest = max((len(v) for r in ents + labels for v in r if v), default=0)
    if longest > limits.max_field_chars:
        return None
    ent_rows = [curate.resolve_entity(tuple(r) + (None,), known) for r in ents]
    crime_rows = [curate.resolve_crime(tuple(r) + (None, None), crimes, methods) for r in labels]
    if any(r[-1] for r in ent_rows) or any(r[-1] for r in crime_rows):
        return None  # unknown municipality or empty crime label: quarantined by the general path
    _maps(con, table, ent_rows, crime_rows, source.name)
    # Two spellings of one municipality (renamed over the years) or of one crime map to one
    # key: only then can distinct lines repeat a cell, and only then is the join worth it.
    renamed = len({r[5] for r in ent_rows}) != len(ent_rows) or len({(r[10], r[12]) for r in crime_rows}) != len(
        crime_rows
    )
    if renamed and _repeated_keys(con, table):
        return None
    if isinstance(target, Path):
        cells = _write(con, table, target)
        source_sql = f"read_parquet({sql_literal(target)})"
    else:
        cells = _store(con, table, target)
        source_sql = f"(SELECT {', '.join(CELL_COLUMNS)} FROM {target})"
    _summarize(con, table, seq)
    curate.save_labels(con, f"{table}_ent", f"{table}_crime")
    con.execute(f"CREATE OR REPLACE VIEW direct_cells_{seq} AS SELECT {seq} AS load_seq, * FROM {source_sql}")
    path = target if isinstance(target, Path) else None
    return DirectLoad(rows=rows, cells=cells, path=path, view=f"direct_cells_{seq}", summary=f"direct_summary_{seq}")


def _summarize(con, table: str, seq: int) -> None:
    """This file's ``cell_summary`` rows from the wide rows still in memory (12x fewer than cells).

    Per (state, crime, year) and month: cells, events and the two integer digests of the
    row ids (``merge.SUMMARY_COLUMNS``), each month's row id being the line's base + month - 1;
    then one row per month with cells. Same numbers as aggregating the written cells."""
    aggs = []
    for i, m in enumerate(MONTHS, start=1):
        col, rid = f"r.{quote_ident(m)}", curate.row_id_expr("c.kh_i", "e.cve_i", "r.anio", str(i))
        aggs.append(f"""count({col}) AS n{i}, sum({col}::BIGINT) AS ev{i},
            bit_xor(CASE WHEN {col} IS NOT NULL THEN {rid} END) AS x{i}, sum(({rid} % 1000000007) * {col}::BIGINT) AS w{i}""")
    lists = ", ".join(f"unnest([{', '.join(f'{k}{i}' for i in range(1, 13))}]) AS {k}" for k in ("n", "ev", "x", "w"))
    con.execute(
        f"""CREATE OR REPLACE TABLE direct_summary_{seq} AS
            SELECT {seq}::INTEGER AS load_seq, estado_e::VARCHAR AS estado_id, delito_e::VARCHAR AS delito,
                   make_date(anio, m, 1) AS fecha, n, ev, x, w
            FROM (SELECT estado_e, delito_e, anio, unnest(range(1, 13)) AS m, {lists}
                  FROM (SELECT e.estado_e, c.delito_e, r.anio, {", ".join(aggs)} {_joined(table, "_e")}
                        GROUP BY ALL))
            WHERE n > 0"""
    )


def _maps(con, table: str, ent_rows: list, crime_rows: list, source_name: str) -> None:
    con.execute(f"CREATE OR REPLACE TABLE {table}_ent ({curate.ENT_MAP_COLUMNS})")
    curate.insert_rows(con, f"{table}_ent", ent_rows)
    con.execute(f"CREATE OR REPLACE TABLE {table}_crime ({curate.CRIME_MAP_COLUMNS})")
    curate.insert_rows(con, f"{table}_crime", crime_rows)
    con.execute(f"CREATE OR REPLACE TABLE {table}_src AS SELECT ?::VARCHAR AS v", [source_name])
    # Key columns as ENUMs: the Parquet writer then takes each column's dictionary as it is
    # instead of hashing 29 M strings per column (4x faster); they read back as VARCHAR. The
    # maps carry them already cast, so no cell casts a string. The writer's row-group minimum
    # of an ENUM column is its first entry, so the entries are sorted: the maximum stays exact
    # and a state filter still skips the groups that end before it (a VARCHAR estado_id would
    # give exact bounds for ~1 s more on the national file).
    name = table.replace(".", "_")
    for col, src in (
        ("cve_municipio", "ent"),
        ("estado_id", "ent"),
        ("entidad_id", "ent"),
        ("delito", "crime"),
        ("metodo", "crime"),
        ("v", "src"),
    ):
        con.execute(f"DROP TYPE IF EXISTS {name}_{col}")
        con.execute(f"""CREATE TYPE {name}_{col} AS ENUM (
                        SELECT DISTINCT {col} FROM {table}_{src} WHERE {col} IS NOT NULL ORDER BY 1)""")
    con.execute(f"""CREATE OR REPLACE TABLE {table}_ent_e AS
                    SELECT k_clave_ent, k_entidad, k_cve, k_mun, cve_municipio::BIGINT AS cve_i,
                           cve_municipio::{name}_cve_municipio AS cve_e, estado_id::{name}_estado_id AS estado_e,
                           entidad_id::{name}_entidad_id AS entidad_e
                    FROM {table}_ent""")
    con.execute(f"""CREATE OR REPLACE TABLE {table}_crime_e AS
                    SELECT k_bien, k_tipo, k_subtipo, k_modalidad, kh::BIGINT AS kh_i,
                           delito::{name}_delito AS delito_e, metodo::{name}_metodo AS metodo_e
                    FROM {table}_crime""")


def _joined(table: str, suffix: str = "") -> str:
    return f"""FROM {table} r
        JOIN {table}_ent{suffix} e
          ON r.clave_ent IS NOT DISTINCT FROM e.k_clave_ent AND r.entidad IS NOT DISTINCT FROM e.k_entidad
         AND r.cve_municipio IS NOT DISTINCT FROM e.k_cve AND r.municipio IS NOT DISTINCT FROM e.k_mun
        JOIN {table}_crime{suffix} c
          ON r.bien_juridico IS NOT DISTINCT FROM c.k_bien AND r.tipo IS NOT DISTINCT FROM c.k_tipo
         AND r.subtipo IS NOT DISTINCT FROM c.k_subtipo AND r.modalidad IS NOT DISTINCT FROM c.k_modalidad"""


def _repeated_keys(con, table: str) -> int:
    return con.execute(
        f"""SELECT count(*) FROM (SELECT r.anio, e.cve_municipio, c.delito, c.metodo {_joined(table)}
            GROUP BY ALL HAVING count(*) > 1)"""
    ).fetchone()[0]


def _cells_sql(table: str) -> str:
    """The file's curated cells, one per month with a count, keys already ENUM-typed by the maps."""
    name = table.replace(".", "_")
    month_no = "CASE mes " + " ".join(f"WHEN '{m}' THEN {i}" for i, m in enumerate(MONTHS, start=1)) + " END"
    months = [quote_ident(m) for m in MONTHS]
    # UNPIVOT drops empty months: an empty cell is a month not yet published, never a zero.
    return f"""
            SELECT {curate.row_id_expr("kh_i", "cve_i", "anio", "m")} AS row_id,
                   make_date(anio, m, 1) AS fecha, cve_e AS cve_municipio, estado_e AS estado_id,
                   entidad_e AS entidad_id, delito_e AS delito, metodo_e AS metodo, eventos::BIGINT AS eventos,
                   (SELECT v FROM {table}_src)::{name}_v AS source_file, source_row
            FROM (SELECT *, {month_no} AS m FROM (
                UNPIVOT (SELECT r.rowid + 2 AS source_row, r.anio, e.cve_i, e.cve_e, e.estado_e, e.entidad_e,
                                c.delito_e, c.metodo_e, c.kh_i, {", ".join("r." + m for m in months)}
                         {_joined(table, "_e")})
                ON {", ".join(months)} INTO NAME mes VALUE eventos))"""


def _write(con, table: str, path: Path) -> int:
    return con.execute(f"COPY ({_cells_sql(table)}) TO {sql_literal(path)} ({PARQUET_OPTIONS})").fetchone()[0]


def _store(con, table: str, cells_table: str) -> int:
    """Write the cells as the query database's ``incidents_cells`` (``core.etl.query_cells``): the rows its own
    statement would write from them with no observation beside them (``cubre`` empty, ``origen`` ``incidents``,
    ``estatal`` true). The keys keep the ENUM types of this file's maps, sorted as text like those ``query_cells``
    declares from the rows; a label whose every month is empty would be a member no row holds."""
    name = table.replace(".", "_")
    con.execute(f"DROP TYPE IF EXISTS {name}_cubre")
    con.execute(f"CREATE TYPE {name}_cubre AS ENUM (SELECT v FROM {table}_src WHERE FALSE)")
    con.execute(f"DROP TYPE IF EXISTS {name}_origen")
    con.execute(f"CREATE TYPE {name}_origen AS ENUM ('incidents')")
    con.execute(
        f"""CREATE TABLE {cells_table} AS
            SELECT *, NULL::{name}_cubre AS cubre, 'incidents'::{name}_origen AS origen, TRUE AS estatal
            FROM ({_cells_sql(table)})"""
    )
    n = con.execute(f"SELECT count(*) FROM {cells_table}").fetchone()[0]
    _state_sums(con, table, cells_table.rsplit(".", 1)[0])
    return n


def _state_sums(con, table: str, alias: str) -> None:
    """The query database's ``incidents_by_state`` (``core.etl.state_sums``) from the file's lines, 12x fewer than
    its cells: the same sums of the same cells (a month with no count has no cell), in the same order."""
    sums = ", ".join(
        f"sum(r.{quote_ident(m)}::BIGINT) AS s{i}, count(r.{quote_ident(m)}) AS n{i}" for i, m in enumerate(MONTHS, 1)
    )
    lists = ", ".join(f"unnest([{', '.join(f'{k}{i}' for i in range(1, 13))}]) AS {k}" for k in ("s", "n"))
    con.execute(
        f"""CREATE TABLE {alias}.{state_sums.TABLE} AS
            SELECT estado_id, delito, metodo, make_date(anio, m, 1) AS fecha, s AS eventos,
                   (SELECT v FROM {table}_src) AS files
            FROM (SELECT estado_id, delito, metodo, anio, unnest(range(1, 13)) AS m, {lists}
                  FROM (SELECT e.estado_e AS estado_id, c.delito_e AS delito, c.metodo_e AS metodo, r.anio, {sums}
                        {_joined(table, "_e")} GROUP BY ALL))
            WHERE n > 0
            ORDER BY {state_sums.ORDER}"""
    )
