"""Consultar's engine calls, without Streamlit: stage labels, complete a clarified question, list a
turn's evidence rows. Every function here is plain Python (tests/ui); turns run through ``Assistant.ask``."""

from __future__ import annotations

from typing import Any, get_args

from core.ask.contracts import DomainHint
from core.ask.pipeline import Turn
from core.engine.catalog import load_tool_specs, tool_spec

STAGE_LABELS = {
    "intake": "Leyendo la pregunta",
    "route": "Eligiendo dominios",
    "govern": "Revisando permisos",
    "analyze": "Analizando la intención",
    "plan": "Planeando la consulta",
    "validate": "Validando el plan",
    "execute": "Consultando los datos",
    "compose": "Redactando la respuesta",
    "audit": "Registrando en la auditoría",
}
DOMAIN_HINTS: tuple[str, ...] = get_args(DomainHint)
PLANNERS = {"rules": "Reglas (sin red)", "llm": "LLM"}
EVIDENCE_LIMIT = 200
MAX_QUESTION = 2000  # what core.ask.intake reads of a question; the box refuses more and counts near the end
PROMPT = f"Escribe tu pregunta sobre la incidencia delictiva en Guanajuato (hasta {MAX_QUESTION:,} caracteres)…"


def question_problem(raw: str | None) -> str | None:
    """Why a typed question is not sent (None when it is fine, or when nothing was typed)."""
    if raw is None:
        return None
    text = raw.strip()
    if not text:
        return "La pregunta está vacía: escribe qué quieres saber."
    if len(text) > MAX_QUESTION:
        return (
            f"La pregunta tiene {len(text):,} caracteres y el máximo es {MAX_QUESTION:,}: acórtala y vuelve a enviarla."
        )
    return None


def planner_options(llm_config: Any) -> list[str]:
    """Planners the user may choose: the rules, plus the LLM only when one is configured."""
    return ["rules"] + (["llm"] if llm_config is not None else [])


def completed_question(turn: Turn, option: str) -> str:
    """The question a clarifying option sends: the (rewritten) question with the chosen option."""
    base = turn.intake.rewritten_question if turn.intake else turn.question
    return f"{base.strip()} ({option})"


def other_options(turn: Turn, catalog: Any) -> list[str]:
    """The rest of what a clarification allows beyond its buttons (a contract caps them at 12): for «¿Sobre qué
    delito?», every other crime a question may name by month, from the catalog (the «Otro delito» choice)."""
    from core.ask.examples import monthly_crimes

    if not any(getattr(c, "reason", None) == "missing_crime" for c in getattr(turn, "clarify", None) or []):
        return []
    shown = set(turn.answer.clarifying_options if turn.answer else [])
    return [c["subtipo"] for c in monthly_crimes(catalog) if c["subtipo"] not in shown]


def evidence_plan(plan: dict, limit: int = EVIDENCE_LIMIT) -> dict | None:
    """The turn's plan with the evidence tool at the end, listing up to ``limit`` rows (None when it ran no plan)."""
    if not plan or not plan.get("plan"):
        return None
    evidence = next(s.tool_id for s in load_tool_specs() if s.kind == "evidence")
    steps = [{k: v for k, v in s.items() if k in ("tool_id", "tool_version", "args")} for s in plan["plan"]]
    if steps[-1]["tool_id"] != evidence:
        steps.append({"tool_id": evidence, "args": {"limit": limit}})
    elif limit != EVIDENCE_LIMIT:  # the whole list asked for: the plan's own evidence step lists them all
        steps[-1] = {**steps[-1], "args": {**(steps[-1].get("args") or {}), "limit": limit}}
    return {"plan": steps, "meta": {"strict_time": bool((plan.get("meta") or {}).get("strict_time"))}}


def evidence_max() -> int:
    """The most rows the evidence tool lists in one run (its spec's ``limit`` maximum)."""
    spec = next(s for s in load_tool_specs() if s.kind == "evidence")
    return int(((spec.args_schema.get("properties") or {}).get("limit") or {}).get("maximum") or EVIDENCE_LIMIT)


def evidence_counts(envelope: dict) -> tuple[int, int]:
    """(rows listed, rows behind the answer): «se muestran 200 de 217» when the list stopped at its limit."""
    shown = len(((envelope.get("data") or {}).get("inline") or {}).get("rows") or [])
    total = (envelope.get("metrics") or {}).get("filas")
    return shown, max(shown, total if isinstance(total, int) else shown)


def evidence_envelope(turn: Turn, settings, user: str, role: str, limit: int = EVIDENCE_LIMIT) -> dict | None:
    """The evidence rows behind a turn's answer (an audited run of its plan + the evidence tool)."""
    ready = [e for e in turn.envelopes if getattr(tool_spec(str(e.get("tool", ""))), "kind", None) == "evidence"]
    if ready and evidence_counts(ready[-1])[0] >= min(limit, evidence_counts(ready[-1])[1]):
        return ready[-1]
    plan = evidence_plan(turn.plan, limit)
    if plan is None:
        return None
    from core.api import execution

    result = execution(
        plan,
        settings=settings,
        user=user,
        role=role,
        kind="evidence",
        question=turn.question[:2000],
        audit_extra={"source_job_id": turn.job_id, "source_query_hash": (turn.validation or {}).get("query_hash")},
    )
    envelope = result.envelopes[-1]
    return with_every_row(envelope, settings.artifacts_dir) if limit != EVIDENCE_LIMIT else envelope


def with_every_row(envelope: dict, artifacts_dir) -> dict:
    """A copy of an envelope whose inline rows are its whole table when the inline part was cut (the rest is in
    its ``artifact://`` Parquet file, inside ``artifacts_dir``); unchanged when nothing was cut or no file is found."""
    from pathlib import Path

    import pandas as pd

    data = envelope.get("data") or {}
    if not ((data.get("inline") or {}).get("limit_notice") or {}).get("applied"):
        return envelope
    root = Path(artifacts_dir).resolve()
    for address in (data.get("artifacts") or {}).get("tables", {}).values():
        path = (root / str(address).removeprefix("artifact://")).resolve()
        if root in path.parents and path.is_file():
            frame = pd.read_parquet(path)
            rows = frame.astype(object).where(frame.notna(), None).values.tolist()
            inline = {**data["inline"], "rows": rows, "limit_notice": {"applied": False, "total_rows": len(rows)}}
            return {**envelope, "data": {**data, "inline": inline}}
    return envelope
