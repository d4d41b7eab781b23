"""Job API (docs/contracts/001_casandra_v0.md §4.5): a simple JobRequest adapted to a Plan, run, and mapped back.

``municipio`` → ``entidad_id`` (catalog names, short names, aliases or ids),
``fecha_inicio|fecha_fin`` → ``from|to``; the last envelope becomes the JobResult with
provenance always, errors as warnings with their code and HTTP status. ``run_job`` never raises:
every failure, expected or not, is a JobResult with its error block.
"""

from __future__ import annotations

import logging
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from core.config import Settings, load_settings
from core.dataset.store import get_store
from core.engine.catalog import build_catalog
from core.errors import (
    ErrorGroup,
    FiltroInvalidoError,
    Problem,
    ValidacionError,
    error_payload,
    pydantic_problems,
)
from core.text import normalize_text

log = logging.getLogger(__name__)

INTENT_TOOLS = {
    "consulta": "rank_por_delito",
    "analisis": "serie_temporal",
    "metricas": "agrupar_por_entidad",
    "patrones": "detectar_patrones",
}


class JobParams(BaseModel):
    """v0 parameters with their compatibility names (§8)."""

    model_config = ConfigDict(extra="forbid")
    municipio: str | None = Field(default=None, max_length=120)
    fecha_inicio: str | None = Field(default=None, max_length=20)
    fecha_fin: str | None = Field(default=None, max_length=20)
    delito: str | list[str] | None = None


class JobTool(BaseModel):
    """A tool named by its catalog name, with arguments."""

    model_config = ConfigDict(extra="forbid")
    name: str = Field(max_length=80)
    args: dict[str, Any] = Field(default_factory=dict)


class JobRequest(BaseModel):
    """The simple request of the compatibility API."""

    model_config = ConfigDict(extra="forbid")
    intent: Literal["consulta", "analisis", "metricas", "patrones"]
    query: str | None = Field(default=None, max_length=2000)
    tools: list[JobTool] | None = Field(default=None, max_length=12)
    params: JobParams = Field(default_factory=JobParams)
    output: Literal["json", "markdown", "tabular", "grafico"] = "json"


class JobResult(BaseModel):
    """The simple result: ok, payload, warnings and provenance (always)."""

    model_config = ConfigDict(extra="forbid")
    ok: bool
    payload: dict[str, Any] | None
    warnings: list[str]
    provenance: dict[str, Any]
    error: dict[str, Any] | None = None


def resolve_municipio(text: str, catalog) -> str:
    """A place name, short name, alias or id → entidad_id; INVALID_FILTER when unknown."""
    wanted = normalize_text(text)
    for e in catalog.entities:
        names = [e["entidad_id"], e["label"], e.get("nombre_corto") or ""] + (e.get("aliases") or "").split("|")
        if wanted in {normalize_text(n) for n in names if n}:
            return e["entidad_id"]
    raise FiltroInvalidoError(
        f"No se encontró el municipio {text[:80]!r}.",
        ["Use el nombre oficial, p. ej. 'León' o 'Silao de la Victoria'."],
    )


def to_plan(req: JobRequest, catalog, metadata: dict) -> tuple[dict, dict]:
    """Adapt a JobRequest to a normalized-JSON plan; returns (plan, filters_applied)."""
    p = req.params
    common: dict[str, Any] = {}
    if p.municipio:
        common["entidad_id"] = resolve_municipio(p.municipio, catalog)
    if p.delito:
        common["delito"] = p.delito
    if p.fecha_inicio or p.fecha_fin:
        common["from"] = p.fecha_inicio or metadata["min_date"]
        common["to"] = p.fecha_fin or metadata["max_date"]
    tools = req.tools or [JobTool(name=INTENT_TOOLS[req.intent])]
    steps = []
    for t in tools:
        spec = catalog.spec_for(t.name)
        if spec is None:
            raise ValidacionError(
                f"La herramienta {t.name!r} no existe.", [f"Disponibles: {', '.join(catalog.by_name)}"]
            )
        args = {k: v for k, v in common.items() if k in spec.arg_names}
        if spec.requires.entity and "entidad_id" not in args and "entidad_id" not in t.args:
            # the state by default; every tool's default nivel (hijos) reads its municipalities
            args["entidad_id"] = (
                "GTO" if any(e["entidad_id"] == "GTO" for e in catalog.entities) else catalog.entities[0]["entidad_id"]
            )
        if spec.requires.date_range and "from" not in args and "from" not in t.args:
            args["from"], args["to"] = metadata["min_date"], metadata["max_date"]
        if p.municipio and "nivel" in spec.arg_names:  # a job about a municipality asks about the municipality itself
            args.setdefault("nivel", "actual")
        args.update(t.args)
        steps.append({"tool_id": spec.tool_id, "args": args})
    return {"plan": steps}, common


def _payload(env: dict, output: str) -> dict:
    inline = env["data"]["inline"]
    cols = [c["name"] for c in inline["columns"]]
    base = {"summary": env["summary"], "limit_notice": inline["limit_notice"], "artifacts": env["data"]["artifacts"]}
    if output == "tabular":
        return {**base, "columns": cols, "rows": inline["rows"]}
    if output == "markdown":
        lines = [f"**{env['summary']['headline']}**", "", "| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
        lines += ["| " + " | ".join("" if v is None else str(v) for v in r) + " |" for r in inline["rows"]]
        return {**base, "markdown": "\n".join(lines)}
    if output == "grafico":
        kind = "line" if "fecha" in cols else "bar"
        x = "fecha" if kind == "line" else ("label" if "label" in cols else cols[0])
        y = next((c for c in ("conteo", "tasa_per_100k", "score", "z_score") if c in cols), cols[-1])
        return {**base, "chart": {"type": kind, "x": x, "y": y, "data": [dict(zip(cols, r)) for r in inline["rows"]]}}
    return {
        **base,
        "columns": inline["columns"],
        "rows": inline["rows"],
        "metrics": env.get("metrics"),
        "evidence": env.get("evidence"),
    }


def _failed(provenance: dict, payload: dict, more: list[str] | None = None) -> JobResult:
    return JobResult(
        ok=False, payload=None, warnings=[payload["details"], *(more or [])], provenance=provenance, error=payload
    )


def run_job(
    request: dict | JobRequest, *, settings: Settings | None = None, user: str = "local", role: str = "analista"
) -> JobResult:
    """JobRequest → Plan → Envelope → JobResult; never raises (an unexpected failure is an internal-error result)."""
    provenance = {
        "dataset": "SESNSP incidencia delictiva municipal (fuero común)",
        "dataset_version": None,
        "data_available_until": None,
        "filters_applied": {},
    }
    try:
        return _run_job(request, settings or load_settings(), user, role, provenance)
    except Exception as exc:  # the adapter's contract: a JobResult, never an exception
        log.exception("job failed unexpectedly")
        return _failed(provenance, error_payload(exc))


def _run_job(request, settings: Settings, user: str, role: str, provenance: dict) -> JobResult:
    from core import api

    store = get_store(settings)
    provenance["dataset_version"] = store.dataset_version
    try:
        req = request if isinstance(request, JobRequest) else JobRequest.model_validate(request)
        metadata = store.metadata()
        provenance["data_available_until"] = metadata["max_date"]
        plan, filters = to_plan(req, build_catalog(store), metadata)
    except ValidationError as exc:
        problems = pydantic_problems(exc, root="JobRequest")
        first = problems[0]
        problems[0] = Problem(first.code, "JobRequest inválido: " + first.details, first.hints, first.path)
        return _failed(provenance, error_payload(ErrorGroup(problems)), [p.details for p in problems[1:]])
    except Exception as exc:  # noqa: BLE001 - every failure maps through the one error mapper
        return _failed(provenance, error_payload(exc))
    env = api.execute_plan(plan, settings=settings, user=user, role=role, question=req.query, kind="job")
    provenance["filters_applied"] = {
        **filters,
        **({"date_range_effective": env["meta"].get("date_range_effective")} if env["status"] == "ok" else {}),
    }
    if env["status"] != "ok":
        err = env["error"]
        return _failed(provenance, err, [p["details"] for p in err.get("problems", [])[1:]])
    return JobResult(
        ok=True, payload=_payload(env, req.output), warnings=env["meta"].get("warnings", []), provenance=provenance
    )
