"""The MCP server over stdio (``python -m core mcp``), driven by the SDK's own client as an MCP host would."""

from __future__ import annotations

import json

import anyio
import pytest
from mcp import Client, StdioServerParameters
from mcp_types import Implementation

from core import api
from core.audit.log import AuditLog
from core.config import CATALOGS_DIR, load_settings
from core.expositor.mcp_tools import ASK, EXECUTE_PLAN
from tests.core.expositor.mcp_harness import EXAMPLES, LEAKS, ROOT, child_env, data_over, exercise, python, structured

pytestmark = pytest.mark.slow  # each session spawns python -m core mcp

CLIENT = "pytest-stdio"
ENVELOPE_OK = json.loads((CATALOGS_DIR / "contracts" / "envelope_ok.v1.0.0.schema.json").read_text(encoding="utf-8"))


def stdio(data) -> StdioServerParameters:
    """How an MCP host launches Casandra (README «Conectar un cliente MCP»)."""
    return StdioServerParameters(
        command=python(), args=["-m", "core", "mcp", "--data-dir", str(data)], cwd=str(ROOT), env=child_env()
    )


@pytest.fixture(scope="module")
def data(bundled_settings, tmp_path_factory):
    return data_over(bundled_settings.data_dir, tmp_path_factory.mktemp("mcp_stdio") / "data")


@pytest.fixture(scope="module")
def settings(data):
    return load_settings(data)


@pytest.fixture(scope="module")
def session(data):
    """One stdio session making every call of tests/fixtures/mcp/tool_calls.json."""
    return anyio.run(exercise, stdio(data), CLIENT)


@pytest.fixture(scope="module")
def catalog(settings):
    return api.catalog(settings)


def test_lists_one_tool_per_catalog_tool_then_plan_and_ask(session, catalog):
    tools = {t.name: t for t in session["tools"]}
    assert list(tools) == [t["name"] for t in catalog["tools"]] + [EXECUTE_PLAN, ASK]
    for spec in catalog["tools"]:
        tool = tools[spec["name"]]
        assert tool.input_schema == spec["args_schema"]  # the resolved schema: closed lists of entities, crimes
        assert tool.description.startswith(spec["summary"])
        assert tool.title == f"{spec['name']}@{spec['version']}"
        assert tool.output_schema == ENVELOPE_OK  # the client checks each ok answer against it


def test_the_examples_cover_every_catalog_tool(catalog):
    assert sorted(c["tool"] for c in EXAMPLES["calls"]) == sorted(t["name"] for t in catalog["tools"])


@pytest.mark.parametrize("call", EXAMPLES["calls"], ids=[c["tool"] for c in EXAMPLES["calls"]])
def test_each_catalog_tool_answers_as_the_python_api(session, settings, call):
    result = session["calls"][call["tool"]]
    envelope = structured(result)
    if call["expect"] != "ok":  # a tool that does not answer alone says so, as a tool error
        assert result.is_error and envelope["error"]["code"] == call["expect"]
        assert call["needle"] in result.content[0].text
        return
    assert not result.is_error and envelope["status"] == "ok"
    assert envelope["tool"].startswith(call["tool"] + "@")
    tool_id = next(t["tool_id"] for t in api.catalog(settings)["tools"] if t["name"] == call["tool"])
    direct = api.execute_plan({"plan": [{"tool_id": tool_id, "args": call["args"]}]}, settings=settings, user="test")
    assert envelope["data"]["inline"] == direct["data"]["inline"]
    assert envelope["meta"]["query_hash"] == direct["meta"]["query_hash"]


@pytest.mark.parametrize("plan", EXAMPLES["plans"], ids=[p["name"] for p in EXAMPLES["plans"]])
def test_execute_plan_returns_every_envelope(session, plan):
    result = session["plans"][plan["name"]]
    envelopes = structured(result)["envelopes"]
    assert not result.is_error and len(envelopes) >= 2 and {e["status"] for e in envelopes} == {"ok"}


@pytest.mark.parametrize("bad", EXAMPLES["bad"], ids=[b["name"] for b in EXAMPLES["bad"]])
def test_bad_arguments_are_a_tool_error_with_the_contract_code_in_spanish(session, bad):
    result = session["bad"][bad["name"]]
    assert result.is_error
    text = result.content[0].text
    assert text.startswith(f"Error [{bad['code']}]: ") and bad["needle"] in text, text
    assert structured(result)["error"]["code"] == bad["code"]
    assert not any(leak in block.text for block in result.content for leak in LEAKS)


def test_an_unknown_tool_is_a_protocol_error_in_spanish(session):
    assert "herramienta_inexistente" in str(session["unknown"]) and "No hay una herramienta" in str(session["unknown"])


def test_ask_answers_in_spanish_with_the_answer_contract(session):
    result = session["ask"]
    contract = structured(result)
    assert not result.is_error
    assert contract["answer"]["text"] == result.content[0].text and "Salamanca" in result.content[0].text
    assert contract["envelopes"] and contract["envelopes"][-1]["status"] == "ok"


def test_every_call_is_audited_under_the_client(session, settings):
    jobs = {
        name: structured(session["calls"][name])["meta"]["job_id"] for name in ("rank_por_delito", "listar_evidencia")
    }
    jobs["bad"] = structured(session["bad"]["fuera_de_rango"])["meta"]["job_id"]
    jobs["ask"] = structured(session["ask"])["job_id"]
    with AuditLog.for_settings(settings) as log:
        records = {name: log.get(job) for name, job in jobs.items()}
    assert {name: (r.user, r.kind, r.status) for name, r in records.items()} == {
        "rank_por_delito": (f"mcp:{CLIENT}", "mcp", "ok"),
        "listar_evidencia": (f"mcp:{CLIENT}", "mcp", "error"),
        "bad": (f"mcp:{CLIENT}", "mcp", "error"),
        "ask": (f"mcp:{CLIENT}", "ask", "ok"),
    }


def test_metadata_coverage_and_catalog_are_resources(session, settings, catalog):
    resources = session["resources"]
    assert resources["casandra://dataset/metadata"] == api.metadata(settings)
    coverage = resources["casandra://dataset/coverage"]
    assert coverage["dataset_version"] == catalog["dataset_version"] and "homicidio_doloso" in coverage["coverage"]
    assert resources["casandra://tools/catalog"]["catalog_version"] == catalog["catalog_version"]
    assert {r.mime_type for r in session["resource_list"]} == {"application/json"}


def test_a_handshake_era_client_is_named_by_its_client_info(data, settings):
    """An MCP client of the 2025 protocol (initialize handshake) names itself in clientInfo: the audit says so."""

    async def one_call():
        info = Implementation(name="host de 2025", version="1")
        async with Client(stdio(data), client_info=info, mode="legacy") as client:
            return await client.call_tool("enfoque_entidad", {"entidad_id": "GTO.MUN.GUANAJUATO"})

    envelope = structured(anyio.run(one_call))
    with AuditLog.for_settings(settings) as log:
        assert log.get(envelope["meta"]["job_id"]).user == "mcp:host-de-2025"
