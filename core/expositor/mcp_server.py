"""Casandra's MCP server (issue 16 §3) over the official ``mcp`` SDK's low-level ``Server``.

Tools, their calls and the resources come from ``core.expositor.mcp_tools`` (built from the catalog);
this module wires them to the SDK and to its two transports: stdio (``python -m core mcp``) and
streamable HTTP (``McpHttp``, an ASGI app that ``mount_mcp`` puts at ``/mcp`` of the Expositor's app, behind
its Guard's bearer tokens, roles and rates; ``http_app`` serves it alone, without tokens). Every call is audited
as user ``mcp:<client>``: the bearer token's client over HTTP, the name the client gives in its ``clientInfo``
over stdio. The engine blocks (DuckDB, SQLite), so calls run in worker threads, off the event loop.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any

import anyio
import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from mcp.shared.exceptions import MCPError
from starlette.applications import Starlette
from starlette.routing import Route
from starlette.types import Receive, Scope, Send

from core import api
from core.config import Settings
from core.expositor.mcp_tools import JSON_MIME, UnknownTool, build_tools, call_tool, tool_input_schema

SERVER_NAME = "casandra"
CLIENT_STATE_KEY = "client"  # where the Expositor's Guard leaves the bearer token's client (core.expositor.guard)
INSTRUCTIONS = (
    "Casandra responde con cifras verificables de incidencia delictiva (SESNSP, Guanajuato y el país). "
    "Cada herramienta del catálogo valida sus argumentos y devuelve un sobre JSON con datos, metadatos y "
    "procedencia; execute_plan encadena varias; ask responde una pregunta en español. Los recursos "
    "casandra://dataset/metadata y casandra://dataset/coverage dicen qué meses y delitos hay."
)

# Each resource: its URI, name, Spanish description and the function that reads it.
RESOURCES: dict[str, tuple[str, str, Callable[[Settings], Any]]] = {
    "casandra://dataset/metadata": (
        "metadata",
        "Versión del conjunto de datos y su primer y último día (/dataset/metadata).",
        api.metadata,
    ),
    "casandra://dataset/coverage": (
        "coverage",
        "Cobertura por delito: los meses y años que publica cada serie (parte de /dataset/info).",
        lambda settings: {
            k: v for k, v in api.dataset_info(settings).items() if k in ("dataset_version", "coverage", "annual_series")
        },
    ),
    "casandra://tools/catalog": (
        "catalog",
        "El catálogo de herramientas (CatalogSpec): herramientas, entidades y taxonomía (/tools/catalog).",
        api.catalog,
    ),
}


def _safe_name(name: Any) -> str:
    """A client name fit for the audit: word characters, dots and dashes, at most 64."""
    text = re.sub(r"[^\w.\-]+", "-", str(name or "")).strip("-")[:64]
    return text or "desconocido"


def caller(ctx: Any) -> tuple[str, str]:
    """Audit user and role of a request: ``mcp:`` + the bearer token's client and its role (HTTP, behind the
    Guard), else the name the client gives itself, as an analyst (stdio: whoever launched the process)."""
    request = getattr(ctx, "request", None)
    state = (getattr(request, "scope", None) or {}).get("state") or {}
    client = state.get(CLIENT_STATE_KEY)
    if client is not None:
        return f"mcp:{_safe_name(client.name)}", client.role
    params = getattr(getattr(ctx, "session", None), "client_params", None)
    info = getattr(params, "client_info", None)
    return f"mcp:{_safe_name(getattr(info, 'name', None))}", "analista"


def build_server(settings: Settings) -> Server:
    """The low-level MCP server: catalog tools + execute_plan + ask, and the dataset resources."""

    async def list_tools(ctx, params) -> types.ListToolsResult:
        catalog = await anyio.to_thread.run_sync(api.catalog, settings)
        return types.ListToolsResult(tools=build_tools(catalog))

    async def on_call_tool(ctx, params: types.CallToolRequestParams) -> types.CallToolResult:
        user, role = caller(ctx)
        try:
            # the engine is blocking (DuckDB, SQLite): off the event loop, so HTTP clients are served meanwhile
            return await anyio.to_thread.run_sync(
                lambda: call_tool(params.name, params.arguments, settings=settings, user=user, role=role)
            )
        except UnknownTool as exc:
            raise MCPError(
                code=types.INVALID_PARAMS, message=f"No hay una herramienta llamada {str(exc)!r} en el catálogo."
            ) from exc

    async def list_resources(ctx, params) -> types.ListResourcesResult:
        return types.ListResourcesResult(
            resources=[
                types.Resource(uri=uri, name=name, description=description, mime_type=JSON_MIME)
                for uri, (name, description, _) in RESOURCES.items()
            ]
        )

    async def read_resource(ctx, params: types.ReadResourceRequestParams) -> types.ReadResourceResult:
        uri = str(params.uri)
        if uri not in RESOURCES:
            raise MCPError(code=types.INVALID_PARAMS, message=f"No existe el recurso {uri!r}.")
        data = await anyio.to_thread.run_sync(RESOURCES[uri][2], settings)
        text = json.dumps(data, ensure_ascii=False, default=str)
        return types.ReadResourceResult(contents=[types.TextResourceContents(uri=uri, mime_type=JSON_MIME, text=text)])

    return Server(
        SERVER_NAME,
        version="1",
        title="Casandra",
        instructions=INSTRUCTIONS,
        get_tool_input_schema=lambda name: tool_input_schema(name, settings),
        on_list_tools=list_tools,
        on_call_tool=on_call_tool,
        on_list_resources=list_resources,
        on_read_resource=read_resource,
    )


async def serve_stdio(settings: Settings) -> None:
    """Serve one client over stdin/stdout until it closes them (``python -m core mcp``)."""
    from mcp.server.stdio import stdio_server

    server = build_server(settings)
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


def run_stdio(settings: Settings) -> int:
    """Blocking entry point of the stdio transport; the process exit code."""
    anyio.run(serve_stdio, settings)
    return 0


LOCAL_HOSTS = ("127.0.0.1", "localhost", "::1")


class McpHttp:
    """Streamable HTTP as one ASGI app: the SDK's session manager, which the Expositor mounts behind its Guard.

    ``lifespan()`` must wrap the serving app's lifespan (the session manager runs a task group). The Guard
    (``core.expositor.guard``) checks the bearer token and leaves its client in ``scope["state"]["client"]``,
    which names the audit records of the calls."""

    def __init__(self, settings: Settings, host: str = "127.0.0.1"):
        """The MCP server of ``settings`` behind the SDK's session manager (DNS-rebinding checks on a local bind)."""
        self.server = build_server(settings)
        security = (
            TransportSecuritySettings(
                allowed_hosts=["127.0.0.1:*", "localhost:*", "[::1]:*"],
                allowed_origins=["http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*"],
            )
            if host in LOCAL_HOSTS
            else None
        )
        self.manager = StreamableHTTPSessionManager(app=self.server, security_settings=security)

    def lifespan(self) -> AbstractAsyncContextManager[None]:
        """The session manager's run context (enter it once, for the life of the serving app)."""
        return self.manager.run()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Hand the request to the SDK's session manager."""
        await self.manager.handle_request(scope, receive, send)


def http_app(settings: Settings, path: str = "/mcp", host: str = "127.0.0.1") -> Starlette:
    """A standalone ASGI app serving MCP over streamable HTTP at exactly ``path`` (no tokens: wrap it in the
    Guard for them)."""
    mcp_http = McpHttp(settings, host)
    return Starlette(routes=[Route(path, endpoint=mcp_http)], lifespan=lambda app: mcp_http.lifespan())


def mount_mcp(app: Starlette, settings: Settings, path: str = "/mcp") -> McpHttp:
    """Serve MCP at exactly ``path`` of ``app`` (the Expositor's FastAPI app), its session manager running
    inside the app's lifespan (around whatever lifespan the app already has)."""
    mcp_http = McpHttp(settings, host=settings.api.host)
    app.router.routes.append(Route(path, endpoint=mcp_http))
    previous = app.router.lifespan_context

    @asynccontextmanager
    async def lifespan(served):
        async with mcp_http.lifespan(), previous(served) as state:
            yield state

    app.router.lifespan_context = lifespan
    return mcp_http
