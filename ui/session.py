"""Per-process resources for the pages: the settings, one store and one assistant.

``settings()`` is cheap and honours ``CASANDRA_DATA_DIR`` on every call; the store and
the assistant are built once per process and data folder with ``st.cache_resource``
(Streamlit sessions are threads of one process). Per-session state lives in
``st.session_state`` under keys owned by each page.
"""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING

import streamlit as st

from core.config import Settings, load_settings

if TYPE_CHECKING:  # imported lazily: the app must start even if the assistant cannot
    from core.ask.context import Assistant
    from core.dataset.store import Store


def settings() -> Settings:
    """The process settings (``load_settings()``: env ``CASANDRA_DATA_DIR`` and limits)."""
    return load_settings()


@st.cache_resource(show_spinner=False)
def _store(data_dir: str) -> Store:
    from core.dataset.store import get_store

    return get_store(load_settings(data_dir))


def store() -> Store:
    """The read-only store of the current data folder, following CURRENT."""
    current = _store(str(settings().data_dir))
    current.refresh()
    return current


@st.cache_resource(show_spinner="Preparando el asistente…")
def _assistant(data_dir: str) -> Assistant:
    from core.ask.context import Assistant

    shared = Assistant(settings=load_settings(data_dir))
    try:
        _ = shared.lexicon  # warm the lexicon once so per-user copies share it
    except Exception:  # noqa: BLE001 - an empty store has no lexicon yet; built on first use
        pass
    return shared


def assistant(user: str | None = None, role: str | None = None) -> Assistant:
    """The process-wide Assistant; with ``user``/``role``, a shallow per-call copy that audits as them.

    The shared instance audits as ``local``/``analista``: pages that ask questions should
    pass ``ui.auth.require(...)``'s ``(email, role)``. Import errors surface here, not at
    app start.
    """
    shared = _assistant(str(settings().data_dir))
    if user is None and role is None:
        return shared
    mine = copy.copy(shared)  # shares store, caches and lexicon; only user/role differ
    mine.user = user or shared.user
    mine.role = role or shared.role
    return mine
