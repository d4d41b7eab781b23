"""Carga de datos (stewards): upload, preview, publish with progress, quarantine, versions and rollback."""

import streamlit as st

from core.errors import CasandraError
from ui import auth, markup, session, upload, versions
from ui.feedback import error_text

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
options = upload.file_options(files, email)

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
    )
    st.caption("La nota queda en la tabla de versiones y en la auditoría.")
elif state.get("carga_result"):
    st.subheader("Resultado de la carga")
    upload.render_summary(state["carga_result"])

st.divider()
versions.draw(settings, email, role)
