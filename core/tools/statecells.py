"""The state cells a national tool sums (docs/decisions/0011, 0012): a series' standing state rows, and for a state
whose municipalities carry the finer figure (Guanajuato), the sum of those municipal cells in its place — read
from the query database's state tables when it holds them (core/etl/state_sums.py), else folded from incidents.
"""

from __future__ import annotations

from datetime import date

from core.etl import state_sums
from core.tools import ToolContext
from core.tools.national import COMUN_IDFC, Crime, Series, Window


def state_cells(
    series: Series,
    crime_: Crime,
    win: Window,
    place_sql: str = "TRUE",
    place_params: tuple | list = (),
    beyond: tuple[list[str], list[date]] | None = None,
    sums: str = f"({state_sums.fold()})",
    rows: str = "observations",
) -> tuple[str, list]:
    """SELECT of one series' standing cells (lugar_id, fecha, delito, eventos, municipal, source_file) by state.

    A state row set aside for its municipalities is replaced by their sum in ``incidents`` (the precedence
    rule's finer level first); a covered municipal month with no row there is a zero of a non-zero-only file.
    ``beyond`` (``beyond_months``: states and months) adds, for one subtipo of the común carpetas, the months only
    the municipal files publish (a state whose municipalities all report after the state file's cut: Guanajuato's
    homicides to 2025-11); a tipo is never extended, since its subtipos' municipal coverage can end at different
    months. ``sums`` is the relation of
    those municipal sums by state × crime × modalidad × month (``municipal_sums``: the query database's table), and
    ``rows`` the relation of the común carpetas' state-level rows (``state_rows``: every such row of observations).
    """
    cond, params = series.where()
    crime_sql, crime_params = crime_.where()
    where = f"""o.nivel IN ('estado', 'extranjero') AND {cond} AND o.fecha BETWEEN ? AND ? AND {crime_sql}
                AND ({place_sql})"""
    if series != COMUN_IDFC:  # only the común carpetas have state rows set aside for municipalities
        sql = f"""SELECT o.lugar_id, o.fecha, o.delito, o.eventos, FALSE AS municipal, o.source_file
                  FROM observations o WHERE {where} AND o.vigente"""
        return sql, [*params, win.start, win.end, *crime_params, *place_params]
    sql = f"""SELECT o.lugar_id, o.fecha, o.delito,
                     CASE WHEN o.vigente THEN o.eventos ELSE coalesce(m.n, 0) END AS eventos,
                     NOT o.vigente AS municipal,
                     CASE WHEN o.vigente THEN o.source_file ELSE m.files END AS source_file
              FROM {rows} o
              LEFT JOIN (SELECT estado_id, fecha, delito, metodo, eventos AS n, files
                         FROM {sums} s WHERE fecha BETWEEN ? AND ? AND {crime_.cells_where("s")[0]}) m
                ON NOT o.vigente AND m.estado_id = o.lugar_id AND m.fecha = o.fecha
               AND m.delito = o.delito AND m.metodo = o.metodo
              WHERE {where} AND (o.vigente OR o.sustituida_por = 'municipal')"""
    out = [win.start, win.end, *crime_.cells_where()[1], *params, win.start, win.end, *crime_params, *place_params]
    if beyond is None or crime_.level != "delito":
        return sql, out
    states, months = beyond
    sql += f"""
              UNION ALL
              SELECT o.lugar_id, o.fecha, o.delito, o.eventos, TRUE, o.source_file
              FROM (SELECT k.estado_id AS lugar_id, 'estado' AS nivel, k.mes AS fecha, k.delito,
                           coalesce(sum(i.eventos), 0) AS eventos,
                           string_agg(DISTINCT i.files, ', ' ORDER BY i.files) AS source_file
                    FROM (SELECT unnest(?::VARCHAR[]) AS estado_id, unnest(?::DATE[]) AS mes, ?::VARCHAR AS delito) k
                    LEFT JOIN (SELECT * FROM {sums} WHERE delito = ? AND fecha BETWEEN ? AND ?) i
                      ON i.estado_id = k.estado_id AND i.delito = k.delito AND i.fecha = k.mes
                         {"AND i.metodo IN (" + ", ".join("?" * len(crime_.metodos)) + ")" if crime_.metodos else ""}
                    WHERE k.mes BETWEEN ? AND ?
                    GROUP BY ALL) o
              WHERE ({place_sql})"""
    keys = [states, months, crime_.key, crime_.key, win.start, win.end, *crime_.metodos]
    return sql, [*out, *keys, win.start, win.end, *place_params]


def beyond_months(ctx: ToolContext, key: str) -> tuple[list[str], list[date]]:
    """(states, months) a subtipo's común carpetas publish only by municipality: covered months with no state row.

    A fact of the version, looked up once: a question then reads no state row to find them (``state_cells``)."""
    cond, params = COMUN_IDFC.where("s")
    sql = f"""SELECT k.estado_id, k.mes
              FROM (SELECT estado_id, delito, unnest(generate_series(desde, hasta, INTERVAL 1 MONTH))::DATE AS mes
                    FROM coverage WHERE granularity = 'month' AND delito = ?) k
              WHERE NOT EXISTS (SELECT 1 FROM observations s WHERE s.nivel = 'estado' AND s.lugar_id = k.estado_id
                                AND s.fecha = k.mes AND s.delito = k.delito AND {cond})
              ORDER BY ALL"""

    def compute() -> tuple[list[str], list[date]]:
        rows = ctx.query(sql, [key, *params])  # repeats kept: each covered month joins as the coverage lists it
        return [r[0] for r in rows], [r[1] for r in rows]

    return ctx.memo(("beyond_months", key), compute)


def _held(ctx: ToolContext, table: str) -> bool:
    """Whether the query database holds ``table`` (one written before it did not): a fact of the version."""
    return bool(
        ctx.memo(
            ("table", table),
            lambda: ctx.query("SELECT count(*) FROM duckdb_tables() WHERE table_name = ?", [table])[0][0],
        )
    )


def municipal_sums(ctx: ToolContext) -> str:
    """The municipal cells summed by state × crime × modalidad × month: the query database's table, or ``incidents``
    folded the same way in a query database written before that table existed (core/etl/state_sums.py)."""
    return state_sums.TABLE if _held(ctx, state_sums.TABLE) else f"({state_sums.fold()})"


def state_rows(ctx: ToolContext) -> str:
    """The state-level común carpetas rows in crime and month order (core/etl/state_sums.py), else ``observations``."""
    return state_sums.STATE_ROWS if _held(ctx, state_sums.STATE_ROWS) else "observations"
