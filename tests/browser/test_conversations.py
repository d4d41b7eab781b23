"""Browser: conversations that stay fast and last (issue 15 §2 and §3), end to end in Chromium.

An analyst asks three questions: the earlier answers draw light (text and a small table, «Ver gráfica y
detalles» to open one) and only the latest keeps its chart. The URL names the conversation: a reload brings
every turn back and a follow-up continues it. «Nueva conversación» starts another; the sidebar lists both and
opens the first again. The latest answer's «Enlace permanente», opened in a fresh tab, re-runs its plan and
says the data did not change, with the same first row. Screenshot: test-artifacts/screenshots/conversaciones.png.
"""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import ask_chat

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
SHOTS = ROOT / "test-artifacts" / "screenshots"
SLOW = 120_000  # ms: the first answer imports pandas/plotly on the server and loads their JavaScript
SETTLED = """(n) => { const app = document.querySelector('[data-testid="stApp"]');
  return !!app && app.getAttribute('data-test-script-state') === 'notRunning'
    && !document.querySelector('[data-stale="true"]')
    && document.querySelectorAll('[data-testid="stChatMessage"]').length === n; }"""
FIRST = "¿Cuáles son los 6 municipios con más homicidios dolosos en 2024?"  # unique: the sidebar lists every test's
SECOND = "homicidios dolosos en Celaya mes por mes en 2023"
THIRD = "¿Cuáles son los 10 municipios con más robos en 2022?"
OTHER = "¿Cuántos secuestros hubo en León en 2024?"


def messages(page):
    return page.get_by_test_id("stChatMessage")


def settle(page, n_messages: int) -> None:
    """Wait until the script ended and the chat holds ``n_messages`` messages."""
    page.wait_for_function(SETTLED, arg=n_messages, timeout=SLOW)


INERT = """() => { const box = document.querySelector('[data-testid="stChatInput"] textarea');
  const held = box && box.closest('[inert]');
  if (!held) return '';
  const dialogs = [...document.querySelectorAll('[role="dialog"], [aria-modal="true"]')]
    .map(d => (d.getAttribute('data-testid') || d.tagName) + ': ' + d.innerText.slice(0, 200));
  return (held.getAttribute('data-testid') || held.tagName) + ' | ' + dialogs.join(' || '); }"""


def ask(page, question: str, n_messages: int) -> None:
    """Type a question, press Enter and wait for its answer to be drawn."""
    box = page.get_by_test_id("stChatInput").locator("textarea")
    expect(box).to_be_editable(timeout=SLOW)
    try:  # an inert chat box means something modal covers the page: name it rather than time out blind
        page.wait_for_function(f"() => ({INERT})() === ''", timeout=SLOW)
    except Exception:  # noqa: BLE001 - re-raised with what holds the page
        raise AssertionError(f"la caja de preguntas está inerte: {page.evaluate(INERT)}") from None
    ask_chat(page, question, SLOW)
    settle(page, n_messages)
    expect(messages(page).nth(n_messages - 1).get_by_text("Listo en", exact=False)).to_be_visible(timeout=SLOW)


def conversation_id(page) -> str:
    return parse_qs(urlparse(page.url).query)["c"][0]


def rowcount(scope) -> str:
    """The «N filas» caption under the first whole table drawn in ``scope``."""
    caption = scope.get_by_text(re.compile(r"^\d+ filas?$")).first
    expect(caption).to_be_visible(timeout=SLOW)
    return caption.inner_text()


def sidebar_button(page, title: str):
    return page.get_by_test_id("stSidebar").get_by_role("button", name=title, exact=True)


def open_turn(page, index: int, n_messages: int) -> None:
    """Click «Ver gráfica y detalles» in message ``index`` until its chart is drawn (a click can land mid-rerun)."""
    scope = messages(page).nth(index)
    chart = scope.get_by_test_id("stPlotlyChart").first
    for _ in range(3):
        button = scope.get_by_role("button", name="Ver gráfica y detalles")
        if button.count():
            button.click()
        settle(page, n_messages)
        try:
            expect(chart).to_be_visible(timeout=30_000)
            return
        except AssertionError:
            continue
    raise AssertionError(f"el turno no se abrió: {scope.inner_text()[:600]!r}")


def test_consultar_by_its_own_name_opens_it(app_server, page):
    """A bookmark or shared link to «/consultar» opens Consultar at the root, its query kept, with no dialog."""
    page.goto(f"{app_server}/consultar?c=0123456789abcdef0123456789abcdef")
    expect(page.get_by_role("heading", name="Consultar", exact=True)).to_be_visible(timeout=SLOW)
    page.wait_for_function(
        "() => location.pathname === '/' && location.search.includes('c=0123456789abcdef')", timeout=SLOW
    )
    expect(page.get_by_role("dialog")).to_have_count(0)
    expect(page.get_by_text("Page not found", exact=False)).to_have_count(0)
    box = page.get_by_test_id("stChatInput").locator("textarea")
    expect(box).to_be_editable(timeout=SLOW)
    assert page.evaluate(INERT) == ""


def test_conversation_light_turns_reload_history_and_permalink(app_server, page):
    page.set_viewport_size({"width": 1400, "height": 1100})
    page.goto(f"{app_server}/")
    expect(page.get_by_role("heading", name="Consultar", exact=True)).to_be_visible(timeout=SLOW)
    for n, question in enumerate((FIRST, SECOND, THIRD), start=1):
        ask(page, question, 2 * n)

    # §2: earlier turns light, the latest whole
    opens = page.get_by_role("button", name="Ver gráfica y detalles")
    expect(opens).to_have_count(2)
    expect(messages(page).nth(1).get_by_test_id("stPlotlyChart")).to_have_count(0)
    expect(messages(page).nth(5).get_by_test_id("stPlotlyChart").first).to_be_visible(timeout=SLOW)
    open_turn(page, 3, 6)  # the monthly series of turn 2 comes back with its chart
    first_id = conversation_id(page)

    # §3: a reload restores the conversation, and a follow-up continues it
    page.reload()
    settle(page, 6)
    for question in (FIRST, SECOND, THIRD):
        expect(page.get_by_test_id("stChatMessage").get_by_text(question, exact=True)).to_be_visible()
    assert conversation_id(page) == first_id
    ask(page, "¿y en 2021?", 8)
    expect(messages(page).nth(7).get_by_text("2021", exact=False).first).to_be_visible()

    # the latest answer's permalink, kept for the end
    link = messages(page).nth(7).get_by_role("link", name="Enlace permanente")
    href = link.get_attribute("href")
    assert href and "plan=sha256" in href
    rows = rowcount(messages(page).nth(7))

    # history: a new conversation, both listed, the first opened again
    page.get_by_test_id("stSidebar").get_by_role("button", name="Nueva conversación").click()
    settle(page, 0)
    ask(page, OTHER, 2)
    assert conversation_id(page) != first_id
    expect(sidebar_button(page, FIRST)).to_be_visible()
    expect(sidebar_button(page, OTHER)).to_be_disabled()  # the open one
    sidebar_button(page, FIRST).click()
    settle(page, 8)
    expect(page.get_by_test_id("stChatMessage").get_by_text(FIRST, exact=True)).to_be_visible()
    page.wait_for_function(f"() => location.search.includes('c={first_id}')", timeout=SLOW)
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "conversaciones.png"))

    # the permalink in a fresh tab: the same plan re-run, the same rows, the data version unchanged
    shared = page.context.new_page()
    shared.goto(f"{app_server}/consultar{href}" if href.startswith("?") else href)
    expect(shared.get_by_role("heading", name="Respuesta guardada")).to_be_visible(timeout=SLOW)
    expect(shared.get_by_text("Los datos no han cambiado", exact=False)).to_be_visible(timeout=SLOW)
    expect(shared.locator("p", has_text="Pregunta:").first).to_contain_text("2021")  # standalone, not «¿y en…»
    assert rows and rowcount(shared) == rows
    shared.screenshot(path=str(SHOTS / "permalink.png"))
