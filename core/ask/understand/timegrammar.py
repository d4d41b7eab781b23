"""The grammar of Spanish time words: atomic periods (a year, a month, a day, a calendar part, a season, a span).

Each rule is a regex over the accent-free token text (numbers in words are digits already, see tokens.py) and
a handler that turns the match into whole months. The data is monthly, so a day becomes its month and the
period says so (a note for the answer). Something that looks like time but is not a valid period ("el 45 de
marzo", "el quinto trimestre", "en 2012" before the data) is claimed and reported as unparsed, never dropped:
the caller must not replace it with a default window. ``timeexpr`` combines the periods into windows.
"""

from __future__ import annotations

import calendar
import re
from datetime import date

from core.ask.understand.timewords import (
    _ABBR,
    _DAY,
    _MONTH,
    _MONTH_OR_ABBR,
    _OF,
    _ORD,
    _ORD_RE,
    _PART,
    _SIDE,
    _UNIT,
    _UNIT_MONTHS,
    _YEAR,
    _YEAR_LIKE,
    _YEAR_REF,
    MONTHS,
    PART_ABBR,
    PART_MONTHS,
    SAME,
    SEASONS,
    Period,
    _months_after,
    _recent_year,
    last_months,
    month_words,
)
from core.ask.understand.tokens import NUMBER_RE, number_value
from core.text import MONTHS as MONTH_NAMES
from core.text import month_end, shift_months

# «ese año», «dicho periodo», «ese mismo mes»: the window of the previous turn, whatever else the question changes
THAT_PERIOD = (
    r"\b(?:es[ea]|dich[oa]|aquel|aquella|(?:es[ea]\s+|el\s+|del\s+|la\s+)mism[oa])\s+"
    r"(ano|semestre|trimestre|bimestre|cuatrimestre|periodo|mes|lapso|rango|tramo|intervalo|ventana)\b"
    r"(?!\s+(?:pero\s+)?(?:de|del|pasado|anterior)\b)"
)


# a part of a year said before «de ese año»: «abril», «el primer semestre (completo)»
_PART_OF_YEAR = (
    rf"(?:{_MONTH_OR_ABBR}|(?:primer|segundo|tercer|cuarto|ultimo|1er|2do|3er|4to)\s+"
    r"(?:semestre|trimestre|bimestre|cuatrimestre))(?:\s+complet[oa])?"
)


def months_of_that_year(text: str) -> bool:
    """Whether months are said of «ese año» («de marzo a mayo de ese año»): a period of its own, inside that year."""
    found = re.search(THAT_PERIOD, text)
    return bool(
        found
        and found.group(1) == "ano"
        and re.search(rf"\b{_PART_OF_YEAR}\s+(?:(?:de|del)\s+)?$", text[: found.start()])
    )


def that_period(text: str, window: tuple[date, date]) -> str | None:
    """``text`` (normalized) with «ese año» / «ese mes» written as the previous turn's window; None without one."""
    found = re.search(THAT_PERIOD, text)
    if found is None:
        return None
    said = f"entre {window[0].isoformat()} y {window[1].isoformat()}"
    if found.group(1) == "ano" and re.search(rf"\b{_PART_OF_YEAR}\s+(?:(?:de|del)\s+)?$", text[: found.start()]):
        said = str(window[1].year)  # «violencia familiar en Uriangato en abril de ese año»: that year's April
    return text[: found.start()] + said + text[found.end() :]


def atomic_periods(text: str, anchor: date) -> list[Period]:
    """Every atomic period, longest rules first; a later rule never overlaps an earlier match."""
    found: list[Period] = []
    taken: list[tuple[int, int]] = []
    a_end = month_end(anchor.year, anchor.month)

    def add(m: re.Match, start: date, end: date, kind: str = "absolute", gran: str = "month", **extra) -> None:
        """Record a period and claim its characters."""
        found.append(Period(start, end, m.start(), m.end(), kind, gran, **extra))
        taken.append((m.start(), m.end()))

    def invalid(m: re.Match) -> None:
        """Claim words that look like time but name no period: reported as unparsed."""
        found.append(Period(anchor, anchor, m.start(), m.end(), "invalid", "invalid"))
        taken.append((m.start(), m.end()))

    def free(m: re.Match) -> bool:
        """Whether a match overlaps no period found by an earlier rule."""
        return all(m.end() <= s or m.start() >= e for s, e in taken)

    def year_or_recent(y: str | None, words: str | None, first_month: int) -> int:
        """The year said (digits, "este año", "el año pasado") or the latest one not after the anchor."""
        if y:
            return int(y) + (2000 if len(y) == 2 else 0)
        if words:
            return anchor.year if words.startswith("este") else anchor.year - (2 if "antepasado" in words else 1)
        return _recent_year(anchor, first_month)

    rules: list[tuple[str, callable]] = []

    def rule(pattern: str):
        """Register a handler for a pattern; rules run in the order they are written."""

        def wrap(fn):
            """Keep the handler with its pattern."""
            rules.append((pattern, fn))
            return fn

        return wrap

    def day(m: re.Match, d: str, mo: int, y: int, said: bool) -> None:
        """A day is its whole month (the data is monthly); an impossible day is unparsed."""
        dd = 1 if d in ("primero", "1o") else int(d)
        if not 1 <= dd <= calendar.monthrange(y, mo)[1]:
            invalid(m)
            return
        add(m, date(y, mo, 1), month_end(y, mo), gran="day", year_said=said)

    @rule(
        r"\b(?:(?:lo|el|los|las|cifras?|total(?:es)?)\s+)?acumulad[oa]s?\s+(?:(?:del|de\s+este|de\s+ese|de)\s+ano\s+)?"
        r"(?:a|al|hasta(?:\s+el)?)\s+(?:(?:el\s+)?(?:cierre|corte|fin|final)\s+(?:de|del)\s+)?(?:(?:el\s+)?mes\s+de\s+)?"
        rf"({_MONTH_OR_ABBR})(?:{_YEAR_REF}|\s+({_YEAR}))?\b"
    )
    def _year_to_month(m):
        # «el acumulado a octubre de 2025», «acumulado al cierre de septiembre»: January to that month, one year
        mo = {**MONTHS, **_ABBR}[m.group(1)]
        said = m.group(2) or m.group(4)
        y = int(said) + (2000 if said and len(said) == 2 else 0) if said else year_or_recent(None, m.group(3), mo)
        add(m, date(y, 1, 1), month_end(y, mo), gran="span", year_said=bool(said or m.group(3)))

    @rule(
        r"\b(?:(del|de|desde|entre)\s+(?:el\s+)?(?:ano\s+)?)?(20[12]\d|20[3]0|1[5-9]|2\d)\s*"
        r"(-|a|al|hasta(?:\s+el)?|y(?:\s+el)?)\s*(20[12]\d|2030|1[5-9]|2\d)\b(?!\s*(?:de\b|del\b|%|mil\b|por\b))"
    )
    def _short_year_range(m):
        # «del 21 al 24», «2019-24», «de 2020 a 24»: a range of years with a two-digit one (never a count or days)
        one, two = m.group(2), m.group(4)
        if len(one) == 4 and len(two) == 4:
            return
        if len(one) == 2 and not m.group(1):
            return  # «21 y 24» alone may be counts
        y1, y2 = (int(y) + (2000 if len(y) == 2 else 0) for y in (one, two))
        if not 2015 <= y1 < y2 <= 2030:
            return
        found.append(Period(date(y1, 1, 1), date(y1, 12, 31), m.start(2), m.end(2), "absolute", "year"))
        found.append(Period(date(y2, 1, 1), date(y2, 12, 31), m.start(4), m.end(4), "absolute", "year"))
        taken.append((m.start(2), m.end()))

    @rule(rf"\b{_DAY}\s+de\s+({_MONTH})(?:\s+(?:de|del)\s+(?:ano\s+)?({_YEAR}))?\b")
    def _day(m):
        mo = MONTHS[m.group(2)]
        said = bool(m.group(3))
        day(m, m.group(1), mo, int(m.group(3)) if said else _recent_year(anchor, mo), said)

    @rule(rf"\b(\d{{1,2}})\s*/\s*(\d{{1,2}})\s*/\s*({_YEAR})\b")
    def _numeric_day(m):
        mo = int(m.group(2))
        if 1 <= mo <= 12:
            day(m, m.group(1), mo, int(m.group(3)), True)
        else:
            invalid(m)

    @rule(rf"\b({_YEAR})\s*-\s*(\d{{1,2}})\s*-\s*(\d{{1,2}})\b")
    def _iso_day(m):
        mo = int(m.group(2))
        if 1 <= mo <= 12:
            day(m, m.group(3), mo, int(m.group(1)), True)
        else:
            invalid(m)

    @rule(
        rf"\b(?:entre|de|desde|del)\s+(?:el\s+mes\s+de\s+)?({_MONTH})(?:\s+(?:de|del)\s+({_YEAR}))?\s+"
        rf"(?:y|a|al|hasta|-)\s+({_MONTH})(?:\s+(?:de|del)?\s*({_YEAR})|{_YEAR_REF})?\b"
    )
    def _month_range(m):
        m1, m2 = MONTHS[m.group(1)], MONTHS[m.group(3)]
        # «de marzo a junio del año pasado»: the year in words belongs to the range, not a period of its own
        y2 = int(m.group(4)) if m.group(4) else (int(m.group(2)) if m.group(2) else None)
        y2 = y2 or year_or_recent(m.group(5), m.group(6), m2)
        y1 = int(m.group(2)) if m.group(2) else (y2 if m1 <= m2 else y2 - 1)
        said = bool(
            m.group(2) or m.group(4) or m.group(5) or m.group(6)
        )  # «¿y de julio a diciembre?»: a follow-up takes the previous year
        add(m, date(y1, m1, 1), month_end(y2, m2), gran="span", year_said=said)

    @rule(rf"\b({_MONTH_OR_ABBR})\s*-\s*({_MONTH_OR_ABBR})\s+(?:de\s+|del\s+)?({_YEAR})\b")
    def _abbr_range(m):
        months = {**MONTHS, **_ABBR}
        m1, m2, y = months[m.group(1)], months[m.group(2)], int(m.group(3))
        add(m, date(y if m1 <= m2 else y - 1, m1, 1), month_end(y, m2), gran="span")

    @rule(
        rf"\b(?:los\s+|las\s+)?(primer|ultim)[oa]s\s+({NUMBER_RE})\s+meses\s+(?:(?:de|del)\s+)?(?:ano\s+)?({_YEAR})\b"
    )
    def _months_of_year(m):
        n, y = max(1, min(number_value(m.group(2)) or 1, 12)), int(m.group(3))
        first = 1 if m.group(1) == "primer" else 13 - n
        add(m, date(y, first, 1), month_end(y, first + n - 1), gran="span")

    @rule(
        rf"\b(?:(est[ea])\s+|(?:el|la)\s+)?(primavera|verano|otono|invierno)"
        rf"(?:{_YEAR_REF}|\s+(?:de|del)\s+(ese|aquel|dicho)(?:\s+mismo)?\s+ano)?\b"
    )
    def _season(m):
        first, last = SEASONS[m.group(2)]
        y = anchor.year if m.group(1) else year_or_recent(m.group(3), m.group(4), first)
        start, end = date(y, first, 1), month_end(y + (1 if last < first else 0), last)
        name = {"otono": "otoño"}.get(m.group(2), m.group(2))
        # «el otoño de ese año»: the year is the previous turn's (a follow-up moves it there)
        said = bool(m.group(1) or m.group(3) or m.group(4)) and not m.group(5)
        # the year of «de ese año» is not known yet: the note names the months only
        months = f"{MONTH_NAMES[first - 1]} a {MONTH_NAMES[last - 1]}" if m.group(5) else month_words(start, end)
        add(
            m,
            start,
            end,
            gran="span",
            year_said=said,
            note=f"«{name.capitalize()}» se tomó como {months}.",
        )

    @rule(rf"\b({_MONTH_OR_ABBR})\s+(?:de|del)\s+(?:es[ea]|aquel|dicho|el\s+mismo)\s+ano\b")
    def _month_of_that_year(m):
        # «¿y nomás en abril de ese año?»: that month of the year talked about (a follow-up moves it there)
        mo = {**MONTHS, **_ABBR}[m.group(1)]
        add(m, date(anchor.year, mo, 1), month_end(anchor.year, mo), kind="relative", tag="time:month_of_that_year")

    @rule(THAT_PERIOD)
    def _that_period(m):
        # "ese semestre": the previous turn's window; alone it has no meaning, so the follow-up fills it
        add(m, *last_months(anchor, 1), kind="relative", gran="span", tag="time:previous_window")

    @rule(
        rf"\b({_ORD_RE})\s+{_PART}(?:{_YEAR_REF}|{_OF})\b"
        rf"|\b{_PART}\s+(\d{{1,2}}|i{{1,3}}|iv|v|vi)(?:{_YEAR_REF}|{_OF})\b"
    )
    def _calendar_part(m):
        if m.group(1):
            n, part, y, words = _ORD.get(m.group(1), 99), m.group(2), m.group(3), m.group(4)
        else:
            g = m.group(6)
            n, part, y, words = int(g) if g.isdigit() else _ORD[g], m.group(5), m.group(7), m.group(8)
        size = PART_MONTHS[PART_ABBR.get(part, part)]
        if not 1 <= n <= 12 // size:
            invalid(m)
            return
        first = size * (n - 1) + 1
        yr = year_or_recent(y, words, first)
        add(m, date(yr, first, 1), month_end(yr, first + size - 1), gran="span", year_said=bool(y or words))

    @rule(r"\b(?:([1-4])t|t([1-4])|q([1-4]))\s?-?\s?(1[5-9]|2\d)\b(?!\s*(?:de\b|%|mil\b))")
    def _quarter_short_year(m):
        # «el 2T23», «Q1 24», «T3-22»: a quarter glued to a two-digit year (reports and spreadsheets)
        n = int(m.group(1) or m.group(2) or m.group(3))
        first, yr = 3 * (n - 1) + 1, 2000 + int(m.group(4))
        add(m, date(yr, first, 1), month_end(yr, first + 2), gran="span")

    @rule(rf"\b({_MONTH_OR_ABBR})\s*-\s*({_MONTH_OR_ABBR})\s+(1[5-9]|2\d)\b(?!\s*(?:de\b|%|mil\b))")
    def _abbr_range_short_year(m):
        # «ene-mar 24»: months and a two-digit year
        months = {**MONTHS, **_ABBR}
        m1, m2, y = months[m.group(1)], months[m.group(2)], 2000 + int(m.group(3))
        add(m, date(y if m1 <= m2 else y - 1, m1, 1), month_end(y, m2), gran="span")

    @rule(
        rf"\b(?:(?:entre|de|desde|del)\s+)?({_MONTH_OR_ABBR})\s*(-|a|al|hasta)\s*({_MONTH_OR_ABBR})(?:{_YEAR_REF})?\b"
    )
    def _abbr_range_any_year(m):
        # «abr-jun?», «¿y oct-nov?», «de oct a dic»: the months of a report or a chat; without a year, the latest
        # such months (a follow-up moves them to the year talked about)
        if m.group(2) != "-" and m.group(1) in MONTHS and m.group(3) in MONTHS:
            return  # full names with «a»: _month_range / _month, with their own openers
        months = {**MONTHS, **_ABBR}
        m1, m2 = months[m.group(1)], months[m.group(3)]
        y2 = year_or_recent(m.group(4), m.group(5), m2)
        add(
            m,
            date(y2 if m1 <= m2 else y2 - 1, m1, 1),
            month_end(y2, m2),
            gran="span",
            year_said=bool(m.group(4) or m.group(5)),
        )

    @rule(rf"\b(?:([1-4])\s?t|t([1-4])|q([1-4]))(?:{_YEAR_REF}|{_OF})?\b")
    def _quarter_shorthand(m):
        # the press's quarter shorthand: «1T 2025», «4T», «T2 de 2024», «Q1»
        n = int(m.group(1) or m.group(2) or m.group(3))
        first = 3 * (n - 1) + 1
        yr = year_or_recent(m.group(4), m.group(5), first)
        add(m, date(yr, first, 1), month_end(yr, first + 2), gran="span", year_said=bool(m.group(4) or m.group(5)))

    @rule(
        rf"\b(?:(?:en|durante|de|del)\s+(?:el\s+)?(?:mes\s+de\s+)?)?({_MONTH})(?:{_YEAR_REF})?\b(?!\s+(?:por|a|tras)\s+mes)"
    )
    def _month(m):
        mo = MONTHS[m.group(1)]
        y = year_or_recent(m.group(2), m.group(3), mo)
        add(m, date(y, mo, 1), month_end(y, mo), year_said=bool(m.group(2) or m.group(3)))

    @rule(
        rf"\b(?:(?:el|la|los|las)\s+)?(?:({NUMBER_RE})\s+)?{_UNIT}\s+{_SIDE}\b"
        rf"|\b(?:el|la|los|las)\s+{_SIDE}\s+(?:({NUMBER_RE})\s+)?{_UNIT}\b"
    )
    def _adjacent(m):
        # «el año siguiente», «los seis meses anteriores», «el trimestre previo»: next to the previous turn's window
        # (followup.py reads the tag); asked alone, the months before the data's last month (or after it: no data).
        n = number_value(m.group(1) or m.group(5) or "") or 1
        unit, side = m.group(2) or m.group(6), m.group(3) or m.group(4)
        back = side.startswith(("ant", "prev"))
        if unit.startswith("ano") and n == 1 and back:
            return  # «el año anterior»: _last_year (same months a year earlier)
        if unit.endswith("s") and unit != "mes" and not (m.group(1) or m.group(5)):
            return  # «los meses anteriores»: how many is not said
        months = n * _UNIT_MONTHS[unit[:3]]
        window = last_months(anchor, months) if back else (shift_months(a_end, 1), _months_after(a_end, months))
        tag = f"time:adjacent:{'-' if back else '+'}{months}:{'year' if unit.startswith('ano') else 'span'}"
        add(m, *window, kind="relative", gran="span", tag=tag)

    @rule(
        rf"\b(?:los\s+|las\s+)?(?:ultim[oa]s|pasad[oa]s|recientes)\s+({NUMBER_RE})\s+"
        rf"(mes|meses|ano|anos|trimestres|semestres|bimestres|cuatrimestres)\b"
        rf"|\b({NUMBER_RE})\s+(meses|anos)\s+(?:pasados|recientes|anteriores)\b"
    )
    def _last_n(m):
        n = number_value(m.group(1) or m.group(3)) or 1
        unit = m.group(2) or m.group(4)
        months = n * ({"m": 1, "a": 12, "t": 3, "s": 6, "b": 2, "c": 4}[unit[0]])
        add(m, *last_months(anchor, max(1, min(months, 240))), kind="relative", gran="span")

    @rule(
        rf"\b(?:el\s+|la\s+|los\s+|las\s+)?ultim[oa]s?\s+(?:({NUMBER_RE})\s+)?"
        rf"(mes|meses|trimestres?|semestres?|bimestres?|cuatrimestres?)\s+(?:de|del)\s+(?:el\s+)?(?:ano\s+)?({_YEAR})\b"
    )
    def _last_of_year(m):
        # «el último bimestre de 2024», «los últimos 3 meses de 2023»: the end of that year, not of the data
        months = (number_value(m.group(1) or "") or 1) * _UNIT_MONTHS[m.group(2)[:3]]
        y = int(m.group(3))
        add(m, shift_months(date(y, 12, 1), -(min(months, 12) - 1)), date(y, 12, 31), gran="span")

    @rule(r"\b(?:el\s+|la\s+)?ultim[oa]\s+(ano|trimestre|semestre)\s+(?:calendario\s+)?(?:complet|cerrad|enter)[oa]\b")
    def _last_whole_unit(m):
        # «el último año completo que tengan»: the last calendar year (quarter, half) published whole, not 12 months
        size = {"ano": 12, "trimestre": 3, "semestre": 6}[m.group(1)]
        done = anchor.month - anchor.month % size  # months of the anchor's year in whole units
        end = date(anchor.year, done, 1) if done else date(anchor.year - 1, 12, 1)
        add(m, shift_months(end, -(size - 1)), month_end(end.year, end.month), kind="relative", gran="span")

    @rule(
        r"\b(?:el\s+|la\s+)?ultim[oa]\s+(mes|ano|trimestre|semestre|bimestre|cuatrimestre)\b|\b(?:el\s+)?mes\s+(?:ante)?pasado\b"
        r"|\beste\s+mes\b(?!\s+(?:por|a|tras|con|de|mas|menos))|\bel\s+mes\s+actual\b"
    )
    def _last_unit(m):
        unit = m.group(1) or "mes"
        months = {"mes": 1, "ano": 12, "trimestre": 3, "semestre": 6, "bimestre": 2, "cuatrimestre": 4}[unit]
        if "antepasado" in m.group(0):  # «el mes antepasado»: the month before the last published one
            before = shift_months(date(anchor.year, anchor.month, 1), -1)
            add(m, before, month_end(before.year, before.month), kind="relative", gran="span")
            return
        add(m, *last_months(anchor, months), kind="relative", gran="span")

    @rule(rf"\b(?:en\s+)?lo\s+que\s+va\s+(?:de|del)\s+(?:el\s+)?(?:ano\s+)?({_YEAR})\b")
    def _so_far_of(m):
        y = int(m.group(1))
        add(m, date(y, 1, 1), a_end if y == anchor.year else date(y, 12, 31), kind="relative", gran="span")

    @rule(
        r"\b(?:en\s+)?(?:lo\s+que\s+va\s+(?:del|de\s+este)\s+ano|este\s+ano|el\s+ano\s+(?:en\s+curso|actual)|ano\s+actual"
        r"|ano\s+en\s+curso)\b(?!\s+(?:de\s+)?(?:19|20)\d\d\b)"  # «este año 2026»: the year said names it
    )
    def _this_year(m):
        add(m, date(anchor.year, 1, 1), a_end, kind="relative", gran="span")

    @rule(
        rf"\b{SAME}\s+(?:del|de\s+el)\s+(?:ano\s+)?(?:pasado|anterior|previo)\b"  # «… del (año) anterior»
        r"|\b(?:el\s+)?ano\s+(?:pasado|anterior|previo)\s+(?:(?:por|a|en|para)\s+(?:estas|esas)\s+(?:fechas|alturas)"
        r"|(?:al|a\s+la)\s+mism[oa]\s+(?:corte|fecha|altura|periodo))\b"  # «el año pasado al mismo corte»
        r"|\bel\s+pasado\s+(?:al|a\s+la)\s+mism[oa]\s+(?:corte|fecha|altura)\b"  # «comparado con el pasado a la misma fecha»
        r"|\b(?:el\s+)?ano\s+(pasado|anterior|previo)\b|\b(?:el\s+)?ano\s+antepasado\b|\b(?:un|1)\s+ano\s+(antes)\b"
    )
    def _last_year(m):
        y = anchor.year - (2 if "antepasado" in m.group(0) else 1)
        same = "mism" in m.group(0) or bool(re.search(r"\b(?:estas|esas)\s+(?:fechas|alturas)\b", m.group(0)))
        tag = "time:same_period_prev" if same else ("time:prev_of_previous" if m.group(1) != "pasado" else None)
        kind = "prev_year" if "antepasado" not in m.group(0) else "relative"
        add(m, date(y, 1, 1), date(y, 12, 31), kind=kind, gran="year", tag=tag)

    @rule(rf"\b({NUMBER_RE}|un)\s+anos?\s+(antes|atras|despues|mas\s+tarde)\b")
    def _years_from_previous(m):
        # «¿y dos años antes?», «tres años después»: from the window talked about (a follow-up moves it); alone,
        # from the data's year
        n = (number_value(m.group(1)) or 1) * (-1 if m.group(2) in ("antes", "atras") else 1)
        y = anchor.year + n
        add(m, date(y, 1, 1), date(y, 12, 31), kind="relative", gran="year", tag=f"time:shift_years:{n}")

    @rule(rf"\bhace\s+({NUMBER_RE})\s+anos?\b")
    def _years_ago(m):
        # alone, from the data's year; in a follow-up, from the window talked about («¿y hace un año?» after October
        # 2025 is October 2024), as «dos años antes»
        n = number_value(m.group(1)) or 1
        y = anchor.year - n
        add(m, date(y, 1, 1), date(y, 12, 31), kind="relative", gran="year", tag=f"time:shift_years:{-n}")

    @rule(rf"\b({_MONTH_OR_ABBR})\s*(?:-|/|de|del)?\s*(?:de\s+|del\s+)?({_YEAR})\b")
    def _month_year(m):
        mo = {**MONTHS, **_ABBR}[m.group(1)]
        add(m, date(int(m.group(2)), mo, 1), month_end(int(m.group(2)), mo))

    @rule(r"\b(?:(?:en|de|del|y|para)\s+)?(ene|feb|abr|jun|jul|sept?|oct|nov|dic)\b")
    def _lone_abbr(m):
        # «sep.», «¿y en dic?»: a month abbreviated alone («mar», «may», «ago», «set» are words too: never alone)
        mo = _ABBR[m.group(1)]
        y = _recent_year(anchor, mo)
        add(m, date(y, mo, 1), month_end(y, mo), year_said=False)

    @rule(rf"\b(0?[1-9]|1[0-2])\s*[/-]\s*({_YEAR})\b")
    def _numeric_month_year(m):
        add(m, date(int(m.group(2)), int(m.group(1)), 1), month_end(int(m.group(2)), int(m.group(1))))

    @rule(rf"\b({_YEAR})\s*[/-]\s*(0?[1-9]|1[0-2])\b")
    def _iso_month(m):
        add(m, date(int(m.group(1)), int(m.group(2)), 1), month_end(int(m.group(1)), int(m.group(2))))

    @rule(rf"\b({_YEAR})\b")
    def _year(m):
        y = int(m.group(1))
        add(m, date(y, 1, 1), date(y, 12, 31), gran="year")

    @rule(
        r"\b(?:en\s+el|del|el\s+ano|en\s+el\s+ano|durante\s+el)\s+(1[5-9]|2[0-9])\b(?!\s*(?:%|de\b|mil\b))"
        rf"(?!\s*(?:al?|y|hasta)\s+(?:el\s+)?\d{{1,2}}\s+de\s+{_MONTH})"  # «del 21 al 24 de marzo»: days
    )
    def _two_digit_year(m):
        y = 2000 + int(m.group(1))  # "en el 23": the press's short year
        add(m, date(y, 1, 1), date(y, 12, 31), gran="year")

    @rule(_YEAR_LIKE.pattern)
    def _other_year(m):
        invalid(m)  # "en 2012", "1998": a year, but not one the grammar (or the data) has

    for pattern, fn in rules:
        for m in re.finditer(pattern, text):
            if free(m):
                fn(m)
    return sorted(found, key=lambda p: p.begin)
