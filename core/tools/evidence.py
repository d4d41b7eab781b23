"""listar_evidencia (tool 9): the curated rows behind the previous result."""
from __future__ import annotations

from core.errors import ValidacionError
from core.tools import ResolvedStep, ToolContext, ToolOutput


def listar_evidencia(ctx: ToolContext, step: ResolvedStep) -> ToolOutput:
    """Row ids, place, month, crime, method, count and source line behind the last analysis."""
    prev = None
    for s, out in reversed(ctx.outputs):
        if out.evidence is not None:
            prev = (s, out)
            break
    if prev is None:
        raise ValidacionError("No hay un resultado anterior con evidencia.", ["Ponga una herramienta de análisis antes."])
    ev = prev[1].evidence
    limit = int(step.args.get("limit", 200))
    rows = ctx.query(
        f"""SELECT row_id, fecha, entidad_id, municipio, delito, metodo, eventos, source_file, source_row
            FROM {ev.table} i WHERE {ev.where} AND eventos > 0
            ORDER BY fecha, entidad_id, delito, metodo LIMIT {limit + 1}""", ev.params)
    total = ctx.query(f"SELECT count(*), coalesce(sum(eventos), 0) FROM {ev.table} i WHERE {ev.where} AND eventos > 0",
                      ev.params)[0]
    out = ToolOutput(
        columns=[("row_id", "int"), ("fecha", "date"), ("entidad_id", "string"), ("label", "string"),
                 ("delito", "string"), ("metodo", "string"), ("eventos", "int"), ("source_file", "string"),
                 ("source_row", "int")],
        rows=[list(r) for r in rows[:limit]],
        headline=f"Evidencia de {prev[0].spec.name}: {int(total[0]):,} filas curadas, {int(total[1]):,} eventos",
        highlights=[f"Mostrando {min(limit, int(total[0]))} de {int(total[0])}"],
        evidence=ev,
        metrics={"filas": int(total[0]), "eventos": int(total[1])},
    )
    if total[0] > limit:
        out.warnings.append(f"Solo se listan {limit} filas; el archivo completo está en los artefactos.")
    return out
