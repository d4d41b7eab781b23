"""The execute stage: the validated plan through the engine, or today's cached envelopes for the same plan.

The same-day cache is keyed by the intake's cache key and checked against the plan's ``query_hash``, so a
cached answer is only reused for exactly the same plan on the same dataset version.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.engine.catalog import tool_spec
from core.engine.execute import run_validated
from core.tools import ToolContext

if TYPE_CHECKING:  # the spine's types, without importing the pipeline at run time
    from core.ask.context import StageContext
    from core.ask.pipeline import Conversation, Turn


def stage(turn: Turn, ctx: StageContext, conv: Conversation) -> None:
    """Run the validated plan (or reuse today's cached envelopes for the same plan)."""
    vp = turn.validated
    if turn.done or vp is None:
        return
    key = turn.intake.cache_key
    cached = ctx.cache.get(key) if ctx.use_cache else None
    if cached is not None and cached["query_hash"] == vp.query_hash:
        turn.envelopes = [dict(e) for e in cached["envelopes"]]
    else:
        result = run_validated(
            vp,
            ToolContext(store=ctx.store, catalog=ctx.catalog, metadata=ctx.metadata),
            ctx.settings.artifacts_dir,
            ctx.clock.now().strftime("%Y-%m-%d"),
        )
        turn.envelopes = result.envelopes
        turn.timings_ms.update({f"tool:{k}": v for k, v in result.timings_ms.items()})
        if result.status == "ok" and ctx.use_cache:
            ctx.cache.put(key, {"envelopes": result.envelopes, "query_hash": vp.query_hash})
    for env in turn.envelopes:
        env["meta"]["job_id"] = turn.job_id
    analyses = [i for i, e in enumerate(turn.envelopes) if getattr(tool_spec(e["tool"]), "kind", None) != "evidence"]
    turn.result_index = analyses[-1] if analyses else None
