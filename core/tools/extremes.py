"""Peak, lowest and average of a window (tool 15): the months (or years) of one entity, ranked by the statement.

A month outside every selected crime's coverage is not published: it is never a zero, never
the lowest month and never counted in an average (docs/contracts/design.md §2). The days of
an average are the calendar days of the published months, said in the answer.
"""

from __future__ import annotations

from datetime import date

from core.ask.wording import fmt_int, fmt_num, join_y, month_words
from core.engine.envelope import records
from core.text import month_from_index, month_index
from core.tools import FIRST_IDS, Evidence, ResolvedStep, Scope, ToolContext, ToolOutput
from core.tools.scope import crime_label, period_label, where

COLUMNS = [
    ("periodo", "string"),
    ("fecha", "date"),
    ("conteo", "int"),
    ("meses", "int"),
    ("dias", "int"),
    ("parcial", "bool"),
    ("puesto_max", "int"),
    ("puesto_min", "int"),
]
# why: one grouping expression per granularity, chosen from this closed table (never from user text)
_PERIOD = {
    "mes": "m",
    "trimestre": "date_trunc('quarter', m)",
    # a semester starts in January or July: the month index floored to six months
    "semestre": "make_date(year(m), CASE WHEN month(m) <= 6 THEN 1 ELSE 7 END, 1)",
    "anio": "date_trunc('year', m)",
}
_MONTHS_IN = {"mes": 1, "trimestre": 3, "semestre": 6, "anio": 12}  # fewer published: a partial period


def published_months(ctx: ToolContext, scope: Scope) -> list[date]:
    """First day of each month of the window that at least one selected crime publishes in the entity's state."""
    cov = ctx.metadata.get("coverage", {})
    keys = [k for k in (scope.delito_keys or sorted(cov)) if k in cov and cov[k].get("granularity", "month") == "month"]
    runs = [
        (date.fromisoformat(r["desde"]), date.fromisoformat(r["hasta"]))
        for k in keys
        for r in cov[k].get("estados", {}).get(scope.entity.estado_id, [])
    ]
    out = []
    for i in range(month_index(scope.date_from), month_index(scope.date_to) + 1):
        m = month_from_index(i)
        if any(a <= m <= b for a, b in runs):
            out.append(m)
    return out


def month_totals_sql(cond: str) -> str:
    """``m``: every published month (parameter: a DATE list) with its events (then ``cond``'s parameters)."""
    return f"""pub AS (SELECT unnest(?::DATE[]) AS m),
        f AS MATERIALIZED (SELECT i.fecha, i.eventos, i.row_id FROM incidents i WHERE {cond}),
        mt AS (SELECT pub.m, coalesce(sum(f.eventos), 0) AS n
               FROM pub LEFT JOIN f ON f.fecha = pub.m GROUP BY pub.m)"""


def resumen_periodo(ctx: ToolContext, step: ResolvedStep) -> ToolOutput:
    """One row per published month (or year) with its rank from the top and from the bottom, and the averages."""
    scope = step.scope
    por = step.args.get("por", "mes")
    enfoque = step.args.get("enfoque", "maximo")
    cond, params = where(scope)
    pub = published_months(ctx, scope)
    sql = f"""WITH {month_totals_sql(cond)},
        p AS (SELECT {_PERIOD[por]} AS fecha, sum(n) AS n, count(*) AS meses,
                     sum(day(last_day(m))) AS dias FROM mt GROUP BY 1)
        SELECT fecha, n, meses, dias,
               row_number() OVER (ORDER BY n DESC, fecha), row_number() OVER (ORDER BY n ASC, fecha),
               NULL, NULL FROM p
        UNION ALL
        SELECT NULL, NULL, NULL, NULL, NULL, NULL,
               coalesce({FIRST_IDS}, []),
               count(*) FILTER (WHERE eventos > 0) FROM f"""
    got = ctx.query(sql, [pub, *params])
    ev = next(r for r in got if r[0] is None)
    periods = sorted((r for r in got if r[0] is not None), key=lambda r: r[0])
    rows = [
        [
            _label(r[0], por),
            r[0],
            int(r[1]),
            int(r[2]),
            int(r[3]),
            por != "mes" and int(r[2]) < _MONTHS_IN[por],
            int(r[4]),
            int(r[5]),
        ]
        for r in periods
    ]
    total = sum(r[2] for r in rows)
    dias = sum(r[4] for r in rows)
    top = next((r for r in rows if r[6] == 1), None)
    low = next((r for r in rows if r[7] == 1), None)
    full = [r for r in rows if not r[5]]  # a partial year (or quarter) is never the lowest of complete ones
    if por != "mes" and full:
        low = min(full, key=lambda r: (r[2], r[1]))
    metrics = {
        "enfoque": enfoque,
        "por": por,
        "lugar": scope.entity.label,
        "total": total,
        "maximo_periodo": top[0] if top and total else None,
        "maximo_conteo": top[2] if top and total else None,
        "empates_maximo": [r[0] for r in rows if top and total and r[2] == top[2]],
        "minimo_periodo": low[0] if low else None,
        "minimo_conteo": low[2] if low else None,
        "empates_minimo": [r[0] for r in (full if por != "mes" and full else rows) if low and r[2] == low[2]],
        "meses_publicados": len(pub),
        "meses_no_publicados": _span(scope) - len(pub),
        "dias": dias,
        "promedio_mensual": round(total / len(pub), 2) if pub else None,
        "promedio_diario": round(total / dias, 2) if dias else None,
    }
    what = "Promedio" if enfoque == "promedio" else "Máximo y mínimo"
    highlights = [f"Total {total:,} en {len(pub)} meses publicados ({dias} días)"]
    if metrics["maximo_periodo"]:
        highlights.append(f"Máximo {metrics['maximo_periodo']} ({metrics['maximo_conteo']:,})")
    if metrics["minimo_periodo"]:
        highlights.append(f"Mínimo {metrics['minimo_periodo']} ({metrics['minimo_conteo']:,})")
    warnings = []
    if metrics["meses_no_publicados"]:
        warnings.append(
            f"{metrics['meses_no_publicados']} meses de la ventana no están publicados: no son cero y no cuentan."
        )
    if por != "mes" and any(r[5] for r in rows):
        unit = _UNIT_WORDS[por][0]
        warnings.append(
            f"Un {unit} con menos de {_MONTHS_IN[por]} meses publicados es parcial: no compite como {unit} mínimo."
        )
    return ToolOutput(
        columns=list(COLUMNS),
        rows=rows,
        headline=f"{what} de {crime_label(ctx, scope)} — {scope.entity.label}, {period_label(scope)}",
        highlights=highlights,
        evidence=Evidence(cond, params, ids=[int(x) for x in ev[6]], total=int(ev[7])),
        warnings=warnings,
        metrics=metrics,
        empty=not pub,
    )


def _span(scope: Scope) -> int:
    return month_index(scope.date_to) - month_index(scope.date_from) + 1


_UNIT_WORDS = {"mes": ("mes", "meses"), "trimestre": ("trimestre", "trimestres"),
               "semestre": ("semestre", "semestres"), "anio": ("año", "años")}  # fmt: skip
_ORDINAL_WORDS = ("primer", "segundo", "tercer", "cuarto")


def _label(start: date, por: str) -> str:
    """'2023-07' (month), '2023-T3' (quarter), '2023-S2' (semester), '2023' (year)."""
    if por == "mes":
        return f"{start:%Y-%m}"
    if por == "trimestre":
        return f"{start.year}-T{(start.month - 1) // 3 + 1}"
    if por == "semestre":
        return f"{start.year}-S{1 if start.month <= 6 else 2}"
    return f"{start:%Y}"


def _period_words(period: str | None, por: str) -> str:
    if not period:
        return "sin dato"
    if por in ("trimestre", "semestre"):  # «2023-T3» → «el tercer trimestre de 2023»
        year, part = period.split("-")
        return f"el {_ORDINAL_WORDS[int(part[1:]) - 1]} {por} de {year}"
    return month_words(period) if por == "mes" else period


def lead(env: dict, rows: list[dict], noun, per: str) -> list[str]:
    """Peak, lowest or average in Spanish: the period, its count and the window's monthly average."""
    met = env.get("metrics") or {}
    por, who, total = met.get("por", "mes"), met.get("lugar", ""), met.get("total", 0)
    unit, units = _UNIT_WORDS.get(por, ("año", "años"))
    enfoque = met.get("enfoque", "maximo")
    out: list[str] = []
    if enfoque == "promedio":
        out.append(
            f"{who} registró en promedio {fmt_num(met.get('promedio_mensual'), 1)} {noun()} al mes y "
            f"{fmt_num(met.get('promedio_diario'), 2)} al día {per}: {fmt_int(total)} en "
            f"{met.get('meses_publicados', 0)} meses publicados, que suman {fmt_int(met.get('dias'))} días."
        )
    elif not total:
        out.append(f"{who} no registró ningún {noun(1)} {per}: no hay un {unit} más alto ni más bajo.")
    else:
        high = enfoque == "maximo"
        ties = met.get("empates_maximo" if high else "empates_minimo") or []
        count = met.get("maximo_conteo" if high else "minimo_conteo")
        word = "más" if high else "menos"
        if len(ties) > 1:
            names = join_y(_period_words(t, por) for t in ties)
            out.append(f"Los {units} con {word} {noun()} en {who} {per} fueron {names}, con {fmt_int(count)} cada uno.")
        else:
            period = _period_words(met.get("maximo_periodo" if high else "minimo_periodo"), por)
            out.append(f"El {unit} con {word} {noun()} en {who} {per} fue {period}, con {fmt_int(count)}.")
        if por == "mes":
            out.append(f"El promedio del periodo fue {fmt_num(met.get('promedio_mensual'), 1)} al mes.")
    if met.get("meses_no_publicados"):
        out.append(f"{met['meses_no_publicados']} meses no están publicados: no se cuentan como cero.")
    return out


def chart(env: dict, pipeline: list[dict] | None = None) -> dict:
    """Bars per month (or year), the peak and the lowest marked."""
    met = env.get("metrics") or {}
    rows = records(env)
    crimes = env.get("summary", {}).get("headline", "").split(" — ")[0]
    return {
        "type": "bar",
        "x": "periodo",
        "y": "conteo",
        "title": f"{crimes} — {met.get('lugar', '')}",
        "y_label": "Delitos registrados",
        "data": [{"periodo": r["periodo"], "conteo": r["conteo"], "parcial": r["parcial"]} for r in rows],
        # every tied peak and low is marked, not only the first
        "highlight": list(dict.fromkeys((met.get("empates_maximo") or []) + (met.get("empates_minimo") or []))),
        "partial": [r["periodo"] for r in rows if r["parcial"]],
    }
