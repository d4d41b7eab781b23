"""Editor de plan: edit a tool plan as a form or as text/JSON, validated on every change, diffed
against the original, and run through the audited Plan API with both plans' hashes. Whatever is typed,
the page shows Spanish problems, never a traceback."""

import logging

import streamlit as st

from core.api import execution
from ui import markup
from ui import plan_form as pf
from ui.auth import ANALYSTS, require
from ui.maps import geo_for
from ui.plan_form_view import draw_form
from ui.render import render_envelopes, render_problems
from ui.session import assistant, settings

email, role = require(ANALYSTS)
engine = assistant()
catalog, metadata = engine.catalog, engine.metadata
state = st.session_state
turns = list(state.get("turns") or [])

incoming = state.pop("plan_to_edit", None)
if incoming is not None:
    pf.load_into(state, incoming, catalog, metadata, "plan elegido")
elif "editor_steps" not in state:
    pf.load_into(state, pf.last_plan(turns), catalog, metadata, "última respuesta" if pf.last_plan(turns) else "cero")

st.title("Editor de plan")
if metadata is None:
    st.warning("No hay datos publicados todavía: los planes no se pueden validar ni ejecutar.")
left, mid, _ = st.columns([3, 2, 4])
left.button(
    "Cargar el plan de la última respuesta",
    key="ed_load_last",
    disabled=pf.last_plan(turns) is None,
    on_click=pf.load_into,
    args=(state, pf.last_plan(turns), catalog, metadata, "última respuesta"),
)
mid.button("Empezar desde cero", key="ed_scratch", on_click=pf.load_into, args=(state, None, catalog, metadata, "cero"))
st.caption(
    f"Origen: {state['editor_source']}"
    + (f" · query_hash original `{state['editor_original_hash']}`" if state.get("editor_original_hash") else "")
)

st.radio(
    "Editar como",
    ["form", "text"],
    key="editor_mode",
    horizontal=True,
    format_func={"form": "Formulario", "text": "Texto / JSON"}.get,
    on_change=pf.switch_mode,
    args=(state, catalog),
)
if state.get("editor_notice"):
    st.info(markup.text(state["editor_notice"]))
if state["editor_mode"] == "form":
    raw = draw_form(state, catalog, pf.option_labels(catalog))
else:
    raw = st.text_area("Plan (texto `[6,9]` + `clave: valor`, o JSON)", key="editor_text", height=240)

check = pf.check_plan(raw, catalog, metadata)
if check.ok:
    st.success(f"Plan válido · query_hash {markup.code(check.query_hash)}")
    for warning in check.warnings:
        st.caption(markup.text(warning))
else:
    st.markdown(f"**{len(check.problems)} problema{'s' if len(check.problems) != 1 else ''} de validación**")
    render_problems(check.problems)

with st.expander("Diferencias con el plan original", expanded=False):
    diff = pf.plan_diff(state.get("editor_original"), check.canonical)
    st.code(diff or "Sin cambios.", language="diff")

if st.button("Ejecutar plan", key="ed_run", type="primary", disabled=not check.ok):
    try:
        result = execution(
            raw,
            settings=settings(),
            user=email,
            role=role,
            kind="plan_edit",
            audit_extra={
                "original_query_hash": state.get("editor_original_hash"),
                "edited_query_hash": check.query_hash,
                "original_plan": state.get("editor_original"),
            },
        )
    except Exception:  # the engine answers every plan with envelopes; this is the page's net, never a traceback
        logging.getLogger(__name__).exception("plan run failed unexpectedly")
        st.error("No se pudo ejecutar el plan por un error interno. Inténtelo de nuevo; si persiste, avise al equipo.")
    else:
        state["editor_result"] = {
            "envelopes": result.envelopes,
            "status": result.status,
            "query_hash": result.validated.query_hash if result.validated else None,
        }

run = state.get("editor_result")
if run:
    st.subheader("Resultado")
    st.caption(
        f"Estado: {markup.text(run['status'])} · query_hash {markup.code(run['query_hash'])} · registrado en la auditoría"
    )
    if run["query_hash"] != check.query_hash:
        st.warning("El plan cambió después de esta ejecución: vuelve a ejecutarlo para ver su resultado.")
    render_envelopes(run["envelopes"], "ed_result", geo_for(engine))
