"""Every role sees only its pages (docs/contracts/design.md §4), in the menu and when a page is reached directly."""

from __future__ import annotations

import pytest

from ui import navigation

pytestmark = pytest.mark.slow  # AppTest runs of whole pages, a turn of the pipeline each

OWN_PAGES = ["pages/datos.py", "pages/catalogo.py", "pages/carga.py", "pages/auditoria.py"]
ANALYST_PAGES = ["pages/consultar.py", "pages/explorar.py", "pages/plan.py", "pages/editor.py", "pages/tablero.py"]
ALLOWED = {
    "analista": {"pages/datos.py", "pages/catalogo.py", *ANALYST_PAGES},
    "supervisor": {"pages/datos.py", "pages/catalogo.py", "pages/auditoria.py", *ANALYST_PAGES},
    "steward": {"pages/carga.py", "pages/datos.py", "pages/catalogo.py"},
}


@pytest.mark.parametrize("role", sorted(ALLOWED))
def test_the_registry_lists_exactly_the_role_pages_that_exist(role):
    listed = {p.path for p in navigation.visible_pages([role])}
    existing = {p for p in ALLOWED[role] if (navigation.ROOT / p).is_file()}
    assert listed == existing


@pytest.mark.parametrize("role", sorted(ALLOWED))
def test_navigation_and_direct_access_follow_the_role(role, bundled_settings, make_app):
    at = make_app(bundled_settings, roles=[role], email=f"{role}@example.org").run()
    pages = OWN_PAGES + [p for p in ANALYST_PAGES if (navigation.ROOT / p).is_file()]
    for page in [p for p in pages if p not in ALLOWED[role]]:
        with pytest.raises(ValueError):  # not registered in st.navigation for this role
            at.switch_page(page)
    for page in [p for p in OWN_PAGES if p in ALLOWED[role]]:
        at.switch_page(page).run()
        assert not at.exception and not at.error, (role, page)
        assert at.title[0].value


@pytest.mark.parametrize(
    ("role", "page"),
    [
        ("analista", "pages/auditoria.py"),
        ("analista", "pages/carga.py"),
        ("steward", "pages/auditoria.py"),
        ("supervisor", "pages/carga.py"),
    ],
)
def test_a_page_run_directly_refuses_other_roles(role, page, bundled_settings, make_app):
    at = make_app(bundled_settings, roles=[role], email=f"{role}@example.org", script=page).run()
    assert not at.exception
    assert "Acceso denegado" in at.error[0].value
    assert role in at.error[0].value or "analista" in at.error[0].value
    assert not at.title and not at.dataframe and not at.file_uploader


def test_a_page_run_directly_without_a_signed_in_user_asks_to_sign_in(bundled_settings, make_app):
    secrets = {
        "auth": {
            "client_id": "c",
            "client_secret": "s",
            "redirect_uri": "http://127.0.0.1:1/oauth2callback",
            "cookie_secret": "k",
            "server_metadata_url": "http://127.0.0.1:1/x",
        }
    }
    at = make_app(bundled_settings, script="pages/datos.py", secrets=secrets, user={"is_logged_in": False}).run()
    assert "Inicie sesión" in at.warning[0].value
    assert not at.title
