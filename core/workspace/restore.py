"""A stored conversation back as the engine's ``Conversation``: turns rebuilt from their dicts.

A reload draws the turns again and follow-ups keep working: every turn's contracts are read back into
their models (``Turn.as_dict()`` is the stored form), and each on-topic turn's understanding is read
again from its standalone (rewritten) question, which is what a follow-up merges with.
"""

from __future__ import annotations

from typing import Any

from core.ask.contracts import AnalystPlan, Answer, GovernorDecision, Intake, PlannerState, QueryPlan
from core.ask.pipeline import Conversation, Turn

_MODELS = {
    "intake": Intake,
    "query_plan": QueryPlan,
    "governor": GovernorDecision,
    "analyst_plan": AnalystPlan,
    "planner_state": PlannerState,
    "answer": Answer,
}


def _model(cls: Any, value: dict | None) -> Any:
    """A contract read back from its JSON dump (None when absent or no longer valid: drawn without it)."""
    if value is None:
        return None
    try:
        return cls.model_validate(value)
    except ValueError:
        return None


def turn_from_dict(d: dict) -> Turn:
    """A Turn rebuilt from ``Turn.as_dict()`` (the understanding is filled by ``restore_conversation``)."""
    envelopes = list(d.get("envelopes") or [])
    result = d.get("result")
    index = next((i for i, e in enumerate(envelopes) if e == result), None) if result is not None else None
    turn = Turn(
        question=str(d.get("question") or ""),
        job_id=str(d.get("job_id") or Turn(question="").job_id),
        route_reason=d.get("route_reason"),
        planner_used=d.get("planner") or "rules",
        plan=d.get("plan"),
        validation=d.get("validation"),
        envelopes=envelopes,
        result_index=index,
        llm=d.get("llm"),
        timings_ms=dict(d.get("timings_ms") or {}),
        done=True,
    )
    for name, cls in _MODELS.items():
        setattr(turn, name, _model(cls, d.get(name)))
    return turn


def _understanding(turn: Turn, ctx: Any) -> Any:
    """The turn's slots read again from its standalone question (None off-topic or without data)."""
    if turn.intake is None or turn.intake.category != "relevant" or ctx is None or ctx.metadata is None:
        return None
    from core.ask.understand.parse import understand
    from core.ask.understand.series_end import SeriesEnds

    meta = ctx.metadata or {}
    ends = SeriesEnds(meta.get("coverage"), meta.get("coverage_municipal"), ctx.catalog.series_ends)
    return understand(turn.intake.rewritten_question, ctx.lexicon, ctx.anchor, ctx.min_date, ends)


def restore_conversation(turn_dicts: list[dict], ctx: Any = None) -> Conversation:
    """The engine's Conversation of stored turns; with a StageContext (``Assistant``), follow-ups continue it."""
    conversation = Conversation()
    for d in turn_dicts:
        turn = turn_from_dict(d)
        turn.understanding = _understanding(turn, ctx)
        conversation.turns.append(turn)
        if turn.understanding is not None:
            conversation.last_understanding = turn.understanding
    return conversation
