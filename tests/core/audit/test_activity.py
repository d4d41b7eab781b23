"""Activity per user and day: counted by SQLite from the audit table, with the list filters."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest

from core.audit import activity
from core.audit.activity import DayActivity
from core.audit.log import AuditLog
from core.clock import Clock
from tests.conftest import FIXTURES

RECORDS = json.loads((FIXTURES / "audit" / "activity_records.json").read_text(encoding="utf-8"))


class _StepClock(Clock):
    """A clock the test moves to each record's day."""

    def __init__(self):
        self.moment = datetime(2026, 3, 1, tzinfo=UTC)

    def now(self) -> datetime:
        return self.moment


@pytest.fixture
def log(tmp_path) -> AuditLog:
    clock = _StepClock()
    log = AuditLog(tmp_path / "audit" / "audit.sqlite3", clock=clock)
    for i, r in enumerate(RECORDS):
        clock.moment = datetime.fromisoformat(r["day"]).replace(hour=23, minute=59, second=i, tzinfo=UTC)
        log.append(kind=r["kind"], user=r["user"], role="analista", status=r["status"], payload={"i": i})
    return log


@pytest.mark.parametrize(
    "filters,expected",
    [
        (
            {},
            [
                DayActivity("2026-03-03", "ana@example.org", 1, 0, 0, 0, 0, 1),
                DayActivity("2026-03-02", "ana@example.org", 0, 2, 0, 0, 0, 2),
                DayActivity("2026-03-02", "sofia@example.org", 1, 0, 0, 0, 1, 2),
                DayActivity("2026-03-01", "ana@example.org", 2, 1, 0, 1, 0, 3),
                DayActivity("2026-03-01", "luis@example.org", 0, 0, 2, 1, 0, 2),
            ],
        ),
        ({"user": "luis@example.org"}, [DayActivity("2026-03-01", "luis@example.org", 0, 0, 2, 1, 0, 2)]),
        (
            {"since": "2026-03-02", "until": "2026-03-02"},
            [
                DayActivity("2026-03-02", "ana@example.org", 0, 2, 0, 0, 0, 2),
                DayActivity("2026-03-02", "sofia@example.org", 1, 0, 0, 0, 1, 2),
            ],
        ),
        (
            {"status": "refused"},
            [
                DayActivity("2026-03-01", "ana@example.org", 1, 0, 0, 1, 0, 1),
                DayActivity("2026-03-01", "luis@example.org", 0, 0, 1, 1, 0, 1),
            ],
        ),
        ({"since": "2027-01-01"}, []),
    ],
    ids=["all", "one-user", "one-day", "denials-only", "empty-window"],
)
def test_activity_per_user_and_day(log, filters, expected):
    assert activity.per_user_day(log, **filters) == expected


def test_every_record_is_counted_once_in_total(log):
    rows = activity.per_user_day(log)
    assert sum(r.total for r in rows) == log.count() == len(RECORDS)
    assert all(r.questions + r.plans + r.uploads + r.other == r.total for r in rows)


def test_the_count_is_one_sql_statement_not_a_loop_over_records(log):
    statements: list[str] = []
    log._conn().set_trace_callback(statements.append)
    try:
        activity.per_user_day(log, limit=2)
    finally:
        log._conn().set_trace_callback(None)
    assert len(statements) == 1 and "GROUP BY" in statements[0]
    assert len(activity.per_user_day(log, limit=2)) == 2
