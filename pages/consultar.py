"""Consultar: the chat. Each question runs the pipeline stage by stage inside st.status; every
answer shows its chart, table, evidence and provenance with the «Plan de consulta» beside it.

Earlier turns draw light (text and a small table; «Ver gráfica y detalles» opens one), so turn 20 draws as fast
as turn 1. The conversation lasts (``ui.history``): the URL names it, a reload restores it, the sidebar lists
the user's past ones, and each answer has a permalink that re-runs its plan."""

import streamlit as st

from core.ask import examples
from core.ask.pipeline import Conversation
from core.workspace import permalink
from ui import board, chat, history, markup
from ui.auth import ANALYSTS, require
from ui.maps import geo_for
from ui.plan_view import files_of, render_plan_details
from ui.render import open_in_editor, render_answer
from ui.session import assistant, settings

email, role = require(ANALYSTS)
engine = assistant(email, role)  # audits each turn as this user
geo = geo_for(engine)
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
    history.sidebar(engine, email)
shared = st.query_params.get(permalink.QUERY_PARAM)
if shared:
    history.show_permalink(shared, email, role, geo)


def ask_option(turn):
    """A clarifying option sends the completed question on the next run."""
    return lambda option: state.__setitem__("pending_question", chat.completed_question(turn, option))


def other_crime(turn) -> None:
    """«Otro delito»: every other crime the clarification allows, beyond its buttons (``chat.other_options``)."""
    others = chat.other_options(turn, engine.catalog)
    if others:
        key = f"{turn.job_id}_other"
        st.selectbox(
            "Otro delito",
            others,
            index=None,
            placeholder="Elija otro delito…",
            key=key,
            on_change=lambda: state.get(key) and ask_option(turn)(state[key]),
        )


def show_light(turn) -> None:
    """An earlier turn, drawn light: its text, a small table and a button that opens the whole answer."""
    render_answer(turn, turn.job_id, on_option=ask_option(turn), light=True)
    link = history.permalink_of(turn)
    with st.container(horizontal=True):
        st.button(
            "Ver gráfica y detalles", key=f"{turn.job_id}_open", on_click=state["opened_turns"].add, args=(turn.job_id,)
        )
        if link:
            st.markdown(f"[Enlace permanente]({link})")


def show_turn(turn, latest: bool) -> None:
    """Draw one past turn: the question, then the answer with its plan panel (light unless latest or opened)."""
    with st.chat_message("user"):
        st.markdown(markup.text(turn.question))
    with st.chat_message("assistant"):
        if not (latest or turn.job_id in state["opened_turns"]):
            show_light(turn)
            return
        log = state["stage_log"].get(turn.job_id)
        if log and latest:
            with st.status(f"Listo en {turn.timings_ms.get('total', 0):,.0f} ms", state="complete"):
                st.markdown("  \n".join(log))
        left, right = st.columns([3, 2])
        with left:
            render_answer(
                turn,
                turn.job_id,
                on_option=ask_option(turn),
                geo=geo,
                load_evidence=lambda t, limit=chat.EVIDENCE_LIMIT: chat.evidence_envelope(
                    t, settings(), email, role, limit
                ),
            )
            other_crime(turn)
            board.pin_button(turn, email, key=turn.job_id, origin="consultar")
            link = history.permalink_of(turn)
            if link:
                st.markdown(f"[Enlace permanente]({link})")
        with right, st.expander("Plan de consulta", expanded=latest):
            render_plan_details(turn, engine.catalog, files=files_of(engine.store, turn), beside_answer=True)
            if turn.plan and st.button("Editar este plan", key=f"{turn.job_id}_edit"):
                open_in_editor(turn.plan)


earlier = list(state["turns"])
# While a new question runs, every earlier turn draws light: the rerun after it draws the new one whole.
arriving = state.get("chat") or state.get("pending_question")
asking = bool(arriving) and not chat.question_problem(arriving)
for n, past in enumerate(earlier):
    show_turn(past, latest=n == len(earlier) - 1 and not asking)

if not earlier:  # the first screen: what is loaded and questions that work on it (core.ask.examples)
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
    with st.chat_message("user"):
        st.markdown(markup.text(question))
    with st.chat_message("assistant"):
        log: list[str] = []
        failure = None
        with st.status("Entendiendo la pregunta…", expanded=True) as status:

            def on_stage(name, phase, ms):
                """Show each stage's progress inside the status box."""
                if phase == "start":
                    status.update(label=f"{chat.STAGE_LABELS[name]}…")
                else:
                    log.append(f"✓ {chat.STAGE_LABELS[name]} — {ms:,.1f} ms")
                    st.markdown(log[-1])

            try:
                turn = engine.ask(question, state["conversation"], domain_hint=hint, planner=planner, on_stage=on_stage)
            except Exception as exc:  # noqa: BLE001 — the engine failed: say so, keep the conversation usable
                failure = exc
                status.update(label="No pude responder", state="error", expanded=False)
            else:
                status.update(label=f"Listo en {turn.timings_ms['total']:,.0f} ms", state="complete", expanded=False)
        if failure is not None:
            st.error(
                f"Ocurrió un error al procesar la pregunta ({markup.text(f'{type(failure).__name__}: {failure}')}). "
                "La conversación sigue disponible; intenta reformularla."
            )
            st.stop()
    state["stage_log"][turn.job_id] = log
    history.save(email, turn)
    st.rerun()
