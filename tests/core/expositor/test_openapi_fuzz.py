"""Schemathesis over the API's own OpenAPI document, against a real server: no 5xx, every response as documented.

Each operation gets bodies and parameters its schema accepts and others it refuses (schemathesis' valid and
invalid generation), with a token whose role the path admits (``core.expositor.guard.roles_for``); the
server runs over its own store (an upload the fuzzer makes never touches the other tests' data) with a rate
far above what the fuzzer sends. Examples are bounded so the whole run stays near a minute.
"""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from core.clock import FixedClock
from core.config import CATALOGS_DIR, Settings
from core.etl import SourceSpec, run_etl
from core.expositor.app import create_app
from core.expositor.guard import roles_for
from core.expositor.tokens import Tokens
from tests.core.expositor.api_server import HOMICIDIO, serve, small_settings

pytestmark = pytest.mark.slow

EXAMPLES = 15  # per operation and mode (valid, invalid): about a minute in all
CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance]


@pytest.fixture(scope="module")
def fuzzed(tmp_path_factory):
    """A server over its own store, a token per role and the rate out of the way."""
    data_dir = tmp_path_factory.mktemp("fuzz") / "data"
    base = small_settings(data_dir)
    run_etl(
        [SourceSpec(HOMICIDIO)],
        replace(base, limits=replace(base.limits, max_upload_bytes=10**9)),
        clock=FixedClock(datetime(2026, 1, 15, 12, 0, tzinfo=UTC)),
    )
    fuzz_settings = replace(base, api=replace(base.api, rate="1000000/minute"))
    store = Tokens.for_settings(fuzz_settings)
    tokens = {role: store.create(f"fuzz-{role}", role) for role in ("analista", "supervisor", "steward")}
    with serve(create_app(fuzz_settings), fuzz_settings) as running:
        yield running, tokens


def operations() -> list[tuple[str, str]]:
    """Every (method, path) of the OpenAPI document (building the app reads no data)."""
    document = create_app(Settings(data_dir=Path("/nonexistent"))).openapi()
    return [(method.upper(), path) for path, methods in document["paths"].items() for method in methods]


def token_for(path: str, tokens: dict[str, str]) -> str:
    """A token whose role the path admits (the supervisor's, unless only another role may call it)."""
    roles = roles_for(path)
    return tokens["supervisor" if "supervisor" in roles else sorted(roles)[0]]


@pytest.mark.parametrize("mode", [GenerationMode.POSITIVE, GenerationMode.NEGATIVE], ids=["valid", "invalid"])
@pytest.mark.parametrize("method,path", operations())
def test_every_operation_answers_as_documented(fuzzed, method, path, mode):
    if mode is GenerationMode.NEGATIVE and path.startswith("/health"):
        pytest.skip("a health check takes no input to break")
    running, tokens = fuzzed
    with running.client() as http:
        document = http.get("/openapi.json").json()
    operation = schemathesis.openapi.from_dict(document)[path][method]
    headers = {"Authorization": f"Bearer {token_for(path, tokens)}"}

    @given(case=operation.as_strategy(generation_mode=mode))
    @settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
    def answers_as_documented(case):
        case.call_and_validate(base_url=running.url, headers=headers, checks=CHECKS)

    answers_as_documented()


def test_the_document_names_the_error_envelope_and_the_bodies(fuzzed):
    running, _ = fuzzed
    with running.client() as http:
        document = http.get("/openapi.json").json()
    schemas = document["components"]["schemas"]
    assert {"ExecuteRequest", "JobRequest", "JobResult", "AskRequest", "ErrorEnvelope", "OkEnvelope"} <= set(schemas)
    assert schemas["ExecuteRequest"]["additionalProperties"] is False
    exported = json.loads((CATALOGS_DIR / "contracts" / "envelope_error.v1.1.0.schema.json").read_text("utf-8"))
    codes = exported["$defs"]["ErrorBlock"]["properties"]["code"]["enum"]
    assert schemas["ErrorBlock"]["properties"]["code"]["enum"] == codes  # the exported error envelope's codes
    assert schemas["ErrorEnvelope"]["required"] == exported["required"]
    for path, methods in document["paths"].items():
        for operation in methods.values():
            if not path.startswith("/health"):
                assert {"401", "403", "413", "422", "429", "500"} <= set(operation["responses"]), path
