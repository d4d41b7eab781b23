"""Catálogo: every tool with its contract and an example plan, entities, crimes, methods and domains."""

import json

import streamlit as st

from core import api
from core.errors import CasandraError
from ui import auth, session
from ui.catalog_view import (
    STATUS,
    crimes_frame,
    domains_frame,
    entities_frame,
    example_plan,
    filter_tools,
    methods_frame,
    requires_text,
)
from ui.feedback import show_error

auth.require(auth.EVERYONE)
st.title("Catálogo")
settings = session.settings()
try:
    catalog = api.catalog(settings)
except CasandraError as exc:
    show_error(exc)
    st.stop()

st.caption(
    f"Catálogo {catalog['catalog_version']} · checksum `{catalog['checksum']}` · "
    f"datos {catalog['dataset_version'] or 'sin publicar'} · generado {catalog['generated_at']}"
)
if not catalog["dataset_version"]:
    st.info(
        "No hay datos publicados: las herramientas se listan, pero entidades y delitos aparecerán tras la primera carga."
    )
max_date = api.metadata(settings)["max_date"] if catalog["dataset_version"] else None

query = st.text_input(
    "Buscar",
    placeholder="herramienta, entidad, delito o modalidad (p. ej. «rank», «León», «robo»)",
    key="catalogo_buscar",
)
tools = filter_tools(catalog["tools"], query)
entities = entities_frame(catalog["entities"], query)
crimes = crimes_frame(catalog["taxonomy"]["delitos"], query)
methods = methods_frame(catalog["taxonomy"]["metodos"], query)
domains = domains_frame(query)

tab_tools, tab_entities, tab_crimes, tab_methods, tab_domains = st.tabs(
    [
        f"Herramientas ({len(tools)})",
        f"Entidades ({len(entities)})",
        f"Delitos ({len(crimes)})",
        f"Modalidades ({len(methods)})",
        f"Dominios ({len(domains)})",
    ]
)

with tab_tools:
    if not tools:
        st.info("Ninguna herramienta coincide con la búsqueda.")
    for tool in tools:
        title = (
            f"{tool['tool_id']:02d} · {tool['name']} @{tool['version']} — {STATUS.get(tool['status'], tool['status'])}"
        )
        with st.expander(title):
            st.write(tool["summary"])
            st.markdown(
                f"**Tipo:** {tool['kind']} · **Requiere:** {requires_text(tool['requires'])} · "
                f"**Determinista:** {'sí' if tool['deterministic'] else 'no'}"
            )
            st.markdown("**Ejemplo de plan**")
            st.code(
                json.dumps(example_plan(tool, catalog["tools"], max_date), ensure_ascii=False, indent=2),
                language="json",
            )
            st.markdown("**Argumentos (JSON Schema)**")
            st.json(tool["args_schema"], expanded=False)
            st.markdown("**Contrato de salida**")
            st.json(tool["output_contract"], expanded=False)

with tab_entities:
    st.dataframe(entities, hide_index=True, width="stretch")
with tab_crimes:
    st.caption("`en_datos` indica si la versión vigente tiene cifras de ese delito.")
    st.dataframe(crimes, hide_index=True, width="stretch")
with tab_methods:
    st.dataframe(methods, hide_index=True, width="stretch")
with tab_domains:
    st.caption("Dominios de análisis que el enrutador asigna a cada pregunta; «lab» solo con aprobación.")
    st.dataframe(domains, hide_index=True, width="stretch")
