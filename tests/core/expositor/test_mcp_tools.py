"""The MCP tools built from the catalog, driven in-process by the SDK's client (no transport: fast).

A new catalog tool is a new MCP tool with nothing else naming it (the toy of tests/fixtures/toy_tool); a call
the engine never reaches (a broken store, a malformed plan, a huge question) is still a tool error with a
contract code and a Spanish message, never a crash or a leak.
"""

from __future__ import annotations

import sys

import anyio
import pytest
from mcp import Client

from core import api
from core.expositor import mcp_tools
from core.expositor.mcp_server import build_server
from core.expositor.mcp_tools import ASK, EXECUTE_PLAN, build_tools
from tests.conftest import FIXTURES
from tests.core.expositor.mcp_harness import LEAKS, structured

TOY = FIXTURES / "toy_tool"


def in_process(settings, name: str, arguments: dict | None = None):
    """List the tools, or call ``name``, on a server built in this process."""

    async def go():
        async with Client(build_server(settings)) as client:
            if name == "tools/list":
                return (await client.list_tools()).tools
            return await client.call_tool(name, arguments or {})

    return anyio.run(go)


def test_a_new_catalog_tool_is_a_new_mcp_tool(bundled_settings, monkeypatch):
    monkeypatch.setenv("CASANDRA_TOOL_DIRS", str(TOY))
    try:
        tools = {t.name: t for t in in_process(bundled_settings, "tools/list")}
        args = {"entidad_id": "GTO.MUN.LEON", "delito": "homicidio_doloso", "from": "2024-01-01", "to": "2024-12-31"}
        envelope = structured(in_process(bundled_settings, "total_juguete", args))
    finally:
        sys.modules.pop("toy_tool", None)
    spec = next(t for t in api.catalog(bundled_settings)["tools"] if t["name"] == "total_juguete")
    assert tools["total_juguete"].input_schema == spec["args_schema"]
    assert envelope["status"] == "ok" and envelope["tool"].startswith("total_juguete@")


def test_a_catalog_tool_may_not_take_a_reserved_name(bundled_settings):
    catalog = api.catalog(bundled_settings)
    clash = {**catalog, "tools": [*catalog["tools"], {**catalog["tools"][0], "name": ASK}]}
    with pytest.raises(ValueError, match="reserved"):
        build_tools(clash)


def test_a_tool_that_does_not_answer_alone_says_how_to_use_it(bundled_settings):
    tools = {t.name: t for t in in_process(bundled_settings, "tools/list")}
    assert f"úsela en {EXECUTE_PLAN}, en un paso después de" in tools["listar_evidencia"].description
    assert EXECUTE_PLAN not in tools["serie_temporal"].description


REFUSED = [
    ("sin_plan", EXECUTE_PLAN, {}, "INVALID_PAYLOAD", "Falta el campo obligatorio plan"),
    ("plan_vacio", EXECUTE_PLAN, {"plan": ""}, "INVALID_PAYLOAD", ""),
    ("plan_numero", EXECUTE_PLAN, {"plan": 6}, "INVALID_PAYLOAD", ""),
    ("plan_enorme", EXECUTE_PLAN, {"plan": "[6]\n" + "delito: robo\n" * 20_000}, "RESOURCE_LIMIT", "KiB"),
    ("plan_con_extras", EXECUTE_PLAN, {"plan": "[6]", "sql": "DROP TABLE x"}, "INVALID_PAYLOAD", "sql"),
    ("plan_texto_roto", EXECUTE_PLAN, {"plan": "[6\nentidad_id GTO"}, "INVALID_PAYLOAD", ""),
    ("pregunta_ausente", ASK, {}, "INVALID_PAYLOAD", "question"),
    ("pregunta_no_texto", ASK, {"question": ["León"]}, "INVALID_PAYLOAD", "question"),
    ("pregunta_larga", ASK, {"question": "¿cuántos robos? " * 200}, "INVALID_PAYLOAD", "question"),
    (
        "demasiadas_anteriores",
        ASK,
        {"question": "¿y en León?", "previous": ["robos"] * 9},
        "INVALID_PAYLOAD",
        "previous",
    ),
    ("planificador_raro", ASK, {"question": "robos en León", "planner": "oráculo"}, "INVALID_PAYLOAD", "planner"),
    ("argumento_no_objeto", "serie_temporal", {"entidad_id": {"$gt": ""}}, "INVALID_PAYLOAD", "entidad_id"),
]


@pytest.mark.parametrize("name,arguments,code,needle", [r[1:] for r in REFUSED], ids=[r[0] for r in REFUSED])
def test_refused_calls_are_tool_errors_with_a_code_and_a_spanish_message(
    bundled_settings, name, arguments, code, needle
):
    result = in_process(bundled_settings, name, arguments)
    assert result.is_error and result.content[0].text.startswith(f"Error [{code}]: ")
    assert needle in result.content[0].text
    assert not any(leak in block.text for block in result.content for leak in LEAKS)


def test_a_failing_store_is_a_compute_error_without_internals(bundled_settings, monkeypatch):
    def broken(*args, **kwargs):
        raise RuntimeError("secreto interno /ruta/privada/store.duckdb")

    monkeypatch.setattr(mcp_tools.api, "execute_plan", broken)
    result = in_process(bundled_settings, "enfoque_entidad", {"entidad_id": "GTO"})
    assert result.is_error and result.content[0].text.startswith("Error [COMPUTE_ERROR]: Error interno")
    assert not any("secreto" in block.text or "/ruta/" in block.text for block in result.content)


def test_ask_answers_a_follow_up_after_its_previous_questions(bundled_settings):
    body = {"question": "¿y en Celaya?", "previous": ["¿Cuántos robos a negocio hubo en Irapuato en 2024?"]}
    result = in_process(bundled_settings, ASK, body)
    contract = structured(result)
    text = contract["answer"]["text"]
    assert not result.is_error and contract["question"] == body["question"]
    assert "Celaya" in text and "robo a negocio" in text.lower()  # the crime comes from the previous question
