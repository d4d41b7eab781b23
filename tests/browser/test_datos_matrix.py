"""Browser: Datos shows the matrix of what exists and its crime-name filter narrows it (issue 14, item 7)."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.browser


def test_datos_matrix_filters_by_crime_name(app_server, page):
    page.goto(f"{app_server}/datos")
    expect(page.get_by_role("heading", name="Qué datos hay")).to_be_visible(timeout=60_000)
    expect(page.get_by_text("«solo estatal»", exact=False).first).to_be_visible()
    search = page.get_by_label("Buscar delito")
    search.fill("feminicidio")
    search.press("Enter")
    expect(page.get_by_text("2 delitos.", exact=True)).to_be_visible()  # Feminicidio and its RNID tentativa
