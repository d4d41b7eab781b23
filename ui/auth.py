"""Sign-in and roles (docs/contracts/design.md §4): OIDC through ``st.login`` when ``[auth]`` is configured,
local mode otherwise.

Secrets (``.streamlit/secrets.toml``, see ``.streamlit/secrets.example.toml``)::

    [auth]                       # Streamlit's own OIDC settings, read by st.login()
    redirect_uri = "https://casandra.example.org/oauth2callback"
    cookie_secret = "a long random string"
    client_id = "casandra"
    client_secret = "..."
    server_metadata_url = "https://idp.example.org/.well-known/openid-configuration"

    [roles]                      # e-mail -> a role or a list of roles
    "ana@example.org" = "analista"
    "sofia@example.org" = ["supervisor", "steward"]
    default_role = "analista"    # optional: role of any other signed-in account

    [signin]                     # optional
    require_email_verified = true  # false only for a provider that never sends email_verified

E-mails are matched without regard to case. Roles are ``analista``, ``supervisor`` and
``steward``; a supervisor also sees the analyst's pages. Without ``default_role`` an
account that is not listed is refused after signing in. Only the ``email`` claim names an
account, and only when the provider says it is verified (``email_verified: true``): ``sub``
is the provider's opaque id and never gets a role, or anyone who can choose their ``sub``
at some provider could claim a supervisor's address.

Without ``[auth]`` the app runs in **local mode**: user ``local`` with every role and a
banner that says so, and it refuses to serve unless the server listens on 127.0.0.1.

Test seam: only when the environment variable ``CASANDRA_TEST_AUTH=1`` is set,
``st.session_state["_test_user"] = ("ana@x", ["analista"])`` replaces the signed-in user
(AppTest and browser tests use it to simulate roles). Never set it in production.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from typing import Any

import streamlit as st

from ui import markup

ROLES = ("analista", "supervisor", "steward")
ROLE_LABELS = {"analista": "analista", "supervisor": "supervisión", "steward": "administración de datos"}
ANALYSTS = frozenset({"analista", "supervisor"})
SUPERVISORS = frozenset({"supervisor"})
STEWARDS = frozenset({"steward"})
EVERYONE = frozenset(ROLES)

LOCAL_USER = "local"
TEST_AUTH_ENV = "CASANDRA_TEST_AUTH"
TEST_USER_KEY = "_test_user"
LOOPBACK = ("127.0.0.1", "::1", "localhost")

User = tuple[str, tuple[str, ...]]


def _secrets() -> dict[str, Any]:
    """The secrets as a plain dict ({} when there is no secrets file)."""
    try:
        return st.secrets.to_dict()
    except Exception:  # noqa: BLE001 - no secrets file or an unreadable one: no auth configured
        return {}


def auth_config(secrets: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The ``[auth]`` table ({} in local mode)."""
    secrets = _secrets() if secrets is None else secrets
    value = secrets.get("auth")
    return dict(value) if isinstance(value, Mapping) else {}


def local_mode(secrets: Mapping[str, Any] | None = None) -> bool:
    """True when no ``[auth]`` table is configured."""
    return not auth_config(secrets)


def providers(secrets: Mapping[str, Any] | None = None) -> list[str | None]:
    """Provider names for ``st.login``: ``[None]`` for a flat ``[auth]``, else its sub-tables."""
    config = auth_config(secrets)
    if "client_id" in config or "server_metadata_url" in config:
        return [None]
    return sorted(k for k, v in config.items() if isinstance(v, Mapping)) or [None]


def _clean_roles(value: Any) -> tuple[str, ...]:
    items = [value] if isinstance(value, str) else list(value or [])
    wanted = {str(v).strip().lower() for v in items}
    return tuple(r for r in ROLES if r in wanted)


def roles_for(email: str, secrets: Mapping[str, Any] | None = None) -> tuple[str, ...]:
    """The roles of an e-mail from ``[roles]`` (``default_role`` for accounts not listed)."""
    secrets = _secrets() if secrets is None else secrets
    table = secrets.get("roles")
    table = dict(table) if isinstance(table, Mapping) else {}
    by_email = {str(k).strip().lower(): v for k, v in table.items() if k != "default_role"}
    key = (email or "").strip().lower()
    if key and key in by_email:
        return _clean_roles(by_email[key])
    return _clean_roles(table.get("default_role")) if key else ()


def _test_user() -> User | None:
    if os.environ.get(TEST_AUTH_ENV) != "1" or TEST_USER_KEY not in st.session_state:
        return None
    email, roles = st.session_state[TEST_USER_KEY]
    return str(email), _clean_roles(roles)


def require_email_verified(secrets: Mapping[str, Any]) -> bool:
    """Whether sign-in needs ``email_verified: true`` (``[signin] require_email_verified``, default true)."""
    table = secrets.get("signin")
    value = table.get("require_email_verified", True) if isinstance(table, Mapping) else True
    return value is not False and str(value).strip().lower() not in ("false", "0", "no")


def account_problem(claims: Mapping[str, Any], secrets: Mapping[str, Any]) -> str | None:
    """Why a signed-in account gets no role from its claims (None when its e-mail may be used)."""
    email = str(claims.get("email") or "").strip()
    if not email:
        return "su proveedor de identidad no envió un correo electrónico"
    if require_email_verified(secrets) and claims.get("email_verified") is not True:
        return "su proveedor de identidad no confirma que el correo esté verificado"
    return None


def identity(claims: Mapping[str, Any], secrets: Mapping[str, Any]) -> User:
    """``(name shown, roles)`` of a signed-in account: roles only for a verified ``email``, never from ``sub``."""
    shown = str(claims.get("email") or claims.get("sub") or "cuenta sin correo")
    if account_problem(claims, secrets):
        return shown, ()
    return shown, roles_for(shown, secrets)


def _oidc_user(secrets: Mapping[str, Any]) -> User:
    if not st.user.get("is_logged_in", False):
        return "", ()
    return identity(st.user.to_dict(), secrets)


def current_user() -> User:
    """``(email, roles)`` of this session: the test seam, the OIDC user or the local user.

    An OIDC session that has not signed in yet is ``("", ())``.
    """
    seam = _test_user()
    if seam is not None:
        return seam
    secrets = _secrets()
    if local_mode(secrets):
        return LOCAL_USER, ROLES
    return _oidc_user(secrets)


def acting_role(roles: Iterable[str], allowed: Iterable[str]) -> str | None:
    """The role recorded in the audit for an action allowed to ``allowed`` (first in ROLES order)."""
    have, ok = set(roles), set(allowed)
    return next((r for r in ROLES if r in have and r in ok), None)


def _labels(roles: Iterable[str]) -> str:
    return ", ".join(ROLE_LABELS.get(r, r) for r in roles) or "ninguno"


def local_binding_problem() -> str | None:
    """Why local mode must not serve this request (None when the server is loopback-only)."""
    address = st.get_option("server.address")
    if str(address or "") not in LOOPBACK:
        return (
            f"Modo local sin inicio de sesión: el servidor debe escuchar solo en 127.0.0.1 "
            f"(server.address = {address!r}). Use `make run` o configure [auth] en .streamlit/secrets.toml."
        )
    ip = st.context.ip_address
    if isinstance(ip, str) and ip not in LOOPBACK:
        return f"Modo local: solo se atiende a este equipo; la conexión viene de {ip}."
    return None


def _route_through_entrypoint() -> None:
    """Make a page that Streamlit ran without app.py go through sign-in and the role's menu.

    With a ``pages/`` folder next to app.py, the first run of a fresh server process for a
    deep URL (``/auditoria``) executes the page file by itself (the legacy pages-directory
    mode, which lists every file in the menu) until some run calls ``st.navigation``. This
    turns that mode off, as ``st.navigation`` itself does, and reruns so app.py routes the
    request. Under AppTest, which starts every run in that mode, a rerun would drop the
    run's button clicks, so the sign-in part of app.py is shown inline instead.
    """
    try:
        from streamlit.runtime.pages_manager import PagesManager
    except ImportError:  # pragma: no cover - a Streamlit without the legacy mode
        return
    if not getattr(PagesManager, "uses_pages_directory", False):
        return
    PagesManager.uses_pages_directory = False
    from streamlit import (
        config as st_config,  # module lookup: AppTest patches config.get_option
    )

    if st_config.get_option("global.appTest"):
        sign_in()
    else:
        st.rerun()


def require(allowed: Iterable[str]) -> tuple[str, str]:
    """Stop the page with a Spanish message unless the user holds one of ``allowed``.

    Returns ``(email, role)``: pass both to every ``core.api`` call that writes.
    """
    allowed = frozenset(allowed)
    _route_through_entrypoint()
    if local_mode() and _test_user() is None and (problem := local_binding_problem()):
        st.error(problem)
        st.stop()
    email, roles = current_user()
    if not email:
        st.warning("Inicie sesión para continuar.")
        st.stop()
    role = acting_role(roles, allowed)
    if role is None:
        st.error(
            f"Acceso denegado: esta página es solo para {_labels(r for r in ROLES if r in allowed)}. "
            f"Su cuenta ({markup.text(email)}) tiene los roles: {_labels(roles)}."
        )
        st.stop()
    return email, role


def _nothing() -> None:
    """The placeholder page of a session that may open no page."""


def _hide_menu() -> None:
    """An empty, hidden menu for a session that may open no page: without ``st.navigation`` Streamlit's
    pages-folder mode would list every file in pages/. Called before drawing anything, so the widgets
    drawn after it belong to this run's page and a first click is not lost to the menu switch."""
    st.navigation([st.Page(_nothing, title="Casandra", url_path="inicio")], position="hidden")


def _login_screen(secrets: Mapping[str, Any]) -> None:
    _hide_menu()
    st.title("Casandra")
    st.write("Tablero auditado de análisis delictivo para Guanajuato. Inicie sesión con su cuenta institucional.")
    for provider in providers(secrets):
        label = "Iniciar sesión" if provider is None else f"Iniciar sesión con {provider}"
        if st.button(label, type="primary", key=f"login_{provider or 'oidc'}"):
            if provider:
                st.login(provider)
            else:
                st.login()
    st.stop()


def sign_in() -> User:
    """Sign the session in (or stop with the login screen); show who is signed in. For app.py."""
    secrets = _secrets()
    seam = _test_user()
    if local_mode(secrets):
        if seam is None and (problem := local_binding_problem()):
            st.error(problem)
            st.stop()
        st.warning(
            "**Modo local**: sin inicio de sesión, con todos los roles (analista, supervisión, "
            "administración de datos); solo accesible desde este equipo (127.0.0.1). "
            "Configure [auth] en .streamlit/secrets.toml para usar cuentas.",
            icon="⚠️",
        )
        user = seam or (LOCAL_USER, ROLES)
    else:
        user = seam or _oidc_user(secrets)
        if not user[0]:
            _login_screen(secrets)
        if not user[1]:
            _hide_menu()
            problem = None if seam else account_problem(st.user.to_dict(), secrets)
            if problem:
                st.error(
                    f"No se puede asignar un rol a su cuenta ({markup.text(user[0])}): {markup.text(problem)}. "
                    "Pida a la administración que revise el inicio de sesión."
                )
            else:
                st.error(
                    f"Su cuenta ({markup.text(user[0])}) no tiene un rol asignado en Casandra. "
                    "Pida a la administración que la agregue a [roles]."
                )
            if st.button("Cerrar sesión"):
                st.logout()
            st.stop()
    with st.sidebar:
        st.caption(f"Sesión: **{markup.text(user[0])}** · roles: {_labels(user[1])}")  # claims from the provider
        if not local_mode(secrets) and seam is None and st.button("Cerrar sesión", key="logout"):
            st.logout()
    return user
