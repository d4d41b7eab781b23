"""The HTTP API of Casandra (issue 16): ``create_app(settings)`` builds the FastAPI app uvicorn serves.

Routes: the Plan API and Job API (``core.expositor.routes``), the steward's uploads and the supervisor's audit
(``core.expositor.steward``) and the health checks below. Every path but the health checks and the OpenAPI
document sits behind the guard (``core.expositor.guard``: token, role, rate, body size), mounted apps included;
every error is an error envelope (``core.expositor.errors.error_response``). CORS only when configured.
Served by ``python -m core api`` (``core.expositor.cli``) on 127.0.0.1 unless ``CASANDRA_API_HOST`` says otherwise.
"""

from __future__ import annotations

import os

from fastapi import Depends, FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.middleware.cors import CORSMiddleware
from fastapi.responses import JSONResponse
from fastapi.security import HTTPBearer
from starlette.exceptions import HTTPException

from core.audit.log import AuditLog
from core.config import Settings, load_settings
from core.dataset.store import get_store
from core.errors import CasandraError
from core.expositor import routes, steward
from core.expositor.errors import error_response
from core.expositor.guard import Guard
from core.expositor.mcp_server import mount_mcp
from core.expositor.models import Live, Ready
from core.expositor.text_plan import TextPlan

API_VERSION = "1.0.0"
ERROR_STATUSES = (401, 403, 409, 413, 422, 429, 500)


def _error_handler(request: Request, exc: Exception) -> JSONResponse:
    return error_response(exc)


def _ready(settings: Settings) -> tuple[dict, int]:
    """Whether the store answers and the audit folder takes a write."""
    checks, version = {}, None
    try:
        store = get_store(settings)
        version = None if store.is_empty() else store.metadata()["dataset_version"]
        checks["store"] = "ok" if version else "sin datos publicados"
    except Exception:  # noqa: BLE001 - a broken store is "not ready", never a 500
        checks["store"] = "no se pudo abrir"
    try:
        with AuditLog.for_settings(settings) as log:
            log.schema_version()
        writable = os.access(settings.audit_dir, os.W_OK)
        checks["audit"] = "ok" if writable else "sin permiso de escritura"
    except Exception:  # noqa: BLE001 - same: the check reports, it does not fail
        checks["audit"] = "no se pudo abrir"
    ok = all(v == "ok" for v in checks.values())
    return {"status": "ready" if ok else "not_ready", "checks": checks, "dataset_version": version}, 200 if ok else 503


def _error_responses() -> dict:
    """Every documented error status answers with the exported error envelope."""
    from core.engine.envelope_schema import ErrorEnvelope

    return {status: {"model": ErrorEnvelope, "description": "Sobre de error"} for status in ERROR_STATUSES}


def create_app(settings: Settings | None = None) -> FastAPI:
    """The API for ``settings`` (the environment's when None): routes, guard, error envelopes, optional CORS."""
    settings = settings or load_settings()
    app = FastAPI(
        title="Casandra API",
        version=API_VERSION,
        description="Plan API, Job API y preguntas en español sobre la incidencia delictiva (issue 16).",
        docs_url="/docs",
        redoc_url=None,
        openapi_url="/openapi.json",
    )
    app.state.settings = settings
    app.state.assistants = {}
    secured = [Depends(HTTPBearer(auto_error=False, description="Token del cliente"))]
    app.include_router(routes.router, dependencies=secured, responses=_error_responses())
    app.include_router(steward.router, dependencies=secured, responses=_error_responses())

    @app.get("/health/live", response_model=Live, summary="El proceso responde")
    def live() -> dict:
        """Always ``live`` while the process serves."""
        return {"status": "live"}

    @app.get("/health/ready", response_model=Ready, responses={503: {"model": Ready}}, summary="Listo para servir")
    def ready() -> JSONResponse:
        """``ready`` when the store is open with a published version and the audit is writable (else 503)."""
        body, status = _ready(settings)
        return JSONResponse(body, status_code=status)

    # CasandraError by name: a refusal is an answer, not a crash (only Exception's handler logs and re-raises).
    for kind in (CasandraError, RequestValidationError, HTTPException, Exception):
        app.add_exception_handler(kind, _error_handler)
    # Mounted apps (the MCP server at /mcp) go here, before the guard wraps the whole app.
    mount_mcp(app, settings)  # MCP over streamable HTTP at /mcp, its session manager in the app's lifespan
    app.add_middleware(TextPlan)  # a text/plain plan becomes ExecuteRequest's JSON, behind the guard
    app.add_middleware(Guard, settings=settings)
    if settings.api.cors_origins:  # outside the guard: a browser's preflight carries no token
        app.add_middleware(
            CORSMiddleware,
            allow_origins=list(settings.api.cors_origins),
            allow_methods=["GET", "POST"],
            allow_headers=["Authorization", "Content-Type"],
        )
    return app
