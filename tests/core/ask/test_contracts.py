"""Contracts: invariants enforced by the models; exported schemas change only with a version bump."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest
from pydantic import ValidationError

from core.ask.contracts import AnalystPlan, GovernorDecision, LabPolicy, PlannerState, QueryPlan, contract_schemas
from core.config import CATALOGS_DIR

NOW = datetime(2026, 1, 15, tzinfo=UTC)


def qp(**kw):
    base = dict(
        mode="fast", domains_selected=["incidencia"], rationale="Pregunta de conteo.", confidence="high", timestamp=NOW
    )
    return QueryPlan(**{**base, **kw})


def test_exported_schemas_match_the_models():
    folder = CATALOGS_DIR / "contracts"
    for key, schema in contract_schemas().items():
        path = folder / f"{key}.schema.json"
        assert path.is_file(), f"{path.name} missing: run `python -m core contracts`"
        stored = json.loads(path.read_text(encoding="utf-8"))
        assert stored == schema, f"{key} changed without a version bump (CHANGELOG + new version)"


@pytest.mark.parametrize(
    "kwargs",
    [
        dict(domains_selected=[]),
        dict(domains_selected=["incidencia", "tendencias", "comparacion", "patrones"]),
        dict(mode="fast", domains_selected=["incidencia", "tendencias", "comparacion"]),
        dict(domains_selected=["lab"]),
        dict(domains_selected=["incidencia", "incidencia"]),
        dict(rationale=""),
        dict(rationale="\n".join(["línea"] * 11)),
        dict(confidence="maybe"),
        dict(flags=["made-up-flag"]),
        dict(timestamp=datetime(2026, 1, 1)),
        dict(mode=None),
        dict(extra_field=1),
    ],
)
def test_query_plan_invariants(kwargs):
    with pytest.raises(ValidationError):
        qp(**kwargs)


def test_query_plan_lab_only_when_approved():
    approved = LabPolicy(allow_lab=True, status="approved", rationale="Aprobado por supervisión.")
    assert qp(mode="deep", domains_selected=["lab", "patrones"], lab_policy=approved).domains_selected[0] == "lab"
    with pytest.raises(ValidationError):
        LabPolicy(allow_lab=True, status="denied", rationale="x")


def test_query_plan_round_trips_through_json():
    plan = qp(flags=["needs-clarification"])
    assert QueryPlan.model_validate_json(plan.model_dump_json()) == plan


@pytest.mark.parametrize(
    "kwargs,ok",
    [
        (dict(request_type="STATUS_METRIC", required_sources=["db"]), True),
        (dict(request_type="STATUS_METRIC", required_sources=["db", "doc"]), False),
        (dict(request_type="STATUS_LIST", required_sources=["policy"]), False),
        (dict(request_type="DATA_DEFINITION", required_sources=["doc"]), True),
        (dict(request_type="DATA_DEFINITION", required_sources=["db"]), False),
        (dict(request_type="STATUS_METRIC", required_sources=["db"], missing_info_questions=["a", "b"]), False),
        (
            dict(
                request_type="STATUS_METRIC", required_sources=["db"], track="FAST", missing_info_questions=["¿dónde?"]
            ),
            False,
        ),
    ],
)
def test_analyst_plan_rules(kwargs, ok):
    base = dict(intent="conteo", track="QUALITY", expected_output_schema="status_metric_v1_json")
    if ok:
        AnalystPlan(**{**base, **kwargs})
    else:
        with pytest.raises(ValidationError):
            AnalystPlan(**{**base, **kwargs})


def test_governor_experimental_needs_approval():
    denied = LabPolicy(allow_lab=False, status="denied", rationale="Bloqueado.")
    with pytest.raises(ValidationError):
        GovernorDecision(
            lab_policy=denied,
            allowed_tool_status=["stable", "experimental"],
            decided_by="policy",
            rationale="x",
            timestamp=NOW,
        )


def test_planner_state_strategy_rules():
    base = dict(
        goal="x",
        acceptance_criteria={"min_independent_sources": 1, "require_authoritative_source": True},
        stop_conditions={"max_rounds": 1, "max_total_docs": 5, "no_new_information_rounds": 1},
        answer_requirements={"format": ["texto"]},
        budget={"max_tokens": 0},
        safety={"sensitivity": "public", "pii_allowed": False},
        planner_meta={"planner_version": "1"},
    )
    with pytest.raises(ValidationError):
        PlannerState(strategy="clarify_then_retrieve", **base)
    with pytest.raises(ValidationError):
        PlannerState(
            strategy="retrieve_then_answer",
            clarifying_questions=[{"question": "¿Qué municipio?", "reason": "missing_place", "blocking": True}],
            **base,
        )
    assert PlannerState(strategy="direct_answer", **base).strategy == "direct_answer"
