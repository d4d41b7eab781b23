"""The grammar of Spanish time words: every atomic period of a text (a year, a month, a day, a calendar part, a
season, a span, a period relative to the data's end or to the previous turn).

The rules live by meaning in timecalendar.py and timerelative.py; this module holds their one order. Longer and
more specific patterns run first and claim their characters, so «de marzo a junio del año pasado» is one span and
not a month plus «el año pasado». ``timeexpr`` combines the periods into windows.
"""

from __future__ import annotations

from datetime import date

from core.ask.understand import timecalendar as cal
from core.ask.understand import timerelative as rel
from core.ask.understand.timescan import Scan
from core.ask.understand.timewords import Period

# The order the rules run in: a later rule never overlaps an earlier match.
RULES = (
    cal.year_to_month,
    cal.short_year_range,
    cal.day,
    cal.numeric_day,
    cal.iso_day,
    cal.closing_month,
    cal.month_range,
    cal.bare_month_range,
    cal.abbr_range,
    cal.months_of_year,
    cal.season,
    rel.month_of_that_year,
    rel.previous_window,
    cal.calendar_part,
    cal.quarter_short_year,
    cal.abbr_range_short_year,
    cal.abbr_range_any_year,
    cal.quarter_shorthand,
    cal.month,
    rel.adjacent,
    rel.last_n,
    cal.last_of_year,
    rel.last_whole_unit,
    rel.last_unit,
    rel.so_far_of,
    rel.this_year,
    rel.last_year,
    rel.years_from_previous,
    rel.years_ago,
    cal.month_year,
    cal.lone_abbr,
    cal.numeric_month_year,
    cal.iso_month,
    cal.year,
    cal.two_digit_year,
    cal.other_year,
)


def atomic_periods(text: str, anchor: date) -> list[Period]:
    """Every atomic period, in the rules' order; the periods sorted by position."""
    return Scan(text, anchor).run(RULES)
