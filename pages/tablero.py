"""Tablero: the answers this person pinned in Consultar or Explorar, each re-run on the current data version
beside what it said when pinned; exported as CSV and as a printable page."""

import streamlit as st

from ui import board as tiles_ui
from ui.auth import ANALYSTS, require
from ui.session import assistant

email, role = require(ANALYSTS)
engine = assistant(email, role)
st.title("Tablero")
if engine.metadata is None:
    st.warning("No hay datos publicados todavía: las tarjetas no se pueden volver a calcular.")
    st.stop()

tiles = tiles_ui.board().tiles(email)
if not tiles:
    st.info("Aún no hay tarjetas. Fije una respuesta con «Fijar en tablero» en «Consultar» o en «Explorar».")
    st.stop()

st.caption(
    f"{len(tiles)} tarjeta{'s' if len(tiles) != 1 else ''}. Cada una se vuelve a calcular con la versión de datos actual "
    f"({engine.store.dataset_version}) y se muestra junto a lo que decía al fijarla."
)
readings = tiles_ui.readings(tiles, engine, email, role)
tiles_ui.exports(readings, email)
st.button("Volver a calcular", key="tablero_recalcular", on_click=tiles_ui.forget_readings)
for i, r in enumerate(readings):
    tiles_ui.draw_tile(r, email, place=(i, len(readings)))
