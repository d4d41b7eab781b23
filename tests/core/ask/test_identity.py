"""Identity requests (issue 13, point 6): names, addresses, photos, phones or identities of people are refused with
the reason; aggregate questions about victims or people are not."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from core.ask.context import Assistant
from core.ask.identity import asks_identity
from core.ask.pipeline import Conversation
from core.text import normalize_text

FIXTURE = json.loads((Path(__file__).parents[2] / "fixtures" / "ask" / "identity.json").read_text("utf-8"))


@pytest.fixture(scope="module")
def assistant(bundled_settings):
    return Assistant(settings=bundled_settings, use_cache=False)


@pytest.mark.parametrize("question", FIXTURE["refuse"])
def test_identity_requests_are_recognised(question):
    assert asks_identity(normalize_text(question), question)


@pytest.mark.parametrize("question", FIXTURE["not_identity"])
def test_aggregate_questions_are_not_identity_requests(question):
    assert not asks_identity(normalize_text(question), question)


@pytest.mark.parametrize("question", FIXTURE["refuse"][::3])
def test_identity_requests_are_refused_with_the_reason(assistant, question):
    turn = assistant.ask(question, Conversation(), planner="rules")
    assert turn.status == "refused" and turn.envelopes == []
    text = normalize_text(turn.answer.text)
    assert "municipio y mes" in text and "datos personales" in text
