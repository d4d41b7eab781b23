"""The analyst's endpoints: the Plan API (§4.1), the Job API (§4.5) and a question through the whole pipeline.

Each endpoint is a thin call into ``core.api``, ``core.jobs`` or the ``Assistant`` that ``python -m core ask``
uses, with the client of the token as the audited user (``api:NAME``) and its role. Nothing here queries the
store: user input reaches the data only as a plan of catalog tools, validated by the engine. Each run pins the
dataset version for its thread (``one_version``): a steward's publication meanwhile reaches the next request.
"""

from __future__ import annotations

import threading
from typing import Annotated

from fastapi import APIRouter, Depends, Request
from fastapi.responses import JSONResponse

from core import api
from core.dataset.store import get_store
from core.engine.envelope_schema import ErrorEnvelope
from core.errors import NoAutenticadoError, ValidacionError
from core.expositor import text_plan
from core.expositor.errors import envelope_status
from core.expositor.models import AskRequest, AskResponse, DatasetInfo, DatasetMetadata, Envelope, ExecuteRequest
from core.expositor.tokens import Client
from core.jobs import JobRequest, JobResult, run_job

router = APIRouter()
RUN_ERRORS = (409, 413, 422, 500)  # the statuses of an execution's own error envelopes (core/errors.py)


def client(request: Request) -> Client:
    """The client the guard admitted (``core.expositor.guard``)."""
    found = getattr(request.state, "client", None)
    if found is None:  # only reachable if a route escaped the guard
        raise NoAutenticadoError("Falta un token válido.")
    return found


Who = Annotated[Client, Depends(client)]


def one_version(settings):
    """Pin the current dataset version for this thread while the block runs (``core.dataset.store.Store.pinned``).

    Inside the endpoint's body, not a dependency: FastAPI may run a dependency's setup in another thread."""
    return get_store(settings).pinned()


@router.get("/tools/catalog", summary="Catálogo de herramientas y entidades (CatalogSpec)")
def tools_catalog(request: Request) -> dict:
    """The CatalogSpec: tools with their args schemas, entities, taxonomy, catalog_version and checksum."""
    return api.catalog(request.app.state.settings)


@router.get("/dataset/metadata", response_model=DatasetMetadata, summary="Versión y fechas del conjunto de datos")
def dataset_metadata(request: Request) -> dict:
    """``{dataset_version, min_date, max_date, updated_at}``: the time anchor of every plan."""
    return api.metadata(request.app.state.settings)


@router.get("/dataset/info", response_model=DatasetInfo, summary="Superconjunto de los metadatos (alias)")
def dataset_info(request: Request) -> dict:
    """The metadata with ``data_available_until``, coverage, row counts and sources."""
    return api.dataset_info(request.app.state.settings)


@router.post(
    "/plan/execute",
    summary="Ejecutar un plan de herramientas del catálogo",
    openapi_extra=text_plan.OPENAPI_EXTRA,  # also a text/plain body (core/expositor/text_plan.py)
    responses={
        200: {"model": Envelope | list[Envelope], "description": "El último sobre, o todos"},
        # With return_all, a refused plan still answers every envelope: the list ends in the error one.
        **{status: {"model": ErrorEnvelope | list[Envelope], "description": "Sobre de error"} for status in RUN_ERRORS},
    },
)
def plan_execute(body: ExecuteRequest, request: Request, who: Who) -> JSONResponse:
    """Validate, run and audit a plan; its status is the last envelope's (200, or the error's 422, 409, 413, 500)."""
    if body.meta is not None and not isinstance(body.plan, list):
        raise ValidacionError("'meta' va dentro del plan cuando el plan es un objeto.", path="meta")
    with one_version(request.app.state.settings):
        result = api.execute_plan(
            body.raw_plan(),
            strict_time=body.strict_time,
            return_all=body.return_all,
            settings=request.app.state.settings,
            user=who.user,
            role=who.role,
        )
    return JSONResponse(result, status_code=envelope_status(result))


@router.post(
    "/v1/job",
    summary="Job API (compatibilidad): JobRequest → JobResult",
    responses={
        200: {"model": JobResult},
        # A job the adapter refuses is a JobResult with its error's status; a malformed body, an error envelope.
        **{status: {"model": JobResult | ErrorEnvelope, "description": "JobResult fallido"} for status in RUN_ERRORS},
    },
)
def v1_job(body: JobRequest, request: Request, who: Who) -> JSONResponse:
    """Adapt a JobRequest to a plan, run it and map the envelope back; a failed job keeps its error's status."""
    with one_version(request.app.state.settings):
        result = run_job(body, settings=request.app.state.settings, user=who.user, role=who.role)
    status = 200 if result.ok else int((result.error or {}).get("http_status") or 500)
    return JSONResponse(result.model_dump(mode="json"), status_code=status)


_assistants_lock = threading.Lock()


def assistant(app, who: Client):
    """One ``Assistant`` per app, client and role (its lexicon and same-day cache outlive a request)."""
    from core.ask.context import Assistant

    key = (who.user, who.role)
    with _assistants_lock:
        found = app.state.assistants.get(key)
        if found is None:
            found = app.state.assistants[key] = Assistant(settings=app.state.settings, user=who.user, role=who.role)
    return found


@router.post("/ask", response_model=AskResponse, summary="Una pregunta en español por todo el proceso")
def ask(body: AskRequest, request: Request, who: Who) -> JSONResponse:
    """Answer a question (after its ``previous`` questions, as one conversation); the turn as ``core ask --json``."""
    from core.ask.pipeline import Conversation

    helper = assistant(request.app, who)
    conversation = Conversation()
    with one_version(request.app.state.settings):  # the earlier questions too: one conversation, one version
        for question in [*body.previous, body.question]:
            turn = helper.ask(question, conversation, domain_hint=body.domain_hint, planner=body.planner)
    return JSONResponse(turn.as_dict())
