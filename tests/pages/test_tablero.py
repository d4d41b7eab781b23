"""AppTest of «Tablero» and of the «Fijar en tablero» button: an answer pinned in Explorar becomes a tile of its
user only, re-run on the current version beside what it said when pinned, removable, exported as CSV and page."""

from __future__ import annotations

import pytest

from core.ask.context import Assistant
from core.explore import plan as explore
from core.explore.options import build_options
from core.explore.selection import Selection
from core.workspace.tablero import Board
from tests.markdown_check import unescape

pytestmark = pytest.mark.slow  # AppTest runs of whole pages

LEON_2024 = {"delito": "homicidio_doloso", "lugar": "GTO.MUN.LEON", "desde": "2024-01", "hasta": "2024-12"}


def all_text(at) -> str:
    parts = [*at.markdown, *at.caption, *at.info, *at.warning, *at.error]
    return unescape("\n".join(str(e.value) for e in parts))


@pytest.fixture
def pinned(data_copy, make_app):
    """Explorar opened on León 2024 and its answer pinned with the button."""
    at = make_app(data_copy, roles=["analista"], script="pages/explorar.py")
    at.query_params.update(LEON_2024)
    at.run()
    assert not at.exception, at.exception
    at.button(key="explorar_pin").click().run()
    assert not at.exception, at.exception
    return at


def test_pinning_in_explorar_stores_a_tile_for_its_user(pinned, data_copy):
    tiles = Board.for_settings(data_copy).tiles("ana@example.org")
    assert len(tiles) == 1 and tiles[0].origin == "explorar"
    assert tiles[0].pinned.value.startswith("León registró 596 homicidios dolosos")
    assert "lugar=GTO.MUN.LEON" in tiles[0].link
    assert pinned.button(key="explorar_pinned").disabled  # «Fijada en el tablero»: pinned once


def test_the_tablero_shows_each_tile_then_and_now(pinned, data_copy, make_app):
    at = make_app(data_copy, roles=["analista"], script="pages/tablero.py").run()
    assert not at.exception, at.exception
    text = all_text(at)
    assert "Total del periodo de homicidio doloso en León" in text
    assert text.count("León registró 596 homicidios dolosos") == 2  # then and now
    assert "Al fijar" in text and "Ahora" in text and "Las cifras no cambiaron" in text
    assert "1 tarjeta. Cada una" in text  # a number and its noun agree, never «tarjeta(s)»
    assert "Abrir en Explorar" in text
    assert {b.label for b in at.get("download_button")} == {"Descargar CSV", "Página para imprimir"}


def test_another_user_sees_an_empty_tablero(pinned, data_copy, make_app):
    at = make_app(data_copy, roles=["analista"], email="beto@example.org", script="pages/tablero.py").run()
    assert not at.exception, at.exception
    assert "Aún no hay tarjetas" in all_text(at) and "León registró" not in all_text(at)


def test_a_tile_can_be_removed(pinned, data_copy, make_app):
    at = make_app(data_copy, roles=["analista"], script="pages/tablero.py").run()
    tile = Board.for_settings(data_copy).tiles("ana@example.org")[0]
    at.button(key=f"tablero_quitar_{tile.id}").click().run()
    assert not at.exception, at.exception
    assert Board.for_settings(data_copy).tiles("ana@example.org") == []
    assert "Aún no hay tarjetas" in all_text(at)


def test_the_same_plan_pinned_on_an_earlier_version_reads_pinned(pinned, data_copy):
    """A new data version gives the plan another query_hash: the button still says «Fijada», no second tile."""
    board = Board.for_settings(data_copy)
    board.workspace.connection().execute("UPDATE board_tiles SET query_hash = ?", ("sha256:" + "0" * 64,))
    pinned.run()
    assert not pinned.exception, pinned.exception
    assert pinned.button(key="explorar_pinned").disabled and not [b for b in pinned.button if b.key == "explorar_pin"]
    assert len(board.tiles("ana@example.org")) == 1


def test_a_tile_pinned_on_another_version_says_the_version_changed(pinned, data_copy, make_app):
    Board.for_settings(data_copy).workspace.connection().execute("UPDATE board_tiles SET dataset_version = 'gx-vieja'")
    at = make_app(data_copy, roles=["analista"], script="pages/tablero.py").run()
    assert not at.exception, at.exception
    assert "La versión de datos cambió desde que se fijó (gx-vieja → " in all_text(at)
    assert "las cifras no cambiaron" in all_text(at)


def test_tiles_move_up_and_down_and_keep_their_order(pinned, data_copy, make_app):
    engine = Assistant(settings=data_copy, use_cache=False)
    options = build_options(engine.catalog, engine.metadata, engine.store)
    celaya = Selection(delitos=("homicidio_doloso",), lugares=("GTO.MUN.CELAYA",), desde="2024-01", hasta="2024-12")
    board = Board.for_settings(data_copy)
    board.pin("ana@example.org", explore.run(celaya, options, engine.catalog, settings=data_copy), origin="explorar")
    first, second = board.tiles("ana@example.org")
    at = make_app(data_copy, roles=["analista"], script="pages/tablero.py").run()
    assert at.button(key=f"tablero_subir_{first.id}").disabled and at.button(key=f"tablero_bajar_{second.id}").disabled
    at.button(key=f"tablero_bajar_{first.id}").click().run()
    assert not at.exception, at.exception
    assert [t.id for t in board.tiles("ana@example.org")] == [second.id, first.id]  # kept in the workspace
    titles = [unescape(m.value) for m in at.markdown if m.value.startswith("**")]
    assert "Celaya" in titles[0] and "León" in titles[1]  # drawn in the new order
    assert at.button(key=f"tablero_subir_{second.id}").disabled


def test_a_steward_cannot_open_the_tablero(data_copy, make_app):
    at = make_app(data_copy, roles=["steward"], script="pages/tablero.py").run()
    assert not at.exception and "Aún no hay tarjetas" not in all_text(at)


def test_pinning_in_consultar_stores_a_tile(data_copy, make_app):
    at = make_app(data_copy, roles=["analista"], script="pages/consultar.py").run()
    at.chat_input(key="chat").set_value("¿Cuántos homicidios dolosos hubo en León en 2024?").run()
    assert not at.exception, at.exception
    pin = next(b for b in at.button if str(b.key).endswith("_pin"))
    pin.click().run()
    assert not at.exception, at.exception
    tiles = Board.for_settings(data_copy).tiles("ana@example.org")
    assert [t.origin for t in tiles] == ["consultar"] and tiles[0].title.startswith("¿Cuántos homicidios dolosos")
    assert tiles[0].pinned.value.startswith("León registró 596")
