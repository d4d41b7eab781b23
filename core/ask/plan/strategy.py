"""Planner → PlannerState (docs/contracts/003_planner_state.md): strategy, clarifying questions, retrieval
rounds, budget, safety.

The strategy is one controlling decision (docs/contracts/003_planner_state.md §3): blocking clarification → clarify;
greetings → direct answer; personal data, gray-zone, destructive, instruction-override
or off-topic requests → defer or refuse; documents and data → retrieve then answer.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from core.ask import wording
from core.ask.contracts import (
    AcceptanceCriteria,
    AnswerRequirements,
    Budget,
    ClarifyingQuestion,
    LiteralConstraints,
    PlannerMeta,
    PlannerState,
    Rerank,
    RetrievalMode,
    RetrievalRound,
    RoundOutput,
    Safety,
    StopConditions,
)
from core.ask.plan import assumptions, cells, granularity, national, rules, splits
from core.ask.understand import Understanding
from core.ask.understand.national import is_national
from core.text import normalize_text

if TYPE_CHECKING:  # the spine's types, without importing the pipeline at run time
    from core.ask.context import StageContext
    from core.ask.pipeline import Conversation, Turn

PLANNER_VERSION = {"rules": "rules-1.0.0", "llm": "llm-1.0.0"}
_QUOTED = re.compile(r"[\"“«]([^\"”»]{2,60})[\"”»]")


def clarifications(
    u: Understanding | None, catalog, kind_needs_crime: bool, metadata: dict | None = None
) -> list[ClarifyingQuestion]:
    """Questions that unblock a concrete slot (at most three)."""
    if u is None:
        return []
    out: list[ClarifyingQuestion] = []
    if u.generic_place and not (any(p.nivel == "municipio" for p in u.places) or is_national(u)):  # «aquí… el país»
        out.append(
            ClarifyingQuestion(
                question=f"¿A qué municipio te refieres con «{u.generic_place}»?",
                reason="generic_place",
                blocking=True,
                options=_big_municipalities(catalog),
            )
        )
    for group in u.ambiguous_places[:1]:
        out.append(
            ClarifyingQuestion(
                question=f"¿Cuál de estos lugares: {', '.join(p.label for p in group)}?",
                reason="ambiguous_place",
                blocking=True,
                options=[p.label for p in group][:12],
            )
        )
    out += assumptions.questions(u, catalog, _big_municipalities(catalog))
    fallback = granularity.find(u, catalog, metadata)
    if fallback is None or fallback.case != "tipo":  # no split published: the tipo total is answered, said so
        out += _unqualified_crime(u, catalog)
    # a tipo with subtipos (robo): a word after it may be a kind SESNSP does not count; for the others
    # («despojo de inmuebles») it only describes the crime, answered with the note
    if fallback is not None and fallback.case == "acotado" and fallback.asked.get("incluye"):
        out.append(_narrowed_crime(u, fallback))
    if kind_needs_crime and not u.crimes and not assumptions.crime_words(u):
        crimes = [
            c
            for c in catalog.crimes
            if c.get("en_datos") and c.get("granularity") == "month" and c.get("nivel") == "subtipo"
        ]
        out.append(
            ClarifyingQuestion(
                question="¿Sobre qué delito? Estos son los que hay en los datos.",
                reason="missing_crime",
                blocking=True,
                options=[c["subtipo"] for c in crimes][:12],
            )
        )
    return out[:3]


def _unqualified_crime(u: Understanding, catalog) -> list[ClarifyingQuestion]:
    """«homicidios» alone: doloso, culposo, feminicidio or both, asked (docs/decisions/0010-unqualified-homicide.md)."""
    tipos = [s.split(":", 2)[2] for s in u.signals if s.startswith("crime:unqualified:")]
    rows = {c["delito"]: c for c in catalog.crimes}
    if not tipos or tipos[0] not in rows:
        return []
    subs = [rows[k]["subtipo"] for k in (rows[tipos[0]].get("incluye") or "").split("|") if k in rows]
    # SESNSP counts feminicidio apart from homicidio: the person asking "homicidios" may mean it too
    extra = ["Feminicidio"] if tipos[0] == "homicidio" and rows.get("feminicidio", {}).get("en_datos") else []
    word = rows[tipos[0]].get("tipo") or tipos[0]
    # the granularity comes first even in a question back (plan/granularity.py «victimas»)
    lead = (
        "El SESNSP publica las víctimas solo por estado, no por municipio: por municipio doy carpetas de "
        "investigación. "
        if "victims:municipal" in u.signals
        else ""
    )
    return [
        ClarifyingQuestion(
            question=(
                f"{lead}«{word}» sin más puede ser {' o '.join(s.lower() for s in subs)}"
                + (" (el feminicidio se cuenta aparte)" if extra else "")
                + ". ¿Cuál quieres? También puedo sumar ambos si respondes «ambos»."
            ),
            reason="ambiguous_crime",
            blocking=True,
            options=[*subs, *extra, "Ambos"],
        )
    ]


def forecast_text(u: Understanding) -> str:
    """A forecast asked: Casandra counts what the SESNSP published and does not predict; what it gives instead."""
    crime = u.crimes[0].label.lower() if u.crimes else "cada delito"
    place = u.places[0].label if u.places else "Guanajuato"
    return (
        "No hago pronósticos: Casandra solo cuenta lo que el SESNSP ya publicó, y una proyección no es un dato "
        f"publicado. Para planear puedo darte la serie anual o la mensual de {crime} en {place} (por ejemplo, "
        f"«serie anual de {crime} en {place}») y su promedio mensual."
    )


def _narrowed_crime(u: Understanding, fallback) -> ClarifyingQuestion:
    """«robo de celular»: SESNSP does not count a crime by the object taken; no number is its number, so ask first."""
    asked = (fallback.asked.get("subtipo") or fallback.asked.get("tipo") or "").lower()
    words = "», «".join(dict.fromkeys(assumptions.as_written(u.question, w) for w in fallback.members))
    return ClarifyingQuestion(
        question=(
            f"El SESNSP no publica {asked} desglosado por «{words}»: no hay datos de {asked} de «{words}», solo "
            f"de todo {asked}. ¿Quieres la cifra de todo {asked}?"
        ),
        reason="unsupported_crime",
        blocking=True,
        options=[f"Todo {asked}"],
    )


def _big_municipalities(catalog) -> list[str]:
    """The usual choices: the largest municipalities of Guanajuato first."""
    preferred = [
        "León",
        "Irapuato",
        "Celaya",
        "Salamanca",
        "Silao de la Victoria",
        "Guanajuato",
        "Pénjamo",
        "San Miguel de Allende",
        "Valle de Santiago",
        "Dolores Hidalgo Cuna de la Independencia Nacional",
        "San Francisco del Rincón",
        "Acámbaro",
    ]
    labels = {e["label"] for e in catalog.entities if e["nivel"] == "municipio"}
    return [m for m in preferred if m in labels][:12] or sorted(labels)[:12]


def _doc_rounds(question: str, deep: bool) -> list[RetrievalRound]:
    rounds = [
        RetrievalRound(
            round_id=1,
            purpose="recall",
            query_variants=[question[:300]],
            retrieval_modes=[RetrievalMode(type="bm25", k=8)],
            rrf=False,
            rerank=Rerank(enabled=False, rerank_top_k=5),
            output=RoundOutput(max_docs=4),
        )
    ]
    if deep:
        rounds.append(
            RetrievalRound(
                round_id=2,
                purpose="precision",
                query_variants=[question[:300]],
                retrieval_modes=[RetrievalMode(type="bm25", k=4)],
                rrf=True,
                rerank=Rerank(enabled=False, rerank_top_k=3),
                output=RoundOutput(max_docs=3),
            )
        )
    return rounds


def plan_state(
    *,
    goal: str,
    category: str,
    refusal_tag: str | None,
    clarify: list[ClarifyingQuestion],
    u: Understanding | None,
    question: str,
    deep: bool,
    mode: str,
    tags: list[str],
) -> PlannerState:
    """The PlannerState of a turn (every field of docs/contracts/003_planner_state.md §2)."""
    quoted = _QUOTED.findall(question)
    literal = LiteralConstraints(must_preserve_terms=quoted, must_match_exactly=bool(quoted))
    entities = [p.entidad_id for p in u.places] if u else []
    if refusal_tag:
        strategy, rounds = "defer_or_refuse", []
        tags = tags + [refusal_tag]
        clarify = []  # nothing to clarify in a request we will not answer
    elif clarify and any(q.blocking for q in clarify):
        strategy, rounds = "clarify_then_retrieve", []
    elif category == "social":
        strategy, rounds = "direct_answer", []
    elif category in ("definition", "support"):
        strategy, rounds = "retrieve_then_answer", _doc_rounds(question, deep)
    else:
        strategy, rounds = "retrieve_then_answer", []
    is_data = strategy == "retrieve_then_answer" and category == "relevant"
    acceptance = AcceptanceCriteria(
        min_independent_sources=1 if strategy == "retrieve_then_answer" else 0,
        require_authoritative_source=strategy == "retrieve_then_answer",
        must_cover_entities=entities if is_data else [],
        must_answer_subquestions=None,
    )
    stop = StopConditions(
        max_rounds=len(rounds) if rounds else (1 if is_data else 0),
        max_total_docs=sum(r.output.max_docs for r in rounds),
        confidence_threshold=None,
        no_new_information_rounds=1 if rounds else 0,
    )
    fmt = (
        ["numero_primero", "tabla", "grafica", "periodo_efectivo", "procedencia"]
        if is_data
        else ["texto", "citas"]
        if rounds
        else ["texto"]
    )
    answer = AnswerRequirements(
        format=fmt,
        tone="neutral",
        length="breve",
        citation_style="documento § sección" if rounds else ("dataset_version" if is_data else None),
    )
    budget = Budget(max_tokens=0 if mode == "rules" else 2000, max_latency_ms=150 if mode == "rules" else 20000)
    return PlannerState(
        goal=goal[:400] or "Responder la pregunta.",
        strategy=strategy,
        clarifying_questions=clarify,
        retrieval_rounds=rounds,
        literal_constraints=literal,
        acceptance_criteria=acceptance,
        stop_conditions=stop,
        answer_requirements=answer,
        budget=budget,
        safety=Safety(sensitivity="public", pii_allowed=False),
        planner_meta=PlannerMeta(
            planner_version=PLANNER_VERSION.get(mode, "rules-1.0.0"), rationale_tags=list(dict.fromkeys(tags))
        ),
    )


# -- the stage --------------------------------------------------------------------------------


def stage(turn: Turn, ctx: StageContext, conv: Conversation) -> None:
    """PlannerState, and a tool plan from the offline or the LLM planner."""
    u, cat = turn.understanding, turn.intake.category
    tags = list(u.signals) if u else []
    tags += assumptions.tags(u)
    if u is not None and u.group_by_municipio:
        tags.append("b4_group_by")
    mode = "rules"
    if cat == "relevant" and not turn.refusal and not turn.clarify and turn.planner_requested != "rules":
        from core.ask.plan.llm import planner_choice

        mode, why = planner_choice(turn.planner_requested, ctx.llm_config)
        if why:
            turn.llm = {"planner_choice": why}
    turn.planner_state = plan_state(
        goal=turn.intake.rewritten_question,
        category=cat,
        refusal_tag=turn.refusal,
        clarify=turn.clarify,
        u=u,
        question=turn.intake.rewritten_question,
        deep=turn.query_plan.mode == "deep",
        mode=mode,
        tags=tags,
    )
    strategy = turn.planner_state.strategy
    if strategy == "defer_or_refuse":
        turn.reply = _refusal_text(turn, ctx)
        turn.done = True
    elif strategy == "clarify_then_retrieve":
        turn.done = True
    elif strategy == "direct_answer":
        turn.reply = wording.social_reply(normalize_text(turn.question))
        turn.done = True
    elif cat == "support":
        labels = [c["subtipo"] for c in ctx.catalog.crimes if c.get("en_datos") and c.get("nivel") == "subtipo"]
        turn.reply = wording.support_reply(labels, (ctx.metadata or {}).get("max_date"))
        turn.done = True
    elif cat == "definition":
        from core.ask.glossary import passages_for
        from core.ask.methodology import DocIndex

        retrieved = DocIndex.load().search_rounds(turn.planner_state.retrieval_rounds)
        turn.passages = passages_for(turn.intake.rewritten_question, retrieved)  # the asked terms' sections first
        turn.done = True
    elif not ctx.metadata:
        turn.reply = "No hay datos publicados todavía. Un responsable de datos debe cargarlos en «Carga de datos»."
        turn.done = True
    else:
        _tool_plan(turn, ctx, u, mode)


def _tool_plan(turn: Turn, ctx: StageContext, u: Understanding, mode: str) -> None:
    if is_national(u):  # «robo de motocicleta en Jalisco»: the kind said narrows the national crime (its words used)
        u = national.narrowed(u, ctx.catalog)
        turn.understanding = u  # «¿y en enero?» next keeps the kind (robo de vehículo automotor - motocicleta)
    # what was assumed, said in the answer (a kind a municipal modalidad's name holds was used, not ignored)
    turn.plan_notes = turn.plan_notes + assumptions.notes(granularity.understood(u, ctx.catalog), ctx.catalog)
    turn.plan_notes += [n for n in u.notes if n not in turn.plan_notes]  # how time words were taken (seasons, days)
    if "crime:both_subtypes" in u.signals:  # "ambos": the sum is said, never silent (docs/decisions/0010)
        turn.plan_notes.append("Se suman " + " y ".join(c.label.lower() for c in u.crimes) + ", como pediste.")
    includes = {c["delito"]: [x for x in (c.get("incluye") or "").split("|") if x] for c in ctx.catalog.crimes}
    if mode == "llm":
        from core.ask.plan.llm import propose_plan

        outcome = propose_plan(
            turn.intake.rewritten_question,
            ctx.catalog,
            ctx.metadata,
            ctx.llm_config,
            allowed_status=tuple(turn.governor.allowed_tool_status),
        )
        turn.llm = outcome.as_audit()
        if outcome.plan is not None:
            turn.plan, turn.planner_used = outcome.plan, "llm"
            return
        turn.plan_notes.append("El planificador LLM no dio un plan válido; se usó el planificador local.")
        meta = turn.planner_state.planner_meta
        tags = meta.rationale_tags + [f"llm_fallback:{outcome.fallback_reason}"]
        turn.planner_state = turn.planner_state.model_copy(
            update={"planner_meta": meta.model_copy(update={"rationale_tags": tags})}
        )
    built = offline_plan(u, ctx.catalog, ctx.metadata, includes)
    turn.plan, turn.plan_notes, turn.planner_used = built.plan, turn.plan_notes + built.notes, "rules"


def offline_plan(u: Understanding, catalog, metadata: dict, includes: dict) -> rules.ToolPlan:
    """The offline planner's tool plan of an understanding (the chat's and Explorar's): a level the municipal data
    lack goes to its granularity fallback, the country, states, victims and federal crimes to the national tables
    (issue 14), the rest to the rules. ``includes``: each crime's included subtipos (the catalog's ``incluye``)."""
    parts = cells.by_method(u, catalog)  # «robo con violencia y homicidios dolosos»: the violence is robo's only
    if parts is not None:
        return cells.merge([offline_plan(x, catalog, metadata, includes) for x in parts])
    u = splits.violence_methods(u, catalog)
    mixed = cells.find(u, catalog, metadata)  # several crimes or places, one at a level the data lack
    if mixed is not None:
        return cells.build(u, mixed, catalog, metadata, lambda x: rules.build(x, metadata, includes))
    fallback = granularity.find(u, catalog, metadata)  # a level the municipal data lack (issue 14 §5)
    if fallback is not None:
        end = (getattr(catalog, "series_ends", None) or {}).get(granularity.STATE_SERIES)
        return granularity.build(u, fallback, metadata, lambda x: rules.build(x, metadata, includes), end)
    if is_national(u):
        return national.build(u)
    built = splits.violence_split(u, rules.build(u, metadata, includes))
    return splits.tipo_split(built, catalog, metadata)


def _refusal_text(turn: Turn, ctx: StageContext) -> str:
    tag = turn.refusal
    if tag == "pii":
        from core.ask.identity import REFUSAL

        return REFUSAL
    if tag == "forecast":
        return forecast_text(turn.understanding)
    if tag == "gray_zone_crime_not_in_data":
        labels = [c["subtipo"] for c in ctx.catalog.crimes if c.get("en_datos") and c.get("nivel") == "subtipo"]
        notes = list(dict.fromkeys(c.note for c in turn.understanding.crimes if c.note))
        if notes:  # "levantones": not a SESNSP category (catalogs/taxonomy/alias_prensa.json says why)
            said = wording.join_y(list(dict.fromkeys(f"«{c.text}»" for c in turn.understanding.crimes if c.note)))
            return (
                f"No hay datos de {said} como tal. "
                + " ".join(notes)
                + f" Puedo responder sobre: {', '.join(labels[:20])}."
            )
        missing = ", ".join(c.label for c in turn.understanding.crimes if not c.in_data)
        return wording.unsupported_crime_reply(missing, labels)
    return wording.REFUSALS.get(tag, wording.REFUSALS["off_topic"])
