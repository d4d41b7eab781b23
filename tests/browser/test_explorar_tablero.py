"""Browser: Explorar and Tablero end to end (issue 15, items 4 and 5).

An analyst opens a shared Explorar link and reads its answer; changes the shape to a ranking and sees the URL
follow; reloads and finds the same selection and answer; pins it; opens Tablero and reads the tile with the value
when pinned and now (and both versions); downloads the board as CSV and as a printable page.
Screenshots go to test-artifacts/screenshots/ (explorar.png, tablero.png).
"""

from __future__ import annotations

import csv
import io
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
SHOTS = ROOT / "test-artifacts" / "screenshots"
SLOW = 90_000  # ms: the first run builds the assistant and the options
LINK = "explorar?delito=homicidio_doloso&lugar=GTO.MUN.LEON&desde=2024-01&hasta=2024-12&forma=total"


def params(page) -> dict[str, list[str]]:
    return parse_qs(urlparse(page.url).query)


def choose(page, label: str, option: str) -> None:
    """Pick an option of a Streamlit selectbox by its label."""
    page.get_by_test_id("stSelectbox").filter(has_text=label).click()
    page.get_by_role("option", name=option, exact=True).click()


def go_to(page, title: str) -> None:
    """Open a page through the sidebar menu (keeps the Streamlit session)."""
    page.get_by_test_id("stSidebarNav").get_by_role("link", name=title, exact=True).click()
    expect(page.get_by_role("heading", name=title, exact=True)).to_be_visible(timeout=30_000)


def download(page, button: str) -> str:
    with page.expect_download() as info:
        page.get_by_role("button", name=button).click()
    return Path(info.value.path()).read_bytes().decode("utf-8-sig")


def test_explorar_link_reload_pin_and_tablero(app_server, page):
    page.set_viewport_size({"width": 1500, "height": 1300})
    page.goto(f"{app_server}/{LINK}")
    expect(page.get_by_role("heading", name="Explorar", exact=True)).to_be_visible(timeout=SLOW)
    expect(page.get_by_text("León registró 596 homicidios dolosos", exact=False)).to_be_visible(timeout=SLOW)
    expect(page.get_by_text("Qué entendí", exact=False).first).to_be_visible()  # its Plan de consulta

    choose(page, "Forma", "Ranking de municipios")
    ranking = page.get_by_text("Los 10 municipios con más homicidios dolosos", exact=False)
    expect(ranking).to_be_visible(timeout=SLOW)
    page.wait_for_function("() => location.search.includes('forma=ranking')", timeout=30_000)
    assert params(page)["forma"] == ["ranking"] and "lugar" not in params(page)  # a ranking takes no place

    page.reload()  # the URL keeps the selection: the same shape and answer come back
    expect(page.get_by_role("heading", name="Explorar", exact=True)).to_be_visible(timeout=SLOW)
    expect(ranking).to_be_visible(timeout=SLOW)
    expect(page.get_by_role("combobox", name="Forma")).to_have_value("Ranking de municipios")
    assert params(page)["forma"] == ["ranking"] and params(page)["delito"] == ["homicidio_doloso"]
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "explorar.png"))

    page.get_by_role("button", name="Fijar en tablero").click()
    expect(page.get_by_role("button", name="Fijada en el tablero")).to_be_visible(timeout=30_000)

    go_to(page, "Tablero")
    tile = page.locator("[class*='st-key-tablero_tile_']").filter(has_text="Ranking de los 10 municipios")
    expect(tile.first).to_be_visible(timeout=SLOW)
    expect(tile.first.get_by_text("Al fijar", exact=False)).to_be_visible()
    expect(tile.first.get_by_text("Ahora", exact=False)).to_be_visible()
    expect(tile.first.get_by_text("Los 10 municipios con más homicidios dolosos", exact=False)).to_have_count(2)
    expect(tile.first.get_by_text("Las cifras no cambiaron", exact=False)).to_be_visible()
    page.screenshot(path=str(SHOTS / "tablero.png"))

    rows = list(csv.reader(io.StringIO(download(page, "Descargar CSV"))))
    assert rows[0][:3] == ["titulo", "origen", "fijada_el"] and len(rows) == 2
    assert rows[1][0].startswith("Ranking de los 10 municipios") and rows[1][1] == "Explorar"
    assert rows[1][4] == rows[1][6] and rows[1][7] == "no"  # then and now, unchanged
    printable = download(page, "Página para imprimir")
    assert "@media print" in printable and "Ranking de los 10 municipios" in printable

    tile.first.get_by_role("link", name="Abrir en Explorar").click()  # the tile's selection opens again
    expect(page.get_by_role("heading", name="Explorar", exact=True)).to_be_visible(timeout=SLOW)
    expect(page.get_by_text("Los 10 municipios con más homicidios dolosos", exact=False)).to_be_visible(timeout=SLOW)
