"""Rankings (tools 6 and 7): entities ordered by count or rate per 100,000."""

from __future__ import annotations

from core.tools import ResolvedStep, ToolContext, ToolOutput
from core.tools.scope import crime_label, frequency_ok, period_label, rate, where
from core.tools.tally import Rank, per_child, tally

COLUMNS = [("entidad_id", "string"), ("label", "string"), ("conteo", "int"), ("tasa_per_100k", "float")]


def _ranked(ctx: ToolContext, step: ResolvedStep, with_share: bool):
    scope = step.scope
    medida = step.args.get("medida", "conteo")
    desc = step.args.get("orden", "desc") == "desc"
    top_k = int(step.args.get("top_k", 10))
    cond, params = where(scope)
    freq = scope.frecuencia
    # Rates are needed for every entity only to rank or filter by them; otherwise for the shown ones.
    rated = medida == "tasa_per_100k" or bool(freq and freq.get("min_tasa") is not None)
    got = tally(
        ctx,
        scope,
        cond,
        params,
        windows=[None],
        year=scope.date_to.year,
        rank=Rank.by("tasa" if medida == "tasa_per_100k" else "n", desc, top_k),
        top_only=not rated,
    )
    counts, pops = got.counts, got.pops
    rows = []
    for e in got.entities:
        n = counts.get(e.entidad_id, 0)
        t = rate(n, pops.get(e.entidad_id)) if rated else None
        if freq and got.totals is None and not frequency_ok(scope, n, t):
            continue
        rows.append([e.entidad_id, e.label, n, t])
    total = sum(counts.values()) if got.totals is None else got.totals["n"]
    key_idx = 3 if medida == "tasa_per_100k" else 2

    def key(r):
        value = r[key_idx]
        missing = value is None  # rows without population go last either way
        return (missing, -value if (desc and not missing) else (value if not missing else 0), r[0])

    rows.sort(key=key)
    shown = rows[:top_k]
    for r in shown:
        if not rated:
            r[3] = rate(r[2], pops.get(r[0]))
        if with_share:
            r.append(round(100 * r[2] / total, 2) if total else None)
    warnings = []
    if medida == "tasa_per_100k" and any(r[3] is None for r in rows):
        warnings.append("Algunas entidades no tienen población CONAPO para calcular la tasa.")
    evidence = got.evidence(cond, params, [r[0] for r in shown], per_child(scope))
    return shown, total, evidence, warnings, medida, len(rows) if got.ranked is None else got.ranked


def rank_por_delito(ctx: ToolContext, step: ResolvedStep) -> ToolOutput:
    """Ranking of entities for a crime (nivel hijos) or the entity's own total (nivel actual)."""
    rows, total, evidence, warnings, medida, ranked = _ranked(ctx, step, with_share=False)
    scope = step.scope
    who = (
        f"Hijos de {scope.entity.entidad_id} ({scope.entity.label})"
        if scope.entity.nivel == "estado" and scope.nivel == "hijos"
        else f"{scope.entity.label} ({scope.entity.entidad_id})"
    )
    if scope.nivel == "hijos" and scope.entity.nivel == "municipio" and "nivel" in step.given:
        warnings.append(f"{scope.entity.label} es un municipio: no tiene hijos; se muestra el municipio.")
    highlights = [f"Top-1: {rows[0][1]} ({rows[0][2]:,} eventos)"] if rows else []
    highlights.append(f"Ventana {scope.date_from}..{scope.date_to}")
    return ToolOutput(
        columns=list(COLUMNS),
        rows=rows,
        headline=f"Top {crime_label(ctx, scope)} ({medida}) — {who}, {period_label(scope)}",
        highlights=highlights,
        evidence=evidence,
        warnings=warnings,
        # an ascending ranking says so: rows that tie (all zero) cannot tell the order themselves
        metrics={
            "total_conteo": total,
            "entidades": ranked,
            **({"orden": "asc"} if step.args.get("orden") == "asc" else {}),
        },
        empty=total == 0,
    )


def top_entidades_por_total(ctx: ToolContext, step: ResolvedStep) -> ToolOutput:
    """Entities with most events over every crime in scope, with their share of the total."""
    rows, total, evidence, warnings, _medida, ranked = _ranked(ctx, step, with_share=True)
    scope = step.scope
    if not scope.delitos:
        warnings.append("Suma todos los delitos cargados; cada delito tiene su propia cobertura.")
    return ToolOutput(
        columns=list(COLUMNS) + [("porcentaje", "float")],
        rows=rows,
        headline=f"Entidades con más eventos ({crime_label(ctx, scope)}), {period_label(scope)}",
        highlights=([f"Top-1: {rows[0][1]} con {rows[0][4]}% del total"] if rows and rows[0][4] is not None else [])
        + [f"Total {total:,} eventos"],
        evidence=evidence,
        warnings=warnings,
        metrics={"total_conteo": total, "entidades": ranked},
        empty=total == 0,
    )
