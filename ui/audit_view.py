"""Auditoría helpers: filter choices, the records table, a record's contracts, activity, exports and the lab setting."""

from __future__ import annotations

import io
import json
from datetime import date
from typing import Any

import pandas as pd
import streamlit as st

from core import api
from core.audit import activity
from core.audit import segment as audit_segment
from core.audit.log import AuditLog
from core.audit.verify import describe

KIND_LABELS = {
    "ask": "pregunta",
    "execute": "ejecución de plan",
    "plan_edit": "edición de plan",
    "etl": "carga de datos",
    "rollback": "reversión de versión",
    "settings": "configuración",
    "audit_reanchor": "reanclaje de la auditoría",
    "audit_export": "exportación de un segmento de auditoría",
    "job": "ejecución por API",
    "token": "token de la API HTTP",
    "audit_read": "lectura de la auditoría por la API HTTP",
}
ACTIVITY_LABELS = {
    "day": "día (UTC)",
    "user": "usuario",
    "questions": "preguntas",
    "plans": "planes ejecutados",
    "uploads": "cargas",
    "denials": "denegaciones",
    "other": "otros",
    "total": "total",
}
# Every contract a record's payload may carry, in pipeline order (docs/contracts/000_query_plan.md and
# 001_casandra_v0.md).
CONTRACTS = (
    ("intake", "Intake"),
    ("query_plan", "QueryPlan (enrutador)"),
    ("governor", "Gobernador"),
    ("analyst_plan", "AnalystPlan"),
    ("planner_state", "PlannerState"),
    ("plan", "Plan"),
    ("validation", "Validación"),
    ("timings_ms", "Tiempos (ms)"),
    ("timings", "Tiempos"),
    ("errors", "Errores"),
    ("envelopes", "Sobres"),
    ("answer", "Respuesta"),
    ("summary", "Resumen de carga"),
    ("archivos", "Archivos"),
)
CHOICE_FIELDS = ("user", "status", "kind", "tool", "dataset_version")
SCAN_FOR_CHOICES = 5000


def open_log(settings) -> AuditLog:
    """The audit log of a data folder."""
    return AuditLog.for_settings(settings)


def filter_choices(log: AuditLog) -> dict[str, list[str]]:
    """Values seen in the newest records, for the filter select boxes."""
    seen: dict[str, set[str]] = {name: set() for name in CHOICE_FIELDS}
    for record in log.list(limit=SCAN_FOR_CHOICES):
        for name in ("user", "status", "kind", "dataset_version"):
            if getattr(record, name):
                seen[name].add(getattr(record, name))
        seen["tool"].update(record.tools)
    return {name: sorted(values) for name, values in seen.items()}


def clean_filters(*, since: date | None = None, until: date | None = None, **values: Any) -> dict:
    """AuditLog filters without the empty ones (dates as AAAA-MM-DD, whole days)."""
    out = {k: v for k, v in values.items() if v not in (None, "")}
    if since:
        out["since"] = since.isoformat()
    if until:
        out["until"] = until.isoformat()
    return out


def records_frame(records) -> pd.DataFrame:
    """Audit records as the Auditoría table (Spanish column names)."""
    rows = [
        {
            "seq": r.seq,
            "fecha (UTC)": r.ts,
            "tipo": KIND_LABELS.get(r.kind, r.kind),
            "estado": r.status,
            "usuario": r.user,
            "rol": r.role,
            "pregunta": r.question or "",
            "herramientas": ", ".join(r.tools),
            "versión de datos": r.dataset_version or "",
            "job_id": r.job_id,
        }
        for r in records
    ]
    return pd.DataFrame(
        rows,
        columns=[
            "seq",
            "fecha (UTC)",
            "tipo",
            "estado",
            "usuario",
            "rol",
            "pregunta",
            "herramientas",
            "versión de datos",
            "job_id",
        ],
    )


def record_label(record) -> str:
    """One line naming a record in the detail selector."""
    return f"seq {record.seq} · {record.ts} · {KIND_LABELS.get(record.kind, record.kind)} · {record.user}"


def contract_sections(payload: dict) -> list[tuple[str, Any]]:
    """(title, value) for each contract present in the payload, then the remaining fields."""
    known = dict(CONTRACTS)
    sections = [(title, payload[key]) for key, title in CONTRACTS if payload.get(key) is not None]
    rest = {k: v for k, v in payload.items() if k not in known}
    if rest:
        sections.append(("Otros campos", rest))
    return sections


def show_value(value: Any) -> None:
    """One contract of a record: JSON for objects and lists, plain text otherwise."""
    if isinstance(value, dict | list):
        st.json(value, expanded=1)
    else:
        st.code(str(value), language=None)


def governor_text(governor: Any) -> str | None:
    """The Governor's lab decision worded as the access decision it is (not as an error), or None."""
    policy = governor.get("lab_policy") if isinstance(governor, dict) else None
    if not isinstance(policy, dict):
        return None
    if policy.get("status") == "approved":
        return "Acceso al laboratorio: aprobado por supervisión; se permiten herramientas experimentales."
    if policy.get("status") == "conditional":
        return "Acceso al laboratorio: condicionado; herramientas experimentales solo con sus condiciones."
    return (
        "Acceso al laboratorio: sin aprobación de supervisión, así que solo se usan herramientas estables "
        "(es la política por omisión, no un error)."
    )


def activity_frame(log: AuditLog, filters: dict) -> pd.DataFrame:
    """Records per user and day by kind (counted by SQLite), with Spanish column names."""
    rows = activity.per_user_day(log, **filters)
    return pd.DataFrame([vars(r) for r in rows], columns=list(ACTIVITY_LABELS)).rename(columns=ACTIVITY_LABELS)


def segment_defaults(log: AuditLog, records) -> tuple[int, int, int]:
    """(first, last, head) seq proposed for a segment: the records in the table, else the newest ones."""
    head = audit_segment.head_seq(log)
    if records:
        first, last = min(r.seq for r in records), max(r.seq for r in records)
    else:
        first, last = max(1, head - 99), head
    return max(first, last - audit_segment.MAX_RECORDS + 1), last, head


def segment_bytes(settings, first_seq: int, last_seq: int, user: str, role: str) -> bytes:
    """The verified segment first..last as a JSON file (the export is audited); run when the button is clicked."""
    with AuditLog.for_settings(settings) as log:
        document = audit_segment.export(log, first_seq, last_seq, user=user, role=role)
    return (json.dumps(document, ensure_ascii=False, indent=2, sort_keys=True) + "\n").encode("utf-8")


def export_bytes(log: AuditLog, fmt: str, filters: dict) -> bytes:
    """The matching records, in chain order, as CSV or JSON (``AuditLog.export``)."""
    buffer = io.StringIO()
    log.export(fmt, buffer, **filters)
    return buffer.getvalue().encode("utf-8")


def verify_text(result) -> tuple[bool, str]:
    """The chain's state in Spanish: intact, or which tampering (edited record, deleted tail, emptied log,
    missing file, missing key or anchor) and the first bad record."""
    return result.ok, describe(result)


def on_lab_toggle(settings, user: str, role: str, key: str) -> None:
    """Toggle callback: store the supervisor's lab decision (audited by core.api)."""
    approved = bool(st.session_state[key])
    api.set_lab_approval(approved, settings=settings, user=user, role=role)
    st.session_state["aud_lab_msg"] = (
        "Laboratorio aprobado: el Gobernador permitirá herramientas experimentales."
        if approved
        else "Laboratorio bloqueado: solo herramientas estables."
    )
