"""Consultar: the chat. Each question runs the pipeline stage by stage inside st.status; every
answer shows its chart, table, evidence and provenance with the «Plan de consulta» beside it.

Earlier turns draw light (text and a small table; «Ver gráfica y detalles» opens one), so turn 20 draws as fast
as turn 1. The conversation lasts (``ui.history``): the URL names it, a reload restores it, the sidebar lists
the user's past ones, and each answer has a permalink that re-runs its plan."""

import streamlit as st

from core.ask import examples
from core.ask.pipeline import Conversation
from core.workspace import permalink
from ui import chat, history, markup
from ui.auth import ANALYSTS, require
from ui.maps import geo_for
from ui.session import assistant
from ui.turns import TurnView

email, role = require(ANALYSTS)
engine = assistant(email, role)  # audits each turn as this user
geo = geo_for(engine)
view = TurnView(engine, geo, email, role)
state = st.session_state
state.setdefault("conversation", Conversation())
state.setdefault("turns", state["conversation"].turns)
state.setdefault("stage_log", {})
state.setdefault("opened_turns", set())
history.sync(engine, email)  # the URL's conversation: a reload restores it

st.title("Consultar")
if engine.metadata is None:
    st.warning("No hay datos publicados todavía: un responsable de datos debe cargarlos en «Carga de datos».")
with st.sidebar:
    hint = st.selectbox(
        "Dominio", chat.DOMAIN_HINTS, key="domain_hint", format_func=lambda d: "automático" if d == "auto" else d
    )
    planner = st.radio(
        "Planificador",
        chat.planner_options(engine.llm_config),
        key="planner",
        format_func=chat.PLANNERS.get,
        horizontal=True,
    )
shared = st.query_params.get(permalink.QUERY_PARAM)
if shared:
    history.show_permalink(shared, email, role, geo)

earlier = list(state["turns"])
# While a new question runs, every earlier turn draws light: the asking run draws the new one whole (ui.turns).
arriving = state.get("chat") or state.get("pending_question")
asking = bool(arriving) and not chat.question_problem(arriving)
for n, past in enumerate(earlier):
    view.show(past, latest=n == len(earlier) - 1 and not asking)

if not (earlier or asking):  # the first screen: what is loaded and questions that work on it (core.ask.examples)
    st.caption(examples.coverage_line(engine.metadata, engine.catalog))
    for i, example in enumerate(examples.example_questions(engine.store, engine.catalog, engine.metadata)):
        st.button(
            markup.text(example),  # crime labels come from uploads: drawn as text
            key=f"example_{i}",
            icon=":material/chat:",
            on_click=state.__setitem__,
            args=("pending_question", example),
        )
question = st.chat_input(chat.PROMPT, key="chat", max_chars=chat.MAX_QUESTION)
question = question or state.pop("pending_question", None)
if chat.question_problem(question):  # empty or too long: say so, send nothing
    st.warning(chat.question_problem(question))
    question = None
if question:
    view.ask(question, hint=hint, planner=planner)
with st.sidebar:  # after the question: the history lists the conversation it just saved
    history.sidebar(engine, email)
