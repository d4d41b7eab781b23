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


def municipal(con: duckdb.DuckDBPyConnection) -> None:
    """Mark the municipal rows of ``new_observations`` that a finer cell replaces (see the module docstring)."""
    tipo_members(con)
    con.execute(
        """CREATE OR REPLACE TEMP TABLE obs_inc_month AS
           SELECT estado_id, delito, unnest(generate_series(desde, hasta, INTERVAL 1 MONTH))::DATE AS mes
           FROM new_coverage_month"""
    )
    con.execute(
        f"""UPDATE new_observations o SET vigente = false, sustituida_por = '{BY_INCIDENTS}' FROM obs_inc_month m
            WHERE o.nivel = 'municipio' AND {SERIES} AND m.estado_id = o.estado_id AND m.delito = o.delito
              AND m.mes = o.fecha"""
    )
    # The finer observation rows (a subtipo of a tipo-level key), whether they stand or not.
    con.execute(
        f"""CREATE OR REPLACE TEMP TABLE obs_fine AS
            SELECT lugar_id, delito, fecha, min(source_file) AS source_file FROM new_observations o
            WHERE o.nivel = 'municipio' AND {SERIES} AND delito IN (SELECT member FROM obs_tipo_members)
            GROUP BY ALL"""
    )
    # Only places some finer cell can cover need the check: Guanajuato's (incidents) and those of obs_fine.
    con.execute(
        f"""CREATE OR REPLACE TEMP TABLE obs_tipo_aside AS
            WITH t AS (SELECT DISTINCT lugar_id, estado_id, delito, fecha FROM new_observations o
                       WHERE o.nivel = 'municipio' AND {SERIES} AND delito IN (SELECT tipo FROM obs_tipo_members)
                         AND (estado_id IN (SELECT estado_id FROM obs_inc_month)
                              OR lugar_id IN (SELECT lugar_id FROM obs_fine)))
            SELECT t.lugar_id, t.delito, t.fecha,
                   CASE WHEN count(i.delito) = count(*) THEN '{BY_INCIDENTS}' ELSE min(f.source_file) END AS por
            FROM t JOIN obs_tipo_members mb ON mb.tipo = t.delito
            LEFT JOIN obs_inc_month i ON i.estado_id = t.estado_id AND i.delito = mb.member AND i.mes = t.fecha
            LEFT JOIN obs_fine f ON f.lugar_id = t.lugar_id AND f.delito = mb.member AND f.fecha = t.fecha
            GROUP BY ALL HAVING count(*) FILTER (WHERE i.delito IS NOT NULL OR f.delito IS NOT NULL) = count(*)"""
    )
    con.execute(
        f"""UPDATE new_observations o SET vigente = false, sustituida_por = a.por FROM obs_tipo_aside a
            WHERE o.nivel = 'municipio' AND {SERIES} AND o.lugar_id = a.lugar_id AND o.delito = a.delito
              AND o.fecha = a.fecha"""
    )


# The municipal carpetas of the común IDFC series, one number per cell, over a published version:
# the standing observations plus the incident cells, except an incident cell whose tipo has a
# standing tipo-level row for the same place and month (robo a institución bancaria inside the
# parquet's «Robo»): a sum over crimes counts the tipo row, never it and its subtipos.
MUNICIPAL_CELLS_SQL = """
    WITH tipo_rows AS (
      SELECT DISTINCT lugar_id, delito AS tipo_key, fecha FROM observations
      WHERE nivel = 'municipio' AND vigente AND medida = 'carpetas' AND fuero = 'comun' AND metodologia = 'IDFC'
        AND delito IN (SELECT tipo_key FROM crimes WHERE tipo_key = delito))
    SELECT lugar_id, estado_id, tipo_key, delito, metodo, fecha, eventos, source_file FROM observations
    WHERE nivel = 'municipio' AND vigente AND medida = 'carpetas' AND fuero = 'comun' AND metodologia = 'IDFC'
    UNION ALL
    SELECT i.entidad_id, i.estado_id, c.tipo_key, i.delito, i.metodo, i.fecha, i.eventos, i.source_file
    FROM incidents i JOIN crimes c USING (delito)
    ANTI JOIN tipo_rows t ON t.lugar_id = i.entidad_id AND t.tipo_key = c.tipo_key AND t.fecha = i.fecha"""
