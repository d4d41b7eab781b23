"""Plan validation (docs/contracts/001_casandra_v0.md C.8): static checks, then contextual ones; every problem at once.

Static (``core.engine.static``, per step): tool and version exist, arguments against ``args_schema``
with finite numbers only, entities, crimes and methods exist. The static problems of every step are
collected and stop validation there, so the contextual checks only ever see arguments their schemas
accept. Contextual (metadata only): what each tool ``requires`` and the pipeline order, dates aligned
to months (or to the years of the annual series, by the spec's ``calendar``) and clamped to the
watermark and to each crime's coverage, ``strict_time``, each tool's own checks (the spec's
``checks``, given a ``StepCheck``), and a resource estimate. No tool is named here: what differs
between tools comes from their specs. ``validate_plan`` raises nothing but ``ErrorGroup``.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import date

from core.engine.catalog import Catalog, ToolSpec
from core.engine.plan import Plan, parse_plan, query_hash
from core.engine.static import static_step
from core.engine.window import apply_coverage, parse_date, resolve_window, series_end
from core.errors import ErrorGroup, Problem, ProblemCollector
from core.text import month_count
from core.tools import Entity, ResolvedStep, Scope

MAX_ESTIMATED_CELLS = 50_000_000
FREQUENCY_ARGS = ("por", "min_eventos", "min_tasa")  # a step taking them sets the frequency minimums
INTERNAL_DETAILS = "Error interno al validar el plan."
INTERNAL_HINTS = ("Revise el plan; si el problema persiste, avise al equipo de datos.",)

log = logging.getLogger(__name__)


@dataclass
class ValidatedPlan:
    """A plan ready to run: normalized steps with their scopes and its query_hash."""

    plan: Plan
    steps: list[ResolvedStep]
    query_hash: str
    catalog_version: str
    dataset_version: str | None
    warnings: list[str] = field(default_factory=list)
    estimate: dict = field(default_factory=dict)


@dataclass
class StepCheck:
    """One step as its tool's contextual check (the spec's ``checks``) sees it: arguments, scope, place in the plan.

    A check adds problems (never raises) and may narrow the step's scope or leave ``_``-prefixed args for its tool.
    """

    spec: ToolSpec
    args: dict
    scope: Scope
    path: str
    earlier: list[ToolSpec]  # the steps before this one
    catalog: Catalog
    metadata: dict
    strict: bool
    problems: ProblemCollector

    def problem(self, code: str, details: str, hints: tuple[str, ...] | list[str] = (), where: str = "") -> None:
        """Record a problem at this step (``where`` is appended to its path, e.g. '.args.base_from')."""
        self.problems.add(code, details, hints, self.path + where)

    def date(self, key: str) -> date | None:
        """The ISO date argument ``key`` (None when absent or not a date, which is a problem)."""
        return parse_date(self.args[key], self.problems, f"{self.path}.args.{key}") if key in self.args else None

    def window(self, start: date, end: date, where: str) -> tuple[date, date, list[str]] | None:
        """``resolve_window`` with this plan's data and strict_time."""
        return resolve_window(start, end, self.metadata, self.strict, self.problems, self.path + where)


def _entity(catalog: Catalog, entidad_id: str) -> Entity | None:
    e = catalog.entity_by_id.get(entidad_id)
    return Entity(e["entidad_id"], e["nivel"], e["estado_id"], e["label"], e["cve"]) if e else None


def _expand(catalog: Catalog, keys: list[str]) -> list[str]:
    """Tipo-level keys (``homicidio``) also match the subtipos they include."""
    by_key = {c["delito"]: c for c in catalog.crimes}
    out: list[str] = []
    for k in keys:
        out.append(k)
        incl = (by_key.get(k) or {}).get("incluye") or ""
        out += [x for x in incl.split("|") if x]
    return sorted(set(out))


def validate_plan(raw, catalog: Catalog, metadata: dict | None, strict_time: bool | None = None) -> ValidatedPlan:
    """Validate any plan form; returns a ValidatedPlan or raises one ErrorGroup with every problem.

    Nothing else ever escapes: an unexpected failure (a bug, never a plan's fault) is logged and
    answered as a ``COMPUTE_ERROR`` problem with a Spanish message — a safety net, not the checks.
    """
    try:
        return _validate(raw, catalog, metadata, strict_time)
    except ErrorGroup:
        raise
    except Exception:  # the last resort: never a traceback for a plan
        log.exception("plan validation failed unexpectedly")
        raise ErrorGroup([Problem("COMPUTE_ERROR", INTERNAL_DETAILS, INTERNAL_HINTS, "plan")]) from None


def _validate(raw, catalog: Catalog, metadata: dict | None, strict_time: bool | None) -> ValidatedPlan:
    plan = parse_plan(raw, catalog)
    strict = plan.meta.strict_time if strict_time is None else bool(strict_time)
    problems = ProblemCollector()
    warnings: list[str] = []
    if metadata is None:
        raise ErrorGroup(
            [
                Problem(
                    "DATA_QUALITY_ISSUE",
                    "No hay datos publicados todavía.",
                    ("Cargue archivos con la ETL antes de consultar.",),
                )
            ]
        )
    if plan.meta.catalog_version and plan.meta.catalog_version != catalog.catalog_version:
        warnings.append(
            f"El plan se escribió para el catálogo {plan.meta.catalog_version}; se validó con {catalog.catalog_version}."
        )
    if plan.meta.dataset_version and plan.meta.dataset_version != metadata["dataset_version"]:
        warnings.append(
            f"El plan se escribió para los datos {plan.meta.dataset_version}; se ejecuta con {metadata['dataset_version']}."
        )
    statics = [static_step(i, s, catalog, problems, warnings) for i, s in enumerate(plan.plan)]
    problems.raise_if_any()  # schema problems of every step, then stop: the checks below trust the values
    labels = {c["delito"]: c["subtipo"] for c in catalog.crimes}
    includes = {c["delito"]: [x for x in (c.get("incluye") or "").split("|") if x] for c in catalog.crimes}
    scope = Scope()
    resolved: list[ResolvedStep] = []
    earlier: list[ToolSpec] = []
    cells = 0
    for i, (spec, args) in enumerate(statics):
        if spec is None:
            continue
        path = f"plan[{i}]"
        step_scope = scope.copy()
        step_scope.warnings = []
        if "entidad_id" in args:
            entity = _entity(catalog, args["entidad_id"])
            if entity is not None:
                step_scope.entity = entity
        if "nivel" in args:
            step_scope.nivel = args["nivel"]
        if "delito" in args:
            keys = args["delito"] if isinstance(args["delito"], list) else [args["delito"]]
            step_scope.delitos = list(keys)
            step_scope.delito_keys = _expand(catalog, keys)
        if "metodo" in args:
            step_scope.metodos = args["metodo"] if isinstance(args["metodo"], list) else [args["metodo"]]
        if args.get("violencia"):
            step_scope.violencia = args["violencia"]
        if set(FREQUENCY_ARGS) <= spec.arg_names:
            step_scope.frecuencia = {k: args.get(k) for k in FREQUENCY_ARGS}
        if "from" in args or "to" in args:
            if "from" in args and "to" in args:
                a = parse_date(args["from"], problems, f"{path}.args.from")
                b = parse_date(args["to"], problems, f"{path}.args.to")
                if a and b and spec.calendar == "years":  # yearly series: its own years, not the monthly watermark
                    step_scope.requested = (str(args["from"]), str(args["to"]))
                    if a > b:
                        problems.add(
                            "INVALID_DATE_RANGE",
                            f"from ({a}) es posterior a to ({b}).",
                            ["Asegure 'from' <= 'to'."],
                            f"{path}.args",
                        )
                    else:
                        step_scope.date_from, step_scope.date_to, step_scope.adjustments = a, b, []
                elif a and b:
                    step_scope.requested = (str(args["from"]), str(args["to"]))
                    # the crimes' own series may end after the store (Irapuato to 2025-12): apply_coverage clamps
                    own = spec.kind not in ("filter", "evidence") and spec.calendar == "months"
                    step_scope.series_end = series_end(metadata, step_scope, includes) if own else None
                    res = resolve_window(a, b, metadata, strict, problems, f"{path}.args", step_scope.series_end)
                    if res:
                        step_scope.date_from, step_scope.date_to, step_scope.adjustments = res
            else:
                problems.add(
                    "INVALID_DATE_RANGE",
                    f"{spec.name}: from y to van juntos.",
                    ["Indique ambas fechas."],
                    f"{path}.args",
                )
        if spec.requires.entity and step_scope.entity is None and "entidad_id" not in args:
            problems.add(
                "INVALID_PAYLOAD",
                f"{spec.name} requiere entidad_id (en sus argumentos o con enfoque_entidad antes).",
                ["Ejemplo: entidad_id: GTO"],
                f"{path}.args.entidad_id",
            )
        if spec.requires.date_range and step_scope.date_from is None and not step_scope.requested[0]:
            problems.add(
                "INVALID_PAYLOAD",
                f"{spec.name} requiere from y to (en sus argumentos o con filtro_fecha antes).",
                ["Ejemplo: from: 2024-01-01, to: 2024-12-31"],
                f"{path}.args",
            )
        check = spec.hook("checks")
        if check:
            check(StepCheck(spec, args, step_scope, path, list(earlier), catalog, metadata, strict, problems))
        if spec.kind not in ("filter", "evidence") and spec.calendar == "months" and step_scope.date_from:
            apply_coverage(step_scope, metadata, problems, path, labels, includes)
        if spec.calendar == "years" and step_scope.date_from:
            _annual_window(step_scope, metadata, problems, path)
        if step_scope.date_from and step_scope.date_to:
            months = month_count(step_scope.date_from, step_scope.date_to)
            months += int(args.get(spec.history, 0)) if spec.history else 0  # the history it reads first
            n_entities = catalog.n_municipalities or 1
            cells += months * n_entities * max(1, len(step_scope.delito_keys)) * 10
        resolved.append(ResolvedStep(i, spec, args, step_scope, given=frozenset(plan.plan[i].args)))
        if spec.kind == "filter":
            scope = step_scope.copy()
            scope.warnings = []
        earlier.append(spec)
    if cells > MAX_ESTIMATED_CELLS:
        problems.add(
            "RESOURCE_LIMIT",
            f"El plan leería unas {cells:,} celdas; el límite es {MAX_ESTIMATED_CELLS:,}.",
            ["Acorte la ventana o reduzca los delitos."],
            "plan",
        )
    problems.raise_if_any()
    normalized = Plan.model_validate(
        {
            "plan": [
                {
                    "tool_id": st.spec.tool_id,
                    "tool_version": st.spec.version,
                    "args": {k: v for k, v in st.args.items() if not k.startswith("_")},
                }
                for st in resolved
            ],
            "meta": {
                "catalog_version": catalog.catalog_version,
                "dataset_version": metadata["dataset_version"],
                "strict_time": strict,
            },
        }
    )
    qh = query_hash(normalized, catalog.catalog_version, metadata["dataset_version"])
    return ValidatedPlan(
        normalized,
        resolved,
        qh,
        catalog.catalog_version,
        metadata["dataset_version"],
        warnings,
        {"celdas_estimadas": cells},
    )


def _annual_window(scope: Scope, metadata: dict, problems: ProblemCollector, path: str) -> None:
    """The yearly series covers whole years; outside its years there is no number."""
    years = sorted(int(y) for y in metadata.get("annual_series", {}).get("total_delitos", {}).get("years", {}))
    if not years:
        problems.add(
            "DATA_QUALITY_ISSUE", "El conjunto de datos no tiene la serie anual de total de delitos.", path=path
        )
        return
    a, b = max(scope.date_from.year, years[0]), min(scope.date_to.year, years[-1])
    if a > b:
        problems.add(
            "DATA_QUALITY_ISSUE",
            f"No hay totales anuales entre {scope.date_from.year} y {scope.date_to.year}; "
            f"la serie cubre {years[0]}..{years[-1]}.",
            path=path,
        )
        return
    if (a, b) != (scope.date_from.year, scope.date_to.year):
        scope.adjustments.append(f"recortada a los años de la serie anual: {a}..{b}")
    scope.date_from, scope.date_to = date(a, 1, 1), date(b, 12, 31)


def failing_tool(group: ErrorGroup, raw_plan: Plan | None, catalog: Catalog) -> str:
    """``name@version`` of the step the first problem points at (or 'plan')."""
    import re

    for p in group.problems:
        m = re.match(r"plan\[(\d+)\]", p.path or "")
        if m and raw_plan is not None and int(m.group(1)) < len(raw_plan.plan):
            spec = catalog.spec_for(raw_plan.plan[int(m.group(1))].tool_id)
            if spec:
                return spec.identity
    return "plan"
