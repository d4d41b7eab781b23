"""Carga de datos (stewards): upload, preview, publish with progress, quarantine, versions and rollback."""

import streamlit as st

from core import api
from core.errors import CasandraError
from ui import auth, markup, session, upload
from ui.feedback import error_text, show_error

email, role = auth.require(auth.STEWARDS)
settings = session.settings()
st.title("Carga de datos")
st.caption(
    "CSV, ZIP, GeoJSON o un CSV comprimido (.csv.bz2, .csv.gz) de SESNSP, CONAPO o INEGI. El formato y la "
    "codificación se detectan solos; "
    "primero verá una vista previa y nada se publica hasta que la confirme."
)

files = st.file_uploader("Archivos", type=upload.UPLOAD_TYPES, accept_multiple_files=True, key="carga_archivos")
files = files or []
options: dict[str, dict] = {}
for f in files:
    with st.expander(f"Opciones de {markup.text(f.name)}"):  # the uploader's own file name
        c1, c2 = st.columns(2)
        options[f.name] = {
            "coverage": c1.text_input(
                "Cobertura (AAAA-MM:AAAA-MM)",
                key=f"carga_cov::{f.name}",
                help="Para archivos largos que omiten los ceros: el periodo que cubren. "
                "Dentro de él, un mes ausente cuenta como 0.",
            ),
            "annual_cut": c2.text_input(
                "Corte anual (AAAA-MM)",
                key=f"carga_cut::{f.name}",
                help="Totales anuales: último mes incluido en el último año (parcial).",
            ),
            "procedencia": st.text_input(
                "Procedencia", value=f"Subido por {email} en Carga de datos", key=f"carga_prov::{f.name}"
            ),
        }

batch = upload.fingerprint(files, options)
state = st.session_state
c1, c2 = st.columns(2)
if c1.button("Vista previa", disabled=not files, width="stretch"):
    state.pop("carga_result", None)
    try:
        with st.spinner("Revisando archivos…"):
            state["carga_preview"] = (
                batch,
                upload.load_uploads(files, options, settings=settings, user=email, role=role, dry_run=True),
            )
        state.pop("carga_error", None)
    except CasandraError as exc:
        state.pop("carga_preview", None)
        state["carga_error"] = (batch, error_text(exc))
preview = state.get("carga_preview")
ready = bool(files) and preview is not None and preview[0] == batch
# A load that removes cells publishes only once the steward ticks the sentence naming them (drawn under the
# preview; read here, before the button, from the widget's state).
removed, told = upload.removals(preview[1]) if ready else (0, "")
consent_key, note_key = f"carga_quitar::{batch}::{removed}", f"carga_nota::{batch}"
confirmed = not removed or bool(state.get(consent_key))
if c2.button(
    "Publicar",
    type="primary",
    disabled=not (ready and confirmed),
    width="stretch",
    help=None
    if ready and confirmed
    else "Confirme abajo las celdas que se eliminarán."
    if ready
    else "Primero pida la vista previa de estos archivos.",
):
    bar = st.progress(0.0, text="Iniciando la carga…")
    try:
        state["carga_result"] = upload.load_uploads(
            files,
            options,
            settings=settings,
            user=email,
            role=role,
            dry_run=False,
            progress=upload.progress_callback(bar),
            confirm_removals=removed or None,
            note=state.get(note_key),
        )
        state.pop("carga_preview", None)
        state.pop("carga_error", None)
        ready = False
    except CasandraError as exc:
        state["carga_error"] = (batch, error_text(exc))

error = state.get("carga_error")
if error and error[0] == batch:
    st.error(f"{error[1]}\n\n{upload.NOTHING_LOST}")
if ready:
    st.subheader("Vista previa")
    upload.render_summary(preview[1])
    if removed:
        st.error(
            f"Esta carga elimina {removed:,} celdas que los archivos no mencionan: dejarán de contarse en las "
            "respuestas. Publicar queda bloqueado hasta que lo confirme."
        )
        st.checkbox(upload.removal_consent(removed, markup.text(told)), key=consent_key)
    st.text_input(
        "Nota de la versión (opcional)",
        key=note_key,
        max_chars=500,
        placeholder="Por ejemplo: corrección de León, diciembre de 2025",
        help="Queda en la tabla de versiones y en la auditoría.",
    )
elif state.get("carga_result"):
    st.subheader("Resultado de la carga")
    upload.render_summary(state["carga_result"])

st.divider()
st.subheader("Versiones publicadas")
if message := state.pop("carga_rollback_done", None):
    st.success(message)
versions = api.versions(settings)
if not versions:
    st.info("Todavía no hay versiones publicadas.")
    st.stop()
st.dataframe(upload.versions_frame(versions), hide_index=True, width="stretch")
quarantine = api.quarantine(settings)
st.download_button(
    f"Descargar cuarentena de la versión vigente (CSV, {len(quarantine)} registros)",
    data=upload.quarantine_csv(quarantine),
    file_name="cuarentena.csv",
    mime="text/csv",
    key="carga_cuarentena",
)

older = [v["dataset_version"] for v in versions if not v.get("current")]
if older:
    st.markdown("**Volver a una versión anterior**")
    for vid in older:
        if st.button(f"Volver a {vid}", key=f"carga_rb::{vid}"):
            state["carga_confirm"] = vid
target = state.get("carga_confirm")
if target:
    st.warning(
        f"¿Volver a la versión **{markup.text(target)}**? La versión vigente deja de usarse (puede volver a ella después)."
    )
    reason = st.text_input(
        "Motivo (obligatorio)",
        key=f"carga_rb_motivo::{target}",
        max_chars=500,
        placeholder="Por ejemplo: la carga de diciembre traía cifras sin validar",
        help="Queda en la auditoría junto con quién volvió y a qué versión.",
    ).strip()
    b1, b2 = st.columns(2)
    if b1.button("Confirmar", type="primary", key="carga_rb_ok", disabled=not reason):
        state.pop("carga_confirm", None)
        try:
            api.rollback(target, settings=settings, user=email, role=role, reason=reason)
            state["carga_rollback_done"] = f"Versión vigente: {target}."
            st.rerun()
        except CasandraError as exc:
            show_error(exc)
    if b2.button("Cancelar", key="carga_rb_no"):
        state.pop("carga_confirm", None)
        st.rerun()
