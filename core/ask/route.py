"""Router → QueryPlan (docs/contracts/000_query_plan.md, schema 2.0.0): mode, domains, rationale and confidence.

Confidence is measured, not decorative: it falls with fuzzy matches, unresolved slots
and ambiguity. ``deep`` is chosen for comparisons, anomalies, patterns and multi-part
questions. ``lab`` is never selected here; the Governor decides it.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime
from typing import TYPE_CHECKING

from core.ask.contracts import QueryPlan, default_lab_policy
from core.ask.plan.granularity import LEAD
from core.ask.plan.national import federal_narrowed
from core.ask.plan.rules import asks_all_crimes
from core.ask.plan.strategy import _big_municipalities, clarifications
from core.ask.scope import (
    asks_code,
    asks_forecast,
    asks_opinion,
    asks_safety,
    asks_what_to_ask,
    below_beside_count,
    below_municipality,
    below_reply,
    is_vague,
    level_word,
    menu,
    rnid_municipal_reply,
    unpublished_reply,
)
from core.ask.understand import Understanding
from core.ask.unpublished import unpublished
from core.text import normalize_text

if TYPE_CHECKING:  # the spine's types, without importing the pipeline at run time
    from core.ask.context import StageContext
    from core.ask.pipeline import Conversation, Turn

KIND_DOMAINS = {
    "single_value": ["incidencia"],
    "ranking": ["incidencia"],
    "share": ["incidencia"],
    "series": ["tendencias"],
    "comparison": ["comparacion", "tendencias"],
    "anomalies": ["anomalias", "tendencias"],
    "patterns": ["patrones"],
    "annual_total": ["incidencia"],
    "evidence": ["evidencia"],
    "unknown": ["incidencia"],
}
DEEP_KINDS = ("comparison", "anomalies", "patterns")
LAB_WORDS = ("laboratorio", "experimental", "modo lab", "herramientas experimentales", "pronostico", "prediccion")
KIND_WORDS = {
    "single_value": "conteo",
    "ranking": "ranking de municipios",
    "share": "porcentaje del total",
    "series": "serie mensual",
    "comparison": "comparación de periodos",
    "anomalies": "anomalías",
    "patterns": "patrones",
    "annual_total": "total anual de delitos",
    "evidence": "evidencia",
    "unknown": "consulta",
}


def lab_requested(normalized: str) -> bool:
    """Whether the user explicitly asked for experimental tools."""
    return any(w in normalized for w in LAB_WORDS)


def confidence(u: Understanding | None, category: str) -> str:
    """low | medium | high from match scores and unresolved slots."""
    if category in ("social", "support"):
        return "high"
    if category in ("irrelevant",) or u is None:
        return "medium" if category == "definition" else "low"
    penalties = 0
    scores = [p.score for p in u.places] + [c.score for c in u.crimes]
    if any(s < 95 for s in scores):
        penalties += 1
    if u.ambiguous_places or u.generic_place:
        penalties += 2
    if not u.crimes:
        penalties += 1
    if u.kind == "unknown":
        penalties += 1
    return "high" if penalties == 0 else "medium" if penalties == 1 else "low"


def route(
    u: Understanding | None, category: str, domain_hint: str, normalized: str, now: datetime, needs_clarification: bool
) -> QueryPlan:
    """The QueryPlan of a turn."""
    kind = u.kind if u else "unknown"
    if category == "definition":
        domains = ["metodologia"]
    elif category in ("social", "support", "irrelevant"):
        domains = ["metodologia"] if category == "support" else ["incidencia"]
    else:
        domains = list(KIND_DOMAINS.get(kind, ["incidencia"]))
        if u and u.wants_evidence and "evidencia" not in domains:
            domains.append("evidencia")
    flags: list[str] = []
    multi = bool(u and (len(u.places) > 1 or len(u.crimes) > 1))
    mode = "deep" if (kind in DEEP_KINDS or multi) else "fast"
    if mode == "deep" and kind not in DEEP_KINDS:
        flags.append("mode-forced-deep")
    hint_note = "sin preferencia de dominio"
    if domain_hint not in ("auto", "lab"):
        if domain_hint in domains:
            hint_note = f"se respetó la preferencia «{domain_hint}»"
        elif category == "relevant":
            flags.append("domain-hint-overridden")
            hint_note = f"la preferencia «{domain_hint}» no corresponde a la pregunta; se usó {domains[0]}"
        else:
            domains = [domain_hint]
            hint_note = f"se usó la preferencia «{domain_hint}»"
    elif domain_hint == "lab":
        hint_note = "se pidió laboratorio; lo decide el Governor"
    domains = domains[: (2 if mode == "fast" else 3)]
    conf = confidence(u, category)
    if needs_clarification:
        flags.append("needs-clarification")
    if u and u.ambiguous_places:
        flags.append("router-ambiguity-detected")
    lines = [f"Tipo de pregunta: {KIND_WORDS.get(kind, 'consulta') if category == 'relevant' else category}."]
    if u and category == "relevant":
        if u.places:
            lines.append("Lugar: " + ", ".join(f"{p.label} ({p.text!r})" for p in u.places) + ".")
        if u.crimes:
            lines.append("Delito: " + ", ".join(f"{c.label}" for c in u.crimes) + ".")
        if u.window_text:
            lines.append(f"Periodo: {u.window_text}.")
    lines.append(f"Dominios: {', '.join(domains)}; modo {mode}; {hint_note}.")
    return QueryPlan(
        mode=mode,
        domain_hint=domain_hint,
        domains_selected=domains,
        agents_selected=[],
        needs_evidence=bool(u and u.wants_evidence) or category == "definition",
        needs_skills=False,
        lab_policy=default_lab_policy(),
        rationale="\n".join(lines[:8]),
        confidence=conf,
        flags=list(dict.fromkeys(flags)),
        timestamp=now,
    )


# -- the stage --------------------------------------------------------------------------------


# Shapes a general question («¿cómo está la violencia?», «¿cuál es el más peligroso?») may take; patterns,
# anomalies, comparisons and shares of crimes in general are answerable as asked.
VAGUE_KINDS = ("unknown", "single_value", "series", "ranking", "annual_total")
# every shape that counts one crime asks which one when none was said (a sum of «the monthly crimes» is not what
# anybody asked); the yearly total of all crimes is its own series
NEEDS_CRIME = (
    "single_value",
    "ranking",
    "series",
    "comparison",
    "share",
    "anomalies",
    "unknown",
    "extremes",
    "average",
    "presence",
    "breakdown",
    "annual_series",
    "places",
)


def _answerable(u: Understanding, clarify: list) -> bool:
    """A question complete enough to answer: a crime, a municipality and a period, nothing asked back."""
    return not clarify and bool(u.crimes and u.window and any(p.nivel == "municipio" for p in u.places))


def stage(turn: Turn, ctx: StageContext, conv: Conversation) -> None:
    """QueryPlan: mode, domains, confidence, flags and rationale."""
    u, cat = turn.understanding, turn.intake.category
    turn.clarify = []
    m = turn.intake.moderation
    refused = m.pii_request or m.destructive or m.instruction_override or m.offensive
    if cat == "relevant" and u is not None and ctx.metadata and not refused:  # a refusal asks nothing back
        if "national:federal" in u.signals:  # «¿y cuántos de esos por comercio?»: a federal tipo, not an unknown
            u = turn.understanding = federal_narrowed(u, getattr(ctx, "store", None))
        needs_crime = (u.kind in NEEDS_CRIME) and u.kind != "annual_total" and "national:federal" not in u.signals
        turn.clarify = clarifications(u, ctx.catalog, needs_crime and not asks_all_crimes(u), ctx.metadata)
        normalized = normalize_text(turn.question)
        if "rnid:municipal" in u.signals and "crime:rnid_only" not in u.signals:
            turn.clarify = [
                rnid_municipal_reply(u, ctx.metadata)
            ]  # 2026 is published by state only: its state's is offered
        elif any(asks(normalized) for asks in (asks_forecast, asks_opinion, asks_code, asks_safety)):
            turn.clarify = []  # a guess about what comes is refused as such (analyze), never asked «¿cuál homicidio?»
        elif below_municipality(normalized) and below_beside_count(normalized) and _answerable(u, turn.clarify):
            note = f"{LEAD}Los datos del SESNSP llegan hasta municipio: no hay cifras por {level_word(normalized)}."
            u = turn.understanding = replace(u, notes=[*u.notes, note])  # the count asked first is answered
        elif below_municipality(normalized):  # the data stop at the municipality: no figure for a colonia
            turn.clarify = [below_reply(u, normalized, ctx.metadata, _big_municipalities(ctx.catalog))]
        elif what := unpublished(normalized):  # «el número de detenidos», «¿a qué hora pasan más robos?»
            turn.clarify = [unpublished_reply(u, what, ctx.metadata)]
        elif asks_what_to_ask(normalized) or (
            not [c for c in u.crimes if c.delito != "total_delitos"]
            and u.kind in VAGUE_KINDS
            and is_vague(normalized)
            and not (asks_all_crimes(u) and u.window)  # «incidencia delictiva en León en 2023» is the yearly total
        ):
            turn.clarify = [menu(u, ctx.metadata)]  # a menu of runnable questions, not «¿Sobre qué delito?»
    turn.query_plan = route(
        u, cat, turn.domain_hint, normalize_text(turn.question), ctx.clock.now(), needs_clarification=bool(turn.clarify)
    )
