"""Consultar's conversations that last: the URL names the conversation, turns are kept per user, the
sidebar lists the history, and a permalink (``?plan=<query_hash>``) re-runs a saved answer.

The conversation id travels in ``st.query_params["c"]``, so a reload (a new Streamlit session) finds the
conversation in the workspace (``core.workspace``) and draws it again; a follow-up after the reload
continues it. The store is per user: someone else's id opens a new conversation instead.
"""

from __future__ import annotations

import sqlite3
from typing import Any

import streamlit as st

from core.workspace import permalink
from core.workspace.conversations import Conversations, is_id, new_id
from core.workspace.restore import restore_conversation
from ui import markup
from ui.render import render_envelope
from ui.session import settings

PARAM = "c"  # the conversation id in the URL
ID_KEY = "conversation_id"
HISTORY_SHOWN = 20


def store() -> Conversations:
    """The conversations of the current data folder's workspace."""
    return Conversations.for_settings(settings())


def _start(conversation, conversation_id: str) -> None:
    """Make ``conversation`` the session's current one, under ``conversation_id``."""
    state = st.session_state
    state["conversation"] = conversation
    state["turns"] = conversation.turns
    state["evidence_rows"] = {}
    state["opened_turns"] = set()
    state[ID_KEY] = conversation_id


def start_new() -> None:
    """A new, empty conversation (saved on its first turn) and its id in the URL."""
    from core.ask.pipeline import Conversation

    _start(Conversation(), new_id())
    st.query_params[PARAM] = st.session_state[ID_KEY]


def open_conversation(engine: Any, user: str, conversation_id: str) -> bool:
    """Load the user's stored conversation into the session (False when it is not theirs)."""
    turns = store().turns(user, conversation_id)
    if not turns:
        return False
    _start(restore_conversation(turns, engine), conversation_id)
    st.query_params[PARAM] = conversation_id
    return True


def sync(engine: Any, user: str) -> None:
    """Make the session's conversation the one the URL names: a reload restores it; no id gets a new one."""
    state = st.session_state
    wanted = st.query_params.get(PARAM)
    if is_id(wanted) and wanted != state.get(ID_KEY):
        owner = store().owner(wanted)
        if owner == user:
            open_conversation(engine, user, wanted)
        elif owner is None:  # a conversation with no turn yet (reloaded before the first answer)
            start_new()
            state[ID_KEY] = wanted
        else:
            st.warning("Esa conversación pertenece a otra persona; empiezo una nueva.")
            start_new()
    elif state.get(ID_KEY) is None:
        if state.get("conversation") is not None and state["conversation"].turns:
            state[ID_KEY] = new_id()  # a conversation begun before this page kept ids
        else:
            start_new()
    if st.query_params.get(PARAM) != state[ID_KEY]:
        st.query_params[PARAM] = state[ID_KEY]


def save(user: str, turn: Any) -> None:
    """Keep the turn in the user's current conversation (a failed write is said, the chat goes on)."""
    try:
        store().add_turn(user, st.session_state[ID_KEY], turn.as_dict())
    except (sqlite3.Error, OSError) as exc:
        st.toast(f"No se pudo guardar la conversación ({markup.text(type(exc).__name__)}).")


def sidebar(engine: Any, user: str) -> None:
    """«Nueva conversación» and the user's past conversations, the most recent first."""
    current = st.session_state.get(ID_KEY)
    st.button("Nueva conversación", key="new_conversation", on_click=start_new)
    past = store().history(user, limit=HISTORY_SHOWN)
    if not past:
        return
    st.markdown("**Conversaciones**")
    for item in past:
        st.button(
            markup.text(item.title),
            key=f"history_{item.id}",
            help=f"{item.turns} pregunta{'s' if item.turns != 1 else ''} · última el {item.updated_at[:10]}",
            disabled=item.id == current,
            on_click=open_conversation,
            args=(engine, user, item.id),
            width="stretch",
        )


def permalink_of(turn: Any) -> str | None:
    """The relative URL of a turn's answer (None when it ran no valid plan)."""
    validation = turn.validation or {}
    return permalink.link(validation["query_hash"]) if validation.get("ok") and validation.get("query_hash") else None


def show_permalink(query_hash: str, user: str, role: str, geo=None) -> None:
    """A shared answer: its plan re-run (validated, audited) once per session, with the data-version note."""
    runs = st.session_state.setdefault("permalinks", {})
    if query_hash not in runs:
        runs[query_hash] = permalink.rerun(query_hash, settings=settings(), user=user, role=role)
    rerun = runs[query_hash]
    with st.container(border=True):
        st.subheader("Respuesta guardada")
        if rerun is None:
            st.warning("No encontré la respuesta de este enlace: el plan no se ha respondido aquí.")
        else:
            st.markdown(f"**Pregunta:** {markup.text(rerun.stored.question)}")
            (st.warning if rerun.changed else st.info)(markup.text(rerun.note()))
            for i, envelope in enumerate(rerun.execution.envelopes):
                render_envelope(envelope, f"permalink_{i}", rerun.execution.envelopes, geo)
            st.caption(f"query_hash {markup.code(rerun.query_hash)}")
        if st.button("Cerrar", key="close_permalink"):
            del st.query_params[permalink.QUERY_PARAM]
            st.rerun()
