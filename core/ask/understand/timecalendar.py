"""Periods of the calendar: years, months, days, spans between months, parts of a year, seasons.

Each rule is a regex over the accent-free token text (numbers in words are digits already, see tokens.py) and a
handler that turns the match into whole months. The data is monthly, so a day becomes its month and the period
says so (a note for the answer). Something that looks like time but is not a valid period ("el 45 de marzo", "el
quinto trimestre", "en 2012" before the data) is claimed and reported as unparsed, never dropped. Where each rule
runs among the others is timegrammar.RULES.
"""

from __future__ import annotations

import re
from datetime import date

from core.ask.understand.timescan import Scan, rule
from core.ask.understand.timewords import (
    _ABBR,
    _DAY,
    _MONTH,
    _MONTH_OR_ABBR,
    _OF,
    _ORD,
    _ORD_RE,
    _PART,
    _UNIT_MONTHS,
    _YEAR,
    _YEAR_LIKE,
    _YEAR_REF,
    MONTHS,
    PART_ABBR,
    PART_MONTHS,
    SEASONS,
    Period,
    _recent_year,
    month_words,
)
from core.ask.understand.tokens import NUMBER_RE, number_value
from core.text import MONTHS as MONTH_NAMES
from core.text import month_end, shift_months


@rule(
    r"\b(?:(?:lo|el|los|las|cifras?|total(?:es)?)\s+)?acumulad[oa]s?\s+(?:(?:del|de\s+este|de\s+ese|de)\s+ano\s+)?"
    r"(?:a|al|hasta(?:\s+el)?)\s+(?:(?:el\s+)?(?:cierre|corte|fin|final)\s+(?:de|del)\s+)?(?:(?:el\s+)?mes\s+de\s+)?"
    rf"({_MONTH_OR_ABBR})(?:{_YEAR_REF}|\s+({_YEAR}))?\b"
)
def year_to_month(s: Scan, m: re.Match) -> None:
    """A running total to a month: January to that month of one year."""
    # «el acumulado a octubre de 2025», «acumulado al cierre de septiembre»: January to that month, one year
    mo = {**MONTHS, **_ABBR}[m.group(1)]
    said = m.group(2) or m.group(4)
    y = int(said) + (2000 if said and len(said) == 2 else 0) if said else s.year_or_recent(None, m.group(3), mo)
    s.add(m, date(y, 1, 1), month_end(y, mo), gran="span", year_said=bool(said or m.group(3)))


@rule(
    r"\b(?:(del|de|desde|entre)\s+(?:el\s+)?(?:ano\s+)?)?(20[12]\d|20[3]0|1[5-9]|2\d)\s*"
    r"(-|a|al|hasta(?:\s+el)?|y(?:\s+el)?|vs|versus|contra)\s*(20[12]\d|2030|1[5-9]|2\d)\b(?!\s*(?:de\b|del\b|%|mil\b|por\b))"
)
def short_year_range(s: Scan, m: re.Match) -> None:
    """A range (or a comparison) of years written with a two-digit year: two whole years."""
    # «del 21 al 24», «2019-24», «de 2020 a 24»: a range of years with a two-digit one (never a count or days)
    one, two = m.group(2), m.group(4)
    if len(one) == 4 and len(two) == 4:
        return
    if len(one) == 2 and not m.group(1) and m.group(3) not in ("vs", "versus", "contra"):
        return  # «21 y 24» alone may be counts; «hom dol leon 23 vs 24» compares two years
    y1, y2 = (int(y) + (2000 if len(y) == 2 else 0) for y in (one, two))
    if not 2015 <= y1 < y2 <= 2030:
        return
    s.found.append(Period(date(y1, 1, 1), date(y1, 12, 31), m.start(2), m.end(2), "absolute", "year"))
    s.found.append(Period(date(y2, 1, 1), date(y2, 12, 31), m.start(4), m.end(4), "absolute", "year"))
    s.taken.append((m.start(2), m.end()))


@rule(rf"\b{_DAY}\s+de\s+({_MONTH})(?:\s+(?:de|del)\s+(?:ano\s+)?({_YEAR}))?\b")
def day(s: Scan, m: re.Match) -> None:
    """A day with its month name: its whole month."""
    mo = MONTHS[m.group(2)]
    said = bool(m.group(3))
    s.day(m, m.group(1), mo, int(m.group(3)) if said else _recent_year(s.anchor, mo), said)


def _written_day(s: Scan, m: re.Match, day: str, month: str, year: str) -> None:
    """A day written in digits: its whole month, or not understood when the month is no month."""
    mo = int(month)
    if 1 <= mo <= 12:
        s.day(m, day, mo, int(year), True)
    else:
        s.invalid(m)


@rule(rf"\b(\d{{1,2}})\s*/\s*(\d{{1,2}})\s*/\s*({_YEAR})\b")
def numeric_day(s: Scan, m: re.Match) -> None:
    """A day written dd/mm/yyyy: its whole month."""
    _written_day(s, m, m.group(1), m.group(2), m.group(3))


@rule(rf"\b({_YEAR})\s*-\s*(\d{{1,2}})\s*-\s*(\d{{1,2}})\b")
def iso_day(s: Scan, m: re.Match) -> None:
    """A day written yyyy-mm-dd: its whole month."""
    _written_day(s, m, m.group(3), m.group(2), m.group(1))


@rule(
    rf"\b(?:entre|de|desde|del)\s+(?:el\s+mes\s+de\s+)?({_MONTH})(?:\s+(?:de|del)\s+({_YEAR}))?\s+"
    rf"(?:y|a|al|hasta|-)\s+({_MONTH})(?:\s+(?:de|del)?\s*({_YEAR})|{_YEAR_REF})?\b"
)
def month_range(s: Scan, m: re.Match) -> None:
    """A span between two month names, with or without years."""
    m1, m2 = MONTHS[m.group(1)], MONTHS[m.group(3)]
    # «de marzo a junio del año pasado»: the year in words belongs to the range, not a period of its own
    y2 = int(m.group(4)) if m.group(4) else (int(m.group(2)) if m.group(2) else None)
    y2 = y2 or s.year_or_recent(m.group(5), m.group(6), m2)
    y1 = int(m.group(2)) if m.group(2) else (y2 if m1 <= m2 else y2 - 1)
    said = bool(
        m.group(2) or m.group(4) or m.group(5) or m.group(6)
    )  # «¿y de julio a diciembre?»: a follow-up takes the previous year
    s.add(m, date(y1, m1, 1), month_end(y2, m2), gran="span", year_said=said)


def _months_to(s: Scan, m: re.Match, m1: int, m2: int, y: int, **kw) -> None:
    """Add the span from month m1 to month m2 of year y, starting the year before when m1 comes after m2."""
    # «nov-feb 2025» runs across the new year: it ends in y, so it starts in y - 1
    s.add(m, date(y if m1 <= m2 else y - 1, m1, 1), month_end(y, m2), gran="span", **kw)


@rule(rf"\b({_MONTH})\s+(?:a|al|hasta)\s+({_MONTH})\s+(?:de\s+|del\s+)?({_YEAR})\b")
def bare_month_range(s: Scan, m: re.Match) -> None:
    """Two month names and a year, with no opener («… contra enero a junio de 2024»): one span of that year."""
    _months_to(s, m, MONTHS[m.group(1)], MONTHS[m.group(2)], int(m.group(3)))


@rule(rf"\b({_MONTH_OR_ABBR})\s*-\s*({_MONTH_OR_ABBR})\s+(?:de\s+|del\s+)?({_YEAR})\b")
def abbr_range(s: Scan, m: re.Match) -> None:
    """Two months joined by a dash before a four-digit year."""
    months = {**MONTHS, **_ABBR}
    _months_to(s, m, months[m.group(1)], months[m.group(2)], int(m.group(3)))


@rule(
    rf"\b(?:con\s+|al\s+|a\s+)?(?:cierre|corte)\s+(?:a|al|de)\s+(?:(?:el\s+)?mes\s+de\s+)?({_MONTH})"
    rf"\s+(?:de\s+|del\s+)?({_YEAR})\b"
)
def closing_month(s: Scan, m: re.Match) -> None:
    """«con cierre a diciembre de 2024», «con corte a mayo de 2025»: the year so far, to that month."""
    _months_to(s, m, 1, MONTHS[m.group(1)], int(m.group(2)))


@rule(rf"\b(?:los\s+|las\s+)?(primer|ultim)[oa]s\s+({NUMBER_RE})\s+meses\s+(?:(?:de|del)\s+)?(?:ano\s+)?({_YEAR})\b")
def months_of_year(s: Scan, m: re.Match) -> None:
    """«Los primeros/últimos N meses de» a year."""
    n, y = max(1, min(number_value(m.group(2)) or 1, 12)), int(m.group(3))
    first = 1 if m.group(1) == "primer" else 13 - n
    s.add(m, date(y, first, 1), month_end(y, first + n - 1), gran="span")


@rule(
    rf"\b(?:(est[ea])\s+|(?:el|la)\s+)?(primavera|verano|otono|invierno)"
    rf"(?:{_YEAR_REF}|\s+(?:de|del)\s+(ese|aquel|dicho)(?:\s+mismo)?\s+ano)?\b"
)
def season(s: Scan, m: re.Match) -> None:
    """A season of a year (the note says which months it was taken as)."""
    first, last = SEASONS[m.group(2)]
    y = s.anchor.year if m.group(1) else s.year_or_recent(m.group(3), m.group(4), first)
    start, end = date(y, first, 1), month_end(y + (1 if last < first else 0), last)
    name = {"otono": "otoño"}.get(m.group(2), m.group(2))
    # «el otoño de ese año»: the year is the previous turn's (a follow-up moves it there)
    said = bool(m.group(1) or m.group(3) or m.group(4)) and not m.group(5)
    # the year of «de ese año» is not known yet: the note names the months only
    months = f"{MONTH_NAMES[first - 1]} a {MONTH_NAMES[last - 1]}" if m.group(5) else month_words(start, end)
    s.add(
        m,
        start,
        end,
        gran="span",
        year_said=said,
        note=f"«{name.capitalize()}» se tomó como {months}.",
    )


@rule(
    rf"\b({_ORD_RE})\s+{_PART}(?:{_YEAR_REF}|{_OF})\b"
    rf"|\b{_PART}\s+(\d{{1,2}}|i{{1,3}}|iv|v|vi)(?:{_YEAR_REF}|{_OF})\b"
)
def calendar_part(s: Scan, m: re.Match) -> None:
    """An ordinal part of a year: a semester, quarter, bimester or four-month part."""
    if m.group(1):
        n, part, y, words = _ORD.get(m.group(1), 99), m.group(2), m.group(3), m.group(4)
    else:
        g = m.group(6)
        n, part, y, words = int(g) if g.isdigit() else _ORD[g], m.group(5), m.group(7), m.group(8)
    size = PART_MONTHS[PART_ABBR.get(part, part)]
    if not 1 <= n <= 12 // size:
        s.invalid(m)
        return
    first = size * (n - 1) + 1
    yr = s.year_or_recent(y, words, first)
    s.add(m, date(yr, first, 1), month_end(yr, first + size - 1), gran="span", year_said=bool(y or words))


@rule(r"\b(?:([1-4])t|t([1-4])|q([1-4]))\s?-?\s?(1[5-9]|2\d)\b(?!\s*(?:de\b|%|mil\b))")
def quarter_short_year(s: Scan, m: re.Match) -> None:
    """A quarter glued to a two-digit year («2T23»)."""
    # «el 2T23», «Q1 24», «T3-22»: a quarter glued to a two-digit year (reports and spreadsheets)
    n = int(m.group(1) or m.group(2) or m.group(3))
    first, yr = 3 * (n - 1) + 1, 2000 + int(m.group(4))
    s.add(m, date(yr, first, 1), month_end(yr, first + 2), gran="span")


@rule(rf"\b({_MONTH_OR_ABBR})\s*-\s*({_MONTH_OR_ABBR})\s+(1[5-9]|2\d)\b(?!\s*(?:de\b|%|mil\b))")
def abbr_range_short_year(s: Scan, m: re.Match) -> None:
    """Two months joined by a dash before a two-digit year."""
    # «ene-mar 24»: months and a two-digit year
    months = {**MONTHS, **_ABBR}
    _months_to(s, m, months[m.group(1)], months[m.group(2)], 2000 + int(m.group(3)))


@rule(rf"\b(?:(?:entre|de|desde|del)\s+)?({_MONTH_OR_ABBR})\s*(-|a|al|hasta)\s*({_MONTH_OR_ABBR})(?:{_YEAR_REF})?\b")
def abbr_range_any_year(s: Scan, m: re.Match) -> None:
    """Two abbreviated months as a span, the year said or the latest."""
    # «abr-jun?», «¿y oct-nov?», «de oct a dic»: the months of a report or a chat; without a year, the latest
    # such months (a follow-up moves them to the year talked about)
    if m.group(2) != "-" and m.group(1) in MONTHS and m.group(3) in MONTHS:
        return  # full names with «a»: _month_range / _month, with their own openers
    months = {**MONTHS, **_ABBR}
    m1, m2 = months[m.group(1)], months[m.group(3)]
    y2 = s.year_or_recent(m.group(4), m.group(5), m2)
    _months_to(s, m, m1, m2, y2, year_said=bool(m.group(4) or m.group(5)))


@rule(rf"\b(?:([1-4])\s?t|t([1-4])|q([1-4]))(?:{_YEAR_REF}|{_OF})?\b")
def quarter_shorthand(s: Scan, m: re.Match) -> None:
    """The press's quarter shorthand («1T 2025», «Q1»)."""
    # the press's quarter shorthand: «1T 2025», «4T», «T2 de 2024», «Q1»
    n = int(m.group(1) or m.group(2) or m.group(3))
    first = 3 * (n - 1) + 1
    yr = s.year_or_recent(m.group(4), m.group(5), first)
    s.add(m, date(yr, first, 1), month_end(yr, first + 2), gran="span", year_said=bool(m.group(4) or m.group(5)))


@rule(
    rf"\b(?:(?:en|durante|de|del)\s+(?:el\s+)?(?:mes\s+de\s+)?)?({_MONTH})(?:{_YEAR_REF})?\b(?!\s+(?:por|a|tras)\s+mes)"
)
def month(s: Scan, m: re.Match) -> None:
    """A month name, the year said or the latest such month."""
    mo = MONTHS[m.group(1)]
    y = s.year_or_recent(m.group(2), m.group(3), mo)
    s.add(m, date(y, mo, 1), month_end(y, mo), year_said=bool(m.group(2) or m.group(3)))


@rule(
    rf"\b(?:el\s+|la\s+|los\s+|las\s+)?ultim[oa]s?\s+(?:({NUMBER_RE})\s+)?"
    rf"(mes|meses|trimestres?|semestres?|bimestres?|cuatrimestres?)\s+(?:de|del)\s+(?:el\s+)?(?:ano\s+)?({_YEAR})\b"
)
def last_of_year(s: Scan, m: re.Match) -> None:
    """The last months or parts of a year said."""
    # «el último bimestre de 2024», «los últimos 3 meses de 2023»: the end of that year, not of the data
    months = (number_value(m.group(1) or "") or 1) * _UNIT_MONTHS[m.group(2)[:3]]
    y = int(m.group(3))
    s.add(m, shift_months(date(y, 12, 1), -(min(months, 12) - 1)), date(y, 12, 31), gran="span")


@rule(rf"\b({_MONTH_OR_ABBR})\s*(?:-|/|de|del)?\s*(?:de\s+|del\s+)?({_YEAR})\b")
def month_year(s: Scan, m: re.Match) -> None:
    """A month and a four-digit year."""
    mo = {**MONTHS, **_ABBR}[m.group(1)]
    s.add(m, date(int(m.group(2)), mo, 1), month_end(int(m.group(2)), mo))


@rule(r"\b(?:(?:en|de|del|y|para)\s+)?(ene|feb|abr|jun|jul|sept?|oct|nov|dic)\b")
def lone_abbr(s: Scan, m: re.Match) -> None:
    """A month abbreviated alone: the latest such month."""
    # «sep.», «¿y en dic?»: a month abbreviated alone («mar», «may», «ago», «set» are words too: never alone)
    mo = _ABBR[m.group(1)]
    y = _recent_year(s.anchor, mo)
    s.add(m, date(y, mo, 1), month_end(y, mo), year_said=False)


@rule(rf"\b(0?[1-9]|1[0-2])\s*[/-]\s*({_YEAR})\b")
def numeric_month_year(s: Scan, m: re.Match) -> None:
    """A month written mm/yyyy."""
    s.add(m, date(int(m.group(2)), int(m.group(1)), 1), month_end(int(m.group(2)), int(m.group(1))))


@rule(rf"\b({_YEAR})\s*[/-]\s*(0?[1-9]|1[0-2])\b")
def iso_month(s: Scan, m: re.Match) -> None:
    """A month written yyyy-mm."""
    s.add(m, date(int(m.group(1)), int(m.group(2)), 1), month_end(int(m.group(1)), int(m.group(2))))


@rule(rf"\b({_YEAR})\b")
def year(s: Scan, m: re.Match) -> None:
    """A four-digit year the data can hold."""
    y = int(m.group(1))
    s.add(m, date(y, 1, 1), date(y, 12, 31), gran="year")


@rule(
    r"\b(?:en\s+el|del|el\s+ano|en\s+el\s+ano|durante\s+el)\s+(1[5-9]|2[0-9])\b(?!\s*(?:%|de\b|mil\b))"
    rf"(?!\s*(?:al?|y|hasta)\s+(?:el\s+)?\d{{1,2}}\s+de\s+{_MONTH})"  # «del 21 al 24 de marzo»: days
)
def two_digit_year(s: Scan, m: re.Match) -> None:
    """A two-digit year after «en el», «del», «el año»."""
    y = 2000 + int(m.group(1))  # "en el 23": the press's short year
    s.add(m, date(y, 1, 1), date(y, 12, 31), gran="year")


@rule(_YEAR_LIKE.pattern)
def other_year(s: Scan, m: re.Match) -> None:
    """A year the grammar cannot have: claimed and reported as unparsed."""
    s.invalid(m)  # "en 2012", "1998": a year, but not one the grammar (or the data) has
