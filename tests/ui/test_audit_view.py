"""Auditoría helpers: the Governor's lab decision as an access decision, the activity frame and segment defaults."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from core.audit.log import AuditLog
from ui import audit_view


def _governor(status: str) -> dict:
    return {"lab_policy": {"allow_lab": status != "denied", "status": status, "rationale": "x"}, "decided_by": "policy"}


@pytest.mark.parametrize(
    "governor,words",
    [
        (_governor("denied"), "sin aprobación de supervisión, así que solo se usan herramientas estables"),
        (_governor("approved"), "aprobado por supervisión"),
        (_governor("conditional"), "condicionado"),
        ({"lab": "denied"}, None),
        ("texto", None),
        (None, None),
    ],
    ids=["denied", "approved", "conditional", "other-shape", "not-a-dict", "none"],
)
def test_the_lab_decision_reads_as_an_access_decision(governor, words):
    text = audit_view.governor_text(governor)
    if words is None:
        assert text is None
    else:
        assert text.startswith("Acceso al laboratorio: ") and words in text
        assert "denegado" not in text.lower() and "error:" not in text.lower()


@pytest.fixture
def log(tmp_path) -> AuditLog:
    log = AuditLog(tmp_path / "audit" / "audit.sqlite3")
    for i in range(150):
        log.append(kind="ask" if i % 2 else "etl", user=f"u{i % 3}", role="analista", status="ok", payload={"i": i})
    return log


def test_the_activity_frame_has_spanish_columns_and_counts_every_record(log):
    frame = audit_view.activity_frame(log, {})
    assert list(frame.columns) == list(audit_view.ACTIVITY_LABELS.values())
    assert frame["total"].sum() == 150 and frame["preguntas"].sum() == 75 and frame["cargas"].sum() == 75


@dataclass
class _Shown:
    seq: int


@pytest.mark.parametrize(
    "shown,expected",
    [([], (51, 150, 150)), ([_Shown(120), _Shown(90), _Shown(101)], (90, 120, 150))],
    ids=["nothing-shown-newest-100", "the-records-shown"],
)
def test_the_segment_proposed_is_the_records_shown_or_the_newest(log, shown, expected):
    assert audit_view.segment_defaults(log, shown) == expected
