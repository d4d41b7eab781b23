"""The LLM endpoint's guards against a hostile or broken server: a whole-request deadline (not per read), a
response size cap, and redirects that stay on the endpoint's origin. Each runs the real ``openai`` client
against the local stub (tests/llm_stub.py)."""

from __future__ import annotations

import time

import httpx
import pytest

from core.ask.plan.endpoint import (
    CrossOriginRedirect,
    DeadlineExceeded,
    EndpointModes,
    GuardedTransport,
    ResponseTooLarge,
    failure_of,
    origin,
)
from core.ask.plan.llm import propose_plan
from core.config import LlmSettings
from core.dataset.store import Store
from core.engine.catalog import build_catalog
from tests.llm_stub import Reply, plan_reply, stub_server

QUESTION = "Top 5 municipios con más homicidio doloso en 2024"
GOOD = [
    {
        "tool_id": 6,
        "args": {
            "entidad_id": "GTO",
            "delito": "homicidio_doloso",
            "from": "2024-01-01",
            "to": "2024-12-31",
            "top_k": 5,
        },
    }
]


@pytest.fixture(scope="module")
def world(bundled_settings):
    store = Store(bundled_settings)
    return build_catalog(store), store.metadata()


def ask(world, server, **kw):
    catalog, metadata = world
    config = LlmSettings(api_key="sk-test-0123456789", base_url=server.base_url, model="stub", **kw)
    return propose_plan(QUESTION, catalog, metadata, config, modes=EndpointModes())


def test_a_server_dripping_one_byte_at_a_time_is_cut_at_the_deadline(world):
    # Each byte comes well within any per-read timeout; before the deadline the whole body took minutes
    # and the plan was used.
    dripping = Reply(content=plan_reply(GOOD).content, drip_s=0.05)
    with stub_server(always=dripping) as server:
        t0 = time.perf_counter()
        out = ask(world, server, timeout_s=1.0, max_retries=0)
        elapsed = time.perf_counter() - t0
    assert out.plan is None and out.fallback_reason == "timeout"
    # the request ends at the deadline, not after the minutes the body takes; the margin is for a loaded CI
    # machine (1.6 s was seen with 8 processes on 2 cores), the wall time also pays the client's import
    assert out.attempts[0]["error"] == "timeout" and out.attempts[0]["latency_ms"] < 4000 and elapsed < 10


def test_the_whole_proposal_is_bounded_by_its_requests(world):
    # Every answer is slow and useless: at most one request per mode plus the retries, each within the deadline.
    with stub_server(always=Reply(content="no es json", delay_s=0.6)) as server:
        t0 = time.perf_counter()
        out = ask(world, server, timeout_s=0.8, max_retries=10)
        elapsed = time.perf_counter() - t0
    assert out.plan is None and out.total_latency_ms < 800 * (3 + 10) + 1000 and elapsed < 20
    assert out.fallback_reason in ("timeout", "validation_failed_after_retries")


def test_a_response_over_the_cap_is_refused(world):
    huge = plan_reply(GOOD, rationale="x" * 2_000_000)  # a 2 MB answer (the attack used 20 MB arguments)
    with stub_server(always=huge) as server:
        out = ask(world, server, timeout_s=10.0, max_response_bytes=100_000, max_retries=0)
    assert out.plan is None and out.fallback_reason == "response_too_large" and out.total_latency_ms < 3000
    assert out.attempts[0]["error"] == "response_too_large"


def test_a_redirect_to_another_origin_is_refused_and_never_reached(world):
    with stub_server(always=plan_reply(GOOD)) as elsewhere:
        with stub_server(always=Reply(redirect_to=f"{elsewhere.base_url}/chat/completions")) as server:
            out = ask(world, server, timeout_s=5.0, max_retries=0)
        assert elsewhere.requests == []  # the question never left for the other host
    assert out.plan is None and out.fallback_reason == "cross_origin_redirect"


def test_a_redirect_within_the_same_origin_is_followed(world):
    with stub_server() as server:
        server.enqueue(Reply(redirect_to=f"{server.base_url}/chat/completions"), plan_reply(GOOD))
        out = ask(world, server, timeout_s=5.0, max_retries=0)
    assert out.fallback_reason is None and out.plan == {"plan": GOOD}


@pytest.mark.parametrize(
    ("a", "b", "same"),
    [
        ("http://127.0.0.1:8080/v1", "http://127.0.0.1:8080/other", True),
        ("https://api.example.org/v1", "https://api.example.org:443/x", True),
        ("https://api.example.org/v1", "http://api.example.org/v1", False),
        ("https://api.example.org/v1", "https://evil.example.org/v1", False),
        ("http://127.0.0.1:8080/v1", "http://127.0.0.1:8081/v1", False),
    ],
)
def test_origin_is_scheme_host_and_port(a, b, same):
    assert (origin(a) == origin(b)) is same


def test_the_guard_errors_are_named_through_the_client_wrapping():
    request = httpx.Request("POST", "http://127.0.0.1/v1/chat/completions")
    for exc, name in (
        (ResponseTooLarge("x", request=request), "response_too_large"),
        (CrossOriginRedirect("x", request=request), "cross_origin_redirect"),
    ):
        wrapper = RuntimeError("APIConnectionError")
        wrapper.__cause__ = exc
        assert failure_of(wrapper) == name
    assert failure_of(RuntimeError("other")) is None
    assert issubclass(DeadlineExceeded, httpx.TimeoutException)  # the client reports it as a timeout


def test_a_transport_refuses_a_request_to_another_origin_before_sending():
    class Never(httpx.BaseTransport):
        def handle_request(self, request):
            raise AssertionError("sent")

    transport = GuardedTransport("http://127.0.0.1:9/v1", deadline_s=1, max_bytes=10, inner=Never())
    with pytest.raises(CrossOriginRedirect):
        transport.handle_request(httpx.Request("GET", "http://elsewhere.invalid:9/v1"))
