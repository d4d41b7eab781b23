"""Multi-turn conversations through the whole pipeline (fixture tests/fixtures/understand/conversations.json)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from core.ask.context import Assistant
from core.ask.pipeline import Conversation

CASES = json.loads((Path(__file__).resolve().parents[3] / "fixtures/understand/conversations.json").read_text())


@pytest.fixture(scope="module")
def assistant(bundled_settings):
    return Assistant(settings=bundled_settings, use_cache=False)


def _ym(d) -> str:
    return f"{d.year:04d}-{d.month:02d}"


@pytest.mark.parametrize("case", CASES["conversations"], ids=lambda c: c["id"])
def test_conversation(assistant, case):
    conv = Conversation()
    for n, step in enumerate(case["turns"]):
        turn = assistant.ask(step["q"], conv, planner="rules")
        u = turn.understanding
        where = f"{case['id']} turn {n + 1} «{step['q']}»"
        assert turn.status == step["status"], (where, turn.reply, turn.answer and turn.answer.text)
        if "delito" in step:
            assert sorted(c.delito for c in u.crimes) == sorted(step["delito"]), where
        if "metodo" in step:
            assert u.methods == step["metodo"], where
        if "place" in step:
            assert [p.label for p in u.places] == step["place"], where
        if "desde" in step:
            assert (_ym(u.window[0]), _ym(u.window[1])) == (step["desde"], step["hasta"]), where
        if "base_desde" in step:
            assert u.compare_window and (_ym(u.compare_window[0]), _ym(u.compare_window[1])) == (
                step["base_desde"],
                step["base_hasta"],
            ), where
        if "kind" in step:
            assert u.kind == step["kind"], where
        if "says" in step:
            assert step["says"] in turn.answer.text, (where, turn.answer.text)
        if "medida" in step:
            assert u.medida == step["medida"], where
        if step.get("place_from_ranking"):
            first = conv.turns[-2].result["data"]["inline"]["rows"][0][0]
            assert [p.entidad_id for p in u.places] == [first], where
