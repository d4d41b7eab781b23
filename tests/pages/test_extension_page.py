"""A page is one file plus its PageSpec in ``ui.navigation.PAGES``: the toy page from
tests/fixtures/toy_page shows in its roles' menu and runs, with no other edit."""

from __future__ import annotations

import shutil

import pytest

from tests.conftest import FIXTURES
from ui import navigation

TOY = FIXTURES / "toy_page" / "juguete.py"
TOY_ROLES = frozenset({"analista", "supervisor"})


@pytest.fixture
def toy_page(tmp_path, monkeypatch) -> navigation.PageSpec:
    """The toy page written into a temporary root and appended to the registry."""
    page = tmp_path / "pages" / TOY.name
    page.parent.mkdir()
    shutil.copy(TOY, page)
    spec = navigation.PageSpec(str(page), "Juguete", ":material/toys:", TOY_ROLES, "Análisis")
    monkeypatch.setattr(navigation, "PAGES", (*navigation.PAGES, spec))
    return spec


@pytest.mark.parametrize("role,listed", [("analista", True), ("supervisor", True), ("steward", False)])
def test_the_listed_page_shows_for_its_roles_only(toy_page, role, listed):
    """The registry gives the toy page to the roles of its spec, last in menu order."""
    pages = navigation.visible_pages([role])
    assert (toy_page in pages) is listed
    assert not listed or pages[-1] == toy_page


def test_the_toy_page_runs_in_the_app_for_its_role(toy_page, bundled_settings, make_app):
    """app.py registers it in st.navigation and it runs like the built-in pages."""
    at = make_app(bundled_settings, roles=["analista"], email="ana@example.org").run()
    at.switch_page(toy_page.path).run()
    assert not at.exception and not at.error
    assert at.title[0].value == "Página de juguete"
    assert "ana@example.org entra como analista." in "\n".join(m.value for m in at.markdown)


def test_other_roles_cannot_reach_the_toy_page(toy_page, bundled_settings, make_app):
    """For a role outside the spec the page is not registered at all."""
    at = make_app(bundled_settings, roles=["steward"], email="sol@example.org").run()
    with pytest.raises(ValueError):
        at.switch_page(toy_page.path)


def test_a_listed_page_without_its_file_is_an_error(tmp_path, monkeypatch, bundled_settings, make_app):
    """A PageSpec whose file is missing stops the registry (and the app) instead of shortening the menu."""
    ghost = navigation.PageSpec(
        str(tmp_path / "pages" / "fantasma.py"), "Fantasma", ":material/help:", TOY_ROLES, "Análisis"
    )
    monkeypatch.setattr(navigation, "PAGES", (*navigation.PAGES, ghost))
    with pytest.raises(FileNotFoundError, match=r"fantasma\.py"):
        navigation.visible_pages(["steward"])  # even for a role that would not see it
    at = make_app(bundled_settings, roles=["analista"]).run()
    assert at.exception and "fantasma.py" in at.exception[0].value
