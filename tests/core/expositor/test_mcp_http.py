"""The MCP server over streamable HTTP, served by a real uvicorn on a free 127.0.0.1 port: standalone, and at
``/mcp`` of the Expositor's app behind its bearer tokens (a missing token is 401, the audit names the token's
client)."""

from __future__ import annotations

import anyio
import httpx
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp_types import Implementation

from core import api
from core.audit.log import AuditLog
from core.config import load_settings
from core.expositor.mcp_server import http_app
from core.expositor.mcp_tools import ASK, EXECUTE_PLAN
from core.expositor.tokens import Tokens
from tests.core.expositor.api_server import api_settings_fixture, serve, server_fixture, tokens_fixture  # noqa: F401
from tests.core.expositor.mcp_harness import EXAMPLES, data_over, exercise, structured

pytestmark = pytest.mark.slow  # a uvicorn server per module and whole MCP sessions over HTTP

CLIENT = "pytest-http"
RANKING = {"entidad_id": "GTO", "delito": "homicidio_doloso", "top_k": 3, "from": "2024-01-01", "to": "2024-12-31"}


def transport(url: str, token: str | None = None):
    """The SDK's streamable HTTP transport, with the bearer token when given."""
    headers = {"Authorization": f"Bearer {token}"} if token else None
    http = httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(30, read=300))  # the README's client
    return streamable_http_client(url, http_client=http)


@pytest.fixture(scope="module")
def standalone(bundled_settings, tmp_path_factory):
    """``http_app`` alone (no tokens) over the bundled store, and one session making every example call."""
    settings = load_settings(data_over(bundled_settings.data_dir, tmp_path_factory.mktemp("mcp_http") / "data"))
    with serve(http_app(settings), settings) as running:
        yield running, anyio.run(exercise, transport(running.url + "/mcp"), CLIENT)


def test_streamable_http_offers_the_same_tools_as_stdio(standalone):
    running, session = standalone
    names = [t["name"] for t in api.catalog(running.settings)["tools"]]
    assert [t.name for t in session["tools"]] == [*names, EXECUTE_PLAN, ASK]


@pytest.mark.parametrize("call", EXAMPLES["calls"], ids=[c["tool"] for c in EXAMPLES["calls"]])
def test_each_catalog_tool_answers_over_http(standalone, call):
    _, session = standalone
    envelope = structured(session["calls"][call["tool"]])
    assert envelope["status"] == "ok" if call["expect"] == "ok" else envelope["error"]["code"] == call["expect"]


def test_bad_arguments_and_ask_over_http(standalone):
    running, session = standalone
    bad = session["bad"]["entidad_inexistente"]
    assert bad.is_error and bad.content[0].text.startswith("Error [INVALID_FILTER]: ")
    assert "Salamanca" in session["ask"].content[0].text
    with AuditLog.for_settings(running.settings) as log:
        record = log.get(structured(session["ask"])["job_id"])
    assert (record.user, record.kind) == (f"mcp:{CLIENT}", "ask")  # no token: the client's own name


@pytest.fixture(scope="module")
def agent_token(api_settings) -> str:
    """An analyst's token of its own (its own rate and audit name: the API's tests use the others)."""
    return Tokens.for_settings(api_settings).create("agente-mcp", "analista")


async def _rank(url: str, token: str | None):
    async with Client(transport(url, token), client_info=Implementation(name="se-hace-pasar", version="1")) as client:
        return await client.call_tool("rank_por_delito", RANKING)


def test_behind_the_api_a_token_names_the_client_in_the_audit(server, agent_token):
    envelope = structured(anyio.run(_rank, server.url + "/mcp", agent_token))
    assert envelope["status"] == "ok" and len(envelope["data"]["inline"]["rows"]) == 3
    direct = api.execute_plan({"plan": [{"tool_id": 6, "args": RANKING}]}, settings=server.settings, user="test")
    assert envelope["data"]["inline"]["rows"] == direct["data"]["inline"]["rows"]
    with AuditLog.for_settings(server.settings) as log:
        record = log.get(envelope["meta"]["job_id"])
    assert (record.user, record.role, record.kind) == ("mcp:agente-mcp", "analista", "mcp")


@pytest.mark.parametrize(
    "token,status,code",
    [(None, 401, "UNAUTHORIZED"), ("cas_no-es-un-token", 401, "UNAUTHORIZED"), ("steward", 403, "FORBIDDEN")],
    ids=["sin-token", "token-desconocido", "rol-steward"],
)
def test_behind_the_api_mcp_needs_an_analysts_token(server, tokens, token, status, code):
    headers = {"Authorization": f"Bearer {tokens.get(token, token)}"} if token else {}
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
    accept = {"Accept": "application/json, text/event-stream", **headers}
    response = httpx.post(server.url + "/mcp", json=body, headers=accept, timeout=30)
    assert response.status_code == status
    assert response.json()["error"]["code"] == code
