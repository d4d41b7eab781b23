"""Rule 1 of docs/decisions/0011 for municipal observations: the finer crime level stands.

Guanajuato's ``incidents`` hold municipal cells at subtipo level; the municipal rows of
``observations`` come at tipo level (the tipo × modalidad parquet) or subtipo level (the
Irapuato IDM_NM JSON). One number per cell:

- a municipal observation whose crime and month ``incidents`` cover (the same key) stands
  aside for the incident cell: ``vigente = false``, ``sustituida_por = 'incidents'``;
- a tipo-level row (``homicidio``, ``lesiones``, ``robo``: keys of the taxonomy's ``nivel ==
  "tipo"`` entries, which sum the subtipos their ``incluye`` lists) stands aside where every one
  of its subtipos is held for the same place and month, by ``incidents`` (then
  ``sustituida_por = 'incidents'``) or by a subtipo-level observation (then the name of that
  finer file). Where only some subtipos are held (robo a institución bancaria alone) the tipo row
  stands: its sum is the only complete number of the tipo.

Rows of the same key in two municipal files were already settled by rules 2 and 3 (newer cut,
then later load). State rows are replaced only where ``incidents`` cover them (as before): a
state row of the state file is finer in crime level than a municipal tipo row, and where both
exist the two agree (tests/core/etl/test_golden_parquet.py).
"""

from __future__ import annotations

import duckdb

from core.dataset import taxonomy
from core.etl.curate import insert_rows

SERIES = "o.medida = 'carpetas' AND o.fuero = 'comun' AND o.metodologia = 'IDFC'"
BY_INCIDENTS = "incidents"


def tipo_members(con: duckdb.DuckDBPyConnection) -> None:
    """``obs_tipo_members``: (tipo key, subtipo key) for every tipo-level entry of the taxonomy."""
    rows = [(c.delito, m) for c in taxonomy.load_crimes() if c.nivel == "tipo" for m in c.incluye]
    con.execute("CREATE OR REPLACE TEMP TABLE obs_tipo_members (tipo VARCHAR, member VARCHAR)")
    insert_rows(con, "obs_tipo_members", rows)


def municipal(con: duckdb.DuckDBPyConnection, table: str = "new_observations") -> None:
    """Mark the municipal rows of ``table`` (the next version's observations) that a finer cell replaces (see the
    module docstring)."""
    tipo_members(con)
    con.execute(
        """CREATE OR REPLACE TEMP TABLE obs_inc_month AS
           SELECT estado_id, delito, unnest(generate_series(desde, hasta, INTERVAL 1 MONTH))::DATE AS mes
           FROM new_coverage_month"""
    )
    # The covered states named as text too: the scan then skips the row groups of every other state.
    states = _states(con, "SELECT DISTINCT estado_id FROM obs_inc_month")
    if states:
        con.execute(
            f"""UPDATE {table} o SET vigente = false, sustituida_por = '{BY_INCIDENTS}' FROM obs_inc_month m
                WHERE o.nivel = 'municipio' AND {SERIES} AND o.estado_id IN ({states}) AND m.estado_id = o.estado_id
                  AND m.delito = o.delito AND m.mes = o.fecha"""
        )
    # The finer observation rows (a subtipo of a tipo-level key), whether they stand or not.
    con.execute(
        f"""CREATE OR REPLACE TEMP TABLE obs_fine AS
            SELECT lugar_id, delito, fecha, min(source_file) AS source_file FROM new_observations o
            WHERE o.nivel = 'municipio' AND {SERIES} AND delito IN (SELECT member FROM obs_tipo_members)
            GROUP BY ALL"""
    )
    # Only places some finer cell can cover need the check: those of a state the incidents cover (named as text, so
    # the scan skips the row groups of other states) and the (place, tipo, month) whose every subtipo a finer
    # observation holds (the only way a tipo row of another state can stand aside), found among the finer rows: the
    # parts' robo de vehículo rows are finer rows of every municipality, and none of them completes a tipo.
    con.execute(
        """CREATE OR REPLACE TEMP TABLE obs_fine_full AS
           SELECT f.lugar_id, mb.tipo AS delito, f.fecha FROM obs_fine f JOIN obs_tipo_members mb ON mb.member = f.delito
           JOIN (SELECT tipo, count(*) AS n FROM obs_tipo_members GROUP BY tipo) c ON c.tipo = mb.tipo
           GROUP BY f.lugar_id, mb.tipo, f.fecha, c.n HAVING count(*) = c.n"""
    )
    picked = [f"o.estado_id IN ({states})"] if states else []
    if con.execute("SELECT count(*) FROM (SELECT 1 FROM obs_fine_full LIMIT 1)").fetchone()[0]:
        picked.append(
            """EXISTS (SELECT 1 FROM obs_fine_full x WHERE x.lugar_id = o.lugar_id AND x.delito = o.delito
                                                       AND x.fecha = o.fecha)"""
        )
    con.execute(
        f"""CREATE OR REPLACE TEMP TABLE obs_tipo_aside AS
            WITH t AS (SELECT DISTINCT lugar_id, estado_id, delito, fecha FROM new_observations o
                       WHERE o.nivel = 'municipio' AND {SERIES} AND delito IN (SELECT tipo FROM obs_tipo_members)
                         AND ({" OR ".join(picked) or "FALSE"}))
            SELECT t.lugar_id, t.estado_id, t.delito, t.fecha,
                   CASE WHEN count(i.delito) = count(*) THEN '{BY_INCIDENTS}' ELSE min(f.source_file) END AS por
            FROM t JOIN obs_tipo_members mb ON mb.tipo = t.delito
            LEFT JOIN obs_inc_month i ON i.estado_id = t.estado_id AND i.delito = mb.member AND i.mes = t.fecha
            LEFT JOIN obs_fine f ON f.lugar_id = t.lugar_id AND f.delito = mb.member AND f.fecha = t.fecha
            GROUP BY ALL HAVING count(*) FILTER (WHERE i.delito IS NOT NULL OR f.delito IS NOT NULL) = count(*)"""
    )
    aside = _states(con, "SELECT DISTINCT estado_id FROM obs_tipo_aside")
    stateless = con.execute("SELECT count(*) FROM obs_tipo_aside WHERE estado_id IS NULL").fetchone()[0]
    if aside or stateless:
        where = f"o.estado_id IN ({aside})" if aside and not stateless else "TRUE"
        con.execute(
            f"""UPDATE {table} o SET vigente = false, sustituida_por = a.por FROM obs_tipo_aside a
                WHERE o.nivel = 'municipio' AND {SERIES} AND {where} AND o.lugar_id = a.lugar_id
                  AND o.delito = a.delito AND o.fecha = a.fecha"""
        )


def _states(con: duckdb.DuckDBPyConnection, query: str) -> str:
    """The states ``query`` gives, as a list of SQL literals ("" when none): a filter DuckDB checks per row group."""
    found = sorted(r[0] for r in con.execute(query).fetchall() if r[0] is not None)
    return ", ".join("'" + s.replace("'", "''") + "'" for s in found)


# The municipal carpetas of the común IDFC series, one number per cell, over a published version's query
# database, whose ``incidents`` already hold the standing observations beside the curated cells
# (core/etl/query_cells.py): a row ``cubre`` names lies inside a standing tipo-level row
# (robo a institución bancaria inside the parquet's «Robo»), so a sum over crimes skips it.
MUNICIPAL_CELLS_SQL = """
    SELECT i.entidad_id AS lugar_id, i.estado_id, c.tipo_key, i.delito, i.metodo, i.fecha, i.eventos, i.source_file
    FROM incidents i JOIN crimes c USING (delito) WHERE i.cubre IS NULL"""


def coverage_sql(obs: str, ent: str) -> str:
    """Runs (estado_id, delito, granularity, desde, hasta, meses) the standing municipal observations cover.

    A key counts the rows of its own level and, for a tipo, those of its subtipos (Irapuato's file
    holds robo by subtipo where the parquet holds the tipo). A month is covered only when at least
    half of the state's municipalities carry the key that month: one municipality's finer file
    (Irapuato's robo a negocio) is no state's coverage, or a question about another municipality
    would read a missing cell as a zero. Consecutive months collapse into runs, like ``coverage``.
    ``obs`` and ``ent`` are the observations and entities relations (tables of a load or Parquet files)."""
    # Only a state with municipalities in ``ent`` can be covered: the other states' rows (a national version's
    # 20 M, whose entities are Guanajuato's) are left out before the rows are deduplicated, not after.
    std = f"o.nivel = 'municipio' AND o.vigente AND {SERIES} AND o.estado_id IN (SELECT estado_id FROM mun)"
    return f"""
        WITH mun AS (SELECT estado_id, count(*) AS n FROM {ent} WHERE nivel = 'municipio' GROUP BY ALL),
        cells AS (
          SELECT estado_id, delito AS k, fecha, lugar_id FROM {obs} o WHERE {std}
          UNION
          SELECT estado_id, tipo_key, fecha, lugar_id FROM {obs} o WHERE {std} AND tipo_key <> delito),
        months AS (SELECT c.estado_id, c.k AS delito, c.fecha FROM cells c JOIN mun USING (estado_id)
                   GROUP BY ALL HAVING count(DISTINCT c.lugar_id) * 2 >= any_value(mun.n))
        SELECT estado_id, delito, 'month' AS granularity, min(fecha) AS desde, max(fecha) AS hasta,
               count(*)::INTEGER AS meses
        FROM (SELECT *, (year(fecha) * 12 + month(fecha))
                     - row_number() OVER (PARTITION BY estado_id, delito ORDER BY fecha) AS grp FROM months)
        GROUP BY estado_id, delito, grp ORDER BY delito, estado_id, desde"""


def municipal_coverage(con: duckdb.DuckDBPyConnection) -> None:
    """``new_obs_coverage``: the months each crime key of the standing municipal observations covers a state
    (``coverage_sql``); kept out of ``coverage``, whose runs decide which load owns an incident slice."""
    con.execute(f"CREATE OR REPLACE TABLE new_obs_coverage AS {coverage_sql('new_observations', 'new_entities')}")


def place_coverage_sql(obs: str, ent: str, coverage: str | None = None, months: tuple[int, int] = (0, 0)) -> str:
    """Runs (lugar_id, delito, desde, hasta, meses) of a municipality's own finer file where no state run covers
    the month (Irapuato's JSON: every subtipo, homicidio doloso before 2020): that municipality's question has a
    number, the others' do not (``coverage_sql`` keeps them out of the state's coverage). ``coverage`` is that
    state coverage when a load already computed it (``new_obs_coverage``), else it is computed here. ``months``
    bounds the month numbers (year × 12 + month − 1) of ``obs``'s rows (``month_bounds``)."""
    std = f"o.nivel = 'municipio' AND o.vigente AND {SERIES}"
    state = coverage or f"({coverage_sql(obs, ent)})"
    lo, hi = (int(m) for m in months)
    month_no = "(year({0}) * 12 + month({0}) - 1)"
    span = "date_diff('month', desde, hasta) + 1"
    # The state's months set a row aside first; a municipality's months of a crime are then one bit each, so its
    # rows are never deduplicated one by one (a national load's municipalities whose state has no coverage hold
    # 14 M distinct cells; grouped per municipality and crime they are 120 k bitstrings). A crime whose months
    # run unbroken is one run; only the others are expanded back to months and cut into runs.
    return f"""
        WITH state AS (SELECT estado_id, delito AS k,
                              unnest(generate_series(desde, hasta, INTERVAL 1 MONTH))::DATE AS fecha
                       FROM {state}),
        own AS (
          SELECT o.lugar_id, o.delito AS k, o.fecha FROM {obs} o
          ANTI JOIN state s ON s.estado_id = o.estado_id AND s.k = o.delito AND s.fecha = o.fecha WHERE {std}
          UNION ALL
          SELECT o.lugar_id, o.tipo_key, o.fecha FROM {obs} o
          ANTI JOIN state s ON s.estado_id = o.estado_id AND s.k = o.tipo_key AND s.fecha = o.fecha
          WHERE {std} AND o.tipo_key <> o.delito),
        held AS (SELECT lugar_id, k, min(fecha) AS desde, max(fecha) AS hasta,
                        bitstring_agg({month_no.format("fecha")}, {lo}, {hi}) AS bits
                 FROM own GROUP BY lugar_id, k),
        broken AS (SELECT lugar_id, k, fecha FROM (
                     SELECT lugar_id, k, bits, unnest(generate_series(desde, hasta, INTERVAL 1 MONTH))::DATE AS fecha
                     FROM held WHERE bit_count(bits) < {span})
                   WHERE get_bit(bits, ({month_no.format("fecha")} - {lo})::INTEGER) = 1)
        SELECT lugar_id, k AS delito, desde, hasta, bit_count(bits)::INTEGER AS meses FROM held
        WHERE bit_count(bits) = {span}
        UNION ALL
        SELECT lugar_id, k, min(fecha), max(fecha), count(*)::INTEGER
        FROM (SELECT *, (year(fecha) * 12 + month(fecha))
                     - row_number() OVER (PARTITION BY lugar_id, k ORDER BY fecha) AS grp FROM broken)
        GROUP BY lugar_id, k, grp ORDER BY delito, lugar_id, desde"""


def month_bounds(con: duckdb.DuckDBPyConnection, obs: str) -> tuple[int, int] | None:
    """The first and last month numbers (year × 12 + month − 1) of ``obs``'s rows, or None when it has none."""
    lo, hi = con.execute(f"SELECT min(fecha), max(fecha) FROM {obs}").fetchone()
    return None if lo is None else (lo.year * 12 + lo.month - 1, hi.year * 12 + hi.month - 1)
