"""The LLM planner through the real ``openai`` client against a local HTTP stub (tests/llm_stub.py)."""

from __future__ import annotations

import json
import socket
import time

import openai
import pytest
from jsonschema import Draft202012Validator

from core.ask.plan.endpoint import EndpointModes
from core.ask.plan.llm import LlmPlan, extract_json, planner_choice, propose_plan
from core.ask.plan.prompt import plan_json_schema, system_prompt
from core.config import LlmSettings
from core.dataset.store import Store
from core.engine.catalog import Catalog, build_catalog
from tests.llm_stub import Reply, error_reply, plan_reply, slow_reply, stub_server, text_reply

SECRET = "sk-test-SECRET-0123456789"
ARGS = {"entidad_id": "GTO", "delito": "homicidio_doloso", "nivel": "hijos", "from": "2024-01-01", "to": "2024-12-31"}
GOOD = [{"tool_id": 6, "args": ARGS}]
QUESTION = "¿Qué municipios tuvieron más homicidios dolosos en 2024?"


def step(**args):
    return [{"tool_id": 6, "args": {**ARGS, **args}}]


@pytest.fixture(scope="module")
def world(bundled_settings):
    store = Store(bundled_settings)
    return build_catalog(store), store.metadata()


def config_for(server, **kw) -> LlmSettings:
    return LlmSettings(
        **{"api_key": SECRET, "base_url": server.base_url, "model": "stub-model", "timeout_s": 5.0, **kw}
    )


def ask(world, server, *, modes=None, **kw):
    catalog, metadata = world
    return propose_plan(QUESTION, catalog, metadata, config_for(server, **kw), modes=modes or EndpointModes())


def feedback_of(request: dict) -> str:
    """The corrective message of a retry request (its last user message)."""
    assert request["messages"][-2]["role"] == "assistant"
    return request["messages"][-1]["content"]


# ---------------------------------------------------------------- successful proposals


def test_valid_answer_gives_a_validated_plan(world):
    with stub_server([plan_reply(GOOD, "Ranking de homicidio doloso en 2024.")]) as server:
        out = ask(world, server)
    assert out.fallback_reason is None and out.plan == {"plan": GOOD}
    assert out.validated is not None and out.validated.query_hash.startswith("sha256:")
    assert out.rationale == "Ranking de homicidio doloso en 2024."
    assert out.mode_used == "json_schema" and out.model == "stub-model" and out.retries == 0
    [a] = out.attempts
    assert (a["prompt_tokens"], a["completion_tokens"], a["error"]) == (321, 45, None) and a["latency_ms"] >= 0
    [req] = server.requests
    assert req["model"] == "stub-model"
    fmt = req["response_format"]
    assert (
        fmt["type"] == "json_schema" and fmt["json_schema"]["name"] == "plan" and fmt["json_schema"]["strict"] is False
    )
    assert server.headers[0]["authorization"] == f"Bearer {SECRET}"
    audit = out.as_audit()
    assert json.dumps(audit) and audit["prompt_tokens"] == 321 and audit["fallback"] is False


@pytest.mark.parametrize(
    "content",
    [
        "```json\n" + json.dumps({"plan": GOOD, "rationale": "r"}) + "\n```",
        "Aquí está el plan: " + json.dumps({"plan": GOOD, "rationale": "r"}) + " ¡Listo!",
    ],
)
def test_fenced_or_wrapped_json_is_accepted(world, content):
    with stub_server([text_reply(content)]) as server:
        out = ask(world, server)
    assert out.plan == {"plan": GOOD} and len(server.requests) == 1


# ---------------------------------------------------------------- retries with the problems sent back


@pytest.mark.parametrize(
    "bad,code,needle",
    [
        (text_reply("Lo siento, no puedo ayudar con eso."), "invalid_json", "JSON"),
        (text_reply(""), "invalid_json", "vacía"),
        (plan_reply(step(), sql="SELECT * FROM incidents"), "schema_violation", "sql: campo no permitido"),
        (plan_reply([{"tool_id": 99, "args": {}}]), "schema_violation", "99 no existe"),
        (plan_reply({"plan": "rank", "rationale": "r"}), "schema_violation", "plan: valor inválido"),
        (plan_reply(GOOD, "x" * 301), "schema_violation", "rationale"),
        (plan_reply(step(top_k=10_000)), "validation_failed", "fuera de rango"),
        (plan_reply(step(entidad_id="GTO.MUN.LEONN")), "validation_failed", "¿Quiso decir GTO.MUN.LEON"),
        (plan_reply(step(**{"from": "2024-12-31", "to": "2024-01-01"})), "validation_failed", "es posterior a to"),
        (plan_reply(step(color="rojo")), "validation_failed", "Argumento no permitido"),
    ],
)
def test_invalid_answer_is_retried_with_its_problems(world, bad, code, needle):
    with stub_server([bad, plan_reply(GOOD)]) as server:
        out = ask(world, server)
    assert out.plan == {"plan": GOOD} and out.fallback_reason is None and out.retries == 1
    assert len(server.requests) == 2
    assert [a["error"] for a in out.attempts] == [code, None]
    sent_back = feedback_of(server.requests[1])
    assert "Problemas encontrados" in sent_back and needle in sent_back, sent_back
    assert server.requests[1]["messages"][-2]["content"] == (bad.content or "")


def test_out_of_range_values_are_sent_back_with_their_paths(world):
    bad = step(top_k=10_000, entidad_id="GTO.MUN.NOEXISTE")
    with stub_server([plan_reply(bad), plan_reply(GOOD)]) as server:
        ask(world, server)
    sent_back = feedback_of(server.requests[1])
    assert "plan[0].args.top_k" in sent_back and "Valor fuera de rango" in sent_back
    assert "plan[0].args.entidad_id" in sent_back and "no existe en el catálogo de datos" in sent_back


def test_three_invalid_answers_fall_back_after_two_retries(world):
    replies = [
        text_reply("no JSON"),
        plan_reply(step(top_k=10_000)),
        plan_reply([{"tool_id": 99, "args": {}}]),
        plan_reply(GOOD),
    ]
    with stub_server(replies) as server:
        out = ask(world, server)
    assert out.plan is None and out.validated is None
    assert out.fallback_reason == "validation_failed_after_retries"
    assert len(server.requests) == 3 and len(server.queue) == 1  # the 4th (valid) answer was never asked for
    assert [a["error"] for a in out.attempts] == ["invalid_json", "validation_failed", "schema_violation"]
    assert out.as_audit()["fallback"] is True


def test_without_retries_the_reason_is_the_failure_itself(world):
    with stub_server([text_reply("nada")]) as server:
        out = ask(world, server, max_retries=0)
    assert out.fallback_reason == "invalid_json" and len(server.requests) == 1


# ---------------------------------------------------------------- response-format negotiation


def test_refused_json_schema_falls_back_to_json_object_and_is_remembered(world):
    modes = EndpointModes()
    with stub_server([plan_reply(GOOD), plan_reply(GOOD)], refuse_json_schema=True) as server:
        first = ask(world, server, modes=modes)
        assert server.modes() == ["json_schema", "json_object"]
        second = ask(world, server, modes=modes)
    assert first.plan == second.plan == {"plan": GOOD}
    assert first.mode_used == second.mode_used == "json_object"
    assert first.retries == 0 and first.attempts[0]["error"] == "http_500"
    assert server.modes() == ["json_schema", "json_object", "json_object"]  # the second call starts at json_object
    fmt = server.requests[1]["response_format"]
    assert set(fmt) == {"type", "schema"} and fmt["schema"]["properties"]["plan"]["items"]["oneOf"]


def test_the_default_memory_is_process_wide(world):
    catalog, metadata = world
    with stub_server([plan_reply(GOOD), plan_reply(GOOD)], refuse_json_schema=True) as server:
        config = config_for(server)
        propose_plan(QUESTION, catalog, metadata, config)
        propose_plan(QUESTION, catalog, metadata, config)
    assert server.modes() == ["json_schema", "json_object", "json_object"]


def test_an_endpoint_refusing_both_formats_gets_json_by_instruction(world):
    refusal = error_reply(400, "Unsupported parameter: 'response_format'")
    modes = EndpointModes()
    with stub_server([refusal, refusal, plan_reply(GOOD), plan_reply(GOOD)]) as server:
        out = ask(world, server, modes=modes)
        again = ask(world, server, modes=modes)
    assert out.plan == again.plan == {"plan": GOOD} and out.mode_used == "prompt"
    assert server.modes() == ["json_schema", "json_object", "prompt", "prompt"]
    system = server.requests[2]["messages"][0]["content"]
    assert "JSON Schema" in system and '"oneOf"' in system


def test_a_mode_is_only_remembered_once_an_answer_parses(world):
    modes = EndpointModes()
    with stub_server([text_reply("hola"), text_reply("hola"), text_reply("hola")], refuse_json_schema=True) as server:
        out = ask(world, server, modes=modes)
    assert out.fallback_reason == "validation_failed_after_retries"
    assert modes.get(config_for(server)) is None
    assert server.modes() == ["json_schema", "json_object", "json_object", "json_object"]


# ---------------------------------------------------------------- transport failures


def test_timeout_falls_back_within_the_timeout(world):
    with stub_server([slow_reply(5.0)]) as server:
        t0 = time.perf_counter()
        out = ask(world, server, timeout_s=0.5)
        elapsed = time.perf_counter() - t0
    assert out.fallback_reason == "timeout" and out.plan is None
    assert elapsed < 3.0 and len(out.attempts) == 1 and out.attempts[0]["error"] == "timeout"


@pytest.mark.parametrize("status,requests", [(500, 2), (502, 2), (503, 2)])
def test_an_always_failing_endpoint_falls_back(world, status, requests):
    with stub_server(always=error_reply(status)) as server:
        out = ask(world, server)
    assert out.plan is None and out.fallback_reason == f"http_{status}"
    assert len(server.requests) == requests  # json_schema (a 5xx may be a refusal), then json_object


def test_a_closed_port_is_a_connection_error():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    config = LlmSettings(api_key=SECRET, base_url=f"http://127.0.0.1:{port}/v1", model="m", timeout_s=2.0)
    out = propose_plan(
        QUESTION,
        Catalog([], [], [], [], "2026-01-01T00:00:00Z", None),
        {"min_date": "2015-01-01", "max_date": "2025-11-30"},
        config,
        modes=EndpointModes(),
    )
    assert out.plan is None and out.fallback_reason == "connection_error"


def test_never_raises_on_unexpected_errors(world):
    class Broken:
        class chat:  # noqa: N801 - mimics client.chat.completions
            class completions:  # noqa: N801
                @staticmethod
                def create(**_):
                    raise RuntimeError(f"boom {SECRET}")

    catalog, metadata = world
    config = LlmSettings(api_key=SECRET, base_url="http://127.0.0.1:9/v1", model="m")
    out = propose_plan(QUESTION, catalog, metadata, config, client=Broken(), modes=EndpointModes())
    assert out.plan is None and out.fallback_reason == "internal_error" and SECRET not in out.error


def test_no_config_and_no_data_fall_back_without_a_request(world):
    catalog, metadata = world
    assert propose_plan(QUESTION, catalog, metadata, None).fallback_reason == "no_config"
    config = LlmSettings(api_key=SECRET, base_url="http://127.0.0.1:9/v1", model="m")
    assert propose_plan(QUESTION, catalog, None, config).fallback_reason == "no_data"


# ---------------------------------------------------------------- secrets


def test_the_api_key_never_reaches_the_outcome(world):
    with stub_server([Reply(status=401, echo_auth=True)]) as server:
        out = ask(world, server)
    assert out.fallback_reason == "http_401"
    with stub_server([text_reply(f"mi clave es {SECRET}"), plan_reply(GOOD)]) as server:
        ok = ask(world, server)
    for outcome in (out, ok):
        blob = repr(outcome) + json.dumps(outcome.as_audit(), default=str)
        assert SECRET not in blob
    assert SECRET not in repr(config_for(server))


# ---------------------------------------------------------------- what the model is told


def test_the_schema_is_a_oneof_over_the_allowed_tools(world):
    catalog, _metadata = world
    schema = plan_json_schema(catalog)
    variants = schema["properties"]["plan"]["items"]["oneOf"]
    assert [v["properties"]["tool_id"]["const"] for v in variants] == [s.tool_id for s in catalog.specs]
    validator = Draft202012Validator(schema)
    assert not list(validator.iter_errors({"plan": GOOD, "rationale": "r"}))
    assert list(validator.iter_errors({"plan": step(entidad_id="GTO.MUN.NOEXISTE"), "rationale": "r"}))
    assert list(validator.iter_errors({"plan": GOOD, "rationale": "r", "sql": "SELECT 1"}))
    full = plan_json_schema(catalog, compact=False)["properties"]["plan"]["items"]["oneOf"]
    assert full[5]["properties"]["args"] == catalog.resolved_schemas[6]
    assert LlmPlan.model_json_schema()["additionalProperties"] is False


def test_experimental_tools_are_left_out_unless_allowed(world):
    catalog, metadata = world
    specs = [s.model_copy(update={"status": "experimental"}) if s.tool_id == 14 else s for s in catalog.specs]
    lab = Catalog(
        specs, catalog.entities, catalog.crimes, catalog.methods, catalog.generated_at, catalog.dataset_version
    )
    ids = lambda status: [
        v["properties"]["tool_id"]["const"]
        for v in plan_json_schema(lab, status)["properties"]["plan"]["items"]["oneOf"]
    ]
    assert 14 not in ids(("stable",)) and 14 in ids(("stable", "experimental"))
    assert "14 total_anual" not in system_prompt(lab, metadata)
    annual = [{"tool_id": 14, "args": {"entidad_id": "GTO", "from": "2020-01-01", "to": "2024-12-31"}}]
    with stub_server([plan_reply(annual), plan_reply(GOOD)]) as server:
        out = propose_plan(QUESTION, lab, metadata, config_for(server), modes=EndpointModes())
    assert out.plan == {"plan": GOOD} and "14 no existe en el catálogo o no está permitida" in feedback_of(
        server.requests[1]
    )


def test_the_prompt_carries_the_rules_and_the_watermark(world):
    _catalog, metadata = world
    with stub_server([plan_reply(GOOD)]) as server:
        ask(world, server)
    system, user = server.requests[0]["messages"][:2]
    assert system["role"] == "system" and user == {"role": "user", "content": QUESTION}
    text = system["content"]
    for needle in (
        "SOLO con un objeto JSON",
        "Nunca escribas SQL",
        "AAAA-MM-DD",
        "GTO.MUN.LEON",
        metadata["max_date"],
        f"contra {metadata['max_date']}, nunca contra la fecha de hoy",
        "6 rank_por_delito",
        "- homicidio_doloso: ",
    ):
        assert needle in text, needle
    assert "JSON Schema" not in text  # the schema travels in response_format here


@pytest.mark.parametrize(
    "text,expected",
    [
        ('{"a": 1}', {"a": 1}),
        ('```json\n{"a": 1}\n```', {"a": 1}),
        ('texto {no es json} y luego {"a": [1, {"b": 2}]} fin', {"a": [1, {"b": 2}]}),
    ],
)
def test_extract_json(text, expected):
    assert extract_json(text) == expected


@pytest.mark.parametrize("text", ["", "   ", "sin llaves", "[1, 2]", '{"a": '])
def test_extract_json_refuses(text):
    with pytest.raises(ValueError):
        extract_json(text)


# ---------------------------------------------------------------- planner choice

CONFIG = LlmSettings("sk-local", "http://127.0.0.1:1/v1", "m")


@pytest.mark.parametrize(
    "requested,config,mode,reason",
    [
        ("auto", CONFIG, "llm", None),
        ("auto", None, "rules", None),
        ("llm", CONFIG, "llm", None),
        ("llm", None, "rules", "no_config"),
        ("rules", CONFIG, "rules", None),
        ("rules", None, "rules", None),
        ("LLM", CONFIG, "llm", None),
        ("magia", CONFIG, "rules", "unknown_mode:magia"),
    ],
)
def test_planner_choice(requested, config, mode, reason):
    assert planner_choice(requested, config) == (mode, reason)


def test_the_openai_client_is_the_real_one():
    assert hasattr(openai, "OpenAI") and hasattr(openai, "APITimeoutError")
