"""Consultar's turns on screen: an earlier turn drawn light, the latest (or an opened one) whole with its plan panel,
and a new question asked with its stages shown live and its answer drawn whole in the run that asked it.

One run per question: the page used to ``st.rerun()`` after an answer to draw it in the conversation's loop, so
every question ran the page twice and the second run drew every earlier turn again (issue 15 §2). The asking run
now draws the new answer in place, with the same widget keys the next run's loop gives it, and saves the turn
(``ui.history``); the URL's ``?c=`` already names the conversation before the question is asked.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import streamlit as st

from ui import board, chat, history, markup
from ui.plan_view import files_of, render_plan_details
from ui.render import open_in_editor, render_answer
from ui.session import settings


@dataclass(frozen=True)
class TurnView:
    """How Consultar draws and asks turns for one signed-in person (their engine, map shapes, e-mail and role)."""

    engine: Any
    geo: Any
    email: str
    role: str

    def ask_option(self, turn):
        """A clarifying option sends the completed question on the next run."""
        return lambda option: st.session_state.__setitem__("pending_question", chat.completed_question(turn, option))

    def other_crime(self, turn) -> None:
        """«Otro delito»: every other crime the clarification allows, beyond its buttons (``chat.other_options``)."""
        others = chat.other_options(turn, self.engine.catalog)
        if others:
            key = f"{turn.job_id}_other"
            state = st.session_state
            st.selectbox(
                "Otro delito",
                others,
                index=None,
                placeholder="Elija otro delito…",
                key=key,
                on_change=lambda: state.get(key) and self.ask_option(turn)(state[key]),
            )

    def light(self, turn) -> None:
        """An earlier turn, drawn light: its text, a small table and a button that opens the whole answer."""
        render_answer(turn, turn.job_id, on_option=self.ask_option(turn), light=True)
        link = history.permalink_of(turn)
        with st.container(horizontal=True):
            st.button(
                "Ver gráfica y detalles",
                key=f"{turn.job_id}_open",
                on_click=st.session_state["opened_turns"].add,
                args=(turn.job_id,),
            )
            if link:
                st.markdown(f"[Enlace permanente]({link})")

    def whole(self, turn, latest: bool) -> None:
        """A turn's whole answer (chart, table, evidence, pin, permalink) with its «Plan de consulta» beside it."""
        left, right = st.columns([3, 2])
        with left:
            render_answer(
                turn,
                turn.job_id,
                on_option=self.ask_option(turn),
                geo=self.geo,
                load_evidence=lambda t, limit=chat.EVIDENCE_LIMIT: chat.evidence_envelope(
                    t, settings(), self.email, self.role, limit
                ),
            )
            self.other_crime(turn)
            board.pin_button(turn, self.email, key=turn.job_id, origin="consultar")
            link = history.permalink_of(turn)
            if link:
                st.markdown(f"[Enlace permanente]({link})")
        with right, st.expander("Plan de consulta", expanded=latest):
            render_plan_details(turn, self.engine.catalog, files=files_of(self.engine.store, turn), beside_answer=True)
            if turn.plan and st.button("Editar este plan", key=f"{turn.job_id}_edit"):
                open_in_editor(turn.plan)

    def show(self, turn, latest: bool) -> None:
        """Draw one past turn: the question, then the answer (light unless latest or opened)."""
        with st.chat_message("user"):
            st.markdown(markup.text(turn.question))
        with st.chat_message("assistant"):
            if not (latest or turn.job_id in st.session_state["opened_turns"]):
                self.light(turn)
                return
            log = st.session_state["stage_log"].get(turn.job_id)
            if log and latest:
                with st.status(f"Listo en {turn.timings_ms.get('total', 0):,.0f} ms", state="complete"):
                    st.markdown("  \n".join(log))
            self.whole(turn, latest)

    def ask(self, question: str, *, hint: str, planner: str) -> None:
        """Run a new question stage by stage inside st.status, draw its answer whole and keep it in the history."""
        state = st.session_state
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
                    turn = self.engine.ask(
                        question, state["conversation"], domain_hint=hint, planner=planner, on_stage=on_stage
                    )
                except Exception as exc:  # noqa: BLE001 — the engine failed: say so, keep the conversation usable
                    failure = exc
                    status.update(label="No pude responder", state="error", expanded=False)
                else:
                    label = f"Listo en {turn.timings_ms['total']:,.0f} ms"
                    status.update(label=label, state="complete", expanded=False)
            if failure is not None:
                st.error(
                    f"Ocurrió un error al procesar la pregunta ({markup.text(f'{type(failure).__name__}: {failure}')})."
                    " La conversación sigue disponible; intenta reformularla."
                )
                return
            state["stage_log"][turn.job_id] = log
            history.save(self.email, turn)
            self.whole(turn, latest=True)
