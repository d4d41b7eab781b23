"""Governor: decides lab access (experimental tools) from a supervisor setting only
(docs/contracts/000_query_plan.md §3.7, §9).

The Router never selects ``lab`` on its own; a question that asks for experimental
analysis gets ``lab-access-requested`` and, unless a supervisor approved lab in the
settings, ``lab-access-denied``.
"""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from core.ask.contracts import GovernorDecision, LabPolicy, QueryPlan
from core.ask.route import lab_requested
from core.text import normalize_text

if TYPE_CHECKING:  # the spine's types, without importing the pipeline at run time
    from core.ask.context import StageContext
    from core.ask.pipeline import Conversation, Turn

SETTINGS_FILE = "settings.json"


def lab_approved(settings) -> bool:
    """Whether a supervisor approved lab access (``<data_dir>/settings.json``)."""
    path = Path(settings.data_dir) / SETTINGS_FILE
    try:
        return bool(json.loads(path.read_text(encoding="utf-8")).get("lab_approved", False))
    except (FileNotFoundError, json.JSONDecodeError, AttributeError):
        return False


def set_lab_approved(settings, approved: bool, by: str) -> dict:
    """Store the supervisor's lab setting (the caller audits the change)."""
    path = Path(settings.data_dir) / SETTINGS_FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (FileNotFoundError, json.JSONDecodeError):
        data = {}
    data.update({"lab_approved": bool(approved), "lab_approved_by": by})
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(data, ensure_ascii=False, indent=2), encoding="utf-8")
    tmp.replace(path)
    return data


def decide(plan: QueryPlan, lab_requested: bool, approved: bool, now: datetime) -> tuple[GovernorDecision, QueryPlan]:
    """The decision and the QueryPlan with its lab policy and lab flags set."""
    flags = [f for f in plan.flags if not f.startswith("lab-access")]
    if approved:
        policy = LabPolicy(allow_lab=True, status="approved", rationale="Laboratorio aprobado por supervisión.")
        gov_flags = ["lab-access-approved"]
        statuses = ["stable", "experimental"]
        why = "Un supervisor aprobó las herramientas experimentales."
    else:
        reason = (
            "Se pidió laboratorio, pero no está aprobado por supervisión."
            if lab_requested
            else "Laboratorio bloqueado por defecto."
        )
        policy = LabPolicy(allow_lab=False, status="denied", rationale=reason)
        gov_flags = ["lab-access-requested", "lab-access-denied"] if lab_requested else []
        statuses = ["stable"]
        why = reason
    if lab_requested and approved:
        gov_flags = ["lab-access-requested", "lab-access-approved"]
    decision = GovernorDecision(
        lab_policy=policy,
        allowed_tool_status=statuses,
        flags=gov_flags,
        decided_by="supervisor_setting" if approved else "policy",
        rationale=why,
        timestamp=now,
    )
    updated = plan.model_copy(update={"lab_policy": policy, "flags": flags + [f for f in gov_flags if f not in flags]})
    return decision, QueryPlan.model_validate(updated.model_dump())


# -- the stage --------------------------------------------------------------------------------


def stage(turn: Turn, ctx: StageContext, conv: Conversation) -> None:
    """GovernorDecision: lab only with a supervisor's approval."""
    requested = lab_requested(normalize_text(turn.question)) or turn.domain_hint == "lab"
    turn.governor, turn.query_plan = decide(turn.query_plan, requested, lab_approved(ctx.settings), ctx.clock.now())
