"""Annual series of a crime with its year-over-year change (tool 18), summed from the monthly data.

Each year is the sum of its published months inside the window. A year with fewer than 12
published months is partial: its change is measured against the same months of the year
before (never a partial year against a whole one), and the answer says so.
"""

from __future__ import annotations

from core.ask.wording import fmt_int, fmt_pct, join_y, period_words
from core.engine.envelope import records
from core.text import MONTHS
from core.tools import FIRST_IDS, Evidence, ResolvedStep, ToolContext, ToolOutput
from core.tools.extremes import month_totals_sql, published_months
from core.tools.scope import crime_label, period_label, where

COLUMNS = [
    ("anio", "int"),
    ("conteo", "int"),
    ("meses", "int"),
    ("parcial", "bool"),
    ("conteo_base", "int"),
    ("cambio", "int"),
    ("cambio_pct", "float"),
    ("desde_mes", "int"),
    ("hasta_mes", "int"),
]


def serie_anual(ctx: ToolContext, step: ResolvedStep) -> ToolOutput:
    """One row per year: events, published months, and the change against the same months of the year before."""
    scope = step.scope
    cond, params = where(scope)
    pub = published_months(ctx, scope)
    sql = f"""WITH {month_totals_sql(cond)},
        y AS (SELECT year(m) AS anio, sum(n) AS n, count(*) AS meses, min(month(m)) AS m0, max(month(m)) AS m1
              FROM mt GROUP BY 1),
        b AS (SELECT y.anio, sum(mt.n) AS nb, count(mt.m) AS mb FROM y JOIN mt
                ON year(mt.m) = y.anio - 1 AND month(mt.m) BETWEEN y.m0 AND y.m1 GROUP BY 1)
        SELECT y.anio, y.n, y.meses, y.m0, y.m1, CASE WHEN b.mb = y.meses THEN b.nb END, NULL, NULL
        FROM y LEFT JOIN b USING (anio)
        UNION ALL
        SELECT NULL, NULL, NULL, NULL, NULL, NULL,
               coalesce({FIRST_IDS}, []),
               count(*) FILTER (WHERE eventos > 0) FROM f"""
    got = ctx.query(sql, [pub, *params])
    ev = next(r for r in got if r[0] is None)
    rows = []
    for anio, n, meses, m0, m1, nb, _, _ in sorted((r for r in got if r[0] is not None), key=lambda r: r[0]):
        n, nb = int(n), (int(nb) if nb is not None else None)
        cambio = n - nb if nb is not None else None
        pct = round(100 * cambio / nb, 2) if nb else None
        rows.append([int(anio), n, int(meses), int(meses) < 12, nb, cambio, pct, int(m0), int(m1)])
    partial = [r for r in rows if r[3]]
    warnings = [
        f"{r[0]} es parcial ({MONTHS[r[7] - 1]}–{MONTHS[r[8] - 1]}, {r[2]} meses): su cambio se mide contra los "
        "mismos meses del año anterior."
        for r in partial
    ]
    if len(pub) < month_count(scope):
        warnings.append("Algunos meses de la ventana no están publicados: no son cero y no se suman.")
    last = rows[-1] if rows else None
    metrics = {
        "lugar": scope.entity.label,
        "anios": len(rows),
        "total": sum(r[1] for r in rows),
        "ultimo_anio": last[0] if last else None,
        "ultimo_cambio_pct": last[6] if last else None,
        "anios_parciales": [r[0] for r in partial],
    }
    return ToolOutput(
        columns=list(COLUMNS),
        rows=rows,
        headline=f"Serie anual de {crime_label(ctx, scope)} — {scope.entity.label}, {period_label(scope)}",
        highlights=[f"{r[0]}: {r[1]:,}" + (f" ({r[6]:+.1f} %)" if r[6] is not None else "") for r in rows[-3:]],
        evidence=Evidence(cond, params, ids=[int(x) for x in ev[6]], total=int(ev[7])),
        warnings=warnings,
        metrics=metrics,
        empty=not pub,
    )


def month_count(scope) -> int:
    """Months of the scope's window."""
    return (scope.date_to.year - scope.date_from.year) * 12 + scope.date_to.month - scope.date_from.month + 1


def _change(r: dict) -> str:
    if r["cambio_pct"] is None:
        return "sin base" if r["conteo_base"] is None else "base en cero"
    return fmt_pct(r["cambio_pct"], signed=True)


def lead(env: dict, rows: list[dict], noun, per: str) -> list[str]:
    """Each year's total with its change; the partial year named with its months."""
    met = env.get("metrics") or {}
    who = met.get("lugar", "")
    if not rows:
        return [f"No hay años publicados de {noun()} en {who} {per}."]
    items = join_y(
        f"{r['anio']}: {fmt_int(r['conteo'])}" + (f" ({_change(r)})" if r is not rows[0] else "") for r in rows
    )
    out = [f"{noun().capitalize()} por año en {who}: {items}."]
    full = [r for r in rows if not r["parcial"]]
    if len(full) >= 2:
        first, last = full[0], full[-1]
        direction = "más" if last["conteo"] > first["conteo"] else "menos"
        if last["conteo"] != first["conteo"]:
            out.append(f"{last['anio']} cerró con {direction} casos que {first['anio']}.")
    for r in rows:
        if r["parcial"]:
            y = r["anio"]
            span = period_words(f"{y}-{r['desde_mes']:02d}", f"{y}-{r['hasta_mes']:02d}")
            out.append(
                f"{r['anio']} es parcial ({span}): el cambio se mide contra los mismos meses de {r['anio'] - 1}"
                + (f" ({fmt_int(r['conteo_base'])})." if r["conteo_base"] is not None else ".")
            )
    return out


def chart(env: dict, pipeline: list[dict] | None = None) -> dict:
    """Bars per year; a partial year is marked."""
    rows = records(env)
    crimes = env.get("summary", {}).get("headline", "").split(" — ")[0].replace("Serie anual de ", "")
    return {
        "type": "bar",
        "x": "anio",
        "y": "conteo",
        "title": f"Serie anual: {crimes} — {(env.get('metrics') or {}).get('lugar', '')}",
        "y_label": "Delitos registrados",
        "data": [{k: r[k] for k in ("anio", "conteo", "cambio_pct", "parcial")} for r in rows],
        "partial": [r["anio"] for r in rows if r["parcial"]],
    }
