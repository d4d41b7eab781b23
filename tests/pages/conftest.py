"""AppTest fixtures for the pages: a writable copy of the bundled store and an app factory.

Roles are simulated through the test seam of ``ui.auth``: with ``CASANDRA_TEST_AUTH=1``
set, ``st.session_state["_test_user"] = (email, roles)`` is the signed-in user.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from core.config import Settings, load_settings
from tests.markdown_check import unescape

ROOT = Path(__file__).resolve().parents[2]
SHARED_STATE = shutil.ignore_patterns("audit", "keys", "artifacts", "settings.json")  # keys: the audit log's seal
NO_AUTH = {"casandra_tests": {"local": True}}  # non-empty secrets: never read a developer's secrets.toml


@pytest.fixture
def data_copy(bundled_settings, tmp_path) -> Settings:
    """A private, writable copy of the bundled store only: no audit log, artifacts or settings
    (other tests write those into the shared folder); uploads, rollbacks and audit stay here."""
    shutil.copytree(bundled_settings.data_dir, tmp_path / "data", ignore=SHARED_STATE)
    return load_settings(tmp_path / "data")


@pytest.fixture
def make_app(monkeypatch):
    """``make_app(settings, roles=None, email=..., script="app.py", secrets=None, user=None) -> AppTest``.

    ``roles`` (a list) signs in through the test seam; ``secrets`` replaces st.secrets (local
    mode by default); ``user`` seeds ``st.user`` for OIDC tests.
    """
    monkeypatch.setenv("CASANDRA_TEST_AUTH", "1")

    def make(
        settings: Settings,
        roles=None,
        email: str = "ana@example.org",
        script: str = "app.py",
        secrets: dict | None = None,
        user: dict | None = None,
    ) -> AppTest:
        monkeypatch.setenv("CASANDRA_DATA_DIR", str(settings.data_dir))
        at = AppTest.from_file(str(ROOT / script), default_timeout=60)
        at.secrets = dict(secrets or NO_AUTH)
        if roles is not None:
            at.session_state["_test_user"] = (email, list(roles))
        if user is not None:
            at.user = dict(user)
        return at

    return make


@pytest.fixture
def no_llm(monkeypatch, tmp_path) -> None:
    """No LLM configured (no key, endpoint, model or secrets file): the chat plans with the rules."""
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "CASANDRA_LLM_MODEL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr("core.config.SECRETS_FILE", tmp_path / "no-secrets.toml")


@pytest.fixture
def consultar(data_copy, make_app, no_llm):
    """``consultar(email=..., params=None) -> AppTest``: a Consultar session over one data copy, signed in as an
    analyst and run once (a new one is a reload or a new browser tab); ``consultar.settings`` is the copy."""

    def open_page(email: str = "ana@example.org", params: dict | None = None) -> AppTest:
        at = make_app(data_copy, roles=["analista"], email=email, script="pages/consultar.py")
        at.default_timeout = 120
        for key, value in (params or {}).items():
            at.query_params[key] = value
        at.run()
        assert not at.exception, at.exception
        return at

    open_page.settings = data_copy
    return open_page


def ask(at: AppTest, question: str) -> AppTest:
    """Type a question in Consultar's chat box and run the page."""
    at.chat_input(key="chat").set_value(question).run()
    assert not at.exception, at.exception
    return at


def texts(elements) -> str:
    """Every value of an element list joined, as it reads on screen (``ui.markup``'s escapes undone)."""
    return unescape("\n".join(str(e.value) for e in elements))
