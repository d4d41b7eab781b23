"""Time analyses (tools 12 and 13): the monthly series of one entity and the comparison of two windows.

A month inside a crime's coverage with no rows is a zero; a month outside every selected
crime's coverage is *not published* and never gets a number (docs/contracts/design.md §2).
"""

from __future__ import annotations

from datetime import date
from typing import TYPE_CHECKING

from core.errors import DatosFaltantesError, ValidacionError
from core.text import month_from_index, month_index, shift_months
from core.tools import FIRST_IDS, Evidence, ResolvedStep, Scope, ToolContext, ToolOutput
from core.tools.scope import crime_label, frequency_ok, period_label, populations, rate, where
from core.tools.tally import Rank, tally

if TYPE_CHECKING:  # validation hands its checks a StepCheck
    from core.engine.validate import StepCheck

SERIES_COLUMNS = [("fecha", "date"), ("conteo", "int"), ("publicado", "bool")]
COMPARE_COLUMNS = [
    ("entidad_id", "string"),
    ("label", "string"),
    ("conteo", "int"),
    ("conteo_base", "int"),
    ("cambio", "int"),
    ("cambio_pct", "float"),
    ("tasa_per_100k", "float"),
    ("tasa_per_100k_base", "float"),
]


def months(start: date, end: date) -> list[date]:
    """First day of every month from start's month to end's month, both included."""
    return [month_from_index(i) for i in range(month_index(start), month_index(end) + 1)]


def _month_keys(ctx: ToolContext, scope: Scope) -> list[str]:
    """The crime keys whose coverage decides what is published (monthly crimes with coverage).

    Tipo-level keys (``homicidio``) have no coverage of their own: their subtipos do. With
    no crime selected every monthly crime loaded counts.
    """
    cov = ctx.metadata.get("coverage", {})
    keys = scope.delito_keys or sorted(cov)
    return [k for k in keys if k in cov and cov[k].get("granularity", "month") == "month"]


def _runs(ctx: ToolContext, key: str, estado_id: str) -> list[tuple[date, date]]:
    """Coverage runs (first day, last day) of a crime in one state."""
    info = ctx.metadata.get("coverage", {}).get(key) or {}
    return [
        (date.fromisoformat(r["desde"]), date.fromisoformat(r["hasta"]))
        for r in info.get("estados", {}).get(estado_id, [])
    ]


def _covered(runs: list[tuple[date, date]], month: date) -> bool:
    return any(a <= month <= b for a, b in runs)


def _crime_names(ctx: ToolContext) -> dict[str, str]:
    return {c["delito"]: c["subtipo"] for c in ctx.catalog.crimes}


def _spans(ms: list[date]) -> str:
    """'2022-07..2022-12, 2023-03' for a sorted list of months."""
    parts: list[str] = []
    start = prev = None
    for m in ms:
        if prev is not None and shift_months(prev, 1) == m:
            prev = m
            continue
        if start is not None:
            parts.append(f"{start:%Y-%m}" + (f"..{prev:%Y-%m}" if prev != start else ""))
        start = prev = m
    if start is not None:
        parts.append(f"{start:%Y-%m}" + (f"..{prev:%Y-%m}" if prev != start else ""))
    return ", ".join(parts)


def serie_temporal(ctx: ToolContext, step: ResolvedStep) -> ToolOutput:
    """One row per month of the window: events of the entity, or no number when not published."""
    scope = step.scope
    entity = scope.entity
    cond, params = where(scope)
    # One read of the rows: the monthly sums and, in a last row without fecha, the evidence.
    result = ctx.query(
        f"""WITH f AS MATERIALIZED (SELECT i.fecha, i.eventos, i.row_id FROM incidents i WHERE {cond})
            SELECT fecha, sum(eventos), NULL, NULL FROM f GROUP BY fecha
            UNION ALL
            SELECT NULL, NULL, coalesce({FIRST_IDS}, []),
                   count(*) FILTER (WHERE eventos > 0) FROM f""",
        params,
    )
    got = {f: int(n) for f, n, _, _ in result if f is not None}
    ev_ids, ev_total = next((list(ids), int(total)) for f, _, ids, total in result if f is None)
    keys = _month_keys(ctx, scope)
    runs = {k: _runs(ctx, k, entity.estado_id) for k in keys}
    names = _crime_names(ctx)
    rows: list[list] = []
    partial: dict[str, list[date]] = {}
    for m in months(scope.date_from, scope.date_to):
        published_for = [k for k in keys if _covered(runs[k], m)]
        publicado = bool(published_for) or m in got  # rows in a month mean it was published
        for k in keys:
            if publicado and k not in published_for:
                partial.setdefault(k, []).append(m)
        rows.append([m, got.get(m, 0) if publicado else None, publicado])
    published = [r for r in rows if r[2]]
    total = sum(r[1] for r in published)
    mean = round(total / len(published), 2) if published else None
    # earliest month on ties; an all-zero series has no maximum month
    peak = max(published, key=lambda r: (r[1], -r[0].toordinal()), default=None) if total else None
    warnings: list[str] = []
    missing = [r[0] for r in rows if not r[2]]
    if missing:
        warnings.append(f"Meses no publicados (sin dato, no son cero): {_spans(missing)}.")
    for k, ms in partial.items():
        warnings.append(
            f"{names.get(k, k)} no está publicado en {_spans(ms)}: esos meses suman solo los delitos publicados."
        )
    highlights = [f"Total {total:,} eventos en {len(published)} meses publicados"]
    if mean is not None:
        highlights.append(f"Promedio mensual {mean:,.2f}")
    if peak is not None:
        highlights.append(f"Mes máximo {peak[0]:%Y-%m} ({peak[1]:,})")
    return ToolOutput(
        columns=list(SERIES_COLUMNS),
        rows=rows,
        headline=f"Serie mensual de {crime_label(ctx, scope)} — {entity.label}, {period_label(scope)}",
        highlights=highlights,
        evidence=Evidence(cond, params, ids=ev_ids, total=ev_total),
        warnings=warnings,
        metrics={
            "total": total,
            "promedio_mensual": mean,
            "mes_maximo": f"{peak[0]:%Y-%m}" if peak is not None else None,
            "meses_publicados": len(published),
            "meses_no_publicados": len(missing),
        },
    )


def _base_window(ctx: ToolContext, step: ResolvedStep) -> tuple[date, date]:
    """The base window, clamped to the selected crimes' coverage (validation clamped it to the watermark)."""
    scope = step.scope
    base = step.args.get("_base_window")
    if not base:
        raise ValidacionError(
            "comparar_periodos necesita la ventana base (base_from y base_to).",
            ["Ejemplo: base_from: 2023-01-01, base_to: 2023-12-31"],
        )
    a, b = base
    keys = _month_keys(ctx, scope) if scope.delito_keys else []
    if not keys:
        return a, b
    names = _crime_names(ctx)
    runs = {k: _runs(ctx, k, scope.entity.estado_id) for k in keys}
    overlapping = {k: [r for r in rs if r[0] <= b and r[1] >= a] for k, rs in runs.items()}
    if not any(overlapping.values()):
        spans = "; ".join(
            f"{names.get(k, k)}: " + (", ".join(f"{x:%Y-%m}..{y:%Y-%m}" for x, y in rs) or "sin datos")
            for k, rs in runs.items()
        )
        raise DatosFaltantesError(
            f"No hay datos publicados de {crime_label(ctx, scope)} en la ventana base {a:%Y-%m}..{b:%Y-%m}. "
            f"Cobertura: {spans}.",
            ["Elija una ventana base dentro de la cobertura del delito.", "Un mes no publicado no es un cero."],
        )
    lo = min(r[0] for rs in overlapping.values() for r in rs)
    hi = max(r[1] for rs in overlapping.values() for r in rs)
    na, nb = max(a, lo), min(b, hi)
    notes = [f"base recortada a la cobertura del delito: {na}..{nb}"] if (na, nb) != (a, b) else []
    gaps = [
        f"{names.get(k, k)} no cubre toda la ventana base {na:%Y-%m}..{nb:%Y-%m}"
        + (": sin datos en ella." if not rs else ".")
        for k, rs in overlapping.items()
        if not any(r[0] <= na and r[1] >= nb for r in rs)
    ]
    # the executor reads range_adjusted and its reasons from the scope; idempotent if the tool is re-run
    scope.adjustments.extend(n for n in notes if n not in scope.adjustments)
    scope.warnings.extend(w for w in gaps if w not in scope.warnings)
    return na, nb


_CHANGE_ORDER = {  # the ranking's ORDER BY per ``orden`` (a closed table: never user text)
    "abs": "abs(n - nb) DESC, (n - nb) DESC",
    "desc": "(n - nb) DESC",
    "asc": "(n - nb) ASC",
}


def _pct(cambio: int, base: int) -> float | None:
    return round(100 * cambio / base, 2) if base else None


def _rate_change(n: int, pop: int | None, nb: int, pop_base: int | None) -> tuple[float | None, float | None]:
    """The change of the rate per 100,000 in points and in % of the base rate, from the unrounded rates
    (None without either population; no % when the base rate is zero)."""
    if not pop or not pop_base:
        return None, None
    now, before = n / pop * 100_000, nb / pop_base * 100_000
    return round(now - before, 2), (round(100 * (now - before) / before, 2) if before else None)


def comparar_periodos(ctx: ToolContext, step: ResolvedStep) -> ToolOutput:
    """Events in the window against the base window: the entity (actual) or each municipality (hijos)."""
    scope = step.scope
    base_from, base_to = _base_window(ctx, step)
    hijos = scope.entity.nivel == "estado" and scope.nivel == "hijos"
    top_k = int(step.args.get("top_k", 10))
    orden = step.args.get("orden", "abs")
    cond, params = where(scope, with_window=False)  # the rows of both windows, read once
    cond += " AND (i.fecha BETWEEN ? AND ? OR i.fecha BETWEEN ? AND ?)"
    params = params + [scope.date_from, scope.date_to, base_from, base_to]
    # Changes are integers: the statement ranks them itself unless a minimum rate filters (rates are rounded).
    by_rate = bool(scope.frecuencia and scope.frecuencia.get("min_tasa") is not None)
    got = tally(
        ctx,
        scope,
        cond,
        params,
        windows=[(scope.date_from, scope.date_to), (base_from, base_to)],
        year=scope.date_to.year if scope.frecuencia else None,
        rank=Rank(_CHANGE_ORDER[orden], top_k if hijos else None),
        top_only=not by_rate,
    )
    now, before, pops = got.counts, got.base, got.pops
    # each window's rate with the population of its own year (the year it ends, as every rate tool)
    year, year_base = scope.date_to.year, base_to.year
    conapo = populations(ctx, scope.entity.estado_id, sorted({year, year_base}))
    rows = []
    for e in got.entities:
        n, nb = now.get(e.entidad_id, 0), before.get(e.entidad_id, 0)
        if scope.frecuencia and got.totals is None and not frequency_ok(scope, n, rate(n, pops.get(e.entidad_id))):
            continue
        tasas = [rate(n, conapo[year].get(e.entidad_id)), rate(nb, conapo[year_base].get(e.entidad_id))]
        rows.append([e.entidad_id, e.label, n, nb, n - nb, _pct(n - nb, nb), *tasas])
    # abs: biggest change first, rises before falls; desc: biggest rise first; asc: biggest fall first
    rows.sort(
        key={
            "abs": lambda r: (-abs(r[4]), -r[4], r[0]),
            "desc": lambda r: (-r[4], r[0]),
            "asc": lambda r: (r[4], r[0]),
        }[orden]
    )
    rows = rows[:top_k] if hijos else rows
    total, total_base = (
        (sum(now.values()), sum(before.values())) if got.totals is None else (got.totals["n"], got.totals["nb"])
    )
    cambio = total - total_base
    periodo = period_label(scope)
    periodo_base = f"{base_from:%Y-%m}..{base_to:%Y-%m}"
    warnings = []
    n_now, n_base = len(months(scope.date_from, scope.date_to)), len(months(base_from, base_to))
    if n_now != n_base:
        warnings.append(
            f"Las ventanas tienen distinto número de meses ({n_now} frente a {n_base}): compare con cautela."
        )
    pct = _pct(cambio, total_base)
    # the metrics' entity: the state for its municipalities, else the entity asked
    pop, pop_base = conapo[year].get(scope.entity.entidad_id), conapo[year_base].get(scope.entity.entidad_id)
    tasa, tasa_base = rate(total, pop), rate(total_base, pop_base)
    cambio_tasa, cambio_tasa_pct = _rate_change(total, pop, total_base, pop_base)
    medida = step.args.get("medida", "conteo")
    if medida == "tasa_per_100k" and (tasa is None or tasa_base is None):
        missing = " ni de ".join(str(y) for y, p in sorted({year: pop, year_base: pop_base}.items()) if not p)
        warnings.append(f"Sin población CONAPO de {missing} para {scope.entity.label}: la tasa queda sin dato.")
    highlights = [
        f"Total {total:,} frente a {total_base:,} ({cambio:+,}"
        + (f", {pct:+.2f}%)" if pct is not None else "; base en cero)")
    ]
    if hijos and rows:
        highlights.append(f"Mayor cambio: {rows[0][1]} ({rows[0][4]:+,})")
    if tasa is not None and tasa_base is not None:
        highlights.append(f"Tasa por 100 mil habitantes {tasa:,.2f} frente a {tasa_base:,.2f} ({cambio_tasa:+,.2f})")
    highlights.append(f"Ventanas {periodo} y {periodo_base}")
    who = f"municipios de {scope.entity.label}" if hijos else scope.entity.label
    return ToolOutput(
        columns=list(COMPARE_COLUMNS),
        rows=rows,
        headline=f"Comparación de {crime_label(ctx, scope)} — {who}: {periodo} frente a {periodo_base}",
        highlights=highlights,
        evidence=got.evidence(cond, params, [r[0] for r in rows], hijos),
        warnings=warnings,
        metrics={
            "conteo": total,
            "conteo_base": total_base,
            "cambio": cambio,
            "cambio_pct": pct,
            "periodo": periodo,
            "periodo_base": periodo_base,
            "medida": medida,
            "tasa_per_100k": tasa,
            "tasa_per_100k_base": tasa_base,
            "cambio_tasa": cambio_tasa,
            "cambio_tasa_pct": cambio_tasa_pct,
            "anio_poblacion": year,
            "anio_poblacion_base": year_base,
            **({"orden": orden} if orden != "abs" else {}),  # a ranking by direction says which
        },
        extra_meta={"date_range_base_effective": {"from": base_from.isoformat(), "to": base_to.isoformat()}},
    )


def check_comparar_periodos(check: StepCheck) -> None:
    """Validation: the base window is aligned and clamped like the main one; the tool reads ``_base_window``."""
    a, b = check.date("base_from"), check.date("base_to")
    if a and b:
        res = check.window(a, b, ".args.base")
        if res:
            check.args["_base_window"] = (res[0], res[1])
            check.scope.adjustments += [f"base {n}" for n in res[2]]
