"""listar_evidencia (tool 9): the curated rows behind the previous result."""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.errors import ValidacionError
from core.tools import ResolvedStep, ToolContext, ToolOutput

if TYPE_CHECKING:  # validation hands its checks a StepCheck
    from core.engine.validate import StepCheck

# What each evidence table shows; the place label comes from ``entities`` (incidents keep no labels).
# The yearly series has no month and no method: its rows show January 1st of their year and no method.
SELECT = {
    "incidents": "i.row_id, i.fecha, i.entidad_id, e.label, i.delito, i.metodo, i.eventos, i.source_file, i.source_row",
    "annual": (
        "i.row_id, make_date(i.anio, 1, 1) AS fecha, i.entidad_id, e.label, i.delito, NULL::VARCHAR AS metodo, "
        "i.eventos, i.source_file, i.source_row"
    ),
}


def listar_evidencia(ctx: ToolContext, step: ResolvedStep) -> ToolOutput:
    """Row ids, place, month, crime, method, count and source line behind the last analysis."""
    prev = None
    for s, out in reversed(ctx.outputs):
        if out.evidence is not None:
            prev = (s, out)
            break
    if prev is None:
        raise ValidacionError(
            "No hay un resultado anterior con evidencia.", ["Ponga una herramienta de análisis antes."]
        )
    ev = prev[1].evidence
    limit = int(step.args.get("limit", 200))
    # One statement: the first rows and, on each of them, the count and sum of all of them.
    got = ctx.query(
        f"""SELECT {SELECT[ev.table]}, count(*) OVER (), sum(i.eventos) OVER ()
            FROM {ev.table} i LEFT JOIN entities e ON e.entidad_id = i.entidad_id
            WHERE {ev.where} AND i.eventos > 0
            ORDER BY 2, 3, 5, 6 LIMIT {limit + 1}""",
        ev.params,
    )
    total = (int(got[0][9]), int(got[0][10])) if got else (0, 0)
    out = ToolOutput(
        columns=[
            ("row_id", "int"),
            ("fecha", "date"),
            ("entidad_id", "string"),
            ("label", "string"),
            ("delito", "string"),
            ("metodo", "string"),
            ("eventos", "int"),
            ("source_file", "string"),
            ("source_row", "int"),
        ],
        rows=[list(r[:9]) for r in got[:limit]],
        headline=f"Evidencia de {prev[0].spec.name}: {total[0]:,} filas curadas, {total[1]:,} eventos",
        highlights=[f"Mostrando {min(limit, total[0])} de {total[0]}"],
        evidence=ev,
        metrics={"filas": total[0], "eventos": total[1]},
    )
    if total[0] > limit:
        out.warnings.append(f"Solo se listan {limit} filas; el archivo completo está en los artefactos.")
    return out


def check_listar_evidencia(check: StepCheck) -> None:
    """Validation: the evidence lists the rows behind an earlier analysis, so the plan needs one before it."""
    if not any(s.kind not in ("filter", "evidence") for s in check.earlier):
        example = check.catalog.by_name.get("rank_por_delito", check.spec)
        check.problem(
            "INVALID_PAYLOAD",
            f"{check.spec.name} necesita antes una herramienta de análisis.",
            [f"Ejemplo: [{example.tool_id},{check.spec.tool_id}]"],
        )
