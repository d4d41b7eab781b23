"""The query database's state sums of the municipal cells: ``incidents`` folded to state × crime × modalidad × month.

A state cell of the común carpetas set aside for its municipalities (``sustituida_por = 'municipal'``) counts as
the sum of their cells (docs/decisions/0011). The national tools (``core.tools.national.state_cells``) read that sum
here, where a national version's ``incidents`` holds 20 M rows and a question would otherwise scan them all, filtered
only by date (its rows are not in crime order, so no zonemap skips them): this table holds ~280 k rows in crime and
month order. It is derived from ``incidents`` alone, in the same query database, so each sum is the one a GROUP BY
over ``incidents`` gives (one number per cell, the precedence kept), and ``files`` is the sorted list of the files it
sums, as that GROUP BY's ``string_agg`` gives it (docs/decisions/0012).
"""

from __future__ import annotations

import duckdb

TABLE = "incidents_by_state"


def add(con: duckdb.DuckDBPyConnection, alias: str) -> None:
    """Create ``alias.incidents_by_state`` from ``alias.incidents`` unless the attached database holds it already."""
    present = con.execute(
        "SELECT count(*) FROM duckdb_tables() WHERE database_name = ? AND table_name = ?", [alias, TABLE]
    ).fetchone()[0]
    if present:
        return
    # crime, then month order: a question's crime and window read a few row groups
    con.execute(
        f"CREATE TABLE {alias}.{TABLE} AS {fold(f'{alias}.incidents')} ORDER BY delito, fecha, estado_id, metodo"
    )


def fold(source: str = "incidents") -> str:
    """SELECT of ``source``'s cells summed by state × crime × modalidad × month, with the files each sum reads.

    Also the relation a reader uses over a query database written before this table existed (same rows)."""
    return f"""SELECT estado_id, delito, metodo, fecha, sum(eventos) AS eventos,
                      string_agg(DISTINCT source_file, ', ' ORDER BY source_file) AS files
               FROM {source} GROUP BY ALL"""
