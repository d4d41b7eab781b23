"""Spanish error display for ``core.errors.CasandraError`` (code, details, hints)."""

from __future__ import annotations

import streamlit as st

from core.errors import CasandraError
from ui import markup

CODE_LABELS = {
    "INVALID_PAYLOAD": "Datos de entrada inválidos",
    "INVALID_FILTER": "Filtro inválido",
    "INVALID_DATE_RANGE": "Rango de fechas inválido",
    "DATA_QUALITY_ISSUE": "Problema de datos",
    "COMPUTE_ERROR": "Error de cálculo",
    "RESOURCE_LIMIT": "Límite de recursos",
    "EMPTY_RESULT": "Resultado vacío",
}


def error_text(exc: CasandraError) -> str:
    """One Markdown text with every problem of the error and its hints (details and hints as text: they quote
    file names, headers and values of uploads and plans)."""
    blocks = []
    for problem in exc.problems:
        label = markup.text(CODE_LABELS.get(problem.code, problem.code))
        head = f"**{label}** ({markup.text(problem.code)}): {markup.text(problem.details)}"
        blocks.append("\n".join([head, *(f"- {markup.text(hint)}" for hint in problem.hints)]))
    return "\n\n".join(blocks)


def show_error(exc: CasandraError, *, note: str | None = None, warning: bool = False) -> None:
    """``st.error`` (or ``st.warning``) with the error's Spanish details, hints and an optional note."""
    text = error_text(exc) + (f"\n\n{markup.text(note)}" if note else "")
    (st.warning if warning else st.error)(text)
