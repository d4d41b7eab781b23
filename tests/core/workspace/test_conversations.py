"""Conversations per user: kept in order, listed per user, never readable or writable by another person."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.errors import ValidacionError
from core.workspace.conversations import Conversations, is_id, is_query_hash, new_id, title_of
from core.workspace.store import Workspace

HASH_A = "sha256:" + "a" * 64


def _turn(question: str, query_hash: str | None = None, version: str = "v1") -> dict:
    plan = {"plan": [{"tool_id": 6, "args": {"delito": "robo"}}], "meta": {"dataset_version": version}}
    return {
        "job_id": new_id(),
        "question": question,
        "plan": plan if query_hash else None,
        "validation": {"ok": True, "query_hash": query_hash} if query_hash else None,
        "answer": {"text": "…", "provenance": {"dataset_version": version}},
    }


@pytest.fixture
def convs(tmp_path: Path) -> Conversations:
    return Conversations(Workspace(tmp_path / "ws.sqlite3"))


def test_turns_come_back_in_order(convs: Conversations) -> None:
    cid = new_id()
    for q in ("¿Cuántos robos hubo en Celaya?", "¿y en León?", "¿y en 2023?"):
        convs.add_turn("ana@x", cid, _turn(q))
    assert [t["question"] for t in convs.turns("ana@x", cid)] == [
        "¿Cuántos robos hubo en Celaya?",
        "¿y en León?",
        "¿y en 2023?",
    ]


def test_history_is_per_user_and_titled_by_the_first_question(convs: Conversations) -> None:
    a, b, c = new_id(), new_id(), new_id()
    convs.add_turn("ana@x", a, _turn("Homicidios en Irapuato"))
    convs.add_turn("beto@x", b, _turn("Secuestros en Salamanca"))
    convs.add_turn("ana@x", c, _turn("Lesiones en Silao"))
    convs.add_turn("ana@x", a, _turn("¿y en 2022?"))
    mine = convs.history("ana@x")
    assert {h.id for h in mine} == {a, c}
    assert {h.title: h.turns for h in mine} == {"Homicidios en Irapuato": 2, "Lesiones en Silao": 1}
    assert [h.id for h in convs.history("beto@x")] == [b]


def test_another_person_neither_reads_nor_writes_a_conversation(convs: Conversations) -> None:
    cid = new_id()
    convs.add_turn("ana@x", cid, _turn("Robos en Celaya"))
    assert convs.turns("beto@x", cid) == []
    assert not convs.exists("beto@x", cid) and convs.exists("ana@x", cid)
    with pytest.raises(ValidacionError):
        convs.add_turn("beto@x", cid, _turn("intruso"))
    assert len(convs.turns("ana@x", cid)) == 1


@pytest.mark.parametrize("bad", ["", "../etc", "A" * 32, "x" * 31, None])
def test_a_malformed_id_is_refused(convs: Conversations, bad) -> None:
    assert not is_id(bad)
    with pytest.raises(ValidacionError):
        convs.add_turn("ana@x", bad, _turn("q"))


@pytest.mark.parametrize(
    ("value", "ok"),
    [
        (HASH_A, True),
        ("sha256:" + "A" * 64, False),
        ("sha256:" + "a" * 63, False),
        ("md5:" + "a" * 67, False),
        (None, False),
    ],
)
def test_query_hash_shape(value, ok: bool) -> None:
    assert is_query_hash(value) is ok


def test_a_permalink_finds_the_first_answer_of_its_plan(convs: Conversations) -> None:
    first, later = new_id(), new_id()
    convs.add_turn("ana@x", first, _turn("Robos en Celaya en 2024", HASH_A, version="v1"))
    convs.add_turn("beto@x", later, _turn("robos celaya 2024", HASH_A, version="v2"))
    stored = convs.answer(HASH_A)
    assert stored is not None
    assert (stored.question, stored.dataset_version, stored.conversation_id) == ("Robos en Celaya en 2024", "v1", first)
    assert stored.plan["plan"][0]["tool_id"] == 6
    assert convs.answer("sha256:" + "b" * 64) is None


def test_a_turn_without_a_valid_plan_has_no_permalink(convs: Conversations) -> None:
    cid = new_id()
    turn = _turn("hola", HASH_A)
    turn["validation"]["ok"] = False
    convs.add_turn("ana@x", cid, turn)
    assert convs.answer(HASH_A) is None


@pytest.mark.parametrize(
    ("question", "title"), [("  Robos\n en   Celaya ", "Robos en Celaya"), ("x" * 200, "x" * 79 + "…")]
)
def test_title_of(question: str, title: str) -> None:
    assert title_of(question) == title


def test_a_permalink_names_the_standalone_question_of_a_follow_up(convs: Conversations) -> None:
    turn = _turn("¿y en 2021?", HASH_A)
    turn["rewritten_question"] = "¿Cuántos robos hubo en Celaya en 2021?"
    convs.add_turn("ana@x", new_id(), turn)
    assert convs.answer(HASH_A).question == "¿Cuántos robos hubo en Celaya en 2021?"
    assert convs.history("ana@x")[0].title == "¿y en 2021?"  # the history keeps what was typed
