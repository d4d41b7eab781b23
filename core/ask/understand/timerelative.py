"""Periods relative to the data's last month («el último trimestre», «este año», «el año pasado») or to the window
of the previous turn («ese semestre», «el trimestre previo», «dos años antes»).

Asked alone, a relative period is counted from the anchor (the data's last month); in a follow-up, the tags it
carries (``time:previous_window``, ``time:adjacent:…``, ``time:shift_years:…``) let followup.py move it next to the
window talked about. Where each rule runs among the others is timegrammar.RULES.
"""

from __future__ import annotations

import re
from datetime import date

from core.ask.understand.timescan import Scan, rule
from core.ask.understand.timewords import (
    _ABBR,
    _MONTH_OR_ABBR,
    _SIDE,
    _UNIT,
    _UNIT_MONTHS,
    _YEAR,
    MONTHS,
    SAME,
    _months_after,
    last_months,
)
from core.ask.understand.tokens import NUMBER_RE, number_value
from core.text import month_end, shift_months

# «ese año», «dicho periodo», «ese mismo mes»: the window of the previous turn, whatever else the question changes
THAT_PERIOD = (
    r"\b(?:es[ea]|dich[oa]|aquel|aquella|(?:es[ea]\s+|el\s+|del\s+|la\s+)?mism[oa])\s+"
    r"(ano|semestre|trimestre|bimestre|cuatrimestre|periodo|mes|lapso|rango|tramo|intervalo|ventana|tiempo)\b"
    r"(?!\s+(?:pero\s+)?(?:de|del|pasado|anterior|\d+|en\s+\d+)\b)"
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
    start, end = window
    if start == date(start.year, 1, 1) and end == date(start.year, 12, 31):
        said = f"en {window[0].year}"  # «ese año, para comparar»: one whole year, never two dates a change runs between
    if found.group(1) == "ano" and re.search(rf"\b{_PART_OF_YEAR}\s+(?:(?:de|del)\s+)?$", text[: found.start()]):
        said = str(window[1].year)  # «violencia familiar en Uriangato en abril de ese año»: that year's April
    return text[: found.start()] + said + text[found.end() :]


@rule(rf"\b({_MONTH_OR_ABBR})\s+(?:de|del)\s+(?:es[ea]|aquel|dicho|el\s+mismo)\s+ano\b")
def month_of_that_year(s: Scan, m: re.Match) -> None:
    """A month of «ese año»: that month of the year talked about."""
    # «¿y nomás en abril de ese año?»: that month of the year talked about (a follow-up moves it there)
    mo = {**MONTHS, **_ABBR}[m.group(1)]
    s.add(m, date(s.anchor.year, mo, 1), month_end(s.anchor.year, mo), kind="relative", tag="time:month_of_that_year")


@rule(THAT_PERIOD)
def previous_window(s: Scan, m: re.Match) -> None:
    """«Ese semestre», «dicho periodo»: the previous turn's window."""
    # "ese semestre": the previous turn's window; alone it has no meaning, so the follow-up fills it
    s.add(m, *last_months(s.anchor, 1), kind="relative", gran="span", tag="time:previous_window")


@rule(
    rf"\b(?:(?:el|la|los|las)\s+)?(?:({NUMBER_RE})\s+)?{_UNIT}\s+{_SIDE}\b"
    rf"|\b(?:el|la|los|las)\s+{_SIDE}\s+(?:({NUMBER_RE})\s+)?{_UNIT}\b"
)
def adjacent(s: Scan, m: re.Match) -> None:
    """A span next to the previous turn's window («el trimestre previo», «el año siguiente»)."""
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
    window = last_months(s.anchor, months) if back else (shift_months(s.a_end, 1), _months_after(s.a_end, months))
    tag = f"time:adjacent:{'-' if back else '+'}{months}:{'year' if unit.startswith('ano') else 'span'}"
    s.add(m, *window, kind="relative", gran="span", tag=tag)


@rule(
    rf"\b(?:los\s+|las\s+)?(?:ultim[oa]s|pasad[oa]s|recientes)\s+({NUMBER_RE})\s+"
    rf"(mes|meses|ano|anos|trimestres|semestres|bimestres|cuatrimestres)\b"
    rf"|\b({NUMBER_RE})\s+(meses|anos)\s+(?:pasados|recientes|anteriores)\b"
)
def last_n(s: Scan, m: re.Match) -> None:
    """«Los últimos N meses/años»: the months up to the data's last one."""
    n = number_value(m.group(1) or m.group(3)) or 1
    unit = m.group(2) or m.group(4)
    months = n * ({"m": 1, "a": 12, "t": 3, "s": 6, "b": 2, "c": 4}[unit[0]])
    s.add(m, *last_months(s.anchor, max(1, min(months, 240))), kind="relative", gran="span")


@rule(r"\b(?:el\s+|la\s+)?ultim[oa]\s+(ano|trimestre|semestre)\s+(?:calendario\s+)?(?:complet|cerrad|enter)[oa]\b")
def last_whole_unit(s: Scan, m: re.Match) -> None:
    """«El último año completo»: the last calendar unit published whole."""
    # «el último año completo que tengan»: the last calendar year (quarter, half) published whole, not 12 months
    size = {"ano": 12, "trimestre": 3, "semestre": 6}[m.group(1)]
    done = s.anchor.month - s.anchor.month % size  # months of the anchor's year in whole units
    end = date(s.anchor.year, done, 1) if done else date(s.anchor.year - 1, 12, 1)
    s.add(m, shift_months(end, -(size - 1)), month_end(end.year, end.month), kind="relative", gran="span")


@rule(
    r"\b(?:el\s+|la\s+)?ultim[oa]\s+(mes|ano|trimestre|semestre|bimestre|cuatrimestre)\b|\b(?:el\s+)?mes\s+(?:ante)?pasado\b"
    r"|\beste\s+mes\b(?!\s+(?:por|a|tras|con|de|mas|menos))|\bel\s+mes\s+actual\b"
)
def last_unit(s: Scan, m: re.Match) -> None:
    """«El último mes/trimestre», «el mes pasado»: up to the data's last month."""
    if re.search(r"\b(?:cambi|subi|baj|vari|creci|aument|disminu)\w*\s+(?:en\s+)?$", s.text[: m.start()]):
        return  # «¿cuánto cambió el último año?» of a yearly series: its last year, not the data's last 12 months
    unit = m.group(1) or "mes"
    months = {"mes": 1, "ano": 12, "trimestre": 3, "semestre": 6, "bimestre": 2, "cuatrimestre": 4}[unit]
    if "antepasado" in m.group(0):  # «el mes antepasado»: the month before the last published one
        before = shift_months(date(s.anchor.year, s.anchor.month, 1), -1)
        s.add(m, before, month_end(before.year, before.month), kind="relative", gran="span")
        return
    s.add(m, *last_months(s.anchor, months), kind="relative", gran="span")


@rule(rf"\b(?:en\s+)?lo\s+que\s+va\s+(?:de|del)\s+(?:el\s+)?(?:ano\s+)?({_YEAR})\b")
def so_far_of(s: Scan, m: re.Match) -> None:
    """«Lo que va de» a year: to the data's last month when that year is the current one."""
    y = int(m.group(1))
    s.add(m, date(y, 1, 1), s.a_end if y == s.anchor.year else date(y, 12, 31), kind="relative", gran="span")


@rule(
    r"\b(?:en\s+)?(?:lo\s+que\s+va\s+(?:del|de\s+este)\s+ano|este\s+ano|el\s+ano\s+(?:en\s+curso|actual)|ano\s+actual"
    r"|ano\s+en\s+curso)\b(?!\s+(?:de\s+)?(?:19|20)\d\d\b)"  # «este año 2026»: the year said names it
)
def this_year(s: Scan, m: re.Match) -> None:
    """«Este año», «lo que va del año»: the data's year to its last month."""
    s.add(m, date(s.anchor.year, 1, 1), s.a_end, kind="relative", gran="span")


@rule(
    rf"\b{SAME}\s+(?:del|de\s+el)\s+(?:ano\s+)?(?:pasado|anterior|previo)\b"  # «… del (año) anterior»
    r"|\b(?:el\s+)?ano\s+(?:pasado|anterior|previo)\s+(?:(?:por|a|en|para)\s+(?:estas|esas)\s+(?:fechas|alturas)"
    r"|(?:al|a\s+la)\s+mism[oa]\s+(?:corte|fecha|altura|periodo))\b"  # «el año pasado al mismo corte»
    r"|\bel\s+(?:pasado|anterior)\s+(?:(?:al|a\s+la)\s+mism[oa]\s+(?:corte|fecha|altura)|(?:por|a|en|para)\s+(?:estas|esas)"
    r"\s+(?:fechas|alturas))\b"  # «comparado con el pasado a la misma fecha», «vs el anterior a estas alturas»
    r"|\b(?:el\s+)?ano\s+(pasado|anterior|previo)\b|\b(?:el\s+)?ano\s+antepasado\b|\b(?:un|1)\s+ano\s+(antes)\b"
)
def last_year(s: Scan, m: re.Match) -> None:
    """«El año pasado» and its same-period forms: the year before the data's."""
    y = s.anchor.year - (2 if "antepasado" in m.group(0) else 1)
    same = "mism" in m.group(0) or bool(re.search(r"\b(?:estas|esas)\s+(?:fechas|alturas)\b", m.group(0)))
    tag = "time:same_period_prev" if same else ("time:prev_of_previous" if m.group(1) != "pasado" else None)
    kind = "prev_year" if "antepasado" not in m.group(0) else "relative"
    s.add(m, date(y, 1, 1), date(y, 12, 31), kind=kind, gran="year", tag=tag)


@rule(rf"\b({NUMBER_RE}|un)\s+anos?\s+(antes|atras|despues|mas\s+tarde)\b")
def years_from_previous(s: Scan, m: re.Match) -> None:
    """«Dos años antes», «tres años después»: a shift of the window talked about."""
    # «¿y dos años antes?», «tres años después»: from the window talked about (a follow-up moves it); alone,
    # from the data's year
    n = (number_value(m.group(1)) or 1) * (-1 if m.group(2) in ("antes", "atras") else 1)
    y = s.anchor.year + n
    s.add(m, date(y, 1, 1), date(y, 12, 31), kind="relative", gran="year", tag=f"time:shift_years:{n}")


@rule(rf"\bhace\s+({NUMBER_RE})\s+anos?\b")
def years_ago(s: Scan, m: re.Match) -> None:
    """«Hace N años»: a shift of the window talked about, or of the data's year."""
    # alone, from the data's year; in a follow-up, from the window talked about («¿y hace un año?» after October
    # 2025 is October 2024), as «dos años antes»
    n = number_value(m.group(1)) or 1
    y = s.anchor.year - n
    s.add(m, date(y, 1, 1), date(y, 12, 31), kind="relative", gran="year", tag=f"time:shift_years:{-n}")
