"""AppTest: app.py signs in and routes; local mode (banner, loopback only) and OIDC sign-in."""

from __future__ import annotations

import pytest
import streamlit as st

from tests.pages.conftest import texts

OIDC = {
    "auth": {
        "redirect_uri": "http://127.0.0.1:8501/oauth2callback",
        "cookie_secret": "s3cret",
        "client_id": "casandra",
        "client_secret": "x",
        "server_metadata_url": "http://127.0.0.1:9/.well-known/openid-configuration",
    },
    "roles": {"sofia@example.org": ["supervisor"], "ana@example.org": "analista", "luis@example.org": "steward"},
}


def test_local_mode_shows_the_banner_and_every_page_of_every_role(bundled_settings, make_app):
    at = make_app(bundled_settings).run()
    assert not at.exception
    assert "Modo local" in at.warning[0].value and "127.0.0.1" in at.warning[0].value
    assert "local" in texts(at.sidebar.caption)
    for page, title in [
        ("pages/datos.py", "Datos"),
        ("pages/catalogo.py", "Catálogo"),
        ("pages/carga.py", "Carga de datos"),
        ("pages/auditoria.py", "Auditoría"),
    ]:
        at.switch_page(page).run()
        assert not at.exception, page
        assert at.title[0].value == title
        assert "Modo local" in at.warning[0].value  # the banner is on every page
        assert "local" in texts(at.sidebar.caption)  # ran through app.py's sign-in


def test_local_mode_refuses_a_non_loopback_address(bundled_settings, make_app, monkeypatch):
    original = st.get_option
    monkeypatch.setattr(st, "get_option", lambda name: "0.0.0.0" if name == "server.address" else original(name))
    at = make_app(bundled_settings).run()
    assert not at.exception
    assert "debe escuchar solo en 127.0.0.1" in at.error[0].value
    assert not at.title  # nothing else was served


def test_oidc_signed_out_sees_only_the_login_screen(bundled_settings, make_app):
    at = make_app(bundled_settings, secrets=OIDC, user={"is_logged_in": False}).run()
    assert not at.exception
    assert at.title[0].value == "Casandra"
    assert [b.label for b in at.button] == ["Iniciar sesión"]
    assert "Modo local" not in texts(at.warning)
    # Signed out, no page is registered (not even in the menu): a deep link has nowhere to go.
    assert at.session_state is not None and not at.sidebar.markdown
    with pytest.raises(ValueError, match="Known pages: \\['Casandra'\\]"):
        at.switch_page("pages/datos.py")


def test_oidc_roles_come_from_the_secrets_role_map(bundled_settings, make_app):
    sup = make_app(
        bundled_settings,
        secrets=OIDC,
        user={"is_logged_in": True, "email": "Sofia@Example.org", "email_verified": True},
    ).run()
    assert not sup.exception and "Modo local" not in texts(sup.warning)
    assert "sofia@example.org" in texts(sup.sidebar.caption).lower()
    assert "Cerrar sesión" in [b.label for b in sup.sidebar.button]
    sup.switch_page("pages/auditoria.py").run()
    assert sup.title[0].value == "Auditoría"

    ana = make_app(
        bundled_settings, secrets=OIDC, user={"is_logged_in": True, "email": "ana@example.org", "email_verified": True}
    ).run()
    with pytest.raises(ValueError):
        ana.switch_page("pages/auditoria.py")
    ana.switch_page("pages/catalogo.py").run()
    assert ana.title[0].value == "Catálogo"


def test_oidc_account_without_a_role_is_refused_unless_there_is_a_default(bundled_settings, make_app):
    nobody = make_app(
        bundled_settings, secrets=OIDC, user={"is_logged_in": True, "email": "eve@example.org", "email_verified": True}
    ).run()
    assert "no tiene un rol asignado" in nobody.error[0].value
    assert not nobody.title

    with_default = {**OIDC, "roles": {**OIDC["roles"], "default_role": "analista"}}
    eve = make_app(
        bundled_settings,
        secrets=with_default,
        user={"is_logged_in": True, "email": "eve@example.org", "email_verified": True},
    ).run()
    assert not eve.error
    eve.switch_page("pages/datos.py").run()
    assert eve.title[0].value == "Datos"
