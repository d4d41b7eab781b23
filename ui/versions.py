"""Carga de datos' published versions: the table (who, when, files, changes, note), the current version's quarantine
as CSV, and the way back to an older version, which asks a reason that goes to the audit."""

from __future__ import annotations

import streamlit as st

from core import api
from core.errors import CasandraError
from ui import markup, upload
from ui.feedback import show_error

CONFIRM, DONE = "carga_confirm", "carga_rollback_done"


def draw(settings, email: str, role: str) -> None:
    """The «Versiones publicadas» section (it ends the page's run when there is no version yet)."""
    state = st.session_state
    st.subheader("Versiones publicadas")
    if message := state.pop(DONE, None):
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
                state[CONFIRM] = vid
    if state.get(CONFIRM):
        confirm_rollback(state[CONFIRM], settings, email, role)


def confirm_rollback(target: str, settings, email: str, role: str) -> None:
    """«¿Volver a la versión …?» with its reason (required), Confirmar and Cancelar."""
    state = st.session_state
    st.warning(
        f"¿Volver a la versión **{markup.text(target)}**? La versión vigente deja de usarse (puede volver a ella después)."
    )
    reason = st.text_input(
        "Motivo (obligatorio)",
        key=f"carga_rb_motivo::{target}",
        max_chars=500,
        placeholder="Por ejemplo: la carga de diciembre traía cifras sin validar",
    ).strip()
    st.caption("Queda en la auditoría junto con quién volvió y a qué versión.")
    b1, b2 = st.columns(2)
    if b1.button("Confirmar", type="primary", key="carga_rb_ok", disabled=not reason):
        state.pop(CONFIRM, None)
        try:
            api.rollback(target, settings=settings, user=email, role=role, reason=reason)
            state[DONE] = f"Versión vigente: {target}."
            st.rerun()
        except CasandraError as exc:
            show_error(exc)
    if b2.button("Cancelar", key="carga_rb_no"):
        state.pop(CONFIRM, None)
        st.rerun()
