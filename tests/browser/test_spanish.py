"""Browser: Spanish everywhere as a person reads it (issue 15, item 9), at 1366×768 and 390×844, and the map of a
per-municipality answer (item 10): first tab, every municipality, inside the frame on a phone.

The visible text of every page (what AppTest cannot see: Streamlit's own widget texts, Plotly's axes) is read with
the computed style: text drawn at ``font-size: 0`` (replaced by ``ui/spanish.py``) or off screen is not read;
material icons are names, not words. Screen-reader labels (``aria-label``, ``title``) are read too: those Streamlit
writes itself on its own controls (``STREAMLIT_OWN``: a table's toolbar, a multiselect's «Clear all») are out of reach
of a page; any other English one comes from an argument a page passes (``help=`` names its icon «Help for …»).
"""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import ask_chat
from tests.spanish_scan import english_in
from ui.navigation import PAGES

pytestmark = pytest.mark.browser

SLOW = 90_000  # ms: the first question builds the assistant's lexicon
VISIBLE_TEXT = """() => {
  const out = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  while (walker.nextNode()) {
    const el = walker.currentNode.parentElement;
    const text = walker.currentNode.textContent.trim();
    if (!text || !el || el.closest('[data-testid="stIconMaterial"], .modebar, script, style')) continue;
    if (parseFloat(getComputedStyle(el).fontSize) === 0) continue;
    if (!el.checkVisibility({opacityProperty: true, visibilityProperty: true})) continue;
    const r = el.getBoundingClientRect();
    if (r.width < 2 || r.height < 2 || r.right <= 0 || r.bottom <= 0) continue;
    out.push(text);
  }
  for (const box of document.querySelectorAll('input[placeholder], textarea[placeholder]')) {
    if (!box.value && box.checkVisibility()) out.push(box.placeholder);
  }
  for (const el of document.querySelectorAll('*')) {
    const after = getComputedStyle(el, '::after').content;
    if (after && after.startsWith('"')) out.push(after.slice(1, -1));
  }
  return out;
}"""
LABELS = """() => [...document.querySelectorAll('[aria-label], [title]')]
  .filter(el => !el.closest('.modebar'))
  .flatMap(el => [el.getAttribute('aria-label'), el.getAttribute('title')])
  .filter(Boolean)"""
# Streamlit 1.67's fixed English on its own controls (no argument changes them): the dataframe toolbar, a
# multiselect's clear button, the chat box's send button
STREAMLIT_OWN = {"Download as CSV", "Search", "Clear all", "Submit"}
VIEWPORTS = {"escritorio": (1366, 768), "telefono": (390, 844)}


def open_page(page, base: str, path: str) -> None:
    page.goto(f"{base}/{path}")
    expect(page.locator("h1").first).to_be_visible(timeout=SLOW)
    page.wait_for_timeout(1500)  # late widgets (tables, charts) settle


def ask(page, base: str, question: str, says: str):
    """Ask in Consultar's chat and wait for the answer that says ``says``; its chat messages."""
    open_page(page, base, "")
    ask_chat(page, question)
    answer = page.locator('[data-testid="stChatMessage"]').filter(has_text=says)
    expect(answer).to_be_visible(timeout=SLOW)
    return answer


def drawn_chart(page, answer):
    """The answer's first chart on screen (the last matching message: a rerun may keep a stale copy a moment)."""
    plot = answer.last.locator('[data-testid="stPlotlyChart"] .js-plotly-plot').locator("visible=true").first
    expect(plot).to_be_visible(timeout=60_000)
    plot.scroll_into_view_if_needed()
    return plot


def read(page) -> list[str]:
    return page.evaluate(VISIBLE_TEXT)


@pytest.mark.parametrize("viewport", list(VIEWPORTS))
def test_every_page_reads_spanish_in_the_browser(app_server, page, viewport):
    page.set_viewport_size(dict(zip(("width", "height"), VIEWPORTS[viewport], strict=True)))
    found = {}
    for i, spec in enumerate(PAGES):
        open_page(page, app_server, "" if i == 0 else spec.url_path)  # the first page lives at the root
        if spec.url_path == "catalogo":  # a typed search shows Streamlit's «Press Enter to apply»
            page.locator('[data-testid="stTextInput"] input').first.type("robo")
        english = english_in(read(page)) + english_in(set(page.evaluate(LABELS)) - STREAMLIT_OWN)
        if english:
            found[spec.url_path] = english
    assert not found


def test_the_uploader_states_the_configured_limit(app_server, page):
    open_page(page, app_server, "carga")
    texts = read(page)
    assert "Elegir archivos" in texts and "Hasta 600 MB por archivo" in texts
    assert not [t for t in texts if "GB" in t]


@pytest.mark.parametrize("viewport", list(VIEWPORTS))
def test_a_ranking_draws_the_whole_map_first_inside_a_phone(app_server, page, viewport):
    width, height = VIEWPORTS[viewport]
    page.set_viewport_size({"width": width, "height": height})
    answer = ask(page, app_server, "¿Cuáles son los 10 municipios con más homicidios dolosos en 2024?", "León (596)")
    tabs = answer.last.locator('[data-testid="stTab"]')
    expect(tabs.first).to_have_text("Mapa")
    plot = drawn_chart(page, answer)
    shapes = plot.locator("path.js-fill")
    expect(shapes).to_have_count(46, timeout=30_000)  # every municipality, one colour scale
    box_plot, box_map = plot.bounding_box(), plot.locator(".scatterlayer").first.bounding_box()
    assert (
        box_map["x"] >= box_plot["x"] - 1 and box_map["x"] + box_map["width"] <= box_plot["x"] + box_plot["width"] + 1
    )
    assert box_plot["x"] >= 0 and box_plot["x"] + box_plot["width"] <= width  # not cropped on a phone
    assert not english_in(read(page))


def test_a_monthly_series_has_spanish_months(app_server, page):
    answer = ask(page, app_server, "Serie mensual de homicidios dolosos en León en 2024", "León registró")
    plot = drawn_chart(page, answer)
    ticks = plot.locator(".xtick text").evaluate_all("els => els.map(e => e.textContent)")
    assert ticks and all(
        t.split()[0] in ("ene", "feb", "mar", "abr", "may", "jun", "jul", "ago", "sep", "oct", "nov", "dic")
        for t in ticks
    )
