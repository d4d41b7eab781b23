"""Spanish time expressions → whole-month windows, resolved against the dataset's anchor.

The anchor is the store's ``max_date`` (docs/contracts/design.md §2), never the wall clock: "últimos 12 meses"
means the 12 months that end with the last published month. Atomic periods (a year, a
month, a semester, a relative span) are found first; then connectors combine them into
ranges ("de 2019 a 2020") or comparisons ("2024 vs 2023", "respecto al año anterior").
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date

from core.ask.understand.tokens import NUMBER_RE, number_value
from core.text import MONTHS as MONTH_NAMES
from core.text import month_end, shift_months

MONTHS = {name: number for number, name in enumerate(MONTH_NAMES, start=1)}  # name → month number
MONTHS["setiembre"] = 9  # the variant spelling of septiembre
_ABBR = {
    "ene": 1,
    "feb": 2,
    "mar": 3,
    "abr": 4,
    "may": 5,
    "jun": 6,
    "jul": 7,
    "ago": 8,
    "sep": 9,
    "sept": 9,
    "set": 9,
    "oct": 10,
    "nov": 11,
    "dic": 12,
}
_MONTH = "(?:" + "|".join(sorted(MONTHS, key=len, reverse=True)) + ")"
_MONTH_OR_ABBR = "(?:" + "|".join(sorted({**MONTHS, **_ABBR}, key=len, reverse=True)) + ")"
_YEAR = r"(?:20(?:1[5-9]|2\d|30))"
_OF = r"(?:\s+(?:de|del)(?:\s+(?:el\s+)?ano)?)?"  # "de", "del", "del año"
# The year of a month or quarter: digits, or "este año" / "el año pasado".
_YEAR_REF = rf"(?:\s+(?:de\s+|del\s+)?(?:({_YEAR})|(este\s+ano|(?:el\s+)?ano\s+(?:pasado|anterior))))"
_ORD = {
    "primer": 1,
    "primero": 1,
    "1er": 1,
    "1": 1,
    "1o": 1,
    "segundo": 2,
    "2do": 2,
    "2o": 2,
    "2": 2,
    "tercer": 3,
    "tercero": 3,
    "3er": 3,
    "3": 3,
    "3o": 3,
    "cuarto": 4,
    "4to": 4,
    "4": 4,
    "4o": 4,
}
_ORD_RE = "(?:" + "|".join(sorted(_ORD, key=len, reverse=True)) + ")"

_COMPARE_CONNECTORS = re.compile(
    r"^(?:vs|versus|contra|frente a(?:l| el)?|comparad[oa]s? con(?: el)?|en comparacion con(?: el)?|"
    r"respecto (?:a|al|a el|de|del)|con respecto (?:a|al|a el)|con relacion (?:a|al)|en relacion (?:a|al|con)|"
    r"que(?: en)?(?: el)?|y|con(?: el)?)$"
)
_RANGE_CONNECTORS = re.compile(r"^(?:y(?: el)?|a|al|a el|hasta(?: el)?|-)$")
_RANGE_OPENERS = re.compile(r"(?:^|\s)(?:entre|de|del|desde|durante|en el periodo de|en el periodo)(?: el)?\s*$")
_BASE_PREFIX = re.compile(
    r"(?:^|\s)(?:vs|versus|contra|frente a|frente al|comparad[oa]s? con|en comparacion con|respecto (?:a|al|de|del)|"
    r"con respecto (?:a|al)|con relacion (?:a|al)|en relacion (?:a|al|con)|que)(?: en)?(?: el| al)?\s*$"
)
# "enero a noviembre de 2025 frente al mismo periodo de 2024": the base is the window moved to that year.
_SAME_PERIOD = re.compile(
    r"^(?:vs|versus|contra|frente a(?:l| el)?|comparad[oa]s? con(?: el)?|en comparacion con(?: el)?|"
    r"respecto (?:a|al|a el|de|del)|con respecto (?:a|al|a el)|que(?: en)?(?: el)?|y)?\s*(?:el\s+|al\s+)?"
    r"mismo\s+periodo\s+(?:de|del)(?:\s+(?:el\s+)?ano)?$"
)
CHANGE_WORDS = re.compile(
    r"\b(?:aument\w*|disminu\w*|cambi\w*|compar\w*|vari\w*|crec\w*|subi\w*|subier\w*|"
    r"increment\w*|reduj\w*|reduc\w*|diferencia\w*|baj[oa]ron|bajo)\b"
)
_COMPARE_VERB = re.compile(r"\bcompar\w*\b")


@dataclass
class Period:
    """A window found in the text, with its character span and how it was said."""

    start: date
    end: date
    begin: int  # character offsets in Tokens.text
    finish: int
    kind: str  # absolute | relative | prev_year (relative "año pasado/anterior": a base candidate)
    granularity: str = "month"  # year | month | span


@dataclass
class TimeResult:
    """What the time matcher found."""

    window: tuple[date, date] | None = None
    window_text: str | None = None
    compare_window: tuple[date, date] | None = None
    spans: list[tuple[int, int]] = field(default_factory=list)  # character spans to mask
    signals: list[str] = field(default_factory=list)


def _last_months(anchor: date, n: int) -> tuple[date, date]:
    return shift_months(anchor, -(n - 1)), month_end(anchor.year, anchor.month)


def _recent_year(anchor: date, month: int) -> int:
    """The year of the latest such month that is not after the anchor."""
    return anchor.year if month <= anchor.month else anchor.year - 1


def _atomic(text: str, anchor: date) -> list[Period]:
    """Every atomic period, longest rules first; a later rule never overlaps an earlier match."""
    found: list[Period] = []
    taken: list[tuple[int, int]] = []
    a_end = month_end(anchor.year, anchor.month)

    def add(m: re.Match, start: date, end: date, kind: str = "absolute", gran: str = "month") -> None:
        """Record a period and claim its characters."""
        found.append(Period(start, end, m.start(), m.end(), kind, gran))
        taken.append((m.start(), m.end()))

    def free(m: re.Match) -> bool:
        """Whether a match overlaps no period found by an earlier rule."""
        return all(m.end() <= s or m.start() >= e for s, e in taken)

    def year_or_recent(y: str | None, words: str | None, first_month: int) -> int:
        """The year said (digits, "este año", "el año pasado") or the latest one not after the anchor."""
        if y:
            return int(y)
        if words:
            return anchor.year if words.startswith("este") else anchor.year - 1
        return _recent_year(anchor, first_month)

    rules: list[tuple[str, callable]] = []

    def rule(pattern: str):
        """Register a handler for a pattern; rules run in the order they are written."""

        def wrap(fn):
            """Keep the handler with its pattern."""
            rules.append((pattern, fn))
            return fn

        return wrap

    @rule(
        rf"\b(?:entre|de|desde|del)\s+(?:el\s+mes\s+de\s+)?({_MONTH})(?:\s+(?:de|del)\s+({_YEAR}))?\s+"
        rf"(?:y|a|al|hasta|-)\s+({_MONTH})(?:\s+(?:de|del)?\s*({_YEAR}))?\b"
    )
    def _month_range(m):
        m1, m2 = MONTHS[m.group(1)], MONTHS[m.group(3)]
        y2 = int(m.group(4)) if m.group(4) else (int(m.group(2)) if m.group(2) else _recent_year(anchor, m2))
        y1 = int(m.group(2)) if m.group(2) else (y2 if m1 <= m2 else y2 - 1)
        add(m, date(y1, m1, 1), month_end(y2, m2), gran="span")

    @rule(rf"\b({_ORD_RE})\s+semestre(?:{_YEAR_REF}|{_OF})\b")
    def _semester(m):
        h = min(_ORD[m.group(1)], 2)
        y = year_or_recent(m.group(2), m.group(3), 6 * h - 5)
        add(m, date(y, 6 * h - 5, 1), month_end(y, 6 * h), gran="span")

    @rule(rf"\b({_ORD_RE})\s+trimestre(?:{_YEAR_REF}|{_OF})\b")
    def _quarter(m):
        q = _ORD[m.group(1)]
        y = year_or_recent(m.group(2), m.group(3), 3 * q - 2)
        add(m, date(y, 3 * q - 2, 1), month_end(y, 3 * q), gran="span")

    @rule(
        rf"\b(?:(?:en|durante|de|del)\s+(?:el\s+)?(?:mes\s+de\s+)?)?({_MONTH})(?:{_YEAR_REF})?\b(?!\s+(?:por|a|tras)\s+mes)"
    )
    def _month(m):
        mo = MONTHS[m.group(1)]
        y = year_or_recent(m.group(2), m.group(3), mo)
        add(m, date(y, mo, 1), month_end(y, mo))

    @rule(
        rf"\b(?:los\s+|las\s+)?(?:ultim[oa]s|pasad[oa]s|recientes)\s+({NUMBER_RE})\s+(mes|meses|ano|anos|trimestres|semestres)\b"
        rf"|\b({NUMBER_RE})\s+(meses|anos)\s+(?:pasados|recientes|anteriores)\b"
    )
    def _last_n(m):
        n = number_value(m.group(1) or m.group(3)) or 1
        unit = m.group(2) or m.group(4)
        months = n * {"m": 1, "a": 12, "t": 3, "s": 6}[unit[0]]
        add(m, *_last_months(anchor, max(1, min(months, 240))), kind="relative", gran="span")

    @rule(
        r"\b(?:el\s+|la\s+)?ultim[oa]\s+(mes|ano|trimestre|semestre|bimestre)\b|\b(?:el\s+)?mes\s+pasado\b"
        r"|\b(?:este|el)\s+mes(?:\s+actual)?\b(?!\s+(?:por|a|tras|con|de))"
    )
    def _last_unit(m):
        unit = m.group(1) or "mes"
        add(
            m,
            *_last_months(anchor, {"mes": 1, "ano": 12, "trimestre": 3, "semestre": 6, "bimestre": 2}[unit]),
            kind="relative",
            gran="span",
        )

    @rule(rf"\b(?:en\s+)?lo\s+que\s+va\s+(?:de|del)\s+(?:el\s+)?({_YEAR})\b")
    def _so_far_of(m):
        y = int(m.group(1))
        add(m, date(y, 1, 1), a_end if y == anchor.year else date(y, 12, 31), kind="relative", gran="span")

    @rule(
        r"\b(?:en\s+)?(?:lo\s+que\s+va\s+(?:del|de\s+este)\s+ano|este\s+ano|el\s+ano\s+(?:en\s+curso|actual)|ano\s+actual"
        r"|ano\s+en\s+curso)\b"
    )
    def _this_year(m):
        add(m, date(anchor.year, 1, 1), a_end, kind="relative", gran="span")

    @rule(
        r"\b(?:el\s+)?mismo\s+periodo\s+(?:del|de\s+el)\s+ano\s+(?:pasado|anterior)\b"
        r"|\b(?:el\s+)?ano\s+(?:pasado|anterior|previo)\b|\bel\s+ano\s+antepasado\b"
    )
    def _last_year(m):
        y = anchor.year - (2 if "antepasado" in m.group(0) else 1)
        add(
            m,
            date(y, 1, 1),
            date(y, 12, 31),
            kind="prev_year" if "antepasado" not in m.group(0) else "relative",
            gran="year",
        )

    @rule(rf"\bhace\s+({NUMBER_RE})\s+anos?\b")
    def _years_ago(m):
        y = anchor.year - (number_value(m.group(1)) or 1)
        add(m, date(y, 1, 1), date(y, 12, 31), kind="relative", gran="year")

    @rule(rf"\b({_MONTH_OR_ABBR})\s*(?:-|/|de|del)?\s*(?:de\s+|del\s+)?({_YEAR})\b")
    def _month_year(m):
        mo = {**MONTHS, **_ABBR}[m.group(1)]
        add(m, date(int(m.group(2)), mo, 1), month_end(int(m.group(2)), mo))

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

    for pattern, fn in rules:
        for m in re.finditer(pattern, text):
            if free(m):
                fn(m)
    return sorted(found, key=lambda p: p.begin)


def _shift_year(w: tuple[date, date], years: int) -> tuple[date, date]:
    s, e = w
    return date(s.year + years, s.month, 1), month_end(e.year + years, e.month)


_LEAD = re.compile(
    r"(?:^|\s)((?:a partir de|a partir del|antes de|despues de|en el periodo de|durante el|durante|desde el|desde"
    r"|hasta el|hasta|entre el|entre|en el|en|del|de|el)\s)$"
)
_TO_DATE = re.compile(r"\s*(?:a|al|hasta|para)\s+(?:la\s+fecha|hoy|el\s+dia\s+de\s+hoy|la\s+actualidad|ahora|aca)\b")
_COMPARATIVE = re.compile(r"\b(?:mas|menos|mayor|menor|igual|superior|inferior)\b")


def _lead(text: str, begin: int) -> int:
    """Start of the preposition that introduces a period ("en 2024", "desde 2022")."""
    m = _LEAD.search(text[:begin])
    return m.start(1) if m else begin


def _pairs(text: str, periods: list[Period], change: bool) -> list[tuple[Period, Period, str]]:
    """Consecutive periods joined by a connector: (window, other, range | union | compare)."""
    pairs: list[tuple[Period, Period, str]] = []
    i = 0
    while i < len(periods) - 1:
        a, b = periods[i], periods[i + 1]
        gap = text[a.finish : b.begin].strip()
        before = text[: a.begin]
        opener = bool(_RANGE_OPENERS.search(before))
        verb_before = bool(_COMPARE_VERB.search(before[-40:]))
        symmetric = gap in ("y", "con", "con el")
        if _SAME_PERIOD.match(gap):
            pairs.append((a, b, "compare_same"))
            i += 2
        elif _RANGE_CONNECTORS.match(gap) and not (verb_before and symmetric):
            if change and a.granularity == b.granularity and (opener or gap == "y") and b.start > a.start:
                pairs.append((b, a, "compare"))  # "cómo cambió entre 2023 y 2024": later vs earlier
            else:
                pairs.append((a, b, "union" if gap.startswith("y") and not opener else "range"))
            i += 2
        elif _COMPARE_CONNECTORS.match(gap) and (not symmetric or verb_before or change):
            if verb_before and symmetric:  # "compara 2023 y 2024": the later one is the window
                pairs.append((a, b, "compare") if a.start >= b.start else (b, a, "compare"))
            elif gap.startswith("que") and not _COMPARATIVE.search(before):
                i += 1
                continue
            else:
                pairs.append((a, b, "compare"))
            i += 2
        else:
            i += 1
    return pairs


def _base_start(text: str, p: Period) -> int | None:
    """Where "comparado con", "respecto a", "(más) que" starts when it introduces a lone period (its base)."""
    before = text[: p.begin]
    m = _BASE_PREFIX.search(before)
    if not m:
        return None
    if m.group(0).strip().startswith("que") and not (_COMPARATIVE.search(before) or p.kind == "prev_year"):
        return None
    return m.start() + (1 if m.group(0).startswith(" ") else 0)


def parse_time(text: str, anchor: date, min_date: date) -> TimeResult:
    """Find the window (and the base window of a comparison) in tokenized text."""
    res = TimeResult()
    a_end = month_end(anchor.year, anchor.month)
    first = date(min_date.year, min_date.month, 1)
    periods = _atomic(text, anchor)
    if not periods:
        m = re.search(r"\b(?:hoy|ayer|esta semana|la semana pasada|ultim[oa]s? (?:\w+ )?(?:dias|semanas?))\b", text)
        if m:
            res.window, res.window_text = _last_months(anchor, 1), m.group(0)
            res.signals.append("time:sub_monthly")
        m = re.search(
            r"\b(?:todo el periodo|todos los anos|historic[oa]|desde (?:el inicio|que hay datos|siempre))\b", text
        )
        if m:
            res.window, res.window_text = (first, a_end), m.group(0)
            res.signals.append("time:all")
        res.spans = [(m.start(), m.end())] if m else []
        return res
    change = bool(CHANGE_WORDS.search(text))
    pairs = _pairs(text, periods, change)
    used = {id(p) for pair in pairs for p in pair[:2]}
    window = compare = None
    base_prev_year = False
    texts: list[tuple[int, int]] = []
    for a, b, how in pairs:
        span = (_lead(text, min(a.begin, b.begin)), max(a.finish, b.finish))
        if how == "compare_same" and compare is None:
            window = (a.start, a.end)
            compare = _shift_year(window, b.start.year - a.start.year)
            texts.append(span)
            res.signals.append("time:compare")
        elif how == "compare" and compare is None:
            window, compare = (a.start, a.end), (b.start, b.end)
            base_prev_year = b.kind == "prev_year"  # "2024 contra el año anterior"
            texts.append(span)
            res.signals.append("time:compare")
        elif how in ("range", "union") and window is None:
            window = (min(a.start, b.start), max(a.end, b.end))
            texts.append(span)
            res.signals.append("time:range")
    for p in (p for p in periods if id(p) not in used):
        base_at = _base_start(text, p) if compare is None else None
        if base_at is not None:
            compare, base_prev_year = (p.start, p.end), p.kind == "prev_year"
            texts.append((base_at, p.finish))
            res.signals.append("time:compare")
            continue
        if window is not None:
            continue
        lead = _lead(text, p.begin)
        word = text[lead : p.begin].strip()
        to_date = _TO_DATE.match(text[p.finish :])
        if word.startswith(("desde", "a partir")) or (to_date and word.startswith(("de", "desde", "del"))):
            if to_date:
                texts.insert(0, (lead, p.finish + to_date.end()))
                window = (p.start, a_end)
                res.signals.append("time:since")
                continue
            window = (p.start, a_end)
            res.signals.append("time:since")
        elif word.startswith("despues"):
            window = (shift_months(p.end, 1), a_end)
            res.signals.append("time:since")
        elif word.startswith("hasta"):
            window = (first, p.end)
            res.signals.append("time:until")
        elif word.startswith("antes"):
            prev = shift_months(p.start, -1)
            window = (first, month_end(prev.year, prev.month))
            res.signals.append("time:until")
        else:
            window = (p.start, p.end)
            res.signals.append("time:relative" if p.kind in ("relative", "prev_year") else "time:absolute")
        if window[0] > window[1]:  # "desde 2030", "antes de 2015": outside the data; keep the window well-formed
            window = (p.start, p.end) if not word.startswith("antes") else (_shift_year((p.start, p.end), -1))
            res.signals.append("time:outside_data")
        texts.insert(0, (lead, p.finish))
    if base_prev_year:  # the base is "the year before" whatever the window is
        if window is None:  # "¿más que el año pasado?": this year so far against the same months before
            window = (date(anchor.year, 1, 1), a_end)
        compare = _shift_year(window, -1)
        res.signals.append("time:base_prev_year")
    elif compare is not None and window is None:  # "comparado con 2023": the next period of the same size
        window = _shift_year(compare, 1)
    res.window, res.compare_window = window, compare
    res.window_text = " ".join(text[s:e] for s, e in texts) or None
    res.spans = [(p.begin, p.finish) for p in periods] + texts
    return res
