"""The audit stage: one append-only record per turn, linking every contract the stages filled.

The record keeps the whole turn (intake, QueryPlan, GovernorDecision, AnalystPlan, PlannerState, plan,
validation, a summary of each envelope and the answer) so a supervisor can replay what was understood.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.audit.log import AuditLog
from core.clock import iso_utc
from core.engine.envelope import tool_name

if TYPE_CHECKING:  # the spine's types, without importing the pipeline at run time
    from core.ask.context import StageContext
    from core.ask.pipeline import Conversation, Turn


def _dump(model) -> dict | None:
    return model.model_dump(mode="json", by_alias=True) if model is not None else None


def audit_status(turn: Turn) -> str:
    """The audit log's status of a turn: ok | clarify | refused | error (a social reply is ok)."""
    status = turn.status
    return "ok" if status == "social" else status


def stage(turn: Turn, ctx: StageContext, conv: Conversation) -> None:
    """One append-only record linking every contract of the turn."""
    vp = turn.validated
    payload = {
        "rewritten_question": turn.intake.rewritten_question,
        "intake": _dump(turn.intake),
        "query_plan": _dump(turn.query_plan),
        "governor": _dump(turn.governor),
        "analyst_plan": _dump(turn.analyst_plan),
        "route_reason": turn.route_reason,
        "planner_state": _dump(turn.planner_state),
        "planner": turn.planner_used,
        "plan": turn.plan,
        "validation": turn.validation,
        "llm": turn.llm,
        "timings_ms": dict(turn.timings_ms),
        "envelopes": [
            {
                "tool": e["tool"],
                "status": e["status"],
                "rows": e.get("data", {}).get("inline", {}).get("limit_notice", {}).get("total_rows"),
                "date_range_effective": e["meta"].get("date_range_effective"),
                "error": e.get("error", {}).get("code"),
            }
            for e in turn.envelopes
        ],
        "answer": {"text": turn.answer.text, "warnings": turn.answer.warnings, "blocked": turn.answer.blocked}
        if turn.answer
        else None,
        "at": iso_utc(ctx.clock.now()),
    }
    with AuditLog.for_settings(ctx.settings, clock=ctx.clock) as log:
        log.append(
            kind="ask",
            user=ctx.user,
            role=ctx.role,
            status=audit_status(turn),
            question=turn.question[:2000],
            query_hash=vp.query_hash if vp else None,
            catalog_version=ctx.catalog.catalog_version,
            dataset_version=ctx.store.dataset_version,
            tools=[tool_name(e) for e in turn.envelopes],
            job_id=turn.job_id,
            payload=payload,
        )
