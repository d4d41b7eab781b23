"""What Casandra's MCP server offers, built from the catalog: tools, their calls and the dataset resources.

Every catalog tool is one MCP tool (its name, its resolved ``args_schema`` as input schema, its summary as
description): a call runs a one-step plan of that tool through ``core.api.execute_plan``, so its arguments
are validated, its SQL parameterized and the run audited under the client's name. ``execute_plan`` runs a
whole plan (filters, then an analysis, then its evidence) and ``ask`` a Spanish question through the whole
pipeline. Nothing here names a catalog tool: a new ToolSpec is a new MCP tool.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from typing import Any

import mcp_types as types
from pydantic import BaseModel, ValidationError

from core import api
from core.config import Settings
from core.dataset.store import get_store
from core.engine.catalog import tool_spec
from core.engine.envelope_schema import OkEnvelope
from core.engine.limits import MAX_PLAN_BYTES
from core.errors import CasandraError, ErrorGroup, LimiteRecursosError, error_payload, pydantic_problems
from core.expositor.models import AskRequest, ExecuteRequest

log = logging.getLogger(__name__)

ASK = "ask"
EXECUTE_PLAN = "execute_plan"
RESERVED = (ASK, EXECUTE_PLAN)  # a catalog tool may not take these names (build_tools refuses it)
JSON_MIME = "application/json"
# execute_plan and ask take the bodies of POST /plan/execute and POST /ask: one vocabulary for HTTP and MCP
PLAN_SCHEMA = ExecuteRequest.model_json_schema()
ASK_SCHEMA = AskRequest.model_json_schema()


class UnknownTool(LookupError):
    """A call names no tool this server offers (an MCP protocol error, not a tool error)."""


def _description(tool: dict) -> str:
    """The tool's summary, plus how to use a tool that does not answer alone (read from its spec)."""
    spec = tool_spec(tool["name"])
    after = spec.example.after if spec is not None and spec.example is not None else None
    if after is None:
        return tool["summary"]
    return f"{tool['summary']} No responde sola: úsela en {EXECUTE_PLAN}, en un paso después de {after}."


def build_tools(catalog: dict) -> list[types.Tool]:
    """One MCP tool per catalog tool (its answer: an ok envelope), then ``execute_plan`` and ``ask``."""
    clash = sorted({t["name"] for t in catalog["tools"]} & set(RESERVED))
    if clash:
        raise ValueError(f"catalog tools may not be named {', '.join(clash)} (reserved by the MCP server)")
    tools = [
        types.Tool(
            name=t["name"],
            title=f"{t['name']}@{t['version']}",
            description=_description(t),
            input_schema=t["args_schema"],
            output_schema=OkEnvelope.model_json_schema(),  # the exported envelope_ok schema (catalogs/contracts)
            annotations=types.ToolAnnotations(read_only_hint=True, idempotent_hint=t["deterministic"]),
            _meta={"tool_id": t["tool_id"], "version": t["version"], "kind": t["kind"]},
        )
        for t in catalog["tools"]
    ]
    tools.append(
        types.Tool(
            name=EXECUTE_PLAN,
            title="Ejecutar un plan",
            description=(
                "Ejecuta un plan de varias herramientas del catálogo (por tool_id): filtros, luego un análisis y su "
                "evidencia. Los argumentos de cada paso son los de la herramienta; el cuerpo es el de POST "
                "/plan/execute (return_all: todos los sobres, no solo el último)."
            ),
            input_schema=PLAN_SCHEMA,
            annotations=types.ToolAnnotations(read_only_hint=True),
        )
    )
    tools.append(
        types.Tool(
            name=ASK,
            title="Preguntar en español",
            description=(
                "Responde una pregunta en español sobre la incidencia delictiva con el flujo completo de Casandra "
                "(comprensión, plan, ejecución auditada y redacción): devuelve la respuesta, el plan y los sobres. "
                "El cuerpo es el de POST /ask: previous lleva las preguntas anteriores de la conversación."
            ),
            input_schema=ASK_SCHEMA,
            annotations=types.ToolAnnotations(read_only_hint=True),
        )
    )
    return tools


def _error_text(error: dict) -> str:
    """``Error [CODE]: Spanish details`` and its hints, one per line (as the CLI prints a refusal)."""
    lines = [f"Error [{error['code']}]: {error['details']}"]
    lines += [f"  - {hint}" for hint in error.get("hints") or []]
    lines += [
        f"  - {p['details']}"
        for p in error.get("problems") or []
        if p.get("details") and p["details"] != error["details"]
    ]
    return "\n".join(lines)


def _dumps(obj: Any) -> str:
    return json.dumps(obj, ensure_ascii=False, default=str)


def envelope_result(envelopes: dict | list[dict]) -> types.CallToolResult:
    """Envelopes as a tool result: JSON text and structured content; an error envelope last is a tool error."""
    last = envelopes if isinstance(envelopes, dict) else envelopes[-1]
    structured = envelopes if isinstance(envelopes, dict) else {"envelopes": envelopes}
    content = [types.TextContent(text=_dumps(structured))]
    if last["status"] != "ok":
        content.insert(0, types.TextContent(text=_error_text(last["error"])))
    return types.CallToolResult(content=content, structured_content=structured, is_error=last["status"] != "ok")


def refusal(exc: BaseException) -> types.CallToolResult:
    """A tool error that never reached the engine: the contract's error block (``core.errors.error_payload``)."""
    error = error_payload(exc)
    body = {"status": "error", "error": error}
    return types.CallToolResult(
        content=[types.TextContent(text=_error_text(error)), types.TextContent(text=_dumps(body))],
        structured_content=body,
        is_error=True,
    )


def _request(model: type[BaseModel], arguments: dict, root: str) -> BaseModel:
    """The arguments as the HTTP API's request body, or the Spanish problems of why they are not one."""
    try:
        return model.model_validate(arguments)
    except ValidationError as exc:
        raise ErrorGroup(pydantic_problems(exc, root=root)) from exc


def _run_tool(name: str, arguments: dict, settings: Settings, user: str, role: str) -> types.CallToolResult:
    spec = next((t for t in api.catalog(settings)["tools"] if t["name"] == name), None)
    if spec is None:
        raise UnknownTool(name)
    plan = {"plan": [{"tool_id": spec["tool_id"], "args": arguments}]}
    return envelope_result(api.execute_plan(plan, settings=settings, user=user, role=role, kind="mcp"))


def _run_plan(arguments: dict, settings: Settings, user: str, role: str) -> types.CallToolResult:
    if len(_dumps(arguments).encode()) > MAX_PLAN_BYTES:
        raise LimiteRecursosError(f"El plan ocupa más de {MAX_PLAN_BYTES // 1024} KiB, el límite.")
    body = _request(ExecuteRequest, arguments, EXECUTE_PLAN)
    envelopes = api.execute_plan(
        body.raw_plan(),
        strict_time=body.strict_time,
        return_all=body.return_all,
        settings=settings,
        user=user,
        role=role,
        kind="mcp",
    )
    return envelope_result(envelopes)


def _run_ask(arguments: dict, settings: Settings, user: str, role: str) -> types.CallToolResult:
    from core.ask.context import Assistant
    from core.ask.pipeline import Conversation

    body = _request(AskRequest, arguments, ASK)
    assistant, conversation = Assistant(settings=settings, user=user, role=role), Conversation()
    for question in [*body.previous, body.question]:  # earlier questions first: follow-ups read their slots
        turn = assistant.ask(question, conversation, domain_hint=body.domain_hint, planner=body.planner)
    contract = turn.as_dict()
    text = (contract.get("answer") or {}).get("text") or ""
    return types.CallToolResult(
        content=[types.TextContent(text=text), types.TextContent(text=_dumps(contract))],
        structured_content=contract,
    )


def call_tool(name: str, arguments: dict | None, *, settings: Settings, user: str, role: str) -> types.CallToolResult:
    """Run one MCP tool call (blocking); bad arguments and failures come back as tool errors, never raised.

    Raises ``UnknownTool`` when no tool has that name (the server answers it as a protocol error)."""
    arguments = arguments or {}
    runners: dict[str, Callable[[dict, Settings, str, str], types.CallToolResult]] = {
        EXECUTE_PLAN: _run_plan,
        ASK: _run_ask,
    }
    try:
        with get_store(settings).pinned():  # one dataset version for the whole call, as an HTTP request (routes.py)
            if name in runners:
                return runners[name](arguments, settings, user, role)
            return _run_tool(name, arguments, settings, user, role)
    except UnknownTool:
        raise
    except CasandraError as exc:  # refused before the engine (malformed arguments, over a limit)
        return refusal(exc)
    except Exception as exc:  # the engine answers plans with envelopes; this is the store or the audit failing
        log.exception("MCP tool %s failed unexpectedly", name)
        return refusal(exc)  # error_payload: a generic Spanish message, never the internals


def tool_input_schema(name: str, settings: Settings) -> dict | None:
    """The input schema of one tool by name (None when unknown), without listing them all."""
    fixed = {EXECUTE_PLAN: PLAN_SCHEMA, ASK: ASK_SCHEMA}
    if name in fixed:
        return fixed[name]
    return next((t["args_schema"] for t in api.catalog(settings)["tools"] if t["name"] == name), None)
