"""The validate stage: the tool plan through the engine's validation (static, then contextual, all problems at once).

A valid plan is normalized and gets its ``query_hash``; an invalid one becomes the turn's error envelope,
so the answer explains every problem instead of raising.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.engine.envelope import error_envelope
from core.engine.validate import failing_tool, validate_plan
from core.errors import ErrorGroup

if TYPE_CHECKING:  # the spine's types, without importing the pipeline at run time
    from core.ask.context import StageContext
    from core.ask.pipeline import Conversation, Turn


def stage(turn: Turn, ctx: StageContext, conv: Conversation) -> None:
    """Normalize the tool plan and compute its query_hash, or build the error envelope."""
    if turn.done or turn.plan is None:
        return
    try:
        vp = validate_plan(turn.plan, ctx.catalog, ctx.metadata)
    except ErrorGroup as exc:
        env = error_envelope(
            exc,
            tool=failing_tool(exc, None, ctx.catalog),
            tool_version=None,
            meta={"dataset_version": ctx.store.dataset_version, "catalog_version": ctx.catalog.catalog_version},
        )
        turn.envelopes = [env]
        turn.validation = {"ok": False, "problems": [p.as_dict() for p in exc.problems]}
        return
    turn.validated = vp
    turn.plan = {
        "plan": [{"tool_id": s.tool_id, "tool_version": s.tool_version, "args": s.args} for s in vp.plan.plan],
        "meta": vp.plan.meta.model_dump(),
    }
    turn.validation = {
        "ok": True,
        "query_hash": vp.query_hash,
        "warnings": vp.warnings,
        "estimate": vp.estimate,
        "catalog_version": vp.catalog_version,
    }
