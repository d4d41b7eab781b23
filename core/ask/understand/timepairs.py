"""Two periods said together: a range («de 2019 a 2020»), a union, or a comparison («2024 vs 2023»).

``timegrammar`` finds each period; the words between two of them (the connectors) say how they relate, and a
lone period after «comparado con», «respecto a», «(más) que» is the base of a comparison. ``timeexpr`` turns
those relations into windows.
"""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import date, timedelta
from itertools import pairwise

from core.ask.understand.timewords import SAME, Period
from core.ask.understand.tokens import tokenize
from core.text import month_end

_COMPARE_CONNECTORS = re.compile(
    r"^(?:vs|versus|contra|frente a(?:l| el)?|comparad[oa]s? con(?: el)?|en comparacion con(?: el)?|"
    r"respecto (?:a|al|a el|de|del)|con respecto (?:a|al|a el)|con relacion (?:a|al)|en relacion (?:a|al|con)|"
    r"que(?: en)?(?: el)?|y|con(?: el)?)$"
)
_RANGE_CONNECTORS = re.compile(r"^(?:y(?: el)?|a|al|a el|hasta(?: el)?|-)$")
_RANGE_OPENERS = re.compile(r"(?:^|\s)(?:entre|de|del|desde|durante|en el periodo de|en el periodo)(?: el)?\s*$")
_BASE_PREFIX = re.compile(
    r"(?:^|\s)(?:vs|versus|contra|frente a|frente al|compar\w* con|en comparacion con|respecto (?:a|al|de|del)|"
    r"con respecto (?:a|al)|con relacion (?:a|al)|en relacion (?:a|al|con)|que)(?: en)?(?: el| al)?\s*$"
)
# "enero a noviembre de 2025 frente al mismo periodo de 2024": the base is the window moved to that year.
_SAME_PERIOD = re.compile(
    r"^(?:vs|versus|contra|frente a(?:l| el)?|comparad[oa]s? con(?: el)?|en comparacion con(?: el)?|"
    r"respecto (?:a|al|a el|de|del)|con respecto (?:a|al|a el)|que(?: en)?(?: el)?|y)?\s*"
    r"(?:(?:los|las|lo)\s+(?:de|del)\s+)?(?:el\s+|al\s+)?"  # «… y los del mismo lapso del 2024»
    rf"{SAME}(?:\s+(?:de|del))?(?:\s+(?:el\s+)?ano)?$"
)
_COMPARE_VERB = re.compile(r"\bcompar\w*\b")

TO_DATE = re.compile(r"\s*(?:a|al|hasta|para)\s+(?:la\s+fecha|hoy|el\s+dia\s+de\s+hoy|la\s+actualidad|ahora|aca)\b")
_COMPARATIVE = re.compile(r"\b(?:mas|menos|mayor|menor|igual|superior|inferior)\b")


def _take_partner_year(a: Period, b: Period) -> None:
    """ "del 1 de marzo al 31 de mayo de 2021": a period with no year takes the year of the one after it."""
    if a.year_said or not b.year_said or a.granularity not in ("month", "day") or a.start.year == b.start.year:
        return
    if b.kind != "absolute" or b.tag is not None:  # "de enero … que el mismo lapso del año anterior": not a partner
        return
    y = b.start.year - (1 if a.start.month > b.start.month else 0)
    a.start, a.end = date(y, a.start.month, 1), month_end(y, a.end.month)
    a.year_said = True


def _listed(text: str, periods: list[Period], i: int) -> int | None:
    """The last of three or more back-to-back periods listed from ``i`` («2018, 2019 y 2020»: commas, then «y»)."""
    k = i
    # the commas may be missing in dictated or chat text («enero febrero y marzo del 2026»)
    while k + 1 < len(periods) and text[periods[k].finish : periods[k + 1].begin].strip() in (",", ""):
        k += 1
    if k + 1 >= len(periods) or k - i < 1 or text[periods[k].finish : periods[k + 1].begin].strip() not in ("y", "e"):
        return None
    last = k + 1
    for m in range(last - 1, i - 1, -1):  # «enero, febrero y marzo de 2024»: the year said last is every month's
        _take_partner_year(periods[m], periods[m + 1])
    chain = periods[i : last + 1]
    if any(a.granularity != b.granularity or b.start != a.end + timedelta(days=1) for a, b in pairwise(chain)):
        return None
    return last


def period_pairs(text: str, periods: list[Period], change: bool) -> list[tuple[Period, Period, str]]:
    """Consecutive periods joined by a connector: (window, other, range | union | compare)."""
    pairs: list[tuple[Period, Period, str]] = []
    i = 0
    while i < len(periods) - 1:
        last = _listed(text, periods, i)
        if last is not None:  # «sumando 2018, 2019 y 2020»: one span, from the first to the last
            pairs.append((periods[i], periods[last], "union"))
            i = last + 1
            continue
        a, b = periods[i], periods[i + 1]
        gap = text[a.finish : b.begin].strip()
        if _RANGE_CONNECTORS.match(gap):
            _take_partner_year(a, b)
        to_date = TO_DATE.match(" " + gap)
        gap = gap[to_date.end() - 1 :].strip() if to_date else gap  # "de enero a la fecha vs …"
        before = text[: a.begin]
        opener = bool(_RANGE_OPENERS.search(before))
        verb_before = bool(_COMPARE_VERB.search(before[-40:]))
        symmetric = gap in ("y", "con", "con el")
        if b.tag == "time:same_period_prev":  # "… y cuántos había al mismo corte del año pasado"
            pairs.append((a, b, "compare_prev"))  # "de enero a mayo y el mismo periodo del año anterior"
            i += 2
        elif _SAME_PERIOD.match(gap):
            pairs.append((a, b, "compare_same"))
            i += 2
        elif _RANGE_CONNECTORS.match(gap) and not (verb_before and symmetric):
            # «variación del estado 2022 a 2023»: the change named right before the two periods, no «de» needed
            near = bool(re.search(r"\b(?:vari\w*|cambi\w*|diferencia\w*)\b", before[-40:]))
            if change and a.granularity == b.granularity and (opener or gap == "y" or near) and b.start > a.start:
                pairs.append((b, a, "compare_span"))  # "cómo cambió entre 2023 y 2024": later vs earlier
            else:
                pairs.append((a, b, "union" if gap.startswith("y") and not opener else "range"))
            i += 2
        elif _COMPARE_CONNECTORS.match(gap) and (not symmetric or verb_before or change):
            if (verb_before and symmetric) or (change and a.end < b.start):
                # "compara 2023 y 2024", «aumento … 2019 vs 2020»: a change runs from the earlier to the later one
                pairs.append((a, b, "compare") if a.start >= b.start else (b, a, "compare"))
            elif gap.startswith("que") and not _COMPARATIVE.search(before):
                i += 1
                continue
            elif re.match(r"(?:vs|versus|contra)\b", gap) and a.end < b.start and a.granularity == b.granularity:
                pairs.append((b, a, "compare"))  # «hom dol León 23 vs 24»: how 2024 came out against 2023
            else:
                pairs.append((a, b, "compare"))
            i += 2
        else:
            i += 1
    return pairs


def base_start(text: str, p: Period) -> int | None:
    """Where "comparado con", "respecto a", "(más) que" starts when it introduces a lone period (its base)."""
    before = text[: p.begin]
    m = _BASE_PREFIX.search(before)
    if not m:
        return None
    if m.group(0).strip().startswith("que") and not (_COMPARATIVE.search(before) or p.kind == "prev_year"):
        return None
    return m.start() + (1 if m.group(0).startswith(" ") else 0)


def versus_between(text: str, texts: list[tuple[int, int]], a: Period) -> bool:
    """Whether a comparison connector («vs», «contra», «frente a») joins the last period taken and ``a``."""
    if not texts:
        return False
    gap = text[max(e for _, e in texts) : a.begin].strip()
    gap = re.sub(r"\s*(?:de|del|entre|desde|el)$", "", gap).strip()
    return bool(gap) and bool(_COMPARE_CONNECTORS.match(gap))


# «variación interanual», «comparativo interanual», «vs el año anterior (interanual)»
_YEAR_ON_YEAR = re.compile(r"\binteranual(?:es|mente)?\b")
_SAME_DATE = re.compile(
    r"\b(?:a|al)\s+(?:la\s+)?mism[oa]\s+(?:fecha|corte|altura)\b"
    r"|\b(?:vs|versus|contra|respecto\s+al|frente\s+al)\s+(?:el\s+)?(?:ano\s+)?pasado\b"
)


def year_on_year(u):
    """«primer trimestre de 2025, variación interanual», «¿y el segundo trimestre, mismo comparativo interanual?»: a
    window inside one year against the same months a year before, not a yearly series of one partial year."""
    window = u.window
    if window is None or window[0].year != window[1].year:
        return u
    text = tokenize(u.question or "").text
    # «¿cómo vamos este año vs el pasado, a la misma fecha?»: this year so far against the same months a year before
    same_date = u.kind == "comparison" and u.compare_window is None and bool(_SAME_DATE.search(text))
    if not (same_date or (u.kind == "annual_series" and _YEAR_ON_YEAR.search(text))):
        return u
    before = (window[0].replace(year=window[0].year - 1), month_end(window[1].year - 1, window[1].month))
    return replace(u, kind="comparison", compare_window=before, signals=[*u.signals, "time:year_on_year"])
