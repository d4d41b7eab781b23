"""The one function that turns any failure of the HTTP API into its response: an error envelope.

Datasette-style: every handler (the app's exception handlers, the guard middleware in front of mounted apps)
calls ``error_response``; the body is an error envelope (``catalogs/contracts/envelope_error.v1.1.0``) whose
``error`` block comes from ``core.errors.error_payload`` and whose ``http_status`` is the response's status:
422, 409, 500 and 413 from the contract's table, plus 401, 403 and 429 for access.
"""

from __future__ import annotations

import logging

from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException

from core.errors import (
    CasandraError,
    ErrorGroup,
    LimiteRecursosError,
    LimiteTasaError,
    Problem,
    ValidacionError,
    error_payload,
    pydantic_problems,
)

log = logging.getLogger(__name__)

ENVELOPE_ERROR_VERSION = "1.1.0"  # the exported envelope_error schema that carries the access codes
TOOL = "expositor"  # an HTTP refusal names no catalog tool
HTTP_MESSAGES = {
    404: "No existe ese recurso en la API de Casandra.",
    405: "Ese método no está permitido en este recurso.",
}


def envelope(payload: dict) -> dict:
    """An error envelope around an ``error`` block."""
    return {
        "status": "error",
        "tool": TOOL,
        "error": payload,
        "meta": {"schema_version": ENVELOPE_ERROR_VERSION, "tool_version": None},
    }


def request_problems(exc: RequestValidationError) -> ErrorGroup:
    """FastAPI's validation errors as Spanish problems with paths inside the body (``plan[0].args``)."""

    class _Shim:  # pydantic_problems reads ``errors()``; the body's own location drops its ``body`` prefix
        def errors(self):
            return [{**e, "loc": tuple(e.get("loc", ()))[1:] or ("body",)} for e in exc.errors()]

    problems = pydantic_problems(_Shim(), root="cuerpo")
    first = problems[0]
    problems[0] = Problem(first.code, "Solicitud inválida: " + first.details, first.hints, first.path)
    return ErrorGroup(problems)


def as_casandra(exc: BaseException) -> BaseException:
    """Framework exceptions as the engine's errors (anything else is left for the generic 500)."""
    if isinstance(exc, RequestValidationError):
        return request_problems(exc)
    if isinstance(exc, HTTPException):
        if exc.status_code == 413:
            return LimiteRecursosError("La solicitud es demasiado grande.")
        if isinstance(exc.__cause__, CasandraError):  # raised while the body was read (the guard's 413)
            return exc.__cause__
        if exc.status_code == 400:  # FastAPI could not parse the body: the contract's INVALID_PAYLOAD (422)
            return ValidacionError("El cuerpo de la solicitud no es JSON válido.", ["Envíe un objeto JSON en UTF-8."])
        error = ValidacionError(HTTP_MESSAGES.get(exc.status_code, "Solicitud no válida."))
        error.status_override = exc.status_code
        return error
    if isinstance(exc, RecursionError):  # a JSON body nested beyond what the parser follows
        return ValidacionError("El cuerpo JSON está anidado demasiado profundo.", ["Un plan tiene pocos niveles."])
    return exc


def error_response(exc: BaseException) -> JSONResponse:
    """The response for any exception: an error envelope with the status of its code (and Retry-After on 429)."""
    exc = as_casandra(exc)
    if not isinstance(exc, CasandraError):
        log.error("unexpected failure in the HTTP API", exc_info=exc)
    payload = error_payload(exc)
    status = getattr(exc, "status_override", None) or payload["http_status"]
    payload["http_status"] = status
    headers = {}
    if isinstance(exc, LimiteTasaError):
        headers["Retry-After"] = str(exc.retry_after)
    if status == 401:
        headers["WWW-Authenticate"] = 'Bearer realm="casandra"'
    return JSONResponse(envelope(payload), status_code=status, headers=headers)


def envelope_status(env: dict | list[dict]) -> int:
    """The HTTP status of an execution's answer: 200, or the last envelope's error status."""
    last = env[-1] if isinstance(env, list) else env
    return 200 if last.get("status") == "ok" else int(last["error"]["http_status"])
