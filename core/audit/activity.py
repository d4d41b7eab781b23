"""Activity per user and day: how many questions, plan runs, uploads and denials each person had (the supervisor).

Counted by SQLite in one ``GROUP BY`` over the audit table with the same filters as ``AuditLog.list``; no record
is read into Python. A record counts once in ``total`` and once in the column of its kind; a denial (status
``refused``: a question the pipeline declined, an upload refused) is counted by its status, so a refused question
is both a question and a denial.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from core.audit.records import _TABLE, _where

if TYPE_CHECKING:
    from core.audit.log import AuditLog

# Which record kinds each column counts (core/ask/audit.py writes ``ask``; core/api.py ``execute`` and ``etl``;
# pages/editor.py ``plan_edit``; core/jobs.py ``job``).
QUESTION_KINDS = ("ask",)
PLAN_KINDS = ("execute", "plan_edit", "job")
UPLOAD_KINDS = ("etl",)
DENIAL_STATUSES = ("refused",)
COLUMNS = ("day", "user", "questions", "plans", "uploads", "denials", "other", "total")
MAX_ROWS = 5000  # user-days; far beyond a page, a bound for a log of many years


@dataclass(frozen=True)
class DayActivity:
    """One user's records on one UTC day, by kind."""

    day: str
    user: str
    questions: int
    plans: int
    uploads: int
    denials: int
    other: int
    total: int


def _in(column: str, values: tuple[str, ...]) -> tuple[str, list[str]]:
    """``column IN (?, …)`` and its parameters (the values come from this module's constants)."""
    return f"{column} IN ({', '.join('?' for _ in values)})", list(values)


def _sql(where: str) -> tuple[str, list[str]]:
    questions, q_params = _in("kind", QUESTION_KINDS)
    plans, p_params = _in("kind", PLAN_KINDS)
    uploads, u_params = _in("kind", UPLOAD_KINDS)
    denials, d_params = _in("status", DENIAL_STATUSES)
    known, k_params = _in("kind", QUESTION_KINDS + PLAN_KINDS + UPLOAD_KINDS)
    sql = (
        # ts is ISO-8601 UTC (core.clock.iso_utc): its first ten characters are the day
        "SELECT substr(ts, 1, 10) AS day, user, "
        f"sum({questions}), sum({plans}), sum({uploads}), sum({denials}), sum(NOT {known}), count(*) "
        f"FROM {_TABLE}{where} GROUP BY day, user ORDER BY day DESC, user LIMIT ?"
    )
    return sql, q_params + p_params + u_params + d_params + k_params


def per_user_day(log: AuditLog, *, limit: int = MAX_ROWS, **filters) -> list[DayActivity]:
    """Records per user and day (newest day first) for the records matching ``AuditLog.list``'s filters."""
    where, where_params = _where(**filters)
    sql, count_params = _sql(where)
    rows = log._conn().execute(sql, count_params + where_params + [limit]).fetchall()
    return [DayActivity(*row) for row in rows]
