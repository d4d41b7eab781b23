"""Plan de consulta: any turn of this session in plain words, then every contract (collapsed), and a way to edit its plan."""

import pandas as pd
import streamlit as st

from ui import markup
from ui.auth import ANALYSTS, require
from ui.plan_view import files_of, render_plan_details
from ui.render import open_in_editor, turn_dict
from ui.session import assistant

require(ANALYSTS)
st.title("Plan de consulta")
turns = list(st.session_state.get("turns") or [])
if not turns:
    st.info("Aún no hay consultas en esta sesión. Pregunta algo en «Consultar» y vuelve aquí.")
    st.stop()

labels = {i: f"#{i + 1} · {turn_dict(t)['question'][:90]}" for i, t in enumerate(turns)}
index = st.selectbox("Turno", list(labels), index=len(turns) - 1, format_func=labels.get, key="plan_turn")
turn = turns[index]
d = turn_dict(turn)
engine = assistant()
catalog = engine.catalog

st.markdown(f"**Pregunta:** {markup.text(d['question'])}")
if d.get("rewritten_question") and d["rewritten_question"] != d["question"]:
    st.caption(f"Reescrita como: {markup.text(d['rewritten_question'])}")
answer = d.get("answer") or {}
if answer.get("text"):
    st.info(markup.block(answer["text"]))

summary, timings, raw = st.tabs(["Resumen", "Tiempos", "JSON"])
with summary:
    render_plan_details(turn, catalog, files=files_of(engine.store, turn))
with timings:
    stage_ms = {k: v for k, v in (d.get("timings_ms") or {}).items() if k != "total"}
    if stage_ms:
        frame = pd.DataFrame({"etapa": list(stage_ms), "ms": list(stage_ms.values())})
        st.bar_chart(frame, x="etapa", y="ms", horizontal=True)
        st.caption(f"Total: {d['timings_ms'].get('total', sum(stage_ms.values())):,.1f} ms")
with raw:
    for name in ("intake", "query_plan", "governor", "analyst_plan", "planner_state", "plan", "validation", "llm"):
        if d.get(name) is not None:
            st.markdown(f"**{name}**")
            st.json(d[name], expanded=False)

if d.get("plan") and st.button("Editar este plan", key="plan_edit", type="primary"):
    open_in_editor(d["plan"])
