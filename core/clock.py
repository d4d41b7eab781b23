"""The single clock (Auxiliares: reloj único). Tests inject a FixedClock."""

from __future__ import annotations

from datetime import UTC, datetime


class Clock:
    """Wall clock in UTC."""

    def now(self) -> datetime:
        """Current time, timezone-aware UTC."""
        return datetime.now(UTC)


class FixedClock(Clock):
    """A clock that always answers the same instant (RelojFijo)."""

    def __init__(self, instant: datetime):
        self._instant = instant if instant.tzinfo else instant.replace(tzinfo=UTC)

    def now(self) -> datetime:
        """The fixed instant."""
        return self._instant


def iso_utc(moment: datetime) -> str:
    """ISO-8601 with a trailing Z, second precision."""
    return moment.astimezone(UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")
