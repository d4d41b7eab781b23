"""The LLM endpoint over HTTP: response modes, a whole-request deadline, a size cap and no cross-origin redirects.

httpx's timeouts are per phase (connect, each read), so a server that drips one byte a second never trips a
3 s read timeout. ``GuardedTransport`` reads each response body itself, against the request's deadline and
the size cap, and refuses any request (a redirect hop included) to another origin than the endpoint's: a
redirect elsewhere would carry the analyst's question, and with some clients the key, to another host.
"""

from __future__ import annotations

import threading
import time
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

import httpx

from core.config import LlmSettings

if TYPE_CHECKING:  # only an annotation: the client is imported where a request is made
    import openai

MODES = ("json_schema", "json_object", "prompt")
_MODE_WORDS = ("response_format", "json_schema", "json_object", "grammar")
CHUNK = 65_536


class DeadlineExceeded(httpx.ReadTimeout):
    """The whole request took longer than its deadline (the client reports a timeout)."""


class ResponseTooLarge(httpx.TransportError):
    """The response body passed the size cap."""


class CrossOriginRedirect(httpx.TransportError):
    """A request (a redirect hop) went to another origin than the endpoint's."""


def origin(url: httpx.URL | str) -> tuple[str, str, int | None]:
    """scheme, host and port (default ports made explicit), the unit redirects must stay within."""
    url = httpx.URL(str(url))
    port = url.port or {"http": 80, "https": 443}.get(url.scheme)
    return url.scheme, url.host, port


class GuardedTransport(httpx.BaseTransport):
    """An httpx transport that bounds each request by wall time and size, and stays on one origin."""

    def __init__(
        self,
        base_url: str,
        *,
        deadline_s: float,
        max_bytes: int,
        inner: httpx.BaseTransport | None = None,
    ):
        self.origin = origin(base_url)
        self.deadline_s, self.max_bytes = deadline_s, max_bytes
        self.inner = inner or httpx.HTTPTransport()

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        """Send one request; read its whole body before the deadline and under the cap."""
        if origin(request.url) != self.origin:
            raise CrossOriginRedirect(f"redirección a otro origen ({request.url.host})", request=request)
        deadline = time.monotonic() + self.deadline_s
        left = max(deadline - time.monotonic(), 0.001)
        # no single phase may wait longer than what is left of the whole request
        timeouts = request.extensions.get("timeout") or {}
        request.extensions["timeout"] = {
            k: min(v, left) if v else left
            for k, v in {**dict.fromkeys(("connect", "read", "write", "pool")), **timeouts}.items()
        }
        response = self.inner.handle_request(request)
        body = bytearray()
        try:
            for chunk in response.stream:
                body += chunk
                if len(body) > self.max_bytes:
                    raise ResponseTooLarge(f"respuesta de más de {self.max_bytes:,} bytes", request=request)
                if time.monotonic() > deadline:
                    raise DeadlineExceeded("se agotó el tiempo de la solicitud", request=request)
        finally:
            response.close()
        return httpx.Response(
            status_code=response.status_code,
            headers=response.headers,
            stream=httpx.ByteStream(bytes(body)),
            extensions=response.extensions,
            request=request,
        )

    def close(self) -> None:
        """Close the inner transport."""
        self.inner.close()


def http_client(config: LlmSettings) -> httpx.Client:
    """The httpx client the OpenAI client uses: guarded transport, same-origin redirects only.

    Each request ends within ``timeout_s``; a proposal makes at most one request per response mode plus
    ``max_retries`` corrective ones, so the whole proposal ends within ``timeout_s`` times that count.
    """
    transport = GuardedTransport(
        config.base_url or "https://api.openai.com/v1", deadline_s=config.timeout_s, max_bytes=config.max_response_bytes
    )
    return httpx.Client(transport=transport, timeout=config.timeout_s, follow_redirects=True)


def failure_of(exc: BaseException) -> str | None:
    """``response_too_large`` or ``cross_origin_redirect`` when a client error came from the guard."""
    seen = exc
    while seen is not None:
        if isinstance(seen, ResponseTooLarge):
            return "response_too_large"
        if isinstance(seen, CrossOriginRedirect):
            return "cross_origin_redirect"
        seen = seen.__cause__ or seen.__context__
    return None


class EndpointModes:
    """Process-wide memory of the response mode each endpoint (base_url + model) accepts."""

    def __init__(self):
        self._known: dict[str, str] = {}
        self._lock = threading.Lock()

    def get(self, config: LlmSettings) -> str | None:
        """The mode known to work for this base_url + model, if any."""
        with self._lock:
            return self._known.get(f"{config.base_url}|{config.model}")

    def remember(self, config: LlmSettings, mode: str) -> None:
        """Record the mode that returned a parseable answer."""
        with self._lock:
            self._known[f"{config.base_url}|{config.model}"] = mode

    def candidates(self, config: LlmSettings) -> list[str]:
        """Modes to try, starting at the remembered one."""
        known = self.get(config)
        return list(MODES[MODES.index(known) :]) if known in MODES else list(MODES)


ENDPOINT_MODES = EndpointModes()


def response_format(mode: str, schema: dict) -> dict:
    """The request's ``response_format`` for a mode (none when the schema goes in the prompt)."""
    if mode == "json_schema":
        return {
            "response_format": {
                "type": "json_schema",
                "json_schema": {"name": "plan", "schema": schema, "strict": False},
            }
        }
    if mode == "json_object":
        return {"response_format": {"type": "json_object", "schema": schema}}
    return {}


def refuses_mode(exc: openai.APIStatusError, mode: str, first_schema_try: bool) -> bool:
    """Did the endpoint refuse the response_format (rather than fail)?"""
    text = f"{exc.message} {exc.body}".lower()
    refused = mode != "prompt" and exc.status_code in (400, 422, 500) and any(w in text for w in _MODE_WORDS)
    return refused or (mode == "json_schema" and first_schema_try and exc.status_code >= 500)


def endpoint_label(base_url: str | None) -> str:
    """The endpoint as the audit shows it: scheme, host, port and path, never credentials."""
    parts = urlsplit(base_url or "https://api.openai.com/v1")  # drops any user:password@
    return f"{parts.scheme}://{parts.hostname or ''}{f':{parts.port}' if parts.port else ''}{parts.path}"
