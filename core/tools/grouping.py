"""Grouping (tool 11): entities of the scope ranked by one metric, with the metrics asked for.

Count metrics come from the store (``conteo``, ``tasa_per_100k`` with the CONAPO population
of the window's end year, ``porcentaje`` = share of the scope total in %). Anomaly metrics
(``total_anomalias``, ``gravedad_promedio``) come from the complete anomaly list of the
latest earlier ``detectar_anomalias`` step (validation requires that step).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.errors import ValidacionError
from core.tools import ResolvedStep, ToolContext, ToolOutput
from core.tools.scope import crime_label, frequency_ok, period_label, rate, where
from core.tools.tally import Rank, per_child, tally

if TYPE_CHECKING:  # validation hands its checks a StepCheck
    from core.engine.validate import StepCheck

METRICS = ("conteo", "tasa_per_100k", "porcentaje", "total_anomalias", "gravedad_promedio")
TYPES = {
    "conteo": "int",
    "tasa_per_100k": "float",
    "porcentaje": "float",
    "total_anomalias": "int",
    "gravedad_promedio": "float",
}
ANOMALY_METRICS = ("total_anomalias", "gravedad_promedio")
DEFAULT_METRICS = ("conteo", "tasa_per_100k", "porcentaje")
TIE_BREAK = {"total_anomalias": "gravedad_promedio", "gravedad_promedio": "total_anomalias"}


def _wanted(args: dict) -> list[str]:
    """Metric columns in canonical order: the asked ones (or the defaults) plus aggregate_by."""
    by = args.get("aggregate_by", "conteo")
    asked = set(args.get("metrics") or DEFAULT_METRICS)
    if not args.get("metrics") and by in ANOMALY_METRICS:
        asked |= set(ANOMALY_METRICS)
    asked.add(by)
    return [m for m in METRICS if m in asked]


def _anomalies(ctx: ToolContext, step: ResolvedStep) -> tuple[dict[str, list[float]], list[str]]:
    """Severities of every anomaly per entity, from the latest detectar_anomalias output."""
    prev = ctx.previous(name="detectar_anomalias")
    if prev is None:
        raise ValidacionError(
            "Las métricas de anomalías requieren detectar_anomalias antes en el plan.",
            ["Ejemplo: [10,11] con aggregate_by: total_anomalias"],
        )
    prev_step, out = prev
    full = getattr(out, "all_anomalies", None)
    if full is None:  # an output without the full list: fall back to its rows
        cols = [c for c, _ in out.columns]
        full = [dict(zip(cols, r)) for r in out.rows]
    by_entity: dict[str, list[float]] = {}
    for a in full:
        by_entity.setdefault(a["entidad_id"], []).append(float(a["severity"]))
    warnings = []
    s, p = step.scope, prev_step.scope
    same = (
        s.entity == p.entity
        and s.nivel == p.nivel
        and s.date_from == p.date_from
        and s.date_to == p.date_to
        and sorted(s.delito_keys) == sorted(p.delito_keys)
        and sorted(s.metodos) == sorted(p.metodos)
        and s.violencia == p.violencia
    )
    if not same:
        warnings.append(
            "Las anomalías provienen de detectar_anomalias con otro alcance (entidad, ventana, delitos "
            f"o método): {p.entity.entidad_id if p.entity else '—'}, {period_label(p)}."
        )
    return by_entity, warnings


def agrupar_por_entidad(ctx: ToolContext, step: ResolvedStep) -> ToolOutput:
    """Entities of the scope ordered by ``aggregate_by`` with the requested metric columns."""
    scope = step.scope
    args = step.args
    by = args.get("aggregate_by", "conteo")
    wanted = _wanted(args)
    top_k = int(args.get("top_k", 10))
    desc = args.get("orden", "desc") == "desc"
    cond, params = where(scope)
    column = {"conteo": "n", "tasa_per_100k": "tasa", "porcentaje": "porcentaje"}.get(by)
    got = tally(
        ctx,
        scope,
        cond,
        params,
        windows=[None],
        year=scope.date_to.year,
        rank=Rank.by(column, desc, top_k) if column else None,
    )  # anomaly metrics: ranked in Python only
    counts, pops = got.counts, got.pops
    total = sum(counts.values())
    warnings: list[str] = []
    uses_anomalies = any(m in ANOMALY_METRICS for m in wanted)
    severities: dict[str, list[float]] = {}
    if uses_anomalies:
        severities, more = _anomalies(ctx, step)
        warnings += more

    records = []
    for e in got.entities:
        n = counts.get(e.entidad_id, 0)
        t = rate(n, pops.get(e.entidad_id))
        if not frequency_ok(scope, n, t):
            continue
        sev = severities.get(e.entidad_id, [])
        records.append(
            {
                "entidad_id": e.entidad_id,
                "label": e.label,
                "conteo": n,
                "tasa_per_100k": t,
                "porcentaje": round(100 * n / total, 2) if total else None,
                "total_anomalias": len(sev),
                "gravedad_promedio": round(sum(sev) / len(sev), 3) if sev else 0.0,
            }
        )

    def signed(value):
        return -value if desc else value

    tie = TIE_BREAK.get(by)

    def key(r):
        value = r[by]
        missing = value is None  # rows without population go last either way
        return (missing, 0 if missing else signed(value), signed(r[tie]) if tie else 0, r["entidad_id"])

    records.sort(key=key)
    shown = records[:top_k]
    columns = [("entidad_id", "string"), ("label", "string")] + [(m, TYPES[m]) for m in wanted]
    rows = [[r["entidad_id"], r["label"]] + [r[m] for m in wanted] for r in shown]
    if "tasa_per_100k" in wanted and any(r["tasa_per_100k"] is None for r in records):
        warnings.append("Algunas entidades no tienen población CONAPO para calcular la tasa.")
    if scope.entity.nivel == "municipio" and scope.nivel == "hijos" and "nivel" in getattr(step, "given", ()):
        warnings.append(f"{scope.entity.label} es un municipio: no tiene hijos; se muestra el municipio.")

    metrics = {"total_conteo": total, "entidades": len(records)}
    if uses_anomalies:
        all_sev = [v for r in records for v in severities.get(r["entidad_id"], [])]
        metrics.update(
            {
                "total_anomalias": len(all_sev),
                "gravedad_promedio": round(sum(all_sev) / len(all_sev), 3) if all_sev else 0,
                "entidades_con_anomalias": sum(1 for r in records if r["total_anomalias"]),
            }
        )
    who = (
        f"municipios de {scope.entity.entidad_id}"
        if scope.entity.nivel == "estado" and scope.nivel == "hijos"
        else scope.entity.label
    )
    highlights = []
    if shown:
        top = shown[0]
        highlights.append(f"Top-1: {top['label']} ({by} = {top[by]})")
    highlights.append(f"Total {total:,} eventos en {len(records)} entidad(es)")
    if uses_anomalies:
        highlights.append(f"{metrics['total_anomalias']} anomalías; gravedad promedio {metrics['gravedad_promedio']}")
    return ToolOutput(
        columns=columns,
        rows=rows,
        headline=f"Entidades por {by} ({crime_label(ctx, scope)}) — {who}, {period_label(scope)}",
        highlights=highlights,
        evidence=got.evidence(cond, params, [r["entidad_id"] for r in shown], per_child(scope)),
        warnings=warnings,
        metrics=metrics,
    )


def check_agrupar_por_entidad(check: StepCheck) -> None:
    """Validation: anomaly metrics are read from an earlier ``detectar_anomalias`` step."""
    wanted = {check.args.get("aggregate_by")} | set(check.args.get("metrics") or [])
    if wanted & set(ANOMALY_METRICS) and "detectar_anomalias" not in {s.name for s in check.earlier}:
        source = check.catalog.by_name.get("detectar_anomalias")
        check.problem(
            "INVALID_PAYLOAD",
            "Las métricas de anomalías requieren detectar_anomalias antes en el plan.",
            [f"Ejemplo: [{source.tool_id if source else '?'},{check.spec.tool_id}] con aggregate_by: total_anomalias"],
            ".args.aggregate_by",
        )
