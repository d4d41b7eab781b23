"""The query database's ``incidents``: every municipal cell of the común carpetas, one number per cell (0012).

The curated incidents (subtipo level) plus the standing municipal observations (the tipo × modalidad parquet's
robo, narcomenudeo…, Irapuato's subtipos), so every analysis tool reads every crime the same way. Three columns
say what a row is. ``cubre`` names the tipo of a standing tipo-level row that already holds this subtipo row for
the same place and month (robo a institución bancaria inside the parquet's «Robo»): a question about the tipo, or
about all crimes, skips it (never counted twice); a question about the subtipo reads it. ``estatal`` says the row's
month is inside the state's coverage of its crime or tipo (``core.etl.precedence.coverage_sql``): a sum over the
state or its municipalities reads only those, so one municipality's longer file (Irapuato's JSON to 2025-12) never
makes a state month look complete; that municipality's own question reads all of its rows. ``origen`` names the
table a row comes from (row ids are hashes of each table's keys).

``incidents`` is a view (docs/decisions/0015, session 21). The curated cells and the observations of the states the
observations' coverage names (Guanajuato's, whose ``estatal`` varies by crime and month) are stored in
``incidents_cells``; the observations of every other state, whose ``estatal`` is false, are read in place from the
query database's ``observations``, so a national version's 20 M municipal rows are written once, not twice. A
state question about such a state reads none of them (its ``estatal`` is the constant false, which DuckDB folds).
The municipality code the view gives them comes from ``entities`` written into its definition (none outside
Guanajuato today); ``obs_cubre`` holds those a standing tipo row covers, joined only when it holds some.

A version keeps its curated cells only here (docs/decisions/0015, session 24): the rows of ``incidents_cells`` whose
``origen`` is ``incidents`` (``curated_sql``). A first load of one clean IDM_NM file writes them straight into this
table (``core.etl.direct``), with no observation to place beside them, so they are written once.
"""

from __future__ import annotations

import duckdb

CELLS = "incidents_cells"
# its text keys, stored as ENUM types named after them (``_store``)
ENUM_KEYS = ("cve_municipio", "estado_id", "entidad_id", "delito", "metodo", "source_file", "cubre", "origen")
COVERED = "obs_cubre"
# the curated cells' columns, as a version's incidents.parquet had them
CELL_COLUMNS = ("row_id", "fecha", "cve_municipio", "estado_id", "entidad_id", "delito", "metodo", "eventos")
CELL_COLUMNS += ("source_file", "source_row")
# the standing municipal carpetas of the común IDFC series, over the alias given
STANDING = "{0}nivel = 'municipio' AND {0}vigente AND {0}medida = 'carpetas' AND {0}fuero = 'comun' AND {0}metodologia = 'IDFC'"


def add(con: duckdb.DuckDBPyConnection, alias: str, inc: str, crimes: str) -> None:
    """Create ``incidents`` in the attached query database ``alias``, which already holds its ``observations``,
    ``entities`` and ``coverage``; ``inc`` and ``crimes`` are the version's curated cells and crimes relations."""
    obs = f"{alias}.observations"
    states = [
        r[0]
        for r in con.execute(
            f"""SELECT DISTINCT estado_id FROM {alias}.coverage WHERE origen = 'observations'
                AND estado_id IS NOT NULL ORDER BY 1"""
        ).fetchall()
    ]
    inside, outside = _in_states(states)
    con.execute(
        f"""CREATE OR REPLACE TEMP TABLE qdb_tipo_rows AS
            SELECT DISTINCT lugar_id, delito AS tipo_key, fecha FROM {obs} o
            WHERE {STANDING.format("o.")} AND delito IN (SELECT delito FROM {crimes} WHERE nivel = 'tipo')"""
    )
    try:
        if not _stored(con, alias):
            _store(con, alias, _stored_sql(alias, inc, crimes, inside))
        elif con.execute(f"SELECT count(*) FROM (SELECT 1 FROM {obs} LIMIT 1)").fetchone()[0]:
            # the direct path writes here only when the version has no observation (core.etl.pipeline), so that
            # every row is a curated cell with no ``cubre``, and ``incidents`` is these rows (its state sums too)
            raise RuntimeError("incidents_cells was written before the observations it needs were known")
        # ``tipo_key <> delito`` is implied by the join; tested first, it leaves the national parts' 20 M rows out of it
        con.execute(
            f"""CREATE TABLE {alias}.{COVERED} AS
                SELECT DISTINCT o.lugar_id, o.delito, o.tipo_key, o.fecha FROM {obs} o
                SEMI JOIN qdb_tipo_rows t ON t.lugar_id = o.lugar_id AND t.tipo_key = o.tipo_key AND t.fecha = o.fecha
                      AND t.tipo_key <> o.delito
                WHERE {STANDING.format("o.")} AND o.tipo_key <> o.delito AND {outside}"""
        )
    finally:
        con.execute("DROP TABLE IF EXISTS qdb_tipo_rows")
    rest = con.execute(
        f"SELECT count(*) FROM (SELECT 1 FROM {obs} o WHERE {STANDING.format('o.')} AND {outside} LIMIT 1)"
    )
    view = f"SELECT * FROM {CELLS}"
    if rest.fetchone()[0]:
        codes = con.execute(
            f"SELECT DISTINCT entidad_id, cve FROM {alias}.entities WHERE {outside.replace('o.', '')} ORDER BY 1"
        ).fetchall()
        joined = con.execute(f"SELECT count(*) FROM {alias}.{COVERED}").fetchone()[0] > 0
        view += f" UNION ALL {in_place_sql(codes, outside, joined)}"
    con.execute(f"CREATE VIEW {alias}.incidents AS {view}")


def curated_sql(cells: str) -> str:
    """The curated cells of the stored table ``cells`` (``incidents_cells``), with their keys as text."""
    keys = set(ENUM_KEYS)
    cols = ", ".join(f"{c}::VARCHAR AS {c}" if c in keys else c for c in CELL_COLUMNS)
    return f"(SELECT {cols} FROM {cells} WHERE origen = 'incidents')"


def _stored(con: duckdb.DuckDBPyConnection, alias: str) -> bool:
    found = "SELECT count(*) FROM duckdb_tables() WHERE database_name = ? AND table_name = ?"
    return con.execute(found, [alias, CELLS]).fetchone()[0] > 0


def _store(con: duckdb.DuckDBPyConnection, alias: str, rows: str) -> None:
    """Write ``incidents_cells`` from the SELECT ``rows`` with its text keys as ENUM types of the query database.

    DuckDB compresses a VARCHAR column by training a dictionary and FSST on it; on a national file's 29 M cells that
    took two thirds of the load's longest statement (12.4 of 26 s). An ENUM stores each key as a small integer
    (bit-packed); its values read back as text (``fetchall``/``fetchnumpy`` give ``str``), compare with text literals
    and parameters as VARCHAR does, with the filters still pushed into the scan, and sort as text (its values are
    declared in sorted order). Each type holds the values these rows hold (one scan of them), so no cast can fail."""
    keys = ", ".join(f"list(DISTINCT {c}::VARCHAR) AS {c}" for c in ENUM_KEYS)
    con.execute(f"CREATE OR REPLACE TEMP TABLE qdb_cells_keys AS SELECT {keys} FROM ({rows})")
    try:
        casts = []
        for column in ENUM_KEYS:
            kind = f"{alias}.{CELLS}_{column}"
            con.execute(f"DROP TYPE IF EXISTS {kind}")
            con.execute(
                f"""CREATE TYPE {kind} AS ENUM (
                    SELECT v FROM (SELECT unnest({column}) AS v FROM qdb_cells_keys) WHERE v IS NOT NULL ORDER BY v)"""
            )
            casts.append(f"{column}::{kind} AS {column}")
        con.execute(f"CREATE TABLE {alias}.{CELLS} AS SELECT * REPLACE ({', '.join(casts)}) FROM ({rows})")
    finally:
        con.execute("DROP TABLE IF EXISTS qdb_cells_keys")


def _in_states(states: list[str]) -> tuple[str, str]:
    """Conditions on ``o.estado_id``: inside ``states``, and outside them (a NULL state is outside)."""
    if not states:
        return "FALSE", "TRUE"
    listed = ", ".join(_text(s) for s in states)
    return f"o.estado_id IN ({listed})", f"(o.estado_id IS NULL OR o.estado_id NOT IN ({listed}))"


def _stored_sql(alias: str, inc: str, crimes: str, inside: str) -> str:
    """The rows ``incidents_cells`` stores: the curated cells, then the observations of the states ``inside`` names."""
    return f"""WITH c AS (SELECT delito, tipo_key FROM {crimes}),
                    months AS (SELECT DISTINCT estado_id, delito,
                                      unnest(generate_series(desde, hasta, INTERVAL 1 MONTH))::DATE AS fecha
                               FROM {alias}.coverage WHERE origen = 'observations')
               SELECT i.*, t.tipo_key AS cubre, 'incidents' AS origen, TRUE AS estatal
               FROM {inc} i LEFT JOIN c USING (delito)
               LEFT JOIN qdb_tipo_rows t ON t.lugar_id = i.entidad_id AND t.tipo_key = c.tipo_key AND t.fecha = i.fecha
                                        AND t.tipo_key <> i.delito
               UNION ALL BY NAME
               SELECT o.row_id, o.fecha, e.cve AS cve_municipio, o.estado_id, o.lugar_id AS entidad_id, o.delito,
                      o.metodo, o.eventos, o.source_file, o.source_row, t.tipo_key AS cubre, 'observations' AS origen,
                      (md.fecha IS NOT NULL OR mt.fecha IS NOT NULL) AS estatal
               FROM {alias}.observations o LEFT JOIN {alias}.entities e ON e.entidad_id = o.lugar_id
               LEFT JOIN months md ON md.estado_id = o.estado_id AND md.delito = o.delito AND md.fecha = o.fecha
               LEFT JOIN months mt ON mt.estado_id = o.estado_id AND mt.delito = o.tipo_key AND mt.fecha = o.fecha
               LEFT JOIN qdb_tipo_rows t ON t.lugar_id = o.lugar_id AND t.tipo_key = o.tipo_key AND t.fecha = o.fecha
                                        AND t.tipo_key <> o.delito
               WHERE {STANDING.format("o.")} AND {inside}"""


def in_place_sql(codes: list[tuple], outside: str, joined: bool) -> str:
    """The view's SELECT of the observations read in place (names unqualified: they bind in the query database).

    ``codes`` are the (entidad_id, cve) pairs of ``entities`` in those states, ``outside`` the condition on their
    state; ``joined`` joins ``obs_cubre`` (else no such observation is covered)."""
    whens = " ".join(f"WHEN {_text(e)} THEN {_text(c)}" for e, c in codes if e is not None and c is not None)
    code = f"CASE o.lugar_id {whens} ELSE NULL::VARCHAR END" if whens else "NULL::VARCHAR"
    cubre, join = "NULL::VARCHAR", ""
    if joined:
        cubre = "k.tipo_key"
        join = f"""LEFT JOIN {COVERED} k ON k.lugar_id = o.lugar_id AND k.delito = o.delito AND k.tipo_key = o.tipo_key
                   AND k.fecha = o.fecha"""
    return f"""SELECT o.row_id, o.fecha, {code} AS cve_municipio, o.estado_id, o.lugar_id AS entidad_id, o.delito,
                      o.metodo, o.eventos, o.source_file, o.source_row, {cubre} AS cubre, 'observations' AS origen,
                      FALSE AS estatal
               FROM observations o {join} WHERE {STANDING.format("o.")} AND {outside}"""


def _text(value: str) -> str:
    return "'" + str(value).replace("'", "''") + "'"
