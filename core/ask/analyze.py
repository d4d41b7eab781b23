"""Analyst → AnalystPlan (docs/contracts/002_analyst_plan.md): request type, track, required sources,
at most one question.

STATUS_* requests read the database and never documents; definitions read documents and
policy. Anything that fails the model's rules falls back to a safe QUALITY plan with a
``route_reason`` (docs/contracts/002_analyst_plan.md §8).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pydantic import ValidationError

from core.ask.contracts import AnalystPlan
from core.ask.plan import cells, granularity
from core.ask.scope import asks_code, asks_forecast, asks_opinion, asks_safety, below_municipality
from core.ask.understand.national import is_national
from core.text import normalize_text

if TYPE_CHECKING:  # the spine's types, without importing the pipeline at run time
    from core.ask.context import StageContext
    from core.ask.pipeline import Conversation, Turn

KIND_TYPES = {
    "single_value": "STATUS_METRIC",
    "ranking": "STATUS_LIST",
    "share": "STATUS_METRIC",
    "series": "STATUS_SUMMARY",
    "comparison": "STATUS_SUMMARY",
    "anomalies": "STATUS_SUMMARY",
    "patterns": "STATUS_SUMMARY",
    "annual_total": "STATUS_METRIC",
    "evidence": "STATUS_LIST",
    "unknown": "STATUS_METRIC",
}
SCHEMAS = {
    "STATUS_METRIC": "status_metric_v1_json",
    "STATUS_LIST": "status_list_v1_json",
    "STATUS_SUMMARY": "status_summary_v1_json",
    "DATA_DEFINITION": "answer_v1_markdown",
    "HOWTO_POLICY": "answer_v1_markdown",
    "KNOWLEDGE_QA": "answer_v1_markdown",
    "CASUAL": "answer_v1_text",
}


def fallback(reason: str) -> tuple[AnalystPlan, str]:
    """The safe QUALITY plan of docs/contracts/002_analyst_plan.md §2 (policy sources only) with its route_reason."""
    plan = AnalystPlan(
        intent="parse_error",
        request_type="KNOWLEDGE_QA",
        track="QUALITY",
        required_sources=["policy"],
        missing_info_questions=[],
        expected_output_schema="answer_v1_markdown",
    )
    return plan, f"analyst_plan_fallback:{reason}"


def analyze(category: str, kind: str, mode: str, question: str | None, refused: bool) -> tuple[AnalystPlan, str | None]:
    """The AnalystPlan of a turn, and a route_reason when the fallback was used."""
    if refused:
        request_type, sources, intent = "CASUAL", ["policy"], "refuse_or_defer"
    elif category in ("social",):
        request_type, sources, intent = "CASUAL", [], "social"
    elif category == "support":
        request_type, sources, intent = "HOWTO_POLICY", ["policy", "doc"], "how_to_use"
    elif category == "definition":
        request_type, sources, intent = "DATA_DEFINITION", ["doc", "policy"], "definition"
    elif category == "irrelevant":
        request_type, sources, intent = "CASUAL", [], "off_topic"
    else:
        request_type, sources, intent = KIND_TYPES.get(kind, "STATUS_METRIC"), ["db"], f"query_{kind}"
    track = "QUALITY" if (mode == "deep" or question) else "FAST"
    try:
        plan = AnalystPlan(
            intent=intent,
            request_type=request_type,
            track=track,
            required_sources=sources,
            missing_info_questions=[question] if question else [],
            expected_output_schema=SCHEMAS.get(request_type, "answer_v1_markdown"),
        )
    except ValidationError as exc:
        return fallback(f"validation_failed:{exc.error_count()}")
    return plan, None


# -- the stage --------------------------------------------------------------------------------


def refusal_tag(turn: Turn, ctx: StageContext | None = None) -> str | None:
    """Why the turn must be refused (destructive, override, pii, offensive, off_topic, crime not in data), or None."""
    m, cat, u = turn.intake.moderation, turn.intake.category, turn.understanding
    if m.destructive:
        return "destructive"
    if m.instruction_override:
        return "override"
    if m.pii_request:
        return "pii"
    if m.offensive:
        return "offensive"
    if asks_code(normalize_text(turn.question)):
        return "code"  # «pásame el query SQL»: never given nor run, whatever else the message asks
    if asks_safety(normalize_text(turn.question)):
        return "safety"  # «¿es seguro vivir en Celaya?»: no judgement; the figures to judge with are offered
    if asks_opinion(normalize_text(turn.question)):
        return "opinion"
    if cat == "irrelevant":
        return "off_topic"
    if cat == "relevant" and u is not None and asks_forecast(normalize_text(turn.question)):
        return "forecast"  # a prediction is no count of published months (plan/strategy.forecast_text)
    national = is_national(u)  # the state file holds every crime of the fuero común
    # a crime the municipal files hold only at a coarser level is answered with what exists (issue 14 §5)
    coarser = ctx is not None and (
        granularity.find(u, ctx.catalog, ctx.metadata) is not None
        or cells.find(u, ctx.catalog, ctx.metadata) is not None
    )
    # an everyday word that is no SESNSP crime («personas desaparecidas», «levantones») is said, at any level
    # (unless the federal tables name it: «huachicol … delitos federales» is the hydrocarbons law)
    named_only = (
        u is not None
        and bool(u.crimes)
        and all(c.note for c in u.crimes)
        and not any(s.startswith("national:federal_key:") for s in u.signals)
    )
    if (
        cat == "relevant"
        and u is not None
        and u.crimes
        and not any(c.in_data for c in u.crimes)
        and (not national or named_only)
    ):
        if coarser or "place:other_state" in u.signals:  # «… en Zapopan»: the place is the answer (no data there)
            return None
        # below the municipality, where the data stop is the answer (it also says the crime is not loaded)
        return None if below_municipality(normalize_text(turn.question)) else "gray_zone_crime_not_in_data"
    return None


def stage(turn: Turn, ctx: StageContext, conv: Conversation) -> None:
    """AnalystPlan (002) and the refusal decision."""
    turn.refusal = refusal_tag(turn, ctx)
    if turn.refusal:
        turn.clarify = []
    kind = turn.understanding.kind if turn.understanding else "unknown"
    question = turn.clarify[0].question if turn.clarify else None
    turn.analyst_plan, turn.route_reason = analyze(
        turn.intake.category, kind, turn.query_plan.mode, question, refused=turn.refusal is not None
    )
