"""Datos: the current dataset version, its coverage per crime, the yearly series and the sources."""

import streamlit as st

from core import api
from core.errors import CasandraError
from ui import auth, markup, session, spanish
from ui.datasets import (
    annual_frame,
    availability,
    coverage_figure,
    coverage_frame,
    row_counts_frame,
    sources_frame,
)
from ui.feedback import show_error

auth.require(auth.EVERYONE)
st.title("Datos")
try:
    info = api.dataset_info(session.settings())
except CasandraError as exc:
    show_error(exc, warning=True)
    st.stop()

st.caption(
    f"Versión {markup.text(info['dataset_version'])} · datos hasta {markup.text(info['data_available_until'])} · "
    f"actualizada {markup.text(info['updated_at'])}"
)
c1, c2, c3 = st.columns(3)
c1.metric("Desde", info["min_date"])
c2.metric("Datos hasta", info["data_available_until"])
c3.metric("Celdas mensuales", f"{info['row_counts'].get('incidents', 0):,}")
with st.expander("Filas por tabla"):
    st.dataframe(row_counts_frame(info["row_counts"]), hide_index=True, width="stretch")

st.subheader("Qué datos hay")
st.caption(
    "Cada fila es un delito (tipo → subtipo) y cada columna un nivel. La celda dice con qué detalle se publica, "
    "en cuántos lugares y del primer al último mes publicado; «—»: no hay datos; «solo estatal»: el delito no se "
    "publica por municipio en los datos cargados. Carpetas, víctimas, fuero federal y RNID 2026 nunca se suman."
)
settings = session.settings()
matrix = availability(settings, str(settings.data_dir), info["dataset_version"])
c1, c2 = st.columns([2, 1])
text = c1.text_input("Buscar delito", key="datos_delito", placeholder="robo, homicidio doloso, narcomenudeo…")
level = c2.selectbox("Nivel", ["Todos los niveles", *matrix.levels], key="datos_nivel")
frame = matrix.matrix(text, None if level == "Todos los niveles" else level)
st.dataframe(frame, hide_index=True, width="stretch", key="datos_matriz")
st.caption(f"{len(frame)} delitos.")

st.subheader("Cobertura por delito")
st.caption("Cada barra es el periodo publicado de un delito; fuera de ella no hay dato (no es cero).")
if info["coverage"]:
    st.plotly_chart(coverage_figure(info["coverage"]), width="stretch", config=spanish.PLOTLY_CONFIG)
    with st.expander("Tabla de cobertura"):
        st.dataframe(coverage_frame(info["coverage"]), hide_index=True, width="stretch")
else:
    st.info("La versión no tiene series de delitos.")

st.subheader("Serie anual (total de delitos)")
annual, notes = annual_frame(info.get("annual_series", {}))
if annual.empty:
    st.info("Esta versión no incluye la serie anual del total de delitos.")
else:
    st.caption(markup.text(info["annual_series"]["total_delitos"].get("nota", "")))
    for note in notes:
        st.info(markup.text(note))  # the methodology names come from the uploaded file
    st.dataframe(annual, hide_index=True, width="stretch")

st.subheader("Fuentes")
st.caption("Archivos cargados con su procedencia y huella sha256.")
st.dataframe(sources_frame(info["sources"]), hide_index=True, width="stretch")
