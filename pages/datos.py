"""Datos: the current dataset version, its coverage per crime and its sources."""
import pandas as pd
import streamlit as st

from core.errors import CasandraError
from core.store import get_store

st.title("Datos")
store = get_store()
try:
    meta = store.metadata()
except CasandraError as exc:
    st.warning(exc.details)
    for hint in exc.hints:
        st.caption(hint)
    st.stop()

st.caption(f"Versión {meta['dataset_version']} · datos hasta {meta['data_available_until']} · actualizada {meta['updated_at']}")
c1, c2, c3 = st.columns(3)
c1.metric("Desde", meta["min_date"])
c2.metric("Hasta", meta["max_date"])
c3.metric("Celdas mensuales", f"{meta['row_counts']['incidents']:,}")

st.subheader("Cobertura por delito")
coverage = pd.DataFrame(
    [{"delito": k, "nombre": v["label"], "granularidad": "mensual" if v["granularity"] == "month" else "anual",
      "desde": v["desde"], "hasta": v["hasta"]} for k, v in meta["coverage"].items()]
)
st.dataframe(coverage, hide_index=True, width="stretch")

st.subheader("Fuentes")
sources = pd.DataFrame(meta["sources"])[["archivo", "formato", "codificacion", "sha256", "cargado_en", "procedencia"]]
st.dataframe(sources, hide_index=True, width="stretch")
