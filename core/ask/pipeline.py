"""The understanding pipeline: one tuple of stages over a typed turn state (docs/contracts/design.md §1).

``STAGES`` is the single place where the order lives; a test can run any prefix. Each
stage takes the turn and its context and fills one more contract.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Protocol

from core.ask import analyze, audit, compose, execute, govern, intake, plan, route, validate
from core.ask.contracts import AnalystPlan, Answer, GovernorDecision, Intake, PlannerState, QueryPlan
from core.ask.scope import asks_forecast
from core.ask.understand import Understanding
from core.text import normalize_text

if TYPE_CHECKING:
    from core.ask.context import StageContext


@dataclass
class Turn:
    """Everything one question produces, stage by stage."""

    question: str
    domain_hint: str = "auto"
    planner_requested: str = "auto"
    job_id: str = field(default_factory=lambda: uuid.uuid4().hex)
    intake: Intake | None = None
    understanding: Understanding | None = None
    query_plan: QueryPlan | None = None
    governor: GovernorDecision | None = None
    analyst_plan: AnalystPlan | None = None
    route_reason: str | None = None
    clarify: list = field(default_factory=list)  # ClarifyingQuestion items (planner stage reads them)
    planner_state: PlannerState | None = None
    planner_used: str = "rules"
    plan: dict | None = None
    plan_notes: list[str] = field(default_factory=list)
    validation: dict | None = None
    validated: Any = None
    envelopes: list[dict] = field(default_factory=list)
    result_index: int | None = None
    passages: list = field(default_factory=list)
    refusal: str | None = None
    reply: str | None = None
    answer: Answer | None = None
    llm: dict | None = None
    timings_ms: dict[str, float] = field(default_factory=dict)
    done: bool = False  # a stage answered already (refusal, social, clarify, cache)

    @property
    def status(self) -> str:
        """ok | clarify | refused | social | error: what kind of reply the turn gave."""
        strategy = self.planner_state.strategy if self.planner_state else None
        if strategy == "defer_or_refuse":
            return "refused"
        if strategy == "clarify_then_retrieve":
            return "clarify"
        if self.result is not None and self.result.get("status") == "error":
            return "error"
        return "ok" if self.envelopes else "social"

    @property
    def result(self) -> dict | None:
        """The envelope that answers the question."""
        if not self.envelopes:
            return None
        return self.envelopes[self.result_index if self.result_index is not None else -1]

    def as_dict(self) -> dict:
        """The turn as the ``core ask --json`` contract."""
        dump = lambda m: m.model_dump(mode="json", by_alias=True) if m is not None else None
        return {
            "job_id": self.job_id,
            "question": self.question,
            "rewritten_question": self.intake.rewritten_question if self.intake else self.question,
            "intake": dump(self.intake),
            "query_plan": dump(self.query_plan),
            "governor": dump(self.governor),
            "analyst_plan": dump(self.analyst_plan),
            "route_reason": self.route_reason,
            "planner_state": dump(self.planner_state),
            "planner": self.planner_used,
            "plan": self.plan,
            "validation": self.validation,
            "envelopes": self.envelopes,
            "result": self.result,
            "answer": dump(self.answer),
            "llm": self.llm,
            "timings_ms": self.timings_ms,
        }


@dataclass
class Conversation:
    """Follow-ups read the previous turn's slots."""

    turns: list[Turn] = field(default_factory=list)
    last_understanding: Understanding | None = None


class Stage(Protocol):
    """A stage: fills one more contract of the turn (or marks it done) from the turn, its context and the conversation."""

    def __call__(self, turn: Turn, ctx: StageContext, conversation: Conversation) -> None:
        """Fill the turn's next contract (or mark it done)."""


# The order of the stages lives here and nowhere else; a test can run any prefix (``upto``).
STAGES: tuple[tuple[str, Stage], ...] = (
    ("intake", intake.stage),
    ("route", route.stage),
    ("govern", govern.stage),
    ("analyze", analyze.stage),
    ("plan", plan.stage),
    ("validate", validate.stage),
    ("execute", execute.stage),
    ("compose", compose.stage),
    ("audit", audit.stage),
)

OnStage = Callable[[str, str, "float | None"], None]


def run_turn(
    turn: Turn, ctx: StageContext, conversation: Conversation, upto: str | None = None, on_stage: OnStage | None = None
) -> Turn:
    """Run the stages in order (all, or up to and including ``upto``); ``on_stage(name, "start"|"done", ms)``."""
    t0 = time.perf_counter()
    for name, stage in STAGES:
        if on_stage:
            on_stage(name, "start", None)
        s0 = time.perf_counter()
        stage(turn, ctx, conversation)
        turn.timings_ms[name] = round((time.perf_counter() - s0) * 1000, 2)
        if on_stage:
            on_stage(name, "done", turn.timings_ms[name])
        if upto == name:
            break
    turn.timings_ms["total"] = round((time.perf_counter() - t0) * 1000, 2)
    conversation.turns.append(turn)
    if turn.understanding is not None and turn.intake and turn.intake.category == "relevant":
        conversation.last_understanding = _talked_about(turn, conversation.last_understanding)
    return turn


def _talked_about(turn: Turn, before: Understanding | None) -> Understanding:
    """What a turn leaves for the next one to continue: its understanding, except the period of a forecast refused
    («¿cuántos va a haber en 2026?»), which was never answered (the talk's period stays the one before)."""
    u = turn.understanding
    if before is None or turn.status != "refused" or not asks_forecast(normalize_text(turn.question or "")):
        return u
    return replace(u, window=before.window, compare_window=before.compare_window, window_text=before.window_text)
