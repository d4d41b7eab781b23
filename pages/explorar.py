"""Explorar: slicers instead of a question. The selection builds the chat's own plan (``core.explore``), run
through the audited Plan API; the answer and its «Plan de consulta» are drawn like the chat's; the URL keeps
the selection, so a reload or a shared link shows the same thing."""

import streamlit as st

from core.explore import plan as explore
from core.explore.selection import to_params
from ui import board, explorer, markup
from ui.auth import ANALYSTS, require
from ui.maps import geo_for
from ui.plan_view import files_of, render_plan_details
from ui.render import open_in_editor, render_answer
from ui.session import assistant, settings

email, role = require(ANALYSTS)
engine = assistant(email, role)
st.title("Explorar")
if engine.metadata is None:
    st.warning("No hay datos publicados todavía: un responsable de datos debe cargarlos en «Carga de datos».")
    st.stop()
st.caption("Elija delito, lugar, periodo, medida y forma; la dirección de la página guarda la selección.")

options = explorer.options_for(engine)
current, notes = explorer.selection(options)
explorer.draw_slicers(options, current)
explorer.write_url(current)
for note in notes:
    st.info(markup.text(note))

turn = explorer.answer_for(
    current,
    options,
    engine,
    lambda chosen: explore.run(chosen, options, engine.catalog, settings=settings(), user=email, role=role),
)
st.subheader(markup.text(turn.question))
left, right = st.columns([3, 2])
with left:
    render_answer(turn, "explorar", geo=geo_for(engine))
    board.pin_button(turn, email, key="explorar", origin="explorar", link=board.explorer_link(to_params(current)))
with right, st.expander("Plan de consulta", expanded=True):
    render_plan_details(turn, engine.catalog, files=files_of(engine.store, turn), beside_answer=True, key="explorar")
    if turn.plan and st.button("Editar este plan", key="explorar_edit"):
        open_in_editor(turn.plan)
