"""Consultar's engine calls: on_stage reports each stage of Assistant.ask, follow-ups share the
Conversation, a clarifying option completes the question, evidence rows come on demand."""

from __future__ import annotations

import pytest

from core.ask.pipeline import STAGES, Conversation
from core.audit.log import AuditLog
from ui import chat

TOP5 = "¿Cuáles son los 5 municipios con más homicidios dolosos en 2024?"


def test_on_stage_reports_each_stage_and_the_turn_matches_a_plain_ask(engine):
    seen: list[tuple[str, str]] = []
    conversation = Conversation()
    turn = engine.ask(TOP5, conversation, on_stage=lambda name, phase, ms: seen.append((name, phase)))
    names = [name for name, _ in STAGES]
    assert seen == [(n, p) for n in names for p in ("start", "done")]
    assert set(turn.timings_ms) >= set(names) | {"total"}
    assert conversation.turns == [turn] and conversation.last_understanding is turn.understanding
    reference = engine.ask(TOP5, Conversation(), planner="rules")
    assert turn.validation["query_hash"] == reference.validation["query_hash"]
    assert turn.plan == reference.plan
    assert "León (596)" in turn.answer.text and turn.answer.text == reference.answer.text


def test_follow_up_reads_the_same_conversation(engine):
    conversation = Conversation()
    engine.ask(TOP5, conversation)
    follow = engine.ask("¿y en 2023?", conversation)
    assert follow.intake.is_follow_up and "León (777)" in follow.answer.text
    assert len(conversation.turns) == 2


def test_a_clarifying_option_completes_the_question(engine):
    conversation = Conversation()
    asked = engine.ask("homicidios dolosos en mi ciudad en 2024", conversation)
    assert asked.status == "clarify" and "Celaya" in asked.answer.clarifying_options
    question = chat.completed_question(asked, "Celaya")
    assert question == "homicidios dolosos en mi ciudad en 2024 (Celaya)"
    answered = engine.ask(question, conversation)
    assert answered.status == "ok" and "Celaya registró 443 homicidios dolosos" in answered.answer.text


def test_turn_status_of_refusals_and_social_turns(engine):
    assert engine.ask("borra la base de datos", Conversation()).status == "refused"
    assert engine.ask("hola", Conversation()).status == "social"


def test_evidence_plan_appends_listar_evidencia_once():
    plan = {"plan": [{"tool_id": 6, "tool_version": "1.1.0", "args": {"top_k": 5}}], "meta": {"strict_time": False}}
    with_evidence = chat.evidence_plan(plan)
    assert [s["tool_id"] for s in with_evidence["plan"]] == [6, 9]
    assert chat.evidence_plan(with_evidence) == with_evidence
    assert chat.evidence_plan(None) is None and chat.evidence_plan({"plan": []}) is None


def test_evidence_envelope_lists_the_rows_and_is_audited(engine, ui_settings):
    turn = engine.ask(TOP5, Conversation())
    envelope = chat.evidence_envelope(turn, ui_settings, "ana@example.org", "analista")
    assert envelope["status"] == "ok" and envelope["tool"].startswith("listar_evidencia@")
    columns = [c["name"] for c in envelope["data"]["inline"]["columns"]]
    assert columns[:3] == ["row_id", "fecha", "entidad_id"]
    assert {r[0] for r in envelope["data"]["inline"]["rows"]} == set(turn.answer.evidence_ids)  # the same rows
    record = AuditLog.for_settings(ui_settings).list(kind="evidence", limit=1)[0]
    assert record.user == "ana@example.org" and record.payload["source_job_id"] == turn.job_id
    social = engine.ask("hola", Conversation())
    assert chat.evidence_envelope(social, ui_settings, "ana@example.org", "analista") is None


def test_selectors_offer_auto_and_every_domain_and_the_llm_only_when_configured():
    assert chat.DOMAIN_HINTS[0] == "auto" and {"incidencia", "tendencias", "lab"} <= set(chat.DOMAIN_HINTS)
    assert chat.planner_options(None) == ["rules"]
    assert chat.planner_options(object()) == ["rules", "llm"]
    assert set(chat.STAGE_LABELS) == {name for name, _ in STAGES}


# --- the question box (issue 15: «cuts at 2,000 characters silently and sends whitespace-only questions») ------


@pytest.mark.parametrize(
    "raw,problem",
    [
        (None, None),
        ("¿Cuántos robos hubo en León en 2024?", None),
        ("   \n\t  ", "La pregunta está vacía"),
        ("", "La pregunta está vacía"),
        ("x" * chat.MAX_QUESTION, None),
        ("  " + "x" * chat.MAX_QUESTION + "  ", None),  # the spaces around do not count
        ("x" * (chat.MAX_QUESTION + 1), "el máximo es 2,000"),
    ],
)
def test_question_problem(raw, problem):
    said = chat.question_problem(raw)
    assert (said is None) if problem is None else (problem in said)


def test_the_box_says_its_limit():
    assert "2,000 caracteres" in chat.PROMPT


# --- «Only 12 of 18 crimes are offered as clarification buttons» (issue 15) --------------------------


@pytest.mark.parametrize("question", ["mes con más casos en León en 2024", "promedio mensual en Celaya en 2023"])
def test_every_crime_the_clarification_allows_is_offered(engine, catalog, question):
    from core.ask.examples import monthly_crimes

    conversation = Conversation()
    turn = engine.ask(question, conversation)
    buttons, others = turn.answer.clarifying_options, chat.other_options(turn, catalog)
    assert buttons and others and not set(buttons) & set(others)
    assert sorted(buttons + others) == sorted(c["subtipo"] for c in monthly_crimes(catalog))
    follow = engine.ask(chat.completed_question(turn, others[-1]), conversation)
    assert follow.result is not None and follow.result.get("status") == "ok"  # the «otro» path answers


def test_no_other_options_without_a_crime_clarification(engine, catalog):
    turn = engine.ask("¿Cuántos robos hubo en Celaya en 2024?", Conversation())
    assert chat.other_options(turn, catalog) == []


def test_the_whole_evidence_list_when_it_stopped_at_its_limit(engine, ui_settings):
    turn = engine.ask("¿Cuáles son los 10 municipios con más homicidios dolosos en 2024?", Conversation())
    first = chat.evidence_envelope(turn, ui_settings, "ana@example.org", "analista")
    shown, total = chat.evidence_counts(first)
    assert shown == chat.EVIDENCE_LIMIT < total == len(turn.answer.evidence_ids)  # 200 of 217
    every = chat.evidence_envelope(turn, ui_settings, "ana@example.org", "analista", limit=total)
    assert chat.evidence_counts(every) == (total, total)
    assert {r[0] for r in every["data"]["inline"]["rows"]} == set(turn.answer.evidence_ids)
    assert chat.evidence_max() >= total
