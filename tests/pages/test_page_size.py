"""A page is layout: each file of pages/ stays within the page budget, its logic in ui/ modules named by meaning
(docs/decisions/0004-module-size.md; issue 15's review: Consultar 169 lines, Carga de datos 164)."""

from __future__ import annotations

from pathlib import Path

import pytest

PAGE_BUDGET = 150
PAGES = sorted((Path(__file__).resolve().parents[2] / "pages").glob("*.py"))


@pytest.mark.parametrize("page", PAGES, ids=[p.name for p in PAGES])
def test_a_page_stays_within_its_budget(page):
    lines = len(page.read_text(encoding="utf-8").splitlines())
    assert lines <= PAGE_BUDGET, f"{page.name}: {lines} líneas; mueva su lógica a ui/"
