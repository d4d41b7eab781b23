"""One scan of a question for time words: the periods found so far, the characters they claim, what rules share.

The grammar's rules (timecalendar.py: periods of the calendar; timerelative.py: periods relative to the data's last
month or to the previous turn) are plain functions of a ``Scan`` and a regex match, each carrying its pattern
(``@rule``); timegrammar.py runs them in one written order, longest first, and a later rule never takes characters an
earlier one claimed.
"""

from __future__ import annotations

import calendar
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date

from core.ask.understand.timewords import Period, _recent_year
from core.text import month_end

Rule = Callable[["Scan", re.Match], None]


def rule(pattern: str) -> Callable[[Rule], Rule]:
    """Give a rule its pattern; where it runs among the others is timegrammar.RULES's order."""

    def wrap(fn: Rule) -> Rule:
        """Keep the pattern on the handler."""
        fn.pattern = pattern
        return fn

    return wrap


@dataclass
class Scan:
    """The periods found in one text so far and the spans they claim, against the data's last month."""

    text: str
    anchor: date
    found: list[Period] = field(default_factory=list)
    taken: list[tuple[int, int]] = field(default_factory=list)

    @property
    def a_end(self) -> date:
        """The last day of the anchor's month."""
        return month_end(self.anchor.year, self.anchor.month)

    def add(self, m: re.Match, start: date, end: date, kind: str = "absolute", gran: str = "month", **extra) -> None:
        """Record a period and claim its characters."""
        self.found.append(Period(start, end, m.start(), m.end(), kind, gran, **extra))
        self.taken.append((m.start(), m.end()))

    def invalid(self, m: re.Match) -> None:
        """Claim words that look like time but name no period: reported as unparsed."""
        self.found.append(Period(self.anchor, self.anchor, m.start(), m.end(), "invalid", "invalid"))
        self.taken.append((m.start(), m.end()))

    def free(self, m: re.Match) -> bool:
        """Whether a match overlaps no period found by an earlier rule."""
        return all(m.end() <= s or m.start() >= e for s, e in self.taken)

    def year_or_recent(self, y: str | None, words: str | None, first_month: int) -> int:
        """The year said (digits, "este año", "el año pasado") or the latest one not after the anchor."""
        if y:
            return int(y) + (2000 if len(y) == 2 else 0)
        if words:
            return (
                self.anchor.year if words.startswith("este") else self.anchor.year - (2 if "antepasado" in words else 1)
            )
        return _recent_year(self.anchor, first_month)

    def day(self, m: re.Match, d: str, mo: int, y: int, said: bool) -> None:
        """A day is its whole month (the data is monthly); an impossible day is unparsed."""
        dd = 1 if d in ("primero", "1o") else int(d)
        if not 1 <= dd <= calendar.monthrange(y, mo)[1]:
            self.invalid(m)
            return
        self.add(m, date(y, mo, 1), month_end(y, mo), gran="day", year_said=said)

    def run(self, rules: tuple[Rule, ...]) -> list[Period]:
        """Every rule in order over the text; the periods by position."""
        for fn in rules:
            for m in re.finditer(fn.pattern, self.text):
                if self.free(m):
                    fn(self, m)
        return sorted(self.found, key=lambda p: p.begin)
