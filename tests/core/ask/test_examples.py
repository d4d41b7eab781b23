"""The first screen's examples and coverage line (issue 15, item 9): every example answers from the data."""

from __future__ import annotations

import pytest

from core.ask import examples
from core.ask.context import Assistant
from core.ask.pipeline import Conversation


@pytest.fixture(scope="module")
def assistant(bundled_settings):
    return Assistant(settings=bundled_settings, use_cache=False)


def test_coverage_line_names_crimes_places_and_months(assistant):
    line = examples.coverage_line(assistant.metadata, assistant.catalog)
    crimes = len(examples.monthly_crimes(assistant.catalog))
    assert line.startswith(f"Datos de {crimes} delitos en 46 municipios de Guanajuato, de enero de 2015 a ")
    assert line.endswith(" meses).") and "\n" not in line


@pytest.mark.parametrize(
    "metadata,line",
    [
        (None, "Todavía no hay datos publicados."),
        ({}, "Todavía no hay datos publicados."),
    ],
)
def test_coverage_line_of_an_empty_store(catalog_for_lines, metadata, line):
    assert examples.coverage_line(metadata, catalog_for_lines) == line


@pytest.fixture
def catalog_for_lines(assistant):
    return assistant.catalog


@pytest.mark.parametrize("until,year", [("2025-11-30", 2024), ("2025-12-31", 2025), ("2024-01-31", 2023), (None, None)])
def test_last_full_year(until, year):
    assert examples.last_full_year({"data_available_until": until} if until else {}) == year


def test_every_example_answers_from_the_data(assistant):
    questions = examples.example_questions(assistant.store, assistant.catalog, assistant.metadata)
    assert len(questions) == 4 and len(set(questions)) == 4
    for question in questions:
        turn = assistant.ask(question, Conversation(), planner="rules")
        assert turn.answer is not None and not turn.answer.clarifying_options, question
        assert turn.result is not None and turn.result.get("status") == "ok", question
        assert not (turn.result.get("meta") or {}).get("empty_result"), question


def test_examples_are_stable(assistant):
    first = examples.example_questions(assistant.store, assistant.catalog, assistant.metadata)
    assert examples.example_questions(assistant.store, assistant.catalog, assistant.metadata) == first
    assert examples.example_questions(assistant.store, assistant.catalog, None) == []
