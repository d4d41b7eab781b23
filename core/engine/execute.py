"""Orquestador: run a validated plan, one envelope per tool, read-only and parameterized.

On zero rows an analysis is retried once without its method filter (the relaxed
fallback of docs/contracts/004_chatbot_graph.md §3.1), recorded in ``meta.retry`` and the warnings; regeneration is
bounded by ``MAX_RETRIES``. Any failure stops the pipeline with an error envelope.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field
from pathlib import Path

from core.engine.catalog import Catalog
from core.engine.envelope import DEFAULT_MAX_ROWS, error_envelope, ok_envelope, write_artifact
from core.engine.validate import ValidatedPlan, failing_tool, validate_plan
from core.errors import CasandraError, ErrorGroup, HerramientaError
from core.tools import EVIDENCE_IDS, ResolvedStep, ToolContext, ToolOutput

log = logging.getLogger(__name__)

MAX_RETRIES = 1
MAX_EVIDENCE_IDS = EVIDENCE_IDS


@dataclass
class Execution:
    """Everything one plan run produced."""

    envelopes: list[dict]
    validated: ValidatedPlan | None
    status: str  # "ok" | "error"
    timings_ms: dict[str, float] = field(default_factory=dict)
    errors: list[dict] = field(default_factory=list)

    @property
    def last(self) -> dict:
        """The envelope that answers: the last one."""
        return self.envelopes[-1]


def _evidence(ctx: ToolContext, out: ToolOutput) -> list[dict]:
    """The envelope's evidence block: the first row ids behind the result and how many there are."""
    if out.evidence is None:
        return []
    ev = out.evidence
    if ev.ids is not None and ev.total is not None:  # the tool's own statement already read them
        ids, total = ev.ids, ev.total
    else:  # one pass: the first ids and the total together (each query re-reads the Parquet files)
        ids, total = ctx.query(
            f"""SELECT coalesce(min(row_id, {MAX_EVIDENCE_IDS + 1}), []), count(*)
                FROM {ev.table} i WHERE {ev.where} AND eventos > 0""",
            ev.params,
        )[0]  # min(x, n): the n smallest, sorted
    return [
        {
            "table": ev.table,
            "ids": list(ids[:MAX_EVIDENCE_IDS]),
            "total": int(total),
            "truncated": total > MAX_EVIDENCE_IDS,
        }
    ]


def _filters(scope) -> dict:
    """What the step actually filtered on (docs/contracts/001_casandra_v0.md §4.5 provenance)."""
    return {
        "entidad_id": scope.entity.entidad_id if scope.entity else None,
        "nivel": scope.nivel,
        "delito": list(scope.delitos),
        "metodo": list(scope.metodos),
        "violencia": scope.violencia,
        "frecuencia": scope.frecuencia,
    }


# A modalidad a place reports as 0 in every published month (Guanajuato's municipalities and robo de motocicleta,
# 2015-2024): its zero is structural, so the answer keeps it and says so instead of relaxing to the whole crime.
ZERO_METHODS_SQL = """
    SELECT place, list(metodo ORDER BY metodo) FROM (
        SELECT CASE WHEN GROUPING(entidad_id) = 0 THEN entidad_id ELSE estado_id END AS place, metodo
        FROM incidents WHERE metodo IS NOT NULL
        GROUP BY GROUPING SETS ((estado_id, entidad_id, metodo), (estado_id, metodo))
        HAVING sum(eventos) = 0 AND count(*) >= 12)
    GROUP BY place"""


def _structural_zero(ctx: ToolContext, step: ResolvedStep) -> str | None:
    """The warning of a method filter whose every modalidad the asked place reports as 0 in every month, or None."""
    scope = step.scope
    if not scope.metodos or scope.entity is None:
        return None
    zeros = ctx.memo(("zero_methods",), lambda: {p: set(m) for p, m in ctx.query(ZERO_METHODS_SQL)})
    if not set(scope.metodos) <= zeros.get(scope.entity.entidad_id, set()):
        return None
    labels = " y ".join(m.replace("_", " ") for m in scope.metodos)
    return (
        f"{scope.entity.label} registra 0 casos de {labels} en todos los meses publicados: es probable que esos "
        "hechos se registren bajo otra modalidad; un 0 aquí no prueba que no ocurran."
    )


def _run_step(ctx: ToolContext, step: ResolvedStep) -> tuple[ToolOutput, dict | None]:
    fn = step.spec.load_implementation()
    out = fn(ctx, step)
    retry = None
    zero = _structural_zero(ctx, step) if (not out.rows or out.empty) else None
    if zero:
        out.warnings.append(zero)
    # Only counting tools relax: for anomalies or patterns, no rows is itself the answer.
    if (
        not zero
        and step.spec.kind in ("analysis", "metricas")
        and (not out.rows or out.empty)
        and (step.scope.metodos or step.scope.violencia)
    ):
        for attempt in range(MAX_RETRIES):
            relaxed = step.scope.copy()
            dropped = [
                f"metodo={','.join(relaxed.metodos)}" if relaxed.metodos else None,
                f"violencia={relaxed.violencia}" if relaxed.violencia else None,
            ]
            relaxed.metodos, relaxed.violencia = [], None
            out = fn(ctx, ResolvedStep(step.index, step.spec, step.args, relaxed, step.given))
            retry = {"attempts": attempt + 2, "relaxed": [d for d in dropped if d], "rows": len(out.rows)}
            out.warnings.append(
                "Sin resultados con el filtro de método; se muestra el resultado sin ese filtro ("
                + ", ".join(retry["relaxed"])
                + ")."
            )
            step.scope = relaxed
            if out.rows and not out.empty:
                break
    return out, retry


def run_validated(vp: ValidatedPlan, ctx: ToolContext, artifacts_dir: Path, day: str) -> Execution:
    """Execute every step of a validated plan into envelopes."""
    envelopes: list[dict] = []
    timings: dict[str, float] = {}
    meta_base = {
        "dataset_version": vp.dataset_version,
        "anchor_date": ctx.metadata["max_date"],
        "query_hash": vp.query_hash,
        "catalog_version": vp.catalog_version,
    }
    for step in vp.steps:
        spec = step.spec
        t0 = time.perf_counter()
        try:
            out, retry = _run_step(ctx, step)
            evidence = _evidence(ctx, out)
            max_rows = int(spec.output_contract.get("max_rows", DEFAULT_MAX_ROWS))
            name = f"{vp.query_hash[7:19]}_{step.index}_{spec.name}"
            # The full table goes to a file only when the inline rows are cut at max_rows: otherwise
            # the envelope already holds all of it (artifacts are an optional block,
            # docs/contracts/001_casandra_v0.md C.6).
            artifacts = (
                {f"{spec.name}_full": write_artifact(artifacts_dir, day, name, out.columns, out.rows)}
                if len(out.rows) > max_rows
                else {}
            )
        except CasandraError as exc:
            envelopes.append(error_envelope(exc, tool=spec.identity, tool_version=spec.version, meta=meta_base))
            timings[f"{step.index}:{spec.name}"] = round((time.perf_counter() - t0) * 1000, 2)
            return Execution(envelopes, vp, "error", timings, [envelopes[-1]["error"]])
        except Exception:  # a tool bug must become a COMPUTE_ERROR envelope, never a crash
            log.exception("tool %s failed", spec.identity)
            envelopes.append(
                error_envelope(
                    HerramientaError(f"{spec.name} no pudo calcular el resultado."),
                    tool=spec.identity,
                    tool_version=spec.version,
                    meta=meta_base,
                )
            )
            return Execution(envelopes, vp, "error", timings, [envelopes[-1]["error"]])
        elapsed = round((time.perf_counter() - t0) * 1000, 2)
        timings[f"{step.index}:{spec.name}"] = elapsed
        scope = step.scope
        warnings = list(dict.fromkeys(vp.warnings + scope.warnings + out.warnings))
        meta = {
            **meta_base,
            "date_range_effective": (
                {"from": scope.date_from.isoformat(), "to": scope.date_to.isoformat()}
                if scope.date_from and scope.date_to
                else None
            ),
            "date_range_requested": (
                {"from": scope.requested[0], "to": scope.requested[1]} if scope.requested[0] else None
            ),
            "range_adjusted": scope.range_adjusted,
            "range_adjusted_reason": "; ".join(scope.adjustments) or None,
            "timing_ms": elapsed,
            "warnings": warnings,
            "filters_applied": _filters(scope),
            # the crimes' own series end (a national tool's extra_meta says its own): the answer's «datos hasta»
            "serie_hasta": scope.series_end.isoformat() if scope.series_end else None,
            **out.extra_meta,
        }
        if retry:
            meta["retry"] = retry
        if (not out.rows or out.empty) and spec.kind != "filter":
            meta["empty_result"] = {"code": "EMPTY_RESULT", "details": "La consulta no devolvió filas."}
        envelopes.append(
            ok_envelope(
                tool=spec.identity,
                tool_version=spec.version,
                headline=out.headline,
                highlights=out.highlights,
                columns=out.columns,
                rows=out.rows,
                max_rows=max_rows,
                artifacts=artifacts,
                evidence=evidence,
                metrics=out.metrics,
                meta=meta,
            )
        )
        ctx.outputs.append((step, out))
    return Execution(envelopes, vp, "ok", timings)


def _internal_error(stage: str, catalog: Catalog, dataset_version: str | None, t0: float) -> Execution:
    """The last resort: an unexpected failure as a COMPUTE_ERROR envelope (Spanish, no traceback, no path)."""
    log.exception("plan %s failed unexpectedly", stage)
    env = error_envelope(
        HerramientaError(
            "Error interno al validar el plan." if stage == "validation" else "Error interno al ejecutar el plan.",
            ["Revise el plan; si el problema persiste, avise al equipo de datos."],
        ),
        tool="plan",
        tool_version=None,
        meta={"dataset_version": dataset_version, "catalog_version": catalog.catalog_version},
    )
    return Execution([env], None, "error", {stage: round((time.perf_counter() - t0) * 1000, 2)}, [env["error"]])


def run_plan(
    raw, *, store, catalog: Catalog, artifacts_dir: Path, day: str, strict_time: bool | None = None
) -> Execution:
    """Validate then execute; an invalid plan yields one error envelope listing every problem.

    Never raises: anything unexpected (a bug, not the plan's fault) becomes a COMPUTE_ERROR envelope.
    """
    t0 = time.perf_counter()
    try:
        metadata = store.metadata() if not store.is_empty() else None
        vp = validate_plan(raw, catalog, metadata, strict_time)
    except ErrorGroup as exc:
        parsed = None
        try:
            from core.engine.plan import parse_plan

            parsed = parse_plan(raw, catalog)
        except CasandraError:
            pass
        env = error_envelope(
            exc,
            tool=failing_tool(exc, parsed, catalog),
            tool_version=None,
            meta={"dataset_version": store.dataset_version, "catalog_version": catalog.catalog_version},
        )
        return Execution(
            [env], None, "error", {"validate": round((time.perf_counter() - t0) * 1000, 2)}, [env["error"]]
        )
    except Exception:  # noqa: BLE001 - the net under validation (which answers every plan with problems); logged
        return _internal_error("validation", catalog, store.dataset_version, t0)
    validate_ms = round((time.perf_counter() - t0) * 1000, 2)
    try:
        ctx = ToolContext(store=store, catalog=catalog, metadata=metadata)
        result = run_validated(vp, ctx, artifacts_dir, day)
    except Exception:  # noqa: BLE001 - the net under run_validated (a tool failure is already an envelope); logged
        return _internal_error("execution", catalog, store.dataset_version, t0)
    result.timings_ms = {"validate": validate_ms, **result.timings_ms}
    return result
