"""Questions back that replace a number nobody published (core/ask/plan/strategy.py): a forecast is said to be no
count of published months, with the series it can give instead."""

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
def test_a_forecast_is_asked_back_with_no_number(assistant, question):
    turn = assistant.ask(question, Conversation(), planner="rules")
    assert turn.status == "clarify" and turn.envelopes == [], turn.answer.text
    assert turn.answer.text.startswith("No hago pronósticos") and not any(ch.isdigit() for ch in turn.answer.text)
    assert len(turn.answer.clarifying_options) == 2


def test_an_option_offered_instead_of_a_forecast_answers_on_its_own(assistant):
    conversation = Conversation()
    first = assistant.ask("¿cuántos homicidios dolosos va a haber en León en 2026?", conversation, planner="rules")
    second = assistant.ask(first.answer.clarifying_options[0], conversation, planner="rules")
    assert "2024: 596" in second.answer.text, second.answer.text  # the yearly series, not «2026 fuera de los datos»
