"""ui.auth without Streamlit running: the role map, providers, acting roles and the test seam's guard."""

from __future__ import annotations

import pytest

from ui import auth


def test_role_map_is_case_insensitive_and_accepts_lists_and_strings():
    secrets = {"roles": {"Sofia@Example.org": ["supervisor", "steward", "jefe"], "ana@example.org": "analista"}}
    assert auth.roles_for("sofia@example.org", secrets) == ("supervisor", "steward")  # unknown 'jefe' dropped
    assert auth.roles_for(" ANA@example.org ", secrets) == ("analista",)
    assert auth.roles_for("eve@example.org", secrets) == ()
    assert auth.roles_for("", {"roles": {"default_role": "analista"}}) == ()
    assert auth.roles_for("eve@example.org", {"roles": {**secrets["roles"], "default_role": "analista"}}) == (
        "analista",
    )
    assert auth.roles_for("x@y", {}) == ()


ROLE_TABLE = {"roles": {"sofia@example.org": "supervisor"}}


@pytest.mark.parametrize(
    ("claims", "secrets", "roles", "problem"),
    [
        ({"email": "sofia@example.org", "email_verified": True}, ROLE_TABLE, ("supervisor",), None),
        ({"email": "sofia@example.org", "email_verified": False}, ROLE_TABLE, (), "no confirma"),
        (
            {"email": "sofia@example.org", "email_verified": "true"},
            ROLE_TABLE,
            (),
            "no confirma",
        ),  # a string is not true
        ({"email": "sofia@example.org"}, ROLE_TABLE, (), "no confirma"),
        ({"sub": "sofia@example.org"}, ROLE_TABLE, (), "no envió un correo"),  # never a role from `sub`
        ({"sub": "sofia@example.org", "email_verified": True}, ROLE_TABLE, (), "no envió un correo"),
        (
            {"email": "sofia@example.org"},
            {**ROLE_TABLE, "signin": {"require_email_verified": False}},
            ("supervisor",),
            None,
        ),
        (
            {"email": "sofia@example.org"},
            {**ROLE_TABLE, "signin": {"require_email_verified": "false"}},
            ("supervisor",),
            None,
        ),
        (
            {"sub": "sofia@example.org"},
            {**ROLE_TABLE, "signin": {"require_email_verified": False}},
            (),
            "no envió un correo",
        ),
    ],
)
def test_only_a_verified_email_gets_roles(claims, secrets, roles, problem):
    assert auth.identity(claims, secrets)[1] == roles
    found = auth.account_problem(claims, secrets)
    assert (found is None) if problem is None else (problem in found)


def test_local_mode_and_providers():
    assert auth.local_mode({}) and auth.local_mode({"roles": {}})
    flat = {"auth": {"client_id": "c", "server_metadata_url": "http://idp"}}
    assert not auth.local_mode(flat) and auth.providers(flat) == [None]
    named = {
        "auth": {"redirect_uri": "r", "cookie_secret": "s", "google": {"client_id": "g"}, "entra": {"client_id": "e"}}
    }
    assert auth.providers(named) == ["entra", "google"]


def test_acting_role_prefers_the_first_role_the_page_allows():
    assert auth.acting_role(("supervisor", "analista"), auth.ANALYSTS) == "analista"
    assert auth.acting_role(("supervisor", "steward"), auth.STEWARDS) == "steward"
    assert auth.acting_role(("analista",), auth.SUPERVISORS) is None


def test_the_test_seam_is_ignored_without_the_environment_variable(bundled_settings, make_app, monkeypatch):
    at = make_app(bundled_settings, roles=["analista"], email="ana@example.org")
    monkeypatch.delenv("CASANDRA_TEST_AUTH")
    at.run()
    # Without CASANDRA_TEST_AUTH=1 the seam is not honoured: local mode gives every role.
    assert "Sesión: **local**" in at.sidebar.caption[0].value
    at.switch_page("pages/auditoria.py").run()
    assert at.title[0].value == "Auditoría"
