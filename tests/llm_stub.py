"""A scripted OpenAI-compatible chat-completions server on 127.0.0.1 for the LLM planner's tests.

It speaks plain HTTP (``POST /v1/chat/completions``, ``GET /v1/models``) so the real
``openai`` client talks to it. Each request takes the next scripted ``Reply`` from a queue;
``refuse_json_schema`` answers every ``response_format`` of type ``json_schema`` with an
HTTP 500 (as llama-cpp-python's server does) without consuming the queue, and ``always``
answers every request the same way. Every request body is recorded. Sleeps are bounded and
wake up when the server stops, so no test waits for a slow handler.
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

MAX_SLEEP_S = 10.0


@dataclass
class Reply:
    """One scripted answer: assistant ``content`` with HTTP 200, or an error ``status`` with ``body``."""

    content: str | None = None
    status: int = 200
    body: str | None = None
    delay_s: float = 0.0
    echo_auth: bool = False  # put the request's Authorization header into the error body (leak test)
    drip_s: float = 0.0  # send the body one byte at a time, this many seconds apart (a slow-loris server)
    redirect_to: str | None = None  # answer 307 to this URL instead (a redirect test)
    prompt_tokens: int = 321
    completion_tokens: int = 45


def plan_reply(plan: dict | list, rationale: str = "Plan de prueba.", **extra) -> Reply:
    """A 200 whose content is the JSON of a proposal (``plan`` may be the whole object)."""
    obj = plan if isinstance(plan, dict) else {"plan": plan, "rationale": rationale}
    return Reply(content=json.dumps({**obj, **extra}, ensure_ascii=False))


def text_reply(text: str) -> Reply:
    """A 200 whose content is free text."""
    return Reply(content=text)


def error_reply(status: int, message: str = "Internal Server Error", **kw) -> Reply:
    """An HTTP error with an OpenAI-style error body."""
    return Reply(
        status=status, body=json.dumps({"error": {"message": message, "type": "server_error", "code": None}}), **kw
    )


def slow_reply(seconds: float) -> Reply:
    """A valid-looking answer that arrives only after ``seconds`` (past the client's timeout)."""
    return Reply(content='{"plan": [], "rationale": "tarde"}', delay_s=seconds)


# What llama-cpp-python's server answers for response_format json_schema (HTTP 500).
LLAMA_CPP_500 = error_reply(
    500,
    "1 validation error for CreateChatCompletionRequest\nresponse_format.type\n"
    "  Input should be 'text' or 'json_object' [type=literal_error, input_value='json_schema']",
)


class StubServer:
    """The running stub: ``base_url``, ``requests`` (decoded bodies) and ``enqueue``."""

    def __init__(self, replies=(), *, refuse_json_schema: bool = False, always: Reply | None = None):
        self.queue: deque[Reply] = deque(replies)
        self.refuse_json_schema = refuse_json_schema
        self.always = always
        self.requests: list[dict] = []
        self.headers: list[dict] = []
        self.stopping = threading.Event()
        self._lock = threading.Lock()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self._httpd.daemon_threads = True
        self.port = self._httpd.server_address[1]
        self.base_url = f"http://127.0.0.1:{self.port}/v1"
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    def enqueue(self, *replies: Reply) -> None:
        """Add scripted replies at the end of the queue."""
        with self._lock:
            self.queue.extend(replies)

    def modes(self) -> list[str]:
        """The response_format type of every recorded request ('prompt' when absent)."""
        return [(r.get("response_format") or {}).get("type", "prompt") for r in self.requests]

    def next_reply(self, body: dict) -> Reply:
        """The reply for one request (and record it)."""
        with self._lock:
            self.requests.append(body)
            fmt = body.get("response_format") or {}
            if self.refuse_json_schema and fmt.get("type") == "json_schema":
                return LLAMA_CPP_500
            if self.always is not None:
                return self.always
            if self.queue:
                return self.queue.popleft()
        return error_reply(503, "stub: no scripted reply left")

    def start(self) -> StubServer:
        """Serve in a background thread."""
        self._thread.start()
        return self

    def stop(self) -> None:
        """Wake sleeping handlers, stop serving and close the socket."""
        self.stopping.set()
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=5)


def _handler(stub: StubServer):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):  # keep pytest output clean
            pass

        def _send(self, status: int, payload: str, drip_s: float = 0.0) -> None:
            data = payload.encode("utf-8")
            try:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                if not drip_s:
                    self.wfile.write(data)
                    return
                for i in range(len(data)):  # bounded: stops when the server stops or the client leaves
                    if stub.stopping.wait(drip_s):
                        return
                    self.wfile.write(data[i : i + 1])
                    self.wfile.flush()
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (timeout test)

        def do_GET(self):
            if self.path.rstrip("/").endswith("/models"):
                self._send(
                    200, json.dumps({"object": "list", "data": [{"id": "stub", "object": "model", "owned_by": "stub"}]})
                )
            else:
                self._send(404, json.dumps({"error": {"message": "not found"}}))

        def do_POST(self):
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            if not self.path.rstrip("/").endswith("/chat/completions"):
                self._send(404, json.dumps({"error": {"message": "not found"}}))
                return
            try:
                body = json.loads(raw or b"{}")
            except json.JSONDecodeError:
                self._send(400, json.dumps({"error": {"message": "invalid JSON body"}}))
                return
            stub.headers.append({k.lower(): v for k, v in self.headers.items()})
            reply = stub.next_reply(body)
            if reply.delay_s:
                stub.stopping.wait(min(reply.delay_s, MAX_SLEEP_S))
            if reply.redirect_to:
                try:
                    self.send_response(307)
                    self.send_header("Location", reply.redirect_to)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                except (BrokenPipeError, ConnectionResetError):
                    pass
                return
            if reply.status != 200:
                payload = reply.body or ""
                if reply.echo_auth:
                    payload = json.dumps(
                        {"error": {"message": "invalid key: " + self.headers.get("Authorization", "")}}
                    )
                self._send(reply.status, payload)
                return
            self._send(
                200,
                json.dumps(
                    {
                        "id": f"chatcmpl-stub-{len(stub.requests)}",
                        "object": "chat.completion",
                        "created": int(time.time()),
                        "model": body.get("model", "stub"),
                        "choices": [
                            {
                                "index": 0,
                                "message": {"role": "assistant", "content": reply.content},
                                "finish_reason": "stop",
                                "logprobs": None,
                            }
                        ],
                        "usage": {
                            "prompt_tokens": reply.prompt_tokens,
                            "completion_tokens": reply.completion_tokens,
                            "total_tokens": reply.prompt_tokens + reply.completion_tokens,
                        },
                    },
                    ensure_ascii=False,
                ),
                reply.drip_s,
            )

    return Handler


@contextmanager
def stub_server(replies=(), **kw) -> Iterator[StubServer]:
    """Start a stub on a free 127.0.0.1 port for the ``with`` block, then stop it."""
    server = StubServer(replies, **kw).start()
    try:
        yield server
    finally:
        server.stop()
