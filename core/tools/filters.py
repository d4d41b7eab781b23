"""Filters (tools 1-5): they narrow the working set and report what they set."""

from __future__ import annotations

from core.text import month_count
from core.tools import ResolvedStep, ToolContext, ToolOutput
from core.tools.scope import period_label


def enfoque_entidad(ctx: ToolContext, step: ResolvedStep) -> ToolOutput:
    """Fix the entity (state or municipality) for the following tools."""
    e = step.scope.entity
    n = (
        ctx.query("SELECT count(*) FROM entities WHERE nivel = 'municipio' AND estado_id = ?", [e.estado_id])[0][0]
        if e.nivel == "estado"
        else 0
    )
    return ToolOutput(
        columns=[("entidad_id", "string"), ("label", "string"), ("nivel", "string"), ("municipios", "int")],
        rows=[[e.entidad_id, e.label, step.scope.nivel, int(n)]],
        headline=f"Entidad fijada: {e.label} ({e.entidad_id})",
        highlights=[f"nivel {step.scope.nivel}"] + ([f"{n} municipios"] if n else []),
    )


def filtro_fecha(ctx: ToolContext, step: ResolvedStep) -> ToolOutput:
    """Fix the time window (already aligned and clamped by validation)."""
    s = step.scope
    months = month_count(s.date_from, s.date_to)
    return ToolOutput(
        columns=[("from", "date"), ("to", "date"), ("meses", "int")],
        rows=[[s.date_from, s.date_to, months]],
        headline=f"Ventana {s.date_from}..{s.date_to}",
        highlights=[f"{months} meses"] + (["ventana ajustada"] if s.range_adjusted else []),
    )


def filtro_tipo(ctx: ToolContext, step: ResolvedStep) -> ToolOutput:
    """Restrict to crimes and show each one's coverage."""
    cov = ctx.metadata.get("coverage", {})
    names = {c["delito"]: c["subtipo"] for c in ctx.catalog.crimes}
    rows = []
    for key in step.scope.delitos:
        info = cov.get(key) or {}
        rows.append([key, names.get(key, key), info.get("desde"), info.get("hasta")])
    missing = [r[0] for r in rows if r[2] is None and not any(k in cov for k in step.scope.delito_keys if k != r[0])]
    out = ToolOutput(
        columns=[("delito", "string"), ("label", "string"), ("desde", "date"), ("hasta", "date")],
        rows=rows,
        headline="Delitos: " + ", ".join(r[1] for r in rows),
        highlights=[f"{r[1]}: {r[2] or 'sin datos'}..{r[3] or ''}" for r in rows],
    )
    if missing:
        out.warnings.append("Sin datos cargados para: " + ", ".join(missing) + ".")
    return out


def filtro_metodo(ctx: ToolContext, step: ResolvedStep) -> ToolOutput:
    """Restrict to modalities (methods) or to con/sin violencia."""
    s = step.scope
    if s.metodos:
        marks = ", ".join("?" for _ in s.metodos)
        rows = ctx.query(f"SELECT metodo, modalidad FROM methods WHERE metodo IN ({marks}) ORDER BY metodo", s.metodos)
    else:
        rows = []
    if s.violencia:
        rows += ctx.query("SELECT metodo, modalidad FROM methods WHERE violencia = ? ORDER BY metodo", [s.violencia])
    return ToolOutput(
        columns=[("metodo", "string"), ("modalidad", "string")],
        rows=[list(r) for r in rows],
        headline="Método: " + (", ".join(r[1] for r in rows) or "ninguno"),
        highlights=[f"violencia: {s.violencia}"] if s.violencia else [],
    )


def filtro_frecuencia(ctx: ToolContext, step: ResolvedStep) -> ToolOutput:
    """Set minimum events or rate for the analyses that follow."""
    f = step.scope.frecuencia or {}
    return ToolOutput(
        columns=[("por", "string"), ("min_eventos", "int"), ("min_tasa", "float")],
        rows=[[f.get("por"), f.get("min_eventos"), f.get("min_tasa")]],
        headline=f"Frecuencia mínima por {f.get('por')}: "
        + ", ".join(
            x
            for x in [
                f"{f['min_eventos']} eventos" if f.get("min_eventos") is not None else "",
                f"tasa {f['min_tasa']}" if f.get("min_tasa") is not None else "",
            ]
            if x
        ),
        highlights=[period_label(step.scope)],
    )
