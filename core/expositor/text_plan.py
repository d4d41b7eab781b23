"""A plan posted as plain text: ``curl --data-binary @plan.txt -H 'Content-Type: text/plain' …/plan/execute``.

The same file ``python -m core execute plan.txt`` reads (text plan or JSON, docs/contracts/001_casandra_v0.md §4.3)
is accepted as the body of ``POST /plan/execute``; ``strict_time`` and ``return_all`` come from the query
string. This ASGI middleware rewrites such a request into the JSON body of ``ExecuteRequest``, so one route,
one model and one validation serve both; the guard in front of it has already capped the body's size.
"""

from __future__ import annotations

import json
from urllib.parse import parse_qs

from core.errors import ValidacionError
from core.expositor.errors import error_response

PATH = "/plan/execute"
MEDIA_TYPE = "text/plain"
FLAGS = ("strict_time", "return_all")
TRUE, FALSE = ("true", "1"), ("false", "0")

# The OpenAPI document's second body of the route (FastAPI merges it into the generated operation).
OPENAPI_EXTRA = {
    "parameters": [
        {
            "name": name,
            "in": "query",
            "required": False,
            "schema": {"type": "boolean"},
            "description": "Solo con un cuerpo text/plain (en JSON va dentro del cuerpo).",
        }
        for name in FLAGS
    ],
    "requestBody": {
        "content": {
            MEDIA_TYPE: {
                "schema": {"type": "string", "description": "El plan en texto o JSON, como lo lee `core execute`."}
            }
        }
    },
}


def _flags(query_string: bytes) -> dict[str, bool]:
    """``strict_time`` and ``return_all`` from the query string (``true``/``false``, ``1``/``0``)."""
    query = parse_qs(query_string.decode("latin-1"), keep_blank_values=True)
    out = {}
    for name in FLAGS:
        if name in query:
            value = query[name][-1].strip().lower()
            if value not in TRUE + FALSE:
                raise ValidacionError(f"Valor inválido en {name}: use true o false.", path=name)
            out[name] = value in TRUE
    return out


def _is_text_plan(scope) -> bool:
    if scope["type"] != "http" or scope["method"] != "POST" or scope["path"] != PATH:
        return False
    content_type = dict(scope.get("headers") or []).get(b"content-type", b"")
    return content_type.split(b";")[0].strip().lower() == MEDIA_TYPE.encode()


class TextPlan:
    """ASGI middleware: a ``text/plain`` plan becomes ``{"plan": <text>, <flags>}`` as JSON."""

    def __init__(self, app):
        """Wrap ``app``."""
        self.app = app

    async def __call__(self, scope, receive, send):
        """Rewrite a plain-text plan request; pass anything else through untouched."""
        if not _is_text_plan(scope):
            await self.app(scope, receive, send)
            return
        chunks, more = [], True
        while more:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            chunks.append(message.get("body", b""))
            more = message.get("more_body", False)
        try:
            text = b"".join(chunks).decode("utf-8")
            body = json.dumps({"plan": text, **_flags(scope.get("query_string", b""))}).encode()
        except UnicodeDecodeError:
            await error_response(ValidacionError("El plan no es texto UTF-8 válido."))(scope, receive, send)
            return
        except ValidacionError as exc:
            await error_response(exc)(scope, receive, send)
            return
        headers = [(k, v) for k, v in scope["headers"] if k not in (b"content-type", b"content-length")]
        headers += [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
        sent = False

        async def replay():
            nonlocal sent
            if sent:
                return await receive()
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}

        await self.app({**scope, "headers": headers}, replay, send)
