"""Browser: an analyst asks in Consultar, reads the answer, the chart and the «Plan de consulta»,
opens the plan page, then edits the plan (top_k 5 → 10) in the Editor and runs it.

Screenshots go to test-artifacts/screenshots/ (consultar.png, plan.png, editor.png).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import ask_chat

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
SHOTS = ROOT / "test-artifacts" / "screenshots"
TOP5 = "¿Cuáles son los 5 municipios con más homicidios dolosos en 2024?"
SLOW = 90_000  # ms: the first question builds the assistant's lexicon


def go_to(page, title: str) -> None:
    """Open a page through the sidebar menu (keeps the Streamlit session and its turns)."""
    page.locator('[data-testid="stSidebarNavLink"]', has_text=title).click()
    expect(page.get_by_role("heading", name=title, exact=True)).to_be_visible(timeout=30_000)


def shot(page, name: str, target=None) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    if target is not None:
        target.scroll_into_view_if_needed()
    page.screenshot(path=str(SHOTS / name))


def test_analyst_asks_reads_the_plan_and_reruns_an_edited_plan(app_server, page):
    page.set_viewport_size({"width": 1500, "height": 1300})
    page.goto(app_server)
    go_to(page, "Consultar")

    ask_chat(page, TOP5)
    answer = page.locator('[data-testid="stChatMessage"]').filter(has_text="León (596)")
    expect(answer).to_be_visible(timeout=SLOW)
    expect(answer.get_by_text("León (596)", exact=False)).to_be_visible()
    chart = answer.locator('[data-testid="stPlotlyChart"] .js-plotly-plot').filter(visible=True).first  # map or bar
    expect(chart).to_be_visible(timeout=30_000)
    panel = answer.locator('[data-testid="stExpander"]').filter(has_text="Plan de consulta")
    expect(panel.get_by_text("Qué calculé")).to_be_visible()  # the plan in plain words first
    expect(panel.get_by_text("Conté las carpetas de homicidios dolosos", exact=False)).to_be_visible()
    expect(panel.get_by_text("Tipo de pregunta: ranking de municipios.", exact=False)).to_have_count(0)
    panel.get_by_text("Detalles técnicos").click()  # the contracts open with a toggle
    expect(panel.get_by_text("Tipo de pregunta: ranking de municipios.", exact=False)).to_be_visible(timeout=30_000)
    expect(panel.get_by_text("rank_por_delito@1.1.0")).to_be_visible()
    argument = panel.locator("li").filter(has_text="entidad_id")  # arguments are list items that wrap
    expect(argument).to_be_visible()
    box, column = argument.bounding_box(), panel.bounding_box()
    assert box["x"] + box["width"] <= column["x"] + column["width"] + 1, "a tool argument runs past the column"
    expect(answer.get_by_text("Datos hasta noviembre de 2025", exact=False)).to_have_count(1)  # said once
    provenance = answer.locator('[data-testid="stCaptionContainer"]').filter(has_text="query_hash")
    expect(provenance).to_contain_text("query_hash sha256:")
    shot(page, "consultar.png", answer.get_by_text("León (596)", exact=False))

    go_to(page, "Plan de consulta")
    expect(page.get_by_text("Qué entendí")).to_be_visible()
    page.get_by_text("Detalles técnicos").click()
    expect(page.get_by_text("estrategia", exact=False).first).to_be_visible()
    expect(page.get_by_text("Tipo de pregunta: ranking de municipios.", exact=False)).to_be_visible()
    shot(page, "plan.png")

    go_to(page, "Editor de plan")
    top_k = page.locator('input[aria-label="top_k"]')
    expect(top_k).to_have_value("5", timeout=30_000)  # the first visit starts from the last answer
    before = top_k.element_handle()
    page.get_by_role("button", name="Cargar el plan de la última respuesta").click()
    page.wait_for_function("el => !el.isConnected", arg=before, timeout=30_000)  # the form was rebuilt
    expect(top_k).to_have_value("5")
    valid = page.locator('[data-testid="stAlertContentSuccess"]').filter(has_text="Plan válido")
    expect(valid).to_be_visible()
    original = valid.inner_text()
    top_k.fill("10")
    top_k.press("Enter")
    expect(valid).not_to_have_text(original, timeout=30_000)  # revalidated: a new query_hash
    page.get_by_role("button", name="Ejecutar plan").click()
    rows = page.get_by_text("10 filas", exact=True)
    expect(rows).to_be_visible(timeout=SLOW)
    expect(page.get_by_role("heading", name="Resultado")).to_be_visible()
    expect(page.get_by_text("registrado en la auditoría", exact=False)).to_be_visible()
    shot(page, "editor.png", rows)

    # A supervisor (local mode grants every role) sees both runs in Auditoría.
    go_to(page, "Auditoría")
    expect(page.get_by_text("Cadena de auditoría íntegra", exact=False).first).to_be_visible(timeout=30_000)
    detail = page.locator('[data-testid="stMarkdownContainer"]').filter(has_text="edición de plan")
    expect(detail.first).to_be_visible(timeout=30_000)  # the newest record: the edited run
    page.get_by_label("Texto libre (en la pregunta o el contenido)").fill("5 municipios")
    page.get_by_label("Texto libre (en la pregunta o el contenido)").press("Enter")
    asked = page.locator('[data-testid="stMarkdownContainer"]').filter(has_text="pregunta")
    expect(asked.first).to_be_visible(timeout=30_000)
    quote = page.locator('[data-testid="stMarkdownContainer"] blockquote').filter(has_text="5 municipios")
    expect(quote.first).to_be_visible(timeout=30_000)  # the record's detail quotes the analyst's question
    shot(page, "auditoria.png")
