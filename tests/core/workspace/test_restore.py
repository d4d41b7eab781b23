"""A stored conversation comes back as the engine's Conversation: same drawing, follow-ups continue it."""

from __future__ import annotations

import pytest

from core.ask.context import Assistant
from core.ask.pipeline import Conversation
from core.workspace.conversations import Conversations, new_id
from core.workspace.restore import restore_conversation, turn_from_dict

pytestmark = pytest.mark.slow


@pytest.fixture
def engine(own_data) -> Assistant:
    return Assistant(settings=own_data)


def _stored(engine: Assistant, settings, questions: list[str]) -> list[dict]:
    conversation, convs, cid = Conversation(), Conversations.for_settings(settings), new_id()
    for q in questions:
        convs.add_turn("ana@x", cid, engine.ask(q, conversation).as_dict())
    return convs.turns("ana@x", cid)


def test_a_turn_reads_back_as_it_was_stored(engine: Assistant, own_data) -> None:
    (d,) = _stored(engine, own_data, ["¿Qué municipios tuvieron más robos en 2024?"])
    turn = turn_from_dict(d)
    again = turn.as_dict()
    for key in ("question", "plan", "validation", "answer", "result", "query_plan", "planner_state", "intake"):
        assert again[key] == d[key], key
    assert turn.status == "ok"


@pytest.mark.parametrize(
    ("first", "follow_up", "place"),
    [
        ("¿Cuántos homicidios dolosos hubo en León en 2024?", "¿y en Celaya?", "GTO.MUN.CELAYA"),
        ("Violencia familiar en Irapuato durante 2023", "¿y en Salamanca?", "GTO.MUN.SALAMANCA"),
    ],
)
def test_a_follow_up_after_a_reload_continues_the_restored_conversation(
    engine: Assistant, own_data, first: str, follow_up: str, place: str
) -> None:
    restored = restore_conversation(_stored(engine, own_data, [first]), engine)
    turn = engine.ask(follow_up, restored)
    assert turn.validation and turn.validation["ok"], turn.intake
    assert turn.plan["plan"][0]["args"]["entidad_id"] == place
    fresh = engine.ask(follow_up, Conversation())  # without the restored context it would not know what to count
    assert fresh.status == "clarify"
