"""Browser: Explorar on a phone (390×844, issue 15 item 10's width): nothing in the page runs past the screen's
edge, a chart's title is text that wraps (a Plotly title is cut at this width), and the figures of a table are in
sight. A screenshot per shape goes to test-artifacts/screenshots/ (explorar-390-<shape>.png) for review."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
SHOTS = ROOT / "test-artifacts" / "screenshots"
SLOW = 90_000  # ms: the first run builds the assistant and the options
WIDTH, HEIGHT = 390, 844
PERIOD = "delito=homicidio_doloso&desde=2024-01&hasta=2024-12"
SHAPES = {
    "serie": (f"explorar?{PERIOD}&lugar=GTO.MUN.LEON&forma=serie", "Serie mensual: Homicidio doloso"),
    "ranking": (f"explorar?{PERIOD}&forma=ranking", "Delitos registrados: Homicidio doloso"),
    "comparacion": (f"explorar?{PERIOD}&lugar=GTO.MUN.LEON&forma=comparacion", "Comparación"),
}
# every element of the main area drawn past the screen's left or right edge (the sidebar is closed on a phone)
OVERFLOW = """(width) => [...document.querySelectorAll('[data-testid="stMain"] [data-testid]')]
  .filter(el => el.checkVisibility())
  .map(el => [el.getAttribute('data-testid'), el.getBoundingClientRect(), (el.textContent || '').slice(0, 60)])
  .filter(([, r]) => r.width > 0 && (r.left < -1 || r.right > width + 1))
  .map(([id, r, text]) => `${id} ${Math.round(r.left)}..${Math.round(r.right)} ${text}`)"""


@pytest.mark.parametrize("shape", list(SHAPES))
def test_explorar_fits_a_phone(app_server, page, shape):
    link, title = SHAPES[shape]
    page.set_viewport_size({"width": WIDTH, "height": HEIGHT})
    page.goto(f"{app_server}/{link}")
    expect(page.get_by_role("heading", name="Explorar", exact=True)).to_be_visible(timeout=SLOW)
    plot = page.locator('[data-testid="stPlotlyChart"] .js-plotly-plot').locator("visible=true").first
    expect(plot).to_be_visible(timeout=SLOW)
    heading = page.locator('[data-testid="stMarkdownContainer"] strong').filter(has_text=title).first
    expect(heading).to_be_visible()
    heading.scroll_into_view_if_needed()
    page.wait_for_timeout(1000)  # the table and the plan panel settle
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"explorar-390-{shape}.png"))
    box = heading.bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= WIDTH  # the title wraps inside the screen
    assert plot.locator(".gtitle").count() == 0  # no title inside the figure, where it would be cut
    assert page.evaluate(OVERFLOW, WIDTH) == []
    assert page.evaluate("() => document.documentElement.scrollWidth") <= WIDTH
