"""The analyze stage's rules: request types, sources and the safe fallback plan (tables of cases)."""

from __future__ import annotations

import pytest

from core.ask import analyze as analyst
from core.ask.contracts import AnalystPlan


@pytest.mark.parametrize(
    "category,kind,refused,rtype,sources",
    [
        ("relevant", "single_value", False, "STATUS_METRIC", ["db"]),
        ("relevant", "ranking", False, "STATUS_LIST", ["db"]),
        ("relevant", "series", False, "STATUS_SUMMARY", ["db"]),
        ("definition", "unknown", False, "DATA_DEFINITION", ["doc", "policy"]),
        ("support", "unknown", False, "HOWTO_POLICY", ["policy", "doc"]),
        ("social", "unknown", False, "CASUAL", []),
        ("relevant", "single_value", True, "CASUAL", ["policy"]),
    ],
)
def test_analyst_request_types_and_sources(category, kind, refused, rtype, sources):
    plan, reason = analyst.analyze(category, kind, "fast", None, refused)
    assert (plan.request_type, plan.required_sources, reason) == (rtype, sources, None)


def test_analyst_fallback_on_an_invalid_plan():
    # A question moves the plan to the QUALITY track (docs/contracts/002_analyst_plan.md §7: FAST asks none);
    # the fallback is the safe plan.
    plan, reason = analyst.analyze("relevant", "single_value", "fast", "¿Qué municipio?", False)
    assert plan.track == "QUALITY" and plan.missing_info_questions == ["¿Qué municipio?"] and reason is None
    fallback, reason = analyst.fallback("parse_error:not_json")
    assert isinstance(fallback, AnalystPlan) and fallback.track == "QUALITY" and fallback.required_sources == ["policy"]
    assert reason == "analyst_plan_fallback:parse_error:not_json"
