"""The stage functions of the pipeline (see ``core.ask.pipeline.stages`` for their order)."""
from __future__ import annotations

from core.ask import analyze as analyst, govern as governor, intake as intake_rules, route as router, wording as replies
from core.ask.plan import rules as toolplan, strategy as planner_rules
from core.audit.log import AuditLog
from core.clock import iso_utc
from core.engine.envelope import error_envelope
from core.errors import ErrorGroup
from core.engine.execute import run_validated
from core.text import normalize_text
from core.tools import ToolContext
from core.engine.validate import failing_tool, validate_plan

NEEDS_CRIME = ("single_value", "ranking", "series", "comparison", "share", "anomalies", "unknown")


def intake(turn, ctx, conv) -> None:
    """Rewrite follow-ups, classify, moderate, key the cache."""
    from core.ask.understand.followup import describe, is_follow_up, merge_follow_up
    from core.ask.understand.parse import understand

    question = (turn.question or "").strip()[:2000]
    normalized = normalize_text(question)
    moderation = intake_rules.moderate(normalized)
    meta = ctx.metadata
    lex = ctx.lexicon if meta else None
    u = understand(question, lex, ctx.anchor, ctx.min_date) if lex is not None else None
    follow = bool(u is not None and conv.last_understanding is not None and is_follow_up(question))
    rewritten = question
    if follow:
        u = merge_follow_up(u, conv.last_understanding)
        rewritten = describe(u, lex)
    # Without data there is no lexicon to understand with: treat the question as on-topic so the
    # answer is "no hay datos publicados", not an off-topic refusal.
    has_signal = lex is None or bool(u and (u.crimes or u.places or u.window or u.generic_place or u.kind != "unknown"))
    category = "relevant" if follow else intake_rules.classify(normalized, has_signal)
    if category == "irrelevant" and u is not None and "delito" in normalized:
        category = "relevant"
    key = intake_rules.cache_key(ctx.clock.now().strftime("%Y-%m-%d"), meta["dataset_version"] if meta else None,
                                 rewritten, turn.planner_requested, turn.domain_hint)
    hit = ctx.use_cache and ctx.cache.get(key) is not None
    turn.understanding = u
    turn.intake = intake_rules.build_intake(question, rewritten, follow, category, moderation, key, hit)


def route(turn, ctx, conv) -> None:
    """QueryPlan: mode, domains, confidence, flags and rationale."""
    u, cat = turn.understanding, turn.intake.category
    turn.clarify = []
    if cat == "relevant" and u is not None and ctx.metadata:
        needs_crime = (u.kind in NEEDS_CRIME) and u.kind != "annual_total"
        turn.clarify = planner_rules.clarifications(u, ctx.catalog, needs_crime and not toolplan.asks_all_crimes(u))
    turn.query_plan = router.route(u, cat, turn.domain_hint, normalize_text(turn.question), ctx.clock.now(),
                                   needs_clarification=bool(turn.clarify))


def govern(turn, ctx, conv) -> None:
    """GovernorDecision: lab only with a supervisor's approval."""
    requested = router.lab_requested(normalize_text(turn.question)) or turn.domain_hint == "lab"
    turn.governor, turn.query_plan = governor.decide(turn.query_plan, requested, governor.lab_approved(ctx.settings),
                                                     ctx.clock.now())


def _refusal_tag(turn) -> str | None:
    m, cat, u = turn.intake.moderation, turn.intake.category, turn.understanding
    if m.destructive:
        return "destructive"
    if m.instruction_override:
        return "override"
    if m.pii_request:
        return "pii"
    if m.offensive:
        return "offensive"
    if cat == "irrelevant":
        return "off_topic"
    if cat == "relevant" and u is not None and u.crimes and not any(c.in_data for c in u.crimes):
        return "gray_zone_crime_not_in_data"
    return None


def analyze(turn, ctx, conv) -> None:
    """AnalystPlan (002) and the refusal decision."""
    turn.refusal = _refusal_tag(turn)
    if turn.refusal:
        turn.clarify = []
    kind = turn.understanding.kind if turn.understanding else "unknown"
    question = turn.clarify[0].question if turn.clarify else None
    turn.analyst_plan, turn.route_reason = analyst.analyze(turn.intake.category, kind, turn.query_plan.mode, question,
                                                           refused=turn.refusal is not None)


def plan(turn, ctx, conv) -> None:
    """PlannerState, and a tool plan from the offline or the LLM planner."""
    u, cat = turn.understanding, turn.intake.category
    tags = list(u.signals) if u else []
    if u is not None and u.group_by_municipio:
        tags.append("b4_group_by")
    mode = "rules"
    if cat == "relevant" and not turn.refusal and not turn.clarify and turn.planner_requested != "rules":
        from core.ask.plan.llm import planner_choice

        mode, why = planner_choice(turn.planner_requested, ctx.llm_config)
        if why:
            turn.llm = {"planner_choice": why}
    turn.planner_state = planner_rules.plan_state(
        goal=turn.intake.rewritten_question, category=cat, refusal_tag=turn.refusal, clarify=turn.clarify, u=u,
        question=turn.intake.rewritten_question, deep=turn.query_plan.mode == "deep", mode=mode, tags=tags)
    strategy = turn.planner_state.strategy
    if strategy == "defer_or_refuse":
        turn.reply = _refusal_text(turn, ctx)
        turn.done = True
    elif strategy == "clarify_then_retrieve":
        turn.done = True
    elif strategy == "direct_answer":
        turn.reply = replies.social_reply(normalize_text(turn.question))
        turn.done = True
    elif cat == "support":
        labels = [c["subtipo"] for c in ctx.catalog.crimes if c.get("en_datos") and c.get("nivel") == "subtipo"]
        turn.reply = replies.support_reply(labels, (ctx.metadata or {}).get("max_date"))
        turn.done = True
    elif cat == "definition":
        from core.ask.methodology import DocIndex

        turn.passages = DocIndex.load().search_rounds(turn.planner_state.retrieval_rounds)
        turn.done = True
    elif not ctx.metadata:
        turn.reply = "No hay datos publicados todavía. Un responsable de datos debe cargarlos en «Carga de datos»."
        turn.done = True
    else:
        _tool_plan(turn, ctx, u, mode)


def _tool_plan(turn, ctx, u, mode: str) -> None:
    includes = {c["delito"]: [x for x in (c.get("incluye") or "").split("|") if x] for c in ctx.catalog.crimes}
    if mode == "llm":
        from core.ask.plan.llm import propose_plan

        outcome = propose_plan(turn.intake.rewritten_question, ctx.catalog, ctx.metadata, ctx.llm_config,
                               allowed_status=tuple(turn.governor.allowed_tool_status))
        turn.llm = outcome.as_audit()
        if outcome.plan is not None:
            turn.plan, turn.planner_used = outcome.plan, "llm"
            return
        turn.plan_notes.append("El planificador LLM no dio un plan válido; se usó el planificador local.")
        meta = turn.planner_state.planner_meta
        tags = meta.rationale_tags + [f"llm_fallback:{outcome.fallback_reason}"]
        turn.planner_state = turn.planner_state.model_copy(
            update={"planner_meta": meta.model_copy(update={"rationale_tags": tags})})
    built = toolplan.build(u, ctx.metadata, includes)
    turn.plan, turn.plan_notes, turn.planner_used = built.plan, turn.plan_notes + built.notes, "rules"


def _refusal_text(turn, ctx) -> str:
    tag = turn.refusal
    if tag == "gray_zone_crime_not_in_data":
        labels = [c["subtipo"] for c in ctx.catalog.crimes if c.get("en_datos") and c.get("nivel") == "subtipo"]
        missing = ", ".join(c.label for c in turn.understanding.crimes if not c.in_data)
        return replies.unsupported_crime_reply(missing, labels)
    return replies.REFUSALS.get(tag, replies.REFUSALS["off_topic"])


def validate(turn, ctx, conv) -> None:
    """Normalize the tool plan and compute its query_hash, or build the error envelope."""
    if turn.done or turn.plan is None:
        return
    try:
        vp = validate_plan(turn.plan, ctx.catalog, ctx.metadata)
    except ErrorGroup as exc:
        env = error_envelope(exc, tool=failing_tool(exc, None, ctx.catalog), tool_version=None,
                             meta={"dataset_version": ctx.store.dataset_version,
                                   "catalog_version": ctx.catalog.catalog_version})
        turn.envelopes = [env]
        turn.validation = {"ok": False, "problems": [p.as_dict() for p in exc.problems]}
        return
    turn.validated = vp
    turn.plan = {"plan": [{"tool_id": s.tool_id, "tool_version": s.tool_version, "args": s.args} for s in vp.plan.plan],
                 "meta": vp.plan.meta.model_dump()}
    turn.validation = {"ok": True, "query_hash": vp.query_hash, "warnings": vp.warnings,
                       "estimate": vp.estimate, "catalog_version": vp.catalog_version}


def execute(turn, ctx, conv) -> None:
    """Run the validated plan (or reuse today's cached envelopes for the same plan)."""
    vp = turn.validated
    if turn.done or vp is None:
        return
    key = turn.intake.cache_key
    cached = ctx.cache.get(key) if ctx.use_cache else None
    if cached is not None and cached["query_hash"] == vp.query_hash:
        turn.envelopes = [dict(e) for e in cached["envelopes"]]
    else:
        result = run_validated(vp, ToolContext(store=ctx.store, catalog=ctx.catalog, metadata=ctx.metadata),
                               ctx.settings.artifacts_dir, ctx.clock.now().strftime("%Y-%m-%d"))
        turn.envelopes = result.envelopes
        turn.timings_ms.update({f"tool:{k}": v for k, v in result.timings_ms.items()})
        if result.status == "ok" and ctx.use_cache:
            ctx.cache.put(key, {"envelopes": result.envelopes, "query_hash": vp.query_hash})
    for env in turn.envelopes:
        env["meta"]["job_id"] = turn.job_id
    analyses = [i for i, e in enumerate(turn.envelopes) if not e["tool"].startswith("listar_evidencia")]
    turn.result_index = analyses[-1] if analyses else None


def compose(turn, ctx, conv) -> None:
    """The Spanish answer, checked by the evaluation pass."""
    from core.ask.compose import compose as compose_answer, evaluate

    clarifying = [q.question for q in turn.clarify]
    notes = [n for n in turn.plan_notes if not n.startswith("focus:")]
    metadata = {**(ctx.metadata or {}), "notes": notes, "plan": turn.plan}
    strategy = turn.planner_state.strategy
    answer = compose_answer(
        turn.intake.rewritten_question, turn.envelopes, result_index=None, metadata=metadata,
        passages=turn.passages, clarifying=clarifying,
        refusal=turn.reply if strategy == "defer_or_refuse" else None,
        social=turn.reply if strategy != "defer_or_refuse" and turn.reply else None)
    options = turn.clarify[0].options if turn.clarify else []
    answer = answer.model_copy(update={"warnings": list(dict.fromkeys(notes + answer.warnings)),
                                       "clarifying_options": answer.clarifying_options or options})
    turn.answer = evaluate(answer, turn.envelopes, turn.passages)


def _status(turn) -> str:
    if turn.planner_state and turn.planner_state.strategy == "defer_or_refuse":
        return "refused"
    if turn.planner_state and turn.planner_state.strategy == "clarify_then_retrieve":
        return "clarify"
    if turn.envelopes and turn.result and turn.result["status"] == "error":
        return "error"
    return "ok"


def audit(turn, ctx, conv) -> None:
    """One append-only record linking every contract of the turn."""
    dump = lambda m: m.model_dump(mode="json", by_alias=True) if m is not None else None  # noqa: E731
    vp = turn.validated
    payload = {
        "rewritten_question": turn.intake.rewritten_question, "intake": dump(turn.intake),
        "query_plan": dump(turn.query_plan), "governor": dump(turn.governor), "analyst_plan": dump(turn.analyst_plan),
        "route_reason": turn.route_reason, "planner_state": dump(turn.planner_state), "planner": turn.planner_used,
        "plan": turn.plan, "validation": turn.validation, "llm": turn.llm, "timings_ms": dict(turn.timings_ms),
        "envelopes": [{"tool": e["tool"], "status": e["status"],
                       "rows": e.get("data", {}).get("inline", {}).get("limit_notice", {}).get("total_rows"),
                       "date_range_effective": e["meta"].get("date_range_effective"),
                       "error": e.get("error", {}).get("code")} for e in turn.envelopes],
        "answer": {"text": turn.answer.text, "warnings": turn.answer.warnings, "blocked": turn.answer.blocked}
        if turn.answer else None,
        "at": iso_utc(ctx.clock.now()),
    }
    with AuditLog.for_settings(ctx.settings, clock=ctx.clock) as log:
        log.append(kind="ask", user=ctx.user, role=ctx.role, status=_status(turn), question=turn.question[:2000],
                   query_hash=vp.query_hash if vp else None, catalog_version=ctx.catalog.catalog_version,
                   dataset_version=ctx.store.dataset_version, tools=[e["tool"].split("@")[0] for e in turn.envelopes],
                   job_id=turn.job_id, payload=payload)
