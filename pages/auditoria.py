"""Auditoría (supervisors): the hash-chained log with filters, record detail, verification, export and lab approval."""

import streamlit as st

from core.ask.govern import lab_approved
from core.audit import segment as audit_segment
from core.errors import CasandraError
from ui import audit_view, auth, markup, session
from ui.feedback import show_error

email, role = auth.require(auth.SUPERVISORS)
settings = session.settings()
st.title("Auditoría")
log = audit_view.open_log(settings)

ok, text = audit_view.verify_text(log.verify())
(st.success if ok else st.error)(text)
if not ok:
    st.caption(
        "Cada registro se compara con su sello (la llave guardada fuera del archivo) y la cadena con su ancla. "
        "Si la pérdida es conocida (una copia restaurada), un administrador la acepta con "
        "`python -m core audit reanchor --motivo …`, que queda auditado."
    )

st.subheader("Laboratorio")
st.toggle(
    "Aprobar herramientas experimentales (laboratorio)",
    value=lab_approved(settings),
    key="aud_lab",
    on_change=audit_view.on_lab_toggle,
    args=(settings, email, role, "aud_lab"),
)
st.caption("El Gobernador solo permite herramientas experimentales con esta aprobación; cada cambio queda auditado.")
if message := st.session_state.pop("aud_lab_msg", None):
    st.success(message)

st.subheader("Registros")
choices = audit_view.filter_choices(log)
c1, c2, c3, c4 = st.columns(4)
since = c1.date_input("Desde", value=None, format="YYYY-MM-DD", key="aud_desde")
until = c2.date_input("Hasta", value=None, format="YYYY-MM-DD", key="aud_hasta")
user = c3.selectbox("Usuario", choices["user"], index=None, placeholder="Todos", key="aud_usuario")
status = c4.selectbox("Estado", choices["status"], index=None, placeholder="Todos", key="aud_estado")
c5, c6, c7, c8 = st.columns(4)
kind = c5.selectbox(
    "Tipo",
    choices["kind"],
    index=None,
    placeholder="Todos",
    key="aud_tipo",
    format_func=lambda k: f"{audit_view.KIND_LABELS.get(k, k)} ({k})",
)
tool = c6.selectbox("Herramienta", choices["tool"], index=None, placeholder="Todas", key="aud_herramienta")
version = c7.selectbox(
    "Versión de datos", choices["dataset_version"], index=None, placeholder="Todas", key="aud_version"
)
limit = c8.number_input("Máximo de registros", min_value=1, max_value=5000, value=200, step=50, key="aud_limite")
text = st.text_input("Texto libre (en la pregunta o el contenido)", key="aud_texto")

filters = audit_view.clean_filters(
    since=since, until=until, user=user, status=status, kind=kind, tool=tool, dataset_version=version, text=text.strip()
)
try:
    records = log.list(**filters, limit=int(limit))
    total = log.count(**filters)
    activity = audit_view.activity_frame(log, filters)
except CasandraError as exc:
    show_error(exc)
    st.stop()

tab_records, tab_activity, tab_segment = st.tabs(["Registros", "Actividad por usuario y día", "Segmento verificado"])

with tab_records:
    st.caption(f"Mostrando {len(records)} de {total} registros (los más recientes primero).")
    st.dataframe(audit_view.records_frame(records), hide_index=True, width="stretch")
    # The files are built when a button is clicked, not on every run of the page (a log holds many records).
    for column, (fmt, mime) in zip(st.columns(2), (("csv", "text/csv"), ("json", "application/json"))):
        column.download_button(
            f"Exportar {fmt.upper()}",
            data=lambda fmt=fmt: audit_view.export_bytes(log, fmt, filters),
            file_name=f"auditoria.{fmt}",
            mime=mime,
            key=f"aud_{fmt}",
            width="stretch",
            on_click="ignore",  # a click that also reruns can revoke the file id the browser is fetching
        )
    if not records:
        st.info("Sin registros para esos filtros.")
    else:
        st.subheader("Detalle de un registro")
        chosen = st.selectbox("Registro", records, format_func=audit_view.record_label, key="aud_detalle")
        st.markdown(  # a record holds what analysts typed: every value is drawn as text
            f"**{markup.text(audit_view.KIND_LABELS.get(chosen.kind, chosen.kind))}** · estado "
            f"{markup.code(chosen.status)} · {markup.text(chosen.user)} ({markup.text(chosen.role)}) · "
            f"{markup.text(chosen.ts)}"
        )
        if chosen.question:
            st.markdown(f"> {markup.text(chosen.question)}")
        st.caption(
            f"job_id {markup.code(chosen.job_id)} · query_hash {markup.code(chosen.query_hash or '—')} · catálogo "
            f"{markup.code(chosen.catalog_version or '—')} · datos {markup.code(chosen.dataset_version or '—')} · "
            f"hash {markup.code(chosen.hash)} · hash anterior {markup.code(chosen.prev_hash)}"
        )
        for title, value in audit_view.contract_sections(chosen.payload):
            with st.expander(title):
                if title == "Gobernador" and (decision := audit_view.governor_text(value)):
                    st.markdown(markup.text(decision))
                audit_view.show_value(value)

with tab_activity:
    st.caption(
        "Registros por usuario y día (UTC) con los filtros de arriba: preguntas, planes ejecutados (también los "
        "editados y los de la API), cargas de datos y denegaciones (preguntas o cargas rechazadas)."
    )
    if activity.empty:
        st.info("Sin actividad para esos filtros.")
    else:
        st.bar_chart(activity, x="día (UTC)", y="total", color="usuario", height=220)
        st.dataframe(activity, hide_index=True, width="stretch", key="aud_actividad")

with tab_segment:
    st.caption(
        "Un tramo de la cadena para entregar a otra persona: cada registro con su hash y el hash anterior, el "
        "ancla y la huella de la llave con que se verifica, el resultado de verificar la cadena y el tramo, y un "
        "sello del documento. Se verifica con `python -m core audit verify --segment archivo.json`."
    )
    first, last, head = audit_view.segment_defaults(log, records)
    s1, s2 = st.columns(2)
    seg_first = s1.number_input("Desde el registro (seq)", min_value=1, value=max(first, 1), key="aud_seg_desde")
    seg_last = s2.number_input("Hasta el registro (seq)", min_value=1, value=max(last, 1), key="aud_seg_hasta")
    try:
        audit_segment.bounds(int(seg_first), int(seg_last))
    except CasandraError as exc:
        show_error(exc)
    else:
        st.download_button(
            f"Descargar segmento verificado (seq {int(seg_first)}–{min(int(seg_last), head)})",
            data=lambda: audit_view.segment_bytes(settings, int(seg_first), int(seg_last), email, role),
            file_name=f"auditoria_segmento_{int(seg_first)}-{min(int(seg_last), head)}.json",
            mime="application/json",
            key="aud_segmento",
            on_click="ignore",  # a rerun on click replaced the deferred file id mid-request (CI flake)
            disabled=head == 0 or int(seg_first) > head,
        )
        st.caption(f"La cadena tiene {head} registros; la exportación queda registrada en la auditoría.")
