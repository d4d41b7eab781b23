"""End to end in Chromium: local mode, Datos, Catálogo, a steward's upload and a real OIDC sign-in."""

from __future__ import annotations

import importlib.util
import json
import re
import secrets
import sys
from pathlib import Path

import pytest

from core import api
from core.config import load_settings
from tests.browser.conftest import copy_store, free_port, spawn, start_app, unavailable
from tests.conftest import FIXTURES

try:
    from playwright.sync_api import expect
except ImportError:  # pragma: no cover - dev dependencies not installed
    unavailable("Playwright no está instalado: pip install -r requirements-dev.txt", module_level=True)

pytestmark = pytest.mark.browser
LEON = FIXTURES / "etl" / "leon_revision.csv"


def _open(page, url: str):
    page.goto(url)
    expect(page.get_by_test_id("stApp")).to_be_visible()
    return page


def test_the_app_loads_in_local_mode_with_the_banner(app_server, page):
    _open(page, app_server)
    expect(page.get_by_text("Modo local").first).to_be_visible()
    nav = page.get_by_test_id("stSidebarNav")
    for title in ("Datos", "Catálogo", "Carga de datos", "Auditoría"):
        expect(nav.get_by_role("link", name=title, exact=True)).to_be_visible()
    _open(page, f"{app_server}/auditoria")  # a deep link still goes through sign-in and the banner
    expect(page.get_by_role("heading", name="Auditoría")).to_be_visible()
    expect(page.get_by_text("Modo local").first).to_be_visible()


def test_a_deep_link_to_a_fresh_server_goes_through_sign_in_and_the_role_menu(app_data_dir, tmp_path, page):
    with start_app(copy_store(app_data_dir, tmp_path / "data")) as base:  # its first request is a deep link
        _open(page, f"{base}/auditoria")
        expect(page.get_by_role("heading", name="Auditoría")).to_be_visible()
        expect(page.get_by_text("Modo local").first).to_be_visible()
        nav = page.get_by_test_id("stSidebarNav")
        expect(nav.get_by_text("Supervisión", exact=True)).to_be_visible()  # app.py's sections
        expect(nav.get_by_role("link", name="app", exact=True)).to_have_count(0)  # not the pages/ listing


def test_datos_shows_the_version(app_server, app_data_dir, page):
    version = api.versions(load_settings(app_data_dir))[0]["dataset_version"]
    _open(page, f"{app_server}/datos")
    expect(page.get_by_role("heading", name="Datos", exact=True)).to_be_visible()
    expect(page.get_by_text(f"Versión {version}")).to_be_visible()
    expect(page.get_by_text("Cobertura por delito")).to_be_visible()
    expect(page.locator(".js-plotly-plot").first).to_be_visible()  # the coverage chart drew


def test_catalogo_lists_rank_por_delito(app_server, page):
    _open(page, f"{app_server}/catalogo")
    expect(page.get_by_text("rank_por_delito @1.1.0").first).to_be_visible()
    page.get_by_label("Buscar").fill("anomal")
    page.get_by_label("Buscar").press("Enter")
    expect(page.get_by_text("detectar_anomalias @").first).to_be_visible()  # a rerun may briefly show it twice
    expect(page.get_by_text("rank_por_delito @")).to_have_count(0)


def test_a_steward_uploads_previews_and_publishes(app_data_dir, tmp_path, page, browser_path):
    data = copy_store(app_data_dir, tmp_path / "data")  # the shared server keeps the bundled version
    settings = load_settings(data)
    before = api.versions(settings)[0]["dataset_version"]
    with start_app(data) as base:
        _open(page, f"{base}/carga")
        expect(page.get_by_role("heading", name="Carga de datos")).to_be_visible()
        page.locator("input[type=file]").set_input_files(str(LEON))
        expect(page.get_by_text("Opciones de leon_revision.csv")).to_be_visible()
        expect(page.get_by_role("button", name="Publicar")).to_be_disabled()
        page.get_by_role("button", name="Vista previa").click()
        expect(page.get_by_text("Vista previa: nada se publicó todavía.")).to_be_visible()
        expect(page.get_by_text("Celdas reemplazadas")).to_be_visible()
        expect(page.get_by_text("IDM_NM original").first).to_be_attached()  # a data-grid cell (canvas)
        assert api.versions(settings)[0]["dataset_version"] == before
        page.get_by_role("button", name="Publicar").click()
        expect(page.get_by_text("Publicada la versión")).to_be_visible(timeout=60_000)
        after = api.versions(settings)[0]
        assert after["current"] and after["dataset_version"] != before
        expect(page.get_by_text(after["dataset_version"]).first).to_be_visible()


# -- real sign-in through a local OpenID provider ---------------------------------------------

ROLES = {
    "sofia@example.org": ["supervisor"],
    "ana@example.org": "analista",
    "jefa@example.org": "supervisor",
    "rita@example.org": "supervisor",
    "sinmail@example.org": "supervisor",
}
# Accounts the provider knows (typed as `sub` in its form). An unknown `sub` gets email = sub, unverified.
USERS = (
    {"sub": "sofia@example.org", "email": "sofia@example.org", "email_verified": True},
    {"sub": "ana@example.org", "email": "ana@example.org", "email_verified": True},
    {"sub": "rita@example.org", "email": "rita@example.org", "email_verified": False},
    {"sub": "sinmail@example.org"},  # a `sub` that reads like a supervisor's address, and no e-mail claim
)


def _secrets(idp: str, app: str) -> str:
    roles = "\n".join(f"{json.dumps(k)} = {json.dumps(v)}" for k, v in ROLES.items())
    return (
        f'[auth]\nredirect_uri = "{app}/oauth2callback"\ncookie_secret = "{secrets.token_hex(16)}"\n'
        f'client_id = "casandra-test"\nclient_secret = "{secrets.token_hex(8)}"\n'
        f'server_metadata_url = "{idp}/.well-known/openid-configuration"\n\n[roles]\n{roles}\n'
    )


@pytest.fixture(scope="module")
def oidc_app(app_data_dir, tmp_path_factory, browser_path):
    """oidc-provider-mock on 127.0.0.1 and an app whose [auth] points at it; yields the app URL."""
    if importlib.util.find_spec("oidc_provider_mock") is None:
        unavailable("oidc-provider-mock no está instalado: pip install -r requirements-dev.txt")
    run = tmp_path_factory.mktemp("oidc")
    idp_port = free_port()
    idp = f"http://127.0.0.1:{idp_port}"
    cmd = [sys.executable, "-m", "oidc_provider_mock", "--host", "127.0.0.1", "--port", str(idp_port)]
    cmd += [arg for user in USERS for arg in ("--user-claims", json.dumps(user))]
    with spawn(cmd, run / "oidc.log", f"{idp}/.well-known/openid-configuration"):
        data = copy_store(app_data_dir, run / "data")
        port = free_port()
        with start_app(data, secrets_toml=_secrets(idp, f"http://127.0.0.1:{port}"), port=port) as base:
            yield base


def _sign_in(page, base: str, email: str, *, refused: bool = False):
    _open(page, base)
    expect(page.get_by_text("Inicie sesión con su cuenta institucional")).to_be_visible()
    expect(page.get_by_text("Modo local")).to_have_count(0)
    page.get_by_role("button", name="Iniciar sesión").click()
    page.get_by_placeholder("sub").fill(email)  # the provider's own form
    page.get_by_role("button", name="Authorize").click()
    page.wait_for_url(re.compile(re.escape(base) + r"/?(\?.*)?$"))
    if not refused:
        expect(page.get_by_test_id("stSidebar").get_by_text(email)).to_be_visible()
    return page


@pytest.mark.parametrize(
    ("sub", "why"),
    [
        ("jefa@example.org", "no confirma que el correo esté verificado"),  # no email_verified claim at all
        ("rita@example.org", "no confirma que el correo esté verificado"),  # email_verified: false
        ("sinmail@example.org", "no envió un correo electrónico"),  # only `sub` names a supervisor
    ],
)
def test_an_unverified_identity_gets_no_role(oidc_app, page, sub, why):
    _sign_in(page, oidc_app, sub, refused=True)
    expect(page.get_by_text(why)).to_be_visible()
    expect(page.get_by_test_id("stSidebarNav")).to_have_count(0)
    _open(page, f"{oidc_app}/auditoria")
    expect(page.get_by_role("heading", name="Auditoría")).to_have_count(0)


def test_a_supervisor_signs_in_and_sees_auditoria(oidc_app, page):
    _sign_in(page, oidc_app, "sofia@example.org")
    nav = page.get_by_test_id("stSidebarNav")
    expect(nav.get_by_role("link", name="Auditoría", exact=True)).to_be_visible()
    expect(nav.get_by_role("link", name="Carga de datos", exact=True)).to_have_count(0)
    nav.get_by_role("link", name="Auditoría", exact=True).click()
    expect(page.get_by_role("heading", name="Auditoría")).to_be_visible()
    expect(page.get_by_text("Cadena de auditoría íntegra")).to_be_visible()


def test_an_analyst_signs_in_and_does_not_see_auditoria(oidc_app, page):
    _sign_in(page, oidc_app, "ana@example.org")
    nav = page.get_by_test_id("stSidebarNav")
    expect(nav.get_by_role("link", name="Datos", exact=True)).to_be_visible()
    expect(nav.get_by_role("link", name="Auditoría", exact=True)).to_have_count(0)
    _open(page, f"{oidc_app}/auditoria")  # typing the URL does not open it either
    expect(page.get_by_test_id("stSidebar").get_by_text("ana@example.org")).to_be_visible()
    expect(page.get_by_text("Page not found")).to_be_visible()  # Streamlit's own dialog
    expect(page.get_by_role("heading", name="Auditoría")).to_have_count(0)


# -- the fixture contract itself ----------------------------------------------------------------


@pytest.mark.parametrize(("ci", "outcome"), [("true", pytest.fail.Exception), ("", pytest.skip.Exception)])
def test_a_missing_chromium_skips_locally_but_fails_under_ci(ci, outcome, monkeypatch):
    from tests.browser import conftest

    monkeypatch.setattr(conftest, "CHROMIUM", Path("/nonexistent/chromium"))
    monkeypatch.setenv("CI", ci)
    with pytest.raises(outcome, match="Chromium no está instalado: apt-get install chromium"):
        conftest.browser_path.__wrapped__()
