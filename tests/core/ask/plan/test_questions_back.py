"""Answers that replace a number nobody published (core/ask/analyze.py, core/ask/plan/strategy.py): a forecast is
refused with the reason and what can be given instead."""

from __future__ import annotations

import pytest

from core.ask.context import Assistant
from core.ask.pipeline import Conversation


@pytest.fixture(scope="module")
def assistant(bundled_settings):
    """The pipeline over the bundled store, without the same-day cache."""
    return Assistant(settings=bundled_settings, use_cache=False)


@pytest.mark.parametrize(
    "question",
    [
        "¿cuántos homicidios dolosos va a haber en León en 2026? necesito un pronóstico para el presupuesto",
        "¿cuántos feminicidios habrá en Celaya el próximo año?",
        "proyección de robos en Irapuato para 2027",
    ],
)
def test_a_forecast_is_refused_with_what_can_be_given(assistant, question):
    turn = assistant.ask(question, Conversation(), planner="rules")
    assert turn.status == "refused" and turn.envelopes == [], turn.answer.text
    assert turn.answer.text.startswith("No hago pronósticos") and not any(ch.isdigit() for ch in turn.answer.text)
    assert "serie anual" in turn.answer.text


def test_the_series_offered_instead_answers_on_its_own(assistant):
    conversation = Conversation()
    assistant.ask("¿cuántos homicidios dolosos va a haber en León en 2026?", conversation, planner="rules")
    second = assistant.ask("serie anual de homicidio doloso en León", conversation, planner="rules")
    assert "2024: 596" in second.answer.text, second.answer.text  # the yearly series, not «2026 fuera de los datos»
