"""The tablero: tiles per user (pinned once per plan, never seen or removed by another person), and a tile
re-run on the current data version beside what it said when pinned."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from core.ask.context import Assistant
from core.ask.contracts import Answer
from core.ask.pipeline import Turn
from core.audit.log import AuditLog
from core.config import load_settings
from core.errors import ValidacionError
from core.explore import plan as explore
from core.explore.options import build_options
from core.explore.selection import Selection
from core.workspace.store import Workspace
from core.workspace.tablero import MAX_TILES, Board, lead, pinnable, reading, rows_digest

HASH_A, HASH_B = "sha256:" + "a" * 64, "sha256:" + "b" * 64


def envelope(rows: list, status: str = "ok") -> dict:
    return {
        "tool": "rank_por_delito",
        "status": status,
        "data": {"inline": {"columns": ["label", "conteo"], "rows": rows}},
        "meta": {"dataset_version": "v1"},
    }


def turn(
    question: str = "¿Cuántos robos hubo en León en 2024?", query_hash: str | None = HASH_A, rows=None, args=None
) -> Turn:
    t = Turn(question=question)
    t.plan = {"plan": [{"tool_id": 6, "tool_version": "1.1.0", "args": args or {"delito": "robo"}}], "meta": {}}
    t.validation = {"ok": True, "query_hash": query_hash} if query_hash else {"ok": False, "problems": []}
    t.envelopes = [envelope(rows if rows is not None else [["León", 8375]])]
    t.answer = Answer(text="León registró 8,375 robos.\n\nPeriodo: 2024.", provenance={"dataset_version": "v1"})
    t.plan_notes = ["Se usa el año 2024."]
    return t


@pytest.fixture
def board(tmp_path: Path) -> Board:
    return Board(Workspace(tmp_path / "ws.sqlite3"))


def test_a_pinned_answer_keeps_its_plan_and_what_it_said(board):
    tile = board.pin("ana@x", turn(), origin="consultar")
    assert [t.id for t in board.tiles("ana@x")] == [tile.id]
    assert tile.title == "¿Cuántos robos hubo en León en 2024?" and tile.origin == "consultar"
    assert tile.query_hash == HASH_A and tile.plan["plan"][0]["args"] == {"delito": "robo"}
    assert tile.pinned.value == "León registró 8,375 robos." and tile.pinned.dataset_version == "v1"
    assert tile.notes == ["Se usa el año 2024."] and tile.pinned.rows_digest.startswith("sha256:")


def test_pinning_the_same_plan_again_gives_the_same_tile(board):
    first = board.pin("ana@x", turn(), origin="consultar")
    again = board.pin("ana@x", turn("otra redacción"), origin="explorar", link="delito=robo")
    assert again == first and len(board.tiles("ana@x")) == 1


def test_the_same_plan_on_a_new_data_version_keeps_one_tile(board):
    """The query_hash covers the data version: a new upload gives the same plan another hash, never a second tile."""
    first = board.pin("ana@x", turn(), origin="consultar")
    newer = turn(query_hash=HASH_B, rows=[["León", 8400]])
    newer.answer = Answer(text="León registró 8,400 robos.", provenance={"dataset_version": "v2"})
    again = board.pin("ana@x", newer, origin="consultar")
    assert again == first and [t.query_hash for t in board.tiles("ana@x")] == [HASH_A]
    assert board.get_by_plan("ana@x", newer.plan) == first  # the pin button reads «Fijada» under the new answer
    other = board.pin("ana@x", turn(query_hash=HASH_B, args={"delito": "robo", "top_k": 3}), origin="consultar")
    assert [t.id for t in board.tiles("ana@x")] == [first.id, other.id]  # another plan: its own tile


@pytest.mark.parametrize(
    ("moves", "expected"),
    [
        ([("c", -1)], "acb"),
        ([("a", +1)], "bac"),
        ([("a", -1)], "abc"),  # the first cannot go up
        ([("c", +1)], "abc"),  # the last cannot go down
        ([("c", -1), ("c", -1)], "cab"),
        ([("a", +1), ("a", +1), ("b", +1)], "cba"),
        ([("beto", -1)], "abc"),  # another person's tile is not moved, nor are hers
    ],
)
def test_tiles_keep_the_order_their_user_gives_them(board, tmp_path, moves, expected):
    ids = {}
    for i, name in enumerate("abc"):
        ids[name] = board.pin("ana@x", turn(name, f"sha256:{i:064x}", args={"top_k": i}), origin="consultar").id
        if name == "a":  # another user's tile between hers
            ids["beto"] = board.pin("beto@x", turn("b", HASH_B, args={"top_k": 9}), origin="consultar").id
    for name, step in moves:
        board.move("ana@x", ids[name], step)
    reopened = Board(Workspace(tmp_path / "ws.sqlite3"))  # the order is kept in the workspace file
    assert "".join(t.title for t in reopened.tiles("ana@x")) == expected
    assert [t.id for t in reopened.tiles("beto@x")] == [ids["beto"]]


def test_a_move_says_whether_it_moved(board):
    a = board.pin("ana@x", turn("a", HASH_A, args={"top_k": 1}), origin="consultar")
    b = board.pin("ana@x", turn("b", HASH_B, args={"top_k": 2}), origin="consultar")
    assert board.move("ana@x", b.id, -1) is True and board.move("ana@x", b.id, -1) is False
    assert board.move("beto@x", a.id, +1) is False and board.move("ana@x", "no-such-tile", +1) is False


def test_tiles_are_per_user(board):
    mine = board.pin("ana@x", turn(), origin="consultar")
    board.pin("beto@x", turn(query_hash=HASH_B), origin="explorar")
    assert [t.query_hash for t in board.tiles("ana@x")] == [HASH_A]
    assert [t.query_hash for t in board.tiles("beto@x")] == [HASH_B]
    assert board.unpin("beto@x", mine.id) is False  # another person's tile is not theirs to remove
    assert board.unpin("ana@x", mine.id) is True and board.tiles("ana@x") == []


@pytest.mark.parametrize(
    ("make", "origin"),
    [
        (lambda: turn(query_hash=None), "consultar"),  # the plan did not validate
        (lambda: Turn(question="hola"), "consultar"),  # a social reply: no plan
        (lambda: turn(), "otra_pagina"),
    ],
)
def test_only_a_validated_answer_from_a_known_page_is_pinned(board, make, origin):
    with pytest.raises(ValidacionError):
        board.pin("ana@x", make(), origin=origin)
    assert board.tiles("ana@x") == []


def test_an_error_answer_is_not_pinnable():
    t = turn()
    t.envelopes = [envelope([], status="error")]
    assert not pinnable(t) and pinnable(turn())


def test_the_board_has_a_size_limit(board):
    for i in range(MAX_TILES):
        board.pin("ana@x", turn(query_hash=f"sha256:{i:064x}", args={"top_k": i}), origin="consultar")
    with pytest.raises(ValidacionError):
        board.pin("ana@x", turn(query_hash=HASH_B, args={"top_k": -1}), origin="consultar")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("León registró 596.\n\nPeriodo: 2024.", "León registró 596."),
        ("  Los 5 municipios:\n León (596)\n\nDatos hasta…", "Los 5 municipios: León (596)"),
        ("", ""),
        (None, ""),
    ],
)
def test_the_value_of_an_answer_is_its_lead(text, expected):
    assert lead(text) == expected


def test_equal_rows_have_equal_digests():
    assert rows_digest(envelope([["León", 1]])) == rows_digest(envelope([["León", 1]]))
    assert rows_digest(envelope([["León", 1]])) != rows_digest(envelope([["León", 2]]))
    assert rows_digest(envelope([], status="error")) is None and rows_digest(None) is None


@pytest.fixture(scope="module")
def data(bundled_settings, tmp_path_factory):
    target = tmp_path_factory.mktemp("tablero") / "data"
    shutil.copytree(bundled_settings.data_dir, target, ignore=shutil.ignore_patterns("audit", "keys", "artifacts"))
    return load_settings(target)


def test_a_tile_re_runs_its_plan_on_the_current_version(data):
    engine = Assistant(settings=data, use_cache=False)
    options = build_options(engine.catalog, engine.metadata, engine.store)
    selection = Selection(delitos=("homicidio_doloso",), lugares=("GTO.MUN.LEON",), desde="2024-01", hasta="2024-12")
    answered = explore.run(selection, options, engine.catalog, settings=data, user="ana@x")
    board = Board.for_settings(data)
    tile = board.pin("ana@x", answered, origin="explorar", link="delito=homicidio_doloso")
    now = reading(tile, engine.metadata, settings=data, user="ana@x")
    assert now.ok and not now.changed and not now.version_changed
    assert now.now.value == tile.pinned.value and now.now.value.startswith("León registró 596")
    with AuditLog.for_settings(data) as log:
        record = next(iter(log.list(kind="tablero", limit=1)))
    assert record.user == "ana@x" and record.payload["tile"] == tile.id
    # what was pinned on another version, with other figures, reads as changed (the value then is kept)
    board.workspace.connection().execute(
        "UPDATE board_tiles SET dataset_version = 'gx-vieja', rows_digest = 'sha256:0', value = 'León registró 500.' "
        "WHERE id = ?",
        (tile.id,),
    )
    old = board.tiles("ana@x")[0]
    later = reading(old, engine.metadata, settings=data, user="ana@x")
    assert later.changed and later.version_changed
    assert old.pinned.value == "León registró 500." and later.now.value.startswith("León registró 596")
