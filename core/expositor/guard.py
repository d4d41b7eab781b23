"""The guard in front of every path of the HTTP API, mounted apps included: token, role, rate and body size.

A pure ASGI middleware, so an app mounted into the API (the MCP server at ``/mcp``) is behind the same checks
as the routes: FastAPI dependencies would not reach it. In order: a public path (health, the OpenAPI document)
passes; a missing or unknown bearer token is 401; a role the path does not admit is 403; a client over its
rate is 429 with ``Retry-After``; a body over the cap (``Content-Length`` or counted while streaming) is 413.
A WebSocket handshake passes the same checks (a refusal closes it before it opens). The client is left in
``scope["state"]["client"]`` for the endpoints (audit records name it).
"""

from __future__ import annotations

import math
import time

from limits import parse
from limits.storage import MemoryStorage
from limits.strategies import MovingWindowRateLimiter

from core.errors import LimiteRecursosError, LimiteTasaError, NoAutenticadoError, SinPermisoError
from core.expositor.errors import error_response
from core.expositor.tokens import Client, Tokens

EVERYONE = frozenset({"analista", "supervisor", "steward"})
ANALYSTS = frozenset({"analista", "supervisor"})  # as the dashboard: a supervisor also does the analyst's work
SUPERVISORS = frozenset({"supervisor"})
STEWARDS = frozenset({"steward"})

PUBLIC = ("/health/live", "/health/ready", "/openapi.json", "/docs")
# Which roles reach each path prefix (first match); any other path, a mounted app's included, is the analysts'.
ACCESS: tuple[tuple[str, frozenset[str]], ...] = (
    ("/datasets", STEWARDS),
    ("/audit", SUPERVISORS),
    ("/tools/catalog", EVERYONE),
    ("/dataset/", EVERYONE),
)
UPLOAD_PREFIX = "/datasets"  # the steward's files: capped by the ETL's upload limit, not the API's body cap


def _under(path: str, prefix: str) -> bool:
    return path == prefix.rstrip("/") or path.startswith(prefix if prefix.endswith("/") else prefix + "/")


def roles_for(path: str) -> frozenset[str]:
    """The roles that may call ``path``."""
    return next((roles for prefix, roles in ACCESS if _under(path, prefix)), ANALYSTS)


def is_public(path: str) -> bool:
    """Whether ``path`` is served without a token (health checks and the API's own description)."""
    return any(_under(path, p) for p in PUBLIC)


def bearer(headers: list[tuple[bytes, bytes]]) -> str | None:
    """The token of an ``Authorization: Bearer …`` header (None when absent or of another scheme)."""
    for key, value in headers:
        if key == b"authorization":
            scheme, _, token = value.decode("latin-1").partition(" ")
            return token.strip() if scheme.lower() == "bearer" else None
    return None


class BodyTooLarge(LimiteRecursosError):
    """A body over the cap, declared or found while it was read (413; the app's handlers map it too)."""


class Guard:
    """ASGI middleware: authentication, authorization, rate limit and body cap for every non-public path."""

    def __init__(self, app, *, settings, tokens: Tokens | None = None):
        """Guard ``app`` with the tokens of ``settings``' workspace and its API settings."""
        self.app = app
        self.settings = settings
        self._tokens = tokens  # opened on the first request: building the app touches no file
        self.storage = MemoryStorage()
        self.limiter = MovingWindowRateLimiter(self.storage)
        self.default_rate = parse(settings.api.rate)

    @property
    def tokens(self) -> Tokens:
        """The tokens of the settings' workspace."""
        if self._tokens is None:
            self._tokens = Tokens.for_settings(self.settings)
        return self._tokens

    async def __call__(self, scope, receive, send):
        """Check the request, then hand it on (or answer with an error envelope)."""
        if scope["type"] not in ("http", "websocket") or (scope["type"] == "http" and is_public(scope["path"])):
            await self.app(scope, receive, send)
            return
        try:
            client = self.admit(scope)
        except Exception as exc:  # noqa: BLE001 - every refusal (or failure) is one error envelope
            if scope["type"] == "websocket":  # closing before accepting answers the handshake with 403
                await send({"type": "websocket.close", "code": 1008})
            else:
                await error_response(exc)(scope, receive, send)
            return
        scope.setdefault("state", {})["client"] = client
        cap = self.cap(scope["path"])
        started = False

        async def counted_receive():
            message = await receive()
            if message["type"] == "http.request":
                counted_receive.seen += len(message.get("body", b""))
                if counted_receive.seen > cap:
                    raise self.too_large(cap)
            return message

        counted_receive.seen = 0

        async def watched_send(message):
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, counted_receive, watched_send)
        except BodyTooLarge as exc:  # a mounted app without our handlers lets it through
            if not started:
                await error_response(exc)(scope, receive, send)

    def admit(self, scope) -> Client:
        """The request's client once its token, role, rate and declared size pass (raises the refusal)."""
        client = self.tokens.client(bearer(scope.get("headers") or []))
        if client is None:
            raise NoAutenticadoError(
                "Falta un token válido.",
                ["Envíe 'Authorization: Bearer <token>'; el token lo crea `python -m core tokens create`."],
            )
        allowed = roles_for(scope["path"])
        if client.role not in allowed:
            raise SinPermisoError(
                f"El rol {client.role!r} no puede usar {scope['path'][:80]}.",
                [f"Roles admitidos: {', '.join(sorted(allowed))}."],
            )
        rate = parse(client.rate) if client.rate else self.default_rate
        if not self.limiter.hit(rate, client.name):
            reset = self.limiter.get_window_stats(rate, client.name).reset_time
            raise LimiteTasaError(
                f"Demasiadas solicitudes: el límite de este cliente es {rate}.",
                ["Espere los segundos que indica Retry-After."],
                retry_after=math.ceil(max(1.0, reset - time.time())),
            )
        declared = dict(scope.get("headers") or []).get(b"content-length")
        cap = self.cap(scope["path"])
        if declared is not None and declared.isdigit() and int(declared) > cap:
            raise self.too_large(cap)
        return client

    def cap(self, path: str) -> int:
        """The largest body ``path`` accepts."""
        if _under(path, UPLOAD_PREFIX):
            return self.settings.limits.max_upload_bytes
        return self.settings.api.max_body_bytes

    @staticmethod
    def too_large(cap: int) -> BodyTooLarge:
        """The 413 refusal for a body over ``cap`` bytes."""
        return BodyTooLarge(
            f"El cuerpo de la solicitud pasa de {max(1, cap // 1024):,} KiB, el límite.".replace(",", "."),
            ["Un plan o una pregunta ocupan pocos KiB."],
        )
