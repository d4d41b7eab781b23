"""The periods a follow-up points at: relative to the previous turn's window («el año anterior», «el siguiente»,
«ese semestre», «¿y en el segundo?», «en todo el trimestre», «sin contar 2025»), the range the last answer covered,
the month it named and the years an earlier turn of the talk spanned («mismos años», «esos diez años»).

``followup.merge_follow_up`` calls these (and ``intake`` for a new question over the talk's years); each returns the
window resolved, or leaves it.
"""

from __future__ import annotations

import re
from datetime import date

from core.ask.understand import Understanding
from core.ask.understand.anaphora import ORDINALS
from core.ask.understand.timeexpr import excluded, month_end, shift_year, without
from core.ask.understand.timewords import PART_MONTHS
from core.ask.understand.tokens import tokenize
from core.text import shift_months

_PAST = re.compile(r"\b(?:pasad[oa]|anterior|previo)\b")


# «ahora solo amenazas pero todo el año», «¿y en todo ese año?», «el año completo», «en todo el trimestre» (after
# «solo febrero»): the whole calendar part of the previous window
WHOLE_PART = re.compile(
    r"\btod[oa]\s+(?:el|ese|este|aquel)\s+(ano|semestre|trimestre|bimestre|cuatrimestre)\b"
    r"|\b(?:el|ese|al|del|de\s+ese)\s+(ano|semestre|trimestre|bimestre|cuatrimestre)\s+(?:complet|enter)o\b"
    # «la cifra al cierre de ese año»: the whole year the period talked about is in
    r"|\bcierre\s+(?:de|del)\s+(?:es[ea]\s+|este\s+|aquel\s+)?(ano|semestre|trimestre)\b"
)
_PART_SIZE = {"ano": 12, "semestre": 6, "trimestre": 3, "bimestre": 2, "cuatrimestre": 4}


def _whole_part(text: str, pw: tuple[date, date]) -> tuple[date, date] | None:
    """The calendar part named («todo el trimestre») holding the previous window whole; None if it spans two."""
    found = WHOLE_PART.search(text)
    if found is None:
        return None
    size = _PART_SIZE[found.group(1) or found.group(2) or found.group(3)]
    first = (pw[0].month - 1) // size * size + 1
    if pw[1].year != pw[0].year or pw[1].month > first + size - 1:
        return None
    return date(pw[0].year, first, 1), month_end(pw[0].year, first + size - 1)


# «¿y los tres meses de antes?», «el periodo anterior», «el trimestre previo»: the span of the same size before
_SPAN_BEFORE = re.compile(
    r"\b(?:los|las|el|la)\s+(?:\w+\s+)?(?:meses|semanas|periodo|trimestre|semestre|bimestre)\s+"
    r"(?:de\s+antes|anteriores|anterior|previos?|previas?|inmediatamente\s+anteriores)\b"
)


_OF_THOSE = re.compile(
    r"^\W*(?:y\s+)?(?:de|d)\s+(?:esos|esas|estos|estas|ellos|ellas)\s+(?:del?\s+)?(?:ano\s+)?(?:19|20)\d\d\b"
    # «favor de desagregar ese dato de 2026 por municipio»: the figure talked about, named by its year
    r"|\b(?:es[ea]s?|dich[oa]s?)\s+(?:dato|datos|cifra|cifras|numero|numeros)\s+(?:del?\s+)?(?:ano\s+)?(?:19|20)\d\d\b"
)


def _of_those_year(text: str, window: tuple[date, date] | None, pw: tuple[date, date]) -> bool:
    """«de esas del 2023…»: the year said only names which of the figures talked about (a part of that year)."""
    if window is None or not _OF_THOSE.search(text) or window[0].year != window[1].year:
        return False
    whole = (window[0].month, window[1].month) == (1, 12)
    return whole and pw[0].year == pw[1].year == window[0].year and pw != window


def relative_window(
    merged: Understanding, current: Understanding, previous: Understanding, ordinal: int | None = None
) -> None:
    """ "el año anterior", "el mismo periodo…", "compáralo con 2023": relative to the previous turn's window."""
    pw, sig, text = previous.window, current.signals, tokenize(current.question or "").text
    if pw is None:
        return
    own_period = re.search(r"\b(?:19|20)\d{2}\b|\blo\s+que\s+va\b|\beste\s+ano\b", text)
    if "time:same_period_prev" in sig and current.window and current.compare_window and own_period:
        # «regresando a Celaya, en lo que va de 2025 contra el mismo corte del año pasado»: its own periods
        merged.window, merged.compare_window, merged.kind = current.window, current.compare_window, "comparison"
    elif _of_those_year(text, current.window, pw):  # «de esas del 2023, ¿cuántas en Irapuato?» after its semester
        merged.window, merged.compare_window = pw, None
    elif (year := _year_corrected(text, pw)) is not None:  # «no perdón, era 2021» after its first semester of 2022
        merged.window, merged.compare_window = shift_year(pw, year - pw[0].year), None
    elif (out := excluded(sig)) and current.window is None:  # «y el año con menos, sin contar 2025»
        merged.window, merged.compare_window = without(pw, out), None
    elif "time:same_period_prev" in sig:  # "¿y el mismo periodo del año anterior?"
        merged.window, merged.compare_window, merged.kind = pw, shift_year(pw, -1), "comparison"
    elif "time:same_period_base" in sig and current.compare_window and "time:window_from_base" not in sig:
        # «y en lo que va de 2025 en Celaya contra lo mismo de 2024»: both periods are the question's own
        merged.window, merged.compare_window, merged.kind = current.window, current.compare_window, "comparison"
    elif "time:same_period_base" in sig and current.compare_window:  # "¿y contra el mismo periodo de 2022?"
        years = current.compare_window[0].year - pw[0].year
        merged.window, merged.compare_window, merged.kind = pw, shift_year(pw, years), "comparison"
    elif "time:window_from_base" in sig and current.compare_window:  # "compáralo con 2023"
        merged.window, merged.kind = pw, "comparison"
    elif "time:prev_of_previous" in sig and current.compare_window is None:  # "¿y el año anterior?"
        merged.window, merged.compare_window = shift_year(pw, -1), None
    elif "time:month_of_that_year" in sig and current.window:  # «¿y nomás en abril de ese año?»
        merged.window, merged.compare_window = shift_year(current.window, pw[1].year - current.window[0].year), None
    elif (shift := next((s for s in sig if s.startswith("time:shift_years:")), None)) and not _YEAR_SAID.search(text):
        # «¿y dos años antes?» (not «y hace dos años, todo 2023»: the year said is the window); after several years
        # («del 2022 al 2024» → «y hace dos años, nada más ese año») one year, counted from the data's year
        several = pw[0].year != pw[1].year and current.window is not None
        merged.window = current.window if several else shift_year(pw, int(shift.rsplit(":", 1)[1]))
        merged.compare_window = None
    elif adjacent := next((s for s in sig if s.startswith("time:adjacent:")), None):  # "¿y el año siguiente?"
        merged.window, merged.compare_window = _adjacent_window(pw, adjacent), None
    elif _SPAN_BEFORE.search(text) and current.window is None:  # «¿y los tres meses de antes?»: the span before
        size = (pw[1].year - pw[0].year) * 12 + pw[1].month - pw[0].month + 1
        merged.window, merged.compare_window = _adjacent_window(pw, f"time:adjacent:-{size}:span"), None
    elif (whole := _whole_part(text, pw)) and not (
        current.window and _YEAR_SAID.search(text)
    ):  # «pero todo el año», «¿y en todo ese año?», «en todo el trimestre»
        merged.window, merged.compare_window = whole, None
    elif "time:previous_window" in sig and not (current.window and _YEAR_SAID.search(text)):
        # "¿cuál fue el mes más alto de ese semestre?" (not «en todo ese periodo 2015-2024»: the years said)
        merged.window, merged.compare_window = pw, previous.compare_window
    elif "time:same_part_of_year" in sig and current.window and re.search(r"\b(?:vs|versus|contra|compar\w*)\b", text):
        # «vs mismo semestre 2024»: the window talked about against the same part of that year
        merged.window, merged.compare_window = pw, shift_year(pw, current.window[0].year - pw[0].year)
        merged.kind = "comparison"
    elif "time:same_part_of_year" in sig and current.window:  # "¿y en el mismo trimestre de 2025?"
        # «regresa a 2023» after «de 2019 a 2024»: a window of several years has no part of a year to keep
        several = pw[0].year != pw[1].year and (pw[0].month, pw[1].month) == (1, 12)
        merged.window = current.window if several else shift_year(pw, current.window[0].year - pw[0].year)
    elif "time:year_inferred" in sig and current.window and current.window[0].year != pw[0].year:
        merged.window = shift_year(current.window, pw[0].year - current.window[0].year)  # "¿y en el segundo trimestre?"
    elif "time:relative" in sig and current.compare_window is None and _before_talked_about(text, current, pw):
        # «¿y el año pasado?» after a whole year is the year before it (blind probes: «… en 2020» → «¿y el año
        # pasado?» means 2019, never the data's last year); after 2024 read from the data's end, 2023
        size = (pw[1].year - pw[0].year) * 12 + pw[1].month - pw[0].month + 1
        merged.window = _adjacent_window(pw, f"time:adjacent:-{size}:{'year' if size == 12 else 'span'}")
    elif ordinal is not None and current.window is None:
        part = _calendar_part(pw, ordinal)  # "¿y en el segundo?" after "el primer trimestre"
        if part is None:
            return
        merged.window = part
    else:
        return
    merged.window_text = None
    merged.signals.append("followup:relative_window")


# «no perdón, era 2021», «ups, 2023», «perdón, quise decir del 2020»: only the year of the period talked about is wrong
_YEAR_CORRECTION = re.compile(
    r"^(?:(?:no|perdon|perdona|disculpa|disculpe|ups|oops|error|corrijo|me\s+equivoque)\s*,?\s*)+"
    r"(?:(?:era|es|quise\s+decir|queria\s+decir|me\s+referia\s+a|me\s+refiero\s+a|mas\s+bien|mejor)\s+)?"
    r"(?:(?:en|el|del|de)\s+)?(?:(?:el\s+)?ano\s+)?((?:19|20)\d{2})$"
)


def _year_corrected(text: str, pw: tuple[date, date]) -> int | None:
    """The year a correction says when the period talked about is a part of one year; None otherwise."""
    found = _YEAR_CORRECTION.match(text)
    part = pw[0].year == pw[1].year and (pw[0].month, pw[1].month) != (1, 12)
    return int(found.group(1)) if found and part else None


def _before_talked_about(text: str, current: Understanding, pw) -> bool:
    """Whether a relative «pasado/anterior» names the span before the window talked about, not the data's own."""
    if not _PAST.search(text):
        return False
    if current.window == pw:
        return True
    whole_year = pw[0] == date(pw[0].year, 1, 1) and pw[1] == date(pw[0].year, 12, 31)
    return whole_year and bool(_YEAR_PAST.search(text)) and current.window is not None and _is_year(current.window)


def _is_year(window) -> bool:
    return window[0].month == 1 and window[0].day == 1 and window[1] == date(window[0].year, 12, 31)


_YEAR_SAID = re.compile(r"\b(?:19|20)\d{2}\b")
_YEAR_PAST = re.compile(r"\bano\s+pasado\b")


def _adjacent_window(window, tag: str):
    """The window next to ``window`` that a tag «time:adjacent:-6:span» names (one year: the same months shifted)."""
    months, unit = tag.split(":")[2:4]
    n = int(months)
    if unit == "year" and abs(n) == 12:
        return shift_year(window, n // 12)  # «el año siguiente» after «enero a junio de 2024»: enero a junio de 2025
    if n < 0:
        start = shift_months(window[0], n)
        end = shift_months(window[0], -1)
    else:
        start = shift_months(window[1], 1)
        end = shift_months(window[1], n)
    return start, month_end(end.year, end.month)


def _calendar_part(window, n: int):
    """The n-th part of the year of the same size as ``window`` (a quarter after a quarter), or None."""
    size = (window[1].year - window[0].year) * 12 + window[1].month - window[0].month + 1
    if size not in (2, 3, 4, 6) or (window[0].month - 1) % size or not 1 <= n <= 12 // size:
        return None
    first = size * (n - 1) + 1
    return date(window[0].year, first, 1), month_end(window[0].year, first + size - 1)


def answered_window(conv) -> tuple[date, date] | None:
    """The period the last turn's answer covered (its envelope's effective range), or None."""
    turns = getattr(conv, "turns", None) or []
    result = turns[-1].result if turns else None
    effective = ((result or {}).get("meta") or {}).get("date_range_effective") or {}
    try:
        return date.fromisoformat(effective["from"]), date.fromisoformat(effective["to"])
    except (KeyError, TypeError, ValueError):
        return None


_THAT_MONTH = re.compile(r"\b(?:es[ea]|dicho|aquel|el\s+mismo)\s+mes\b")
_THAT_YEAR = re.compile(r"\b(?:es[ea]|dicho|aquel|el\s+mismo)\s+ano\b")


def answered_month(conversation, question: str) -> tuple[date, date] | None:
    """«de ese mes, ¿cuántos fueron con arma de fuego?» after «¿cuál fue el pico?»: the month the last answer named
    (its peak or its low, as it was asked), or None; «ese año» after «¿cuál fue el año con más?», that year."""
    turns = getattr(conversation, "turns", None) or []
    metrics = ((turns[-1].result or {}).get("metrics") or {}) if turns else {}
    text = tokenize(question or "").text
    by_month = metrics.get("por") == "mes" and _THAT_MONTH.search(text)
    by_year = metrics.get("por") == "anio" and _THAT_YEAR.search(text)
    if not (by_month or by_year):
        return None
    named = metrics.get("minimo_periodo" if metrics.get("enfoque") == "minimo" else "maximo_periodo")
    try:
        start = date.fromisoformat(f"{named}-01" if by_month else f"{named}-01-01")
    except (TypeError, ValueError):
        return None
    return (start, month_end(start.year, start.month)) if by_month else (start, date(start.year, 12, 31))


# «mismos años», «esos diez años», «esos años»: the years a window of the talk spanned, however many turns ago
_THOSE_YEARS = re.compile(r"\b(?:(?:l[oa]s\s+)?mismos\s+anos|es[oa]s\s+(?:mism[oa]s\s+)?(?:(\d+)\s+)?anos)\b")


def earlier_years(question: str, conversation) -> tuple[date, date] | None:
    """The last window of the talk that spans several whole years, when the question points at «those years» (and
    has as many years as it says); None otherwise."""
    found = _THOSE_YEARS.search(tokenize(question or "").text)
    if found is None:
        return None
    for turn in reversed(getattr(conversation, "turns", None) or []):
        u = getattr(turn, "understanding", None)
        w = getattr(u, "window", None)
        if w is not None and u.compare_window and "time:compare_span" in u.signals:  # «serie de 2020 a 2024»
            w = (min(w[0], u.compare_window[0]), max(w[1], u.compare_window[1]))
        if w is None or (w[0].month, w[1].month) != (1, 12) or w[1].year == w[0].year:
            continue
        if found.group(1) and int(found.group(1)) != w[1].year - w[0].year + 1:
            continue
        return w
    return None


# «regresa a trimestres: el tercero»: the unit said apart from its ordinal
_UNIT_THEN_ORDINAL = re.compile(
    r"\b(trimestre|semestre|bimestre|cuatrimestre)s?\b\W+(?:\w+\s+){0,2}?(?:el|la)\s+"
    r"(primer|primero|segundo|tercer|tercero|cuarto|quinto|sexto)\W*$"
)


def part_named_apart(question: str, window: tuple[date, date]) -> tuple[date, date] | None:
    """The n-th part of the year talked about when the unit and its ordinal are said apart; None otherwise."""
    found = _UNIT_THEN_ORDINAL.search(tokenize(question or "").text)
    if found is None:
        return None
    size, n = PART_MONTHS[found.group(1)], ORDINALS[found.group(2)]
    if not 1 <= n <= 12 // size:
        return None
    first, year = size * (n - 1) + 1, window[0].year
    return date(year, first, 1), month_end(year, first + size - 1)
