"""The tablero as files: the CSV has a row per tile (then and now), neutralized; the page escapes and prints."""

from __future__ import annotations

import csv
import io

import pytest

from core.workspace.board_export import CSV_COLUMNS, html_page
from core.workspace.board_export import csv_bytes as board_csv
from core.workspace.tablero import Reading, Snapshot, Tile


def reading(title: str, then: str, now: str, digest_now: str = "d1", version_now: str = "v2") -> Reading:
    tile = Tile(
        id="t1",
        title=title,
        origin="explorar",
        link="delito=robo",
        query_hash="sha256:" + "a" * 64,
        plan={"plan": []},
        notes=[],
        pinned=Snapshot(then, "d1", "v1"),
        pinned_at="2026-01-15T12:00:00Z",
    )
    return Reading(tile, Snapshot(now, digest_now, version_now), True)


def test_the_csv_has_a_row_per_tile_with_then_and_now():
    rows = [reading("Robos en León", "León registró 10.", "León registró 12.", digest_now="d2"), reading("B", "x", "x")]
    table = list(csv.reader(io.StringIO(board_csv(rows).decode("utf-8-sig"))))
    assert table[0] == CSV_COLUMNS
    assert table[1][:8] == [
        "Robos en León",
        "Explorar",
        "2026-01-15T12:00:00Z",
        "v1",
        "León registró 10.",
        "v2",
        "León registró 12.",
        "sí",
    ]
    assert table[2][7] == "no" and len(table) == 3


@pytest.mark.parametrize("title", ['=HYPERLINK("http://x")', "+cmd|' /C calc'!A0", "@SUM(1)"])
def test_a_formula_in_a_title_is_text_in_the_csv(title):
    table = list(csv.reader(io.StringIO(board_csv([reading(title, "a", "a")]).decode("utf-8-sig"))))
    assert table[1][0] == "'" + title


def test_the_page_escapes_every_text_and_carries_print_css():
    page = html_page(
        [reading("<script>alert(1)</script>", "<b>10</b>", "León & Celaya", digest_now="d2")],
        user="ana@x",
        generated_at="2026-01-15T12:00:00Z",
    )
    assert "<script>alert" not in page and "&lt;script&gt;" in page and "&lt;b&gt;10" in page
    assert "León &amp; Celaya" in page and "@media print" in page and "break-inside: avoid" in page
    assert "Las cifras cambiaron" in page and 'lang="es"' in page


def test_an_empty_board_prints_a_sentence():
    assert "El tablero está vacío." in html_page([], user="ana@x", generated_at="hoy")
