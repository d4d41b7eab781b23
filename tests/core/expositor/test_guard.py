"""The guard in front of every path (mounted apps included), CORS only when configured, readiness and its settings."""

from __future__ import annotations

import asyncio

import pytest
import websockets
from starlette.applications import Starlette
from starlette.responses import PlainTextResponse
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocket

from core.config import ApiSettings, load_settings
from core.expositor.app import create_app
from core.expositor.guard import ANALYSTS, EVERYONE, STEWARDS, SUPERVISORS, bearer, is_public, roles_for
from core.expositor.tokens import Tokens
from tests.core.expositor.api_server import (  # noqa: F401 - the fixtures
    api_settings_fixture,
    serve,
    small_settings,
    tokens_fixture,
)


@pytest.mark.parametrize(
    "path,roles",
    [
        ("/datasets", STEWARDS),
        ("/datasets/x", STEWARDS),
        ("/audit/records", SUPERVISORS),
        ("/tools/catalog", EVERYONE),
        ("/dataset/metadata", EVERYONE),
        ("/dataset/info", EVERYONE),
        ("/datasetsx", ANALYSTS),  # a prefix is a whole path segment
        ("/plan/execute", ANALYSTS),
        ("/mcp", ANALYSTS),
        ("/mcp/", ANALYSTS),
        ("/anything/else", ANALYSTS),
    ],
)
def test_each_path_has_its_roles(path, roles):
    assert roles_for(path) == roles


@pytest.mark.parametrize(
    "path,public",
    [("/health/live", True), ("/health/ready", True), ("/openapi.json", True), ("/docs", True), ("/healthz", False)],
)
def test_only_health_and_the_api_description_are_public(path, public):
    assert is_public(path) is public


@pytest.mark.parametrize(
    "headers,token",
    [
        ([(b"authorization", b"Bearer cas_abc")], "cas_abc"),
        ([(b"authorization", b"bearer  cas_abc ")], "cas_abc"),
        ([(b"authorization", b"Basic abc")], None),
        ([(b"x-token", b"cas_abc")], None),
        ([], None),
    ],
)
def test_the_bearer_token_is_read_from_the_authorization_header(headers, token):
    assert bearer(headers) == token


def _toy() -> Starlette:
    return Starlette(routes=[Route("/hola", lambda request: PlainTextResponse("hola"))])


@pytest.mark.parametrize("role,status", [(None, 401), ("steward", 403), ("analista", 200), ("supervisor", 200)])
def test_a_mounted_app_is_behind_the_same_guard(api_settings, tokens, role, status):
    app = create_app(api_settings)
    app.mount("/juguete", _toy())
    with serve(app, api_settings) as running, running.client(tokens.get(role)) as http:
        response = http.get("/juguete/hola")
    assert response.status_code == status
    if status != 200:
        assert response.json()["error"]["http_status"] == status


def test_no_cors_headers_unless_configured(api_settings, tokens):
    preflight = {
        "Origin": "https://tablero.example.org",
        "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "Authorization",
    }
    configured = small_settings(api_settings.data_dir, cors_origins=("https://tablero.example.org",))
    for settings, allowed in ((api_settings, False), (configured, True)):
        with serve(create_app(settings), settings) as running, running.client() as http:
            response = http.options("/plan/execute", headers=preflight)
            simple = http.get("/health/live", headers={"Origin": "https://tablero.example.org"})
        assert ("access-control-allow-origin" in response.headers) is allowed
        assert ("access-control-allow-origin" in simple.headers) is allowed


def test_ready_is_503_without_a_published_version(empty_settings):
    settings = small_settings(empty_settings.data_dir)
    with serve(create_app(settings), settings) as running, running.client() as http:
        ready, live = http.get("/health/ready"), http.get("/health/live")
    assert ready.status_code == 503 and ready.json()["status"] == "not_ready"
    assert ready.json()["checks"]["store"] == "sin datos publicados" and live.json() == {"status": "live"}


def test_a_token_created_while_serving_is_accepted_at_once(api_settings):
    with serve(create_app(api_settings), api_settings) as running:
        secret = Tokens.for_settings(api_settings).create("recien-llegado", "analista")
        with running.client(secret) as http:
            assert http.get("/dataset/metadata").status_code == 200
        Tokens.for_settings(api_settings).revoke("recien-llegado")
        with running.client(secret) as http:
            assert http.get("/dataset/metadata").status_code == 401


@pytest.mark.parametrize(
    "env,expected",
    [
        ({}, ApiSettings()),
        ({"CASANDRA_API_HOST": "0.0.0.0", "CASANDRA_API_PORT": "9000"}, ApiSettings(host="0.0.0.0", port=9000)),
        ({"CASANDRA_API_RATE": "10/second"}, ApiSettings(rate="10/second")),
        ({"CASANDRA_API_MAX_BODY_BYTES": "1024"}, ApiSettings(max_body_bytes=1024)),
        ({"CASANDRA_API_PORT": "no"}, ApiSettings()),
        (
            {"CASANDRA_API_CORS_ORIGINS": "https://a.org, https://b.org,"},
            ApiSettings(cors_origins=("https://a.org", "https://b.org")),
        ),
    ],
)
def test_api_settings_come_from_the_environment(monkeypatch, env, expected):
    for name in ("HOST", "PORT", "RATE", "MAX_BODY_BYTES", "CORS_ORIGINS"):
        monkeypatch.delenv(f"CASANDRA_API_{name}", raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    assert load_settings().api == expected


def test_the_default_binds_loopback():
    assert ApiSettings().host == "127.0.0.1"


async def _echo(websocket: WebSocket) -> None:
    await websocket.accept()
    await websocket.send_text("hola")
    await websocket.close()


@pytest.mark.parametrize("role,opens", [(None, False), ("steward", False), ("analista", True)])
def test_a_websocket_handshake_passes_the_same_guard(api_settings, tokens, role, opens):
    app = create_app(api_settings)
    app.mount("/eco", Starlette(routes=[WebSocketRoute("/ws", _echo)]))
    headers = {"Authorization": f"Bearer {tokens[role]}"} if role else {}

    async def talk(url: str) -> str | int:
        try:
            async with websockets.connect(url.replace("http", "ws") + "/eco/ws", additional_headers=headers) as ws:
                return await ws.recv()
        except websockets.InvalidStatus as refused:
            return refused.response.status_code

    with serve(app, api_settings) as running:
        answer = asyncio.run(talk(running.url))
    assert answer == ("hola" if opens else 403)
