"""The query database's state sums of the municipal cells: ``incidents`` folded to state × crime × modalidad × month.

A state cell of the común carpetas set aside for its municipalities (``sustituida_por = 'municipal'``) counts as
the sum of their cells (docs/decisions/0011). The national tools (``core.tools.statecells.state_cells``) read that sum
here, where a national version's ``incidents`` holds 20 M rows and a question would otherwise scan them all, filtered
only by date (its rows are not in crime order, so no zonemap skips them): this table holds ~280 k rows in crime and
month order. It is derived from ``incidents`` alone, in the same query database, so each sum is the one a GROUP BY
over ``incidents`` gives (one number per cell, the precedence kept), and ``files`` is the sorted list of the files it
sums, as that GROUP BY's ``string_agg`` gives it (docs/decisions/0012).

Beside it, ``carpetas_estado``: the state-level rows of the común carpetas (IDFC) of ``observations``, every column,
standing or set aside, in the same crime and month order (~370 k of the national version's 21 M rows, which keep
their load order). ``state_cells`` reads a state cell there; the rows are the ones its condition selects from
``observations``, nothing else.
"""

from __future__ import annotations

import duckdb

TABLE = "incidents_by_state"
STATE_ROWS = "carpetas_estado"
ORDER = (
    "delito, fecha, estado_id, metodo"  # crime, then month order: a question's crime and window read a few row groups
)
# the rows of observations state_cells reads for the común carpetas (core/tools/national.py, COMUN_IDFC)
STATE_ROWS_WHERE = (
    "nivel IN ('estado', 'extranjero') AND medida = 'carpetas' AND fuero = 'comun' AND metodologia = 'IDFC'"
)


def add(con: duckdb.DuckDBPyConnection, alias: str) -> None:
    """Create ``incidents_by_state`` and ``carpetas_estado`` in the attached database ``alias`` unless it holds them."""
    present = {
        r[0] for r in con.execute("SELECT table_name FROM duckdb_tables() WHERE database_name = ?", [alias]).fetchall()
    }
    # (a first load of one IDM_NM file wrote it already, from the file's lines: core.etl.direct)
    if TABLE not in present:
        con.execute(f"CREATE TABLE {alias}.{TABLE} AS {fold(f'{alias}.incidents')} ORDER BY {ORDER}")
    if STATE_ROWS not in present:
        con.execute(
            f"""CREATE TABLE {alias}.{STATE_ROWS} AS SELECT * FROM {alias}.observations WHERE {STATE_ROWS_WHERE}
                ORDER BY delito, fecha, lugar_id, metodo"""
        )


def fold(source: str = "incidents") -> str:
    """SELECT of ``source``'s cells summed by state × crime × modalidad × month, with the files each sum reads.

    Also the relation a reader uses over a query database written before this table existed (same rows)."""
    # Summed per file first: the files of a sum are then its few rows, not a DISTINCT over 20 M (same sums, same list).
    return f"""SELECT estado_id, delito, metodo, fecha, sum(eventos) AS eventos,
                      string_agg(source_file, ', ' ORDER BY source_file) AS files
               FROM (SELECT estado_id, delito, metodo, fecha, source_file, sum(eventos) AS eventos
                     FROM {source} GROUP BY ALL) GROUP BY ALL"""
