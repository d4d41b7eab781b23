"""Definitions (issue 13, point 5): every glossary term has a methodology section; a definition question runs no
database tool, covers every term it asks about and cites the section it comes from."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from core.ask.context import Assistant
from core.ask.glossary import GLOSSARY, section_of, terms_in
from core.ask.methodology import DocIndex
from core.ask.pipeline import Conversation
from core.text import fold

FIXTURE = json.loads((Path(__file__).parents[2] / "fixtures" / "ask" / "definitions.json").read_text("utf-8"))
DEFINITIONS = FIXTURE["definitions"]


@pytest.fixture(scope="module")
def assistant(bundled_settings):
    return Assistant(settings=bundled_settings, use_cache=False)


def test_every_glossary_term_has_a_section():
    cited = {p.citation for p in DocIndex.load().passages}
    missing = [(t.key, t.section) for t in GLOSSARY if t.section not in cited]
    assert not missing, f"términos del glosario sin sección: {missing}"


@pytest.mark.parametrize(
    "topic",
    [
        "modalidad",
        "con_otro_elemento",
        "violacion_equiparada",
        "feminicidio_vs_doloso",
        "subtipo",
        "bien_juridico",
        "mes_no_publicado",
        "carpetas_vs_victimas",
        "fuero",
        "metodologia_2026",
    ],
)
def test_the_issue_topics_are_in_the_glossary(topic):
    assert any(t.key == topic for t in GLOSSARY)


@pytest.mark.parametrize(
    "question,section",
    [
        (
            "¿qué significa que el sexo de una víctima sea «No identificado»?",
            "conceptos.md § Valores del archivo de víctimas: «No identificado» y rangos de edad",
        ),
        (
            "¿qué quiere decir edad no especificada en las víctimas?",
            "conceptos.md § Valores del archivo de víctimas: «No identificado» y rangos de edad",
        ),
        (
            "¿por qué no puedo saber el sexo de las víctimas?",
            "limitaciones.md § El archivo municipal no informa sexo ni edad de las víctimas",
        ),
    ],
)
def test_a_question_names_the_section_of_its_term(question, section):
    assert terms_in(fold(question))[0].section == section


def test_a_section_is_found_by_its_citation():
    assert section_of("conceptos.md § Doloso y culposo").section == "Doloso y culposo"


@pytest.mark.parametrize("case", DEFINITIONS, ids=[c["q"] for c in DEFINITIONS])
def test_terms_are_found_in_definition_questions(case):
    assert terms_in(fold(case["q"])), case["q"]


@pytest.mark.parametrize("case", DEFINITIONS, ids=[c["q"] for c in DEFINITIONS])
def test_a_definition_runs_no_tool_covers_every_term_and_cites(assistant, case):
    turn = assistant.ask(case["q"], Conversation(), planner="rules")
    assert turn.intake.category == "definition"
    assert turn.envelopes == [] and turn.plan is None, "una definición no consulta la base"
    text = fold(turn.answer.text)
    for term in case["terms"]:
        alts = term if isinstance(term, list) else [term]
        assert any(fold(a) in text for a in alts), f"falta «{term}» en: {turn.answer.text}"
    refs = [s.ref for s in turn.answer.sources if s.kind == "doc"]
    assert any(r.startswith(case["doc"]) for r in refs), refs
    assert "§" in turn.answer.text  # the section is cited in the answer itself


@pytest.mark.parametrize("question", FIXTURE["data_questions"])
def test_data_questions_stay_data_questions(assistant, question):
    turn = assistant.ask(question, Conversation(), planner="rules")
    assert turn.intake.category != "definition", turn.answer.text


def test_a_definition_after_a_data_question_is_still_a_definition(assistant):
    conv = Conversation()
    assistant.ask("¿Cuántos homicidios dolosos hubo en León en 2024?", conv, planner="rules")
    turn = assistant.ask("¿y qué es una modalidad?", conv, planner="rules")
    assert turn.intake.category == "definition" and turn.envelopes == []


def test_definition_answers_are_deterministic(assistant):
    q = "¿Cuál es la diferencia entre feminicidio y homicidio doloso?"
    a, b = (assistant.ask(q, Conversation(), planner="rules").answer.text for _ in range(2))
    assert a == b


@pytest.mark.parametrize("turns", FIXTURE["follow_ups"], ids=[t[-1] for t in FIXTURE["follow_ups"]])
def test_a_bare_term_in_a_conversation_continues_it(assistant, turns):
    conv = Conversation()
    for q in turns:
        turn = assistant.ask(q, conv, planner="rules")
    assert turn.intake.category != "definition", turn.answer.text


@pytest.mark.parametrize(
    "question",
    ["¿cómo calculan la tasa?", "¿cuál es la fórmula de la tasa por cien mil?", "como se saca la tasa x 100 mil hab"],
)
def test_how_a_figure_is_computed_is_answered_with_its_formula(assistant, question):
    turn = assistant.ask(question, Conversation(), planner="rules")
    assert "× 100 000" in turn.answer.text and not turn.envelopes
