"""The HTTP API over a real uvicorn server: each endpoint, each role, each error status, and the Python API's answers."""

from __future__ import annotations

import json
import logging
from datetime import UTC, datetime

import pytest

from core import api
from core.audit.log import AuditLog
from core.clock import FixedClock
from core.config import load_settings
from core.engine.envelope_schema import validate_envelope
from core.etl import SourceSpec, run_etl
from core.expositor.app import create_app
from core.expositor.tokens import Tokens
from core.jobs import JobResult
from tests.conftest import FIXTURES
from tests.core.expositor.api_server import (  # noqa: F401 - the fixtures
    BODY_CAP,
    HOMICIDIO,
    api_settings_fixture,
    serve,
    server_fixture,
    small_settings,
    tokens_fixture,
)

PLAN_TEXT = "[6]\nentidad_id: GTO\ndelito: homicidio_doloso\nnivel: hijos\ntop_k: 5\nfrom: 2024-01-01\nto: 2024-12-31"
PLAN_JSON = {
    "plan": [
        {
            "tool_id": 6,
            "args": {"entidad_id": "GTO", "delito": "homicidio_doloso", "from": "2023-01-01", "to": "2023-06-30"},
        },
        {"tool_id": 9, "args": {}},
    ]
}


def error_of(response, status: int, code: str) -> dict:
    """The error block of an error-envelope response, after checking its status, code and contract."""
    assert response.status_code == status, response.text
    body = response.json()
    assert body["status"] == "error" and body["error"]["code"] == code and body["error"]["http_status"] == status
    validate_envelope(body)
    return body["error"]


# -- every endpoint, every role ----------------------------------------------------------------------------------

ALLOWED = [
    ("analista", "GET", "/tools/catalog", None),
    ("supervisor", "GET", "/tools/catalog", None),
    ("steward", "GET", "/tools/catalog", None),
    ("analista", "GET", "/dataset/metadata", None),
    ("steward", "GET", "/dataset/info", None),
    ("analista", "POST", "/plan/execute", {"plan": PLAN_TEXT}),
    ("supervisor", "POST", "/plan/execute", {"plan": PLAN_TEXT}),
    (
        "analista",
        "POST",
        "/v1/job",
        {"intent": "consulta", "params": {"municipio": "León", "delito": "homicidio_doloso"}},
    ),
    ("supervisor", "GET", "/audit/records?limit=5", None),
]


@pytest.mark.parametrize("role,method,path,body", ALLOWED)
def test_each_role_reaches_its_endpoints(server, tokens, role, method, path, body):
    with server.client(tokens[role]) as http:
        response = http.request(method, path, json=body)
    assert response.status_code == 200, response.text


FORBIDDEN = [
    ("steward", "POST", "/plan/execute", {"plan": PLAN_TEXT}),
    ("steward", "POST", "/v1/job", {"intent": "consulta"}),
    ("steward", "POST", "/ask", {"question": "¿Cuántos homicidios hubo en León en 2024?"}),
    ("analista", "POST", "/datasets", None),
    ("supervisor", "POST", "/datasets", None),
    ("analista", "GET", "/audit/records", None),
    ("steward", "GET", "/audit/records", None),
]


@pytest.mark.parametrize("role,method,path,body", FORBIDDEN)
def test_a_role_outside_the_endpoint_is_403(server, tokens, role, method, path, body):
    with server.client(tokens[role]) as http:
        response = http.request(method, path, json=body)
    error_of(response, 403, "FORBIDDEN")


@pytest.mark.parametrize(
    "headers",
    [
        {},
        {"Authorization": "Bearer"},
        {"Authorization": "Basic YW5hOnNlY3JldG8="},
        {"Authorization": "Bearer cas_no-existe"},
        {"Authorization": "Bearer " + "x" * 5000},
    ],
    ids=["none", "empty", "basic", "unknown", "huge"],
)
def test_no_or_bad_token_is_401(server, headers):
    with server.client(headers=headers) as http:
        response = http.get("/dataset/metadata")
    error_of(response, 401, "UNAUTHORIZED")
    assert response.headers["WWW-Authenticate"].startswith("Bearer")


def test_a_revoked_token_is_401(server, tokens):
    with server.client(tokens["revocado"]) as http:
        error_of(http.get("/tools/catalog"), 401, "UNAUTHORIZED")


@pytest.mark.parametrize("path", ["/health/live", "/health/ready", "/openapi.json"])
def test_health_and_the_openapi_document_need_no_token(server, path):
    with server.client() as http:
        response = http.get(path)
    assert response.status_code == 200
    if path == "/health/ready":
        assert response.json()["checks"] == {"store": "ok", "audit": "ok"}


def test_catalog_and_metadata_are_the_python_apis(server, tokens):
    with server.client(tokens["analista"]) as http:
        catalog, meta, info = (http.get(p).json() for p in ("/tools/catalog", "/dataset/metadata", "/dataset/info"))
    assert catalog["checksum"] == api.catalog(server.settings)["checksum"]
    assert meta == api.metadata(server.settings)
    assert info["data_available_until"] == meta["max_date"]


# -- the Plan API answers as the Python API ----------------------------------------------------------------------


@pytest.mark.parametrize("plan", [PLAN_TEXT, PLAN_JSON], ids=["text", "json"])
def test_plan_execute_gives_the_rows_and_hash_of_execute_plan(server, tokens, plan):
    with server.client(tokens["analista"]) as http:
        response = http.post("/plan/execute", json={"plan": plan, "return_all": True})
    assert response.status_code == 200, response.text
    envelopes = response.json()
    expected = api.execute_plan(plan, return_all=True, settings=server.settings)
    assert [e["data"]["inline"]["rows"] for e in envelopes] == [e["data"]["inline"]["rows"] for e in expected]
    assert [e["meta"]["query_hash"] for e in envelopes] == [e["meta"]["query_hash"] for e in expected]
    for env in envelopes:
        validate_envelope(env)


def test_the_seeds_normalized_plan_is_itself_a_request(server, tokens):
    with server.client(tokens["analista"]) as http:
        last = http.post("/plan/execute", json=PLAN_JSON).json()
    assert last["tool"].startswith("listar_evidencia@")
    assert last["meta"]["query_hash"] == api.execute_plan(PLAN_JSON, settings=server.settings)["meta"]["query_hash"]


def test_strict_time_refuses_what_the_default_clamps(server, tokens):
    plan = PLAN_TEXT.replace("from: 2024-01-01", "from: 2010-01-01")
    with server.client(tokens["analista"]) as http:
        clamped = http.post("/plan/execute", json={"plan": plan})
        strict = http.post("/plan/execute", json={"plan": plan, "strict_time": True})
    assert clamped.status_code == 200 and clamped.json()["meta"]["range_adjusted"] is True
    error_of(strict, 422, "INVALID_DATE_RANGE")


def test_the_audit_names_the_client(server, tokens):
    with server.client(tokens["supervisor"]) as http:
        job_id = http.post("/plan/execute", json={"plan": PLAN_TEXT}).json()["meta"]["job_id"]
        page = http.get("/audit/records", params={"user": "api:cliente-supervisor", "limit": 200}).json()
    record = AuditLog.for_settings(server.settings).get(job_id)
    assert (record.user, record.role, record.kind) == ("api:cliente-supervisor", "supervisor", "execute")
    assert job_id in {r["job_id"] for r in page["records"]} and page["total"] >= 1
    reading = AuditLog.for_settings(server.settings).list(kind="audit_read", user="api:cliente-supervisor")[0]
    assert reading.payload["filters"] == {"user": "api:cliente-supervisor"} and reading.payload["returned"] >= 1


def test_v1_job_maps_a_failure_to_its_status(server, tokens):
    with server.client(tokens["analista"]) as http:
        ok = http.post("/v1/job", json={"intent": "consulta", "params": {"municipio": "León"}, "output": "tabular"})
        bad = http.post("/v1/job", json={"intent": "consulta", "params": {"municipio": "Atlántida"}})
    assert ok.status_code == 200 and ok.json()["ok"] and ok.json()["payload"]["rows"][0][0] == "GTO.MUN.LEON"
    assert bad.status_code == 422 and bad.json()["ok"] is False
    assert bad.json()["error"]["code"] == "INVALID_FILTER" and bad.json()["provenance"]["dataset_version"]


def test_ask_runs_the_whole_pipeline_for_the_client(server, tokens):
    with server.client(tokens["analista"]) as http:
        response = http.post(
            "/ask",
            json={"question": "¿y en 2023?", "previous": ["¿Cuántos homicidios dolosos hubo en Celaya en 2024?"]},
        )
    assert response.status_code == 200, response.text
    turn = response.json()
    assert "Celaya" in turn["answer"]["text"] and "2023" in turn["answer"]["text"]
    assert turn["envelopes"] and all(validate_envelope(e) for e in turn["envelopes"])
    record = AuditLog.for_settings(server.settings).get(turn["job_id"])
    assert (record.user, record.kind) == ("api:cliente-analista", "ask")


@pytest.mark.parametrize("previous", [["x" * 2001], [""], ["una"] * 6])
def test_earlier_questions_are_bounded_like_the_question(server, tokens, previous):
    with server.client(tokens["analista"]) as http:
        response = http.post("/ask", json={"question": "¿y en 2023?", "previous": previous})
    assert response.status_code == 422 and response.json()["error"]["code"] == "INVALID_PAYLOAD"


# -- the steward's uploads: the same ETL and the same refusals ----------------------------------------------------


def test_a_steward_previews_an_upload(server, tokens):
    with server.client(tokens["steward"]) as http, (FIXTURES / "etl" / "leon_revision.csv").open("rb") as fh:
        response = http.post("/datasets", files={"files": ("León revisión.csv", fh)}, data={"dry_run": "true"})
    assert response.status_code == 200, response.text
    summary = response.json()
    assert summary["status"] == "preview" and summary["cambios"]["totales"]["cambiadas"] == 12


def test_a_refused_upload_is_409_and_audited(server, tokens):
    with server.client(tokens["steward"]) as http, (FIXTURES / "etl" / "header_only.csv").open("rb") as fh:
        response = http.post("/datasets", files={"files": ("vacío.csv", fh)})
    error_of(response, 409, "DATA_QUALITY_ISSUE")
    refused = AuditLog.for_settings(server.settings).list(kind="etl", status="refused", user="api:cliente-steward")
    assert refused and refused[0].payload["files"] == ["vacío.csv"]


# -- every error status is an error envelope ----------------------------------------------------------------------

BAD_REQUESTS = [
    ({"plan": {"plan": [{"tool_id": 999}]}}, "INVALID_PAYLOAD"),
    ({"plan": "[6]\nentidad_id: NINGUNA\ndelito: homicidio_doloso"}, "INVALID_FILTER"),
    ({"plan": PLAN_TEXT, "sorpresa": 1}, "INVALID_PAYLOAD"),
    ({"strict_time": True}, "INVALID_PAYLOAD"),
    ({"plan": PLAN_TEXT, "strict_time": "quizá"}, "INVALID_PAYLOAD"),
    ({"plan": 7}, "INVALID_PAYLOAD"),
    ({"plan": {"plan": [{"tool_id": 6}]}, "meta": {}}, "INVALID_PAYLOAD"),
]


@pytest.mark.parametrize("body,code", BAD_REQUESTS)
def test_a_bad_plan_or_request_is_422(server, tokens, body, code):
    with server.client(tokens["analista"]) as http:
        error = error_of(http.post("/plan/execute", json=body), 422, code)
    assert error["details"] and "Traceback" not in json.dumps(error)


@pytest.mark.parametrize("content", [b"{no es json", b"[" * 3000 + b"]" * 3000, "\ufffd".encode()])
def test_a_body_that_is_not_json_is_422(server, tokens, content):
    with server.client(tokens["analista"]) as http:
        response = http.post("/plan/execute", content=content, headers={"Content-Type": "application/json"})
    error_of(response, 422, "INVALID_PAYLOAD")


def test_a_body_over_the_cap_is_413_declared_or_streamed(server, tokens):
    big = json.dumps({"plan": "x" * (BODY_CAP + 10)}).encode()
    with server.client(tokens["analista"]) as http:
        declared = http.post("/plan/execute", content=big, headers={"Content-Type": "application/json"})
        streamed = http.post(
            "/plan/execute",
            content=iter([big[:4096], big[4096:]]),  # chunked: no Content-Length to trust
            headers={"Content-Type": "application/json"},
        )
    error_of(declared, 413, "RESOURCE_LIMIT")
    error_of(streamed, 413, "RESOURCE_LIMIT")


def test_an_upload_over_the_upload_cap_is_413(server, tokens):
    with server.client(tokens["steward"]) as http:
        response = http.post("/datasets", files={"files": ("grande.csv", b"a,b\n" * 40_000)})
    error_of(response, 413, "RESOURCE_LIMIT")


def test_the_rate_limit_is_429_with_retry_after(server, tokens):
    with server.client(tokens["lento"]) as http:
        statuses = [http.get("/dataset/metadata").status_code for _ in range(2)]
        limited = http.get("/dataset/metadata")
    assert statuses == [200, 200]
    error_of(limited, 429, "RESOURCE_LIMIT")
    assert 1 <= int(limited.headers["Retry-After"]) <= 60


def test_an_unexpected_failure_is_a_500_envelope_without_internals(server, tokens, monkeypatch):
    def broken(settings=None):
        raise RuntimeError("secreto interno /ruta/privada")

    monkeypatch.setattr(api, "catalog", broken)
    with server.client(tokens["analista"]) as http:
        response = http.get("/tools/catalog")
    error = error_of(response, 500, "COMPUTE_ERROR")
    assert "secreto" not in response.text and error["details"] == "Error interno al calcular el resultado."


@pytest.mark.parametrize("method,path,status", [("GET", "/no/existe", 404), ("DELETE", "/plan/execute", 405)])
def test_unknown_paths_and_methods_are_envelopes(server, tokens, method, path, status):
    with server.client(tokens["analista"]) as http:
        error_of(http.request(method, path), status, "INVALID_PAYLOAD")


def test_a_refusal_is_an_answer_not_a_crash_in_the_server_log(server, tokens):
    seen: list[logging.LogRecord] = []
    handler = logging.Handler(logging.ERROR)
    handler.emit = seen.append
    uvicorn_log = logging.getLogger("uvicorn.error")  # uvicorn's own logger does not reach the root's handlers
    uvicorn_log.addHandler(handler)
    try:
        with server.client(tokens["supervisor"]) as http:
            error_of(http.get("/audit/records", params={"since": "2026"}), 422, "INVALID_PAYLOAD")
    finally:
        uvicorn_log.removeHandler(handler)
    assert [r.getMessage() for r in seen] == []


def test_a_steward_publishes_and_the_analysts_see_the_new_version(tmp_path):
    data_dir = tmp_path / "data"
    run_etl([SourceSpec(HOMICIDIO)], load_settings(data_dir), clock=FixedClock(datetime(2026, 1, 15, tzinfo=UTC)))
    settings = small_settings(data_dir)
    store = Tokens.for_settings(settings)
    steward, analyst = store.create("carga", "steward"), store.create("lectura", "analista")
    with serve(create_app(settings), settings) as running:
        with running.client(analyst) as http:
            before = http.get("/dataset/metadata").json()["dataset_version"]
        with running.client(steward) as http, (FIXTURES / "etl" / "leon_revision.csv").open("rb") as fh:
            published = http.post("/datasets", files={"files": ("revisión.csv", fh)}, data={"note": "revisión de León"})
        with running.client(analyst) as http:
            after = http.get("/dataset/metadata").json()["dataset_version"]
            envelope = http.post("/plan/execute", json={"plan": PLAN_TEXT}).json()
    assert published.status_code == 200 and published.json()["status"] == "published", published.text
    assert after == published.json()["dataset_version"] != before
    assert envelope["meta"]["dataset_version"] == after
    record = AuditLog.for_settings(settings).list(kind="etl", status="published")[0]
    assert (record.user, record.role, record.dataset_version) == ("api:carga", "steward", after)


def test_an_oversized_job_is_a_413_job_result(server, tokens):
    body = {"intent": "consulta", "tools": [{"name": "rank_por_delito", "args": {"delito": "x" * 1001}}]}
    with server.client(tokens["analista"]) as http:
        response = http.post("/v1/job", json=body)
    result = JobResult.model_validate(response.json())  # the documented body of a failed job, not an envelope
    assert response.status_code == 413 and result.ok is False and result.error["code"] == "RESOURCE_LIMIT"


# -- a plan posted as plain text, as python -m core execute reads it ------------------------------------------------


@pytest.mark.parametrize("plan", [PLAN_TEXT, json.dumps(PLAN_JSON)], ids=["text", "json-text"])
def test_a_text_plain_plan_answers_as_execute_plan(server, tokens, plan):
    with server.client(tokens["analista"]) as http:
        response = http.post(
            "/plan/execute",
            params={"return_all": "true"},
            content=plan.encode(),
            headers={"Content-Type": "text/plain"},
        )
    assert response.status_code == 200, response.text
    expected = api.execute_plan(plan, return_all=True, settings=server.settings)
    assert [e["meta"]["query_hash"] for e in response.json()] == [e["meta"]["query_hash"] for e in expected]
    assert [e["data"]["inline"]["rows"] for e in response.json()] == [e["data"]["inline"]["rows"] for e in expected]


@pytest.mark.parametrize(
    "query,content,status,code",
    [
        ({"strict_time": "true"}, PLAN_TEXT.replace("2024-01-01", "2010-01-01").encode(), 422, "INVALID_DATE_RANGE"),
        ({"strict_time": "quizá"}, PLAN_TEXT.encode(), 422, "INVALID_PAYLOAD"),
        ({}, b"[6]\nentidad_id: GTO\ndelito: \xff\xfe", 422, "INVALID_PAYLOAD"),
        ({}, b"[6]\n" + b"x" * BODY_CAP, 413, "RESOURCE_LIMIT"),
    ],
    ids=["strict", "bad-flag", "not-utf8", "too-large"],
)
def test_a_text_plain_plan_is_refused_like_a_json_one(server, tokens, query, content, status, code):
    with server.client(tokens["analista"]) as http:
        response = http.post("/plan/execute", params=query, content=content, headers={"Content-Type": "text/plain"})
    error_of(response, status, code)
