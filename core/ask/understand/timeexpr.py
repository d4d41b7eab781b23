"""Spanish time expressions → whole-month windows: the window arithmetic over the grammar's periods.

The anchor is the last published month (docs/contracts/design.md §2; of the crime asked when the caller knows
it), never the wall clock: "últimos 12 meses" means the 12 months that end with it. Atomic periods (a year, a
month, a day, a calendar part, a season, a relative span) come from ``timegrammar``; here connectors combine
them into ranges ("de 2019 a 2020") or comparisons ("2024 vs 2023", "el mismo periodo del año anterior").
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date
from itertools import pairwise

from core.ask.understand.timegrammar import atomic_periods
from core.ask.understand.timepairs import TO_DATE, base_start, period_pairs, versus_between
from core.ask.understand.timewords import DAY_NOTE, MONTHS, SAME, last_months, month_words
from core.text import MONTHS as MONTH_NAMES
from core.text import month_end, shift_months

__all__ = ["CHANGE_WORDS", "MONTHS", "TimeResult", "month_end", "parse_time", "shift_months"]

CHANGE_WORDS = re.compile(
    r"\b(?:aument\w*|disminu\w*|cambi\w*|compar\w*|vari\w*|crec\w*|subi\w*|subier\w*|"
    r"increment\w*|reduj\w*|reduc\w*|diferencia\w*|baj[oa]ron|bajo|mejor(?:o|aron|ado)|empeor(?:o|aron|ado)|"
    r"baja|bajas|descenso|caida|alza|repunte|duplic\w*|triplic\w*)\b"  # «la mayor baja entre 2020 y 2024»: a change named as a noun
)
# «el año más bajo entre 2020 y 2024», «la más baja»: a superlative, not a change; «cambiando (de tema):» opens
# a new question, it does not ask how a number changed
_SUPERLATIVE_LOW = re.compile(
    r"\b(?:mas|menos|lo)\s+baj[oa]s?\b|^\W*(?:y\s+)?cambiando\b(?:\s+de\s+tema\b)?"
    r"|^\W*(?:y\s+)?(?:cambio|cambiemos|cambiamos|cambiando)\s+de\s+(?:tema|asunto|tercio)\b"  # «Cambio de tema: …»
    r"|^\W*(?:y\s+|ok\s+|bueno\s+)?(?:ahora\s+)?(?:cambiemos|cambiamos|cambiale|cambialo|cambia)\s+(?:a|al|por)\b"
)


# «sin contar 2025 (que no ha terminado)», «excepto 2020», «dejando fuera 2025»: a period taken out of the window,
# never the window itself
_EXCLUDE_BEFORE = re.compile(
    r"\b(?:sin\s+(?:contar|incluir|tomar\s+en\s+cuenta)|excepto|salvo|dejando\s+fuera|quitando|excluyendo)"
    r"\s+(?:(?:el|al|a|la|lo\s+de)\s+)?(?:ano\s+)?$"
)
_NEGATED_BEFORE = re.compile(r"(?:,|\by)?\s*\bno\s+(?:(?:en|el|del|de|la|para)\s+)?(?:ano\s+)?$")
_UNFINISHED_AFTER = re.compile(
    r"\s*,?\s*(?:que|porque|pues|ya\s+que)\s+(?:(?:todavia|aun)\s+)?(?:no\s+(?:ha\s+|se\s+ha\s+)?"
    r"(?:terminad|acabad|cerrad|termin|acab|cierr)\w*|(?:esta|va)\s+(?:incomplet[oa]|a\s+medias))"
)


def excluded(signals: list[str]) -> tuple[date, date] | None:
    """The period a question takes out of its window («sin contar 2025»), from its signal."""
    said = next((x for x in signals if x.startswith("time:exclude:")), None)
    if said is None:
        return None
    start, end = said.split(":")[2:4]
    return date.fromisoformat(start), date.fromisoformat(end)


def without(window: tuple[date, date], out: tuple[date, date]) -> tuple[date, date]:
    """The window with a period at one of its ends taken out; kept whole when it is in the middle or is all of it."""
    (s, e), (xs, xe) = window, out
    if xs <= s and xe >= e:
        return window
    if xs <= s <= xe:
        after = shift_months(date(xe.year, xe.month, 1), 1)
        return after, e
    if xs <= e <= xe:
        before = shift_months(date(xs.year, xs.month, 1), -1)
        return s, month_end(before.year, before.month)
    return window


@dataclass
class TimeResult:
    """What the time matcher found."""

    window: tuple[date, date] | None = None
    window_text: str | None = None
    compare_window: tuple[date, date] | None = None
    spans: list[tuple[int, int]] = field(default_factory=list)  # character spans to mask
    signals: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # Spanish, for the answer: what was assumed
    unparsed: list[str] = field(default_factory=list)  # words that look like time but name no period


def shift_year(w: tuple[date, date], years: int) -> tuple[date, date]:
    """The same months, ``years`` later (negative: earlier)."""
    s, e = w
    return date(s.year + years, s.month, 1), month_end(e.year + years, e.month)


_SAME_PERIOD_BEFORE = re.compile(
    rf"(?:^|\s)(?:vs|versus|contra|frente\s+al?|compar\w*\s+con|respecto\s+al?|que(?:\s+en)?|y)\s+"
    # «… y (los del) mismo periodo (de) 2023», «… y cuántos llevaba a la misma altura en 2024»
    rf"(?:(?:los|las|lo)\s+(?:de|del)\s+|(?:\w+\s+){{1,4}}?)?{SAME}"
    r"(?:\s+(?:de|del|en)(?:\s+(?:el\s+)?ano)?)?\s*$"
)
# "¿y en el mismo trimestre de 2025?": the previous window moved to that year (a follow-up), not a comparison
_SAME_PART_BEFORE = re.compile(
    r"(?:^|\s)(?:(?:en|para|durante)?\s*(?:el\s+|los\s+|las\s+|es[oa]s\s+)?mism[oa]s?\s+(?:\d+\s+)?"  # «los mismos 3 meses»
    r"(?:periodo|meses|lapso|mes|trimestre|semestre|bimestre|cuatrimestre|tramo|semanas)(?:\s+pero)?"  # «… pero de 2023»
    r"(?:\s+(?:de|del|en)(?:\s+(?:el\s+)?ano)?)?"
    # «regresa a 2025», «volvamos al 2024»: back to that year, the part of the year talked about kept
    r"|(?:regres\w*|vuelv\w*|volv\w*)\s+(?:a|al)(?:\s+(?:el\s+)?ano)?(?:\s+el)?)\s*$"
)
_LEAD = re.compile(
    r"(?:^|\s)((?:a partir de|a partir del|antes de|despues de|en el periodo de|durante el|durante|desde el|desde"
    r"|hasta el|hasta|entre el|entre|en el|en|del|de|el)\s)$"
)


def _lead(text: str, begin: int) -> int:
    """Start of the preposition that introduces a period ("en 2024", "desde 2022")."""
    m = _LEAD.search(text[:begin])
    return m.start(1) if m else begin


# «Tomando como referencia el último mes publicado, ¿cuántos … en 2025 y cuántos en los mismos meses de 2024?»: the
# anchor of the question's own periods, said aloud; beside another period it is no window of its own
_ANCHOR_REF = re.compile(
    r"\b(?:tomando\s+como\s+referencia|con\s+(?:corte|referencia)\s+(?:a|al)|al\s+corte\s+de|segun)\s+"
    r"(?:el\s+)?ultimo\s+mes\s+(?:publicado|disponible|con\s+datos|reportado)\b"
)


def parse_time(text: str, anchor: date, min_date: date) -> TimeResult:
    """Find the window (and the base window of a comparison) in tokenized text."""
    ref = _ANCHOR_REF.search(text)
    if ref:
        blanked = text[: ref.start()] + " " * (ref.end() - ref.start()) + text[ref.end() :]
        res = _parse_time(blanked, anchor, min_date)
        if res.window is not None:
            res.spans.append(ref.span())
            return res
    return _parse_time(text, anchor, min_date)


# «hace un año, o sea 2020», «el año pasado, es decir 2024»: the second names the first, it is no second period
_THAT_IS = re.compile(r"^\W*(?:,\s*)?(?:o\s+sea|osea|es\s+decir|mejor\s+dicho)\s*,?\s*(?:el\s+|en\s+|del?\s+)?$")


def _restated(text: str, periods: list) -> list:
    """The periods without one a later period restates right after «o sea» / «es decir»."""
    ordered = sorted(periods, key=lambda p: p.begin)
    pairs = [(a, b) for a, b in pairwise(ordered) if _THAT_IS.match(text[a.finish : b.begin])]
    # «hace un año, o sea 2020»: the year said wins; «el segundo trimestre de 2023 (es decir, de abril a junio)»: the
    # months without a year only gloss the period before them
    named = [a if b.year_said or a.kind != "absolute" else b for a, b in pairs]
    return [p for p in periods if p not in named]


def _parse_time(text: str, anchor: date, min_date: date) -> TimeResult:
    res = TimeResult()
    a_end = month_end(anchor.year, anchor.month)
    first = date(min_date.year, min_date.month, 1)
    periods = atomic_periods(text, anchor)
    res.unparsed = [text[p.begin : p.finish] for p in periods if p.kind == "invalid"]
    if res.unparsed:
        res.signals.append("time:unparsed")
    res.notes = list(dict.fromkeys(p.note for p in periods if p.note))
    res.signals += [p.tag for p in periods if p.tag]
    invalid_spans = [(p.begin, p.finish) for p in periods if p.kind == "invalid"]
    valid = [p for p in periods if p.kind != "invalid"]
    periods = _restated(text, valid)
    invalid_spans += [(p.begin, p.finish) for p in valid if p not in periods]  # a gloss is time words, not unread
    if not periods:
        days = re.search(r"\b(?:hoy|ayer|esta semana|la semana pasada|ultim[oa]s? (?:\w+ )?(?:dias|semanas?))\b", text)
        if days:
            res.window, res.window_text = last_months(anchor, 1), days.group(0)
            res.signals.append("time:sub_monthly")
            res.notes.append(f"Los datos son mensuales: «{days.group(0)}» se tomó como el último mes publicado.")
        m = re.search(
            r"\b(?:todo el periodo|todos los anos|historic[oa]|desde (?:el inicio|que hay datos|siempre))\b", text
        )
        if m:
            res.window, res.window_text = (first, a_end), m.group(0)
            res.signals.append("time:all")
        # both spans are the period's words («hoy» included): never reported as not understood
        res.spans = [(x.start(), x.end()) for x in (days, m) if x] + invalid_spans
        return res
    change = bool(CHANGE_WORDS.search(_SUPERLATIVE_LOW.sub(" ", text)))
    pairs = period_pairs(text, periods, change)
    used = {id(p) for pair in pairs for p in pair[:2]}
    window = compare = None
    base_prev_year = False
    texts: list[tuple[int, int]] = []
    inferred_year = False  # the window is months said without a year («entre enero y marzo, en 2024»)
    for a, b, how in pairs:
        first, second = (a, b) if a.begin <= b.begin else (b, a)
        gap_words = len(text[first.finish : second.begin].split())
        # «en lo que va del año hay más homicidios en Pénjamo que en el mismo periodo…»: the words between two
        # periods far apart are the question's own (crime, place), never part of the period
        spans = (
            [(_lead(text, first.begin), first.finish), (_lead(text, second.begin), second.finish)]
            if gap_words > 4
            else [(_lead(text, first.begin), second.finish)]
        )
        if how in ("compare_prev", "compare_same") and TO_DATE.match(text[a.finish :]):
            a.end = a_end  # "de enero a la fecha frente al mismo periodo…"
        if how in ("compare_prev", "compare_same"):
            res.signals.append("time:same_period")
        if how == "compare_prev" and compare is None:
            window = (a.start, a.end)
            compare = shift_year(window, -1)
            texts.extend(spans)
            res.signals.append("time:compare")
        elif how == "compare_same" and compare is None:
            window = (a.start, a.end)
            compare = shift_year(window, b.start.year - a.start.year)
            texts.extend(spans)
            res.signals.append("time:compare")
        elif how in ("compare", "compare_span") and compare is None:
            window, compare = (a.start, a.end), (b.start, b.end)
            base_prev_year = b.kind == "prev_year"  # "2024 contra el año anterior"
            texts.extend(spans)
            res.signals.append("time:compare")
            if how == "compare_span":  # «de 2015 a 2024» read as a change: a span if the places are what is compared
                res.signals.append("time:compare_span")
        elif how in ("range", "union") and window is not None and compare is None and versus_between(text, texts, a):
            # «enero a agosto de 2025 vs enero a agosto de 2024»: the second range is the base
            compare = (min(a.start, b.start), max(a.end, b.end))
            texts.extend(spans)
            res.signals += ["time:compare", "time:range_vs_range"]
        elif how in ("range", "union") and window is None:
            window = (min(a.start, b.start), max(a.end, b.end))
            texts.extend(spans)
            res.signals.append("time:range")
            if not (a.year_said or b.year_said) and len(periods) == 2:
                res.signals.append("time:year_inferred")  # «¿y de julio a diciembre?»: a follow-up takes its year
            # «este año 2026 … enero a marzo»: months without a year take the year said beside them (below)
            inferred_year = not (a.year_said or b.year_said) and a.kind == b.kind == "absolute"
    out_spans: list[tuple[int, int]] = []
    for p in (p for p in periods if id(p) not in used):
        if said_not := _NEGATED_BEFORE.search(text[: p.begin]):  # «el año era 2020, no 2021»: the one it is not
            out_spans.append((said_not.start(), p.finish))
            continue
        if ex := _EXCLUDE_BEFORE.search(text[: p.begin]):  # «… sin contar 2025, que no ha terminado»
            tail = _UNFINISHED_AFTER.match(text[p.finish :])
            out_spans.append((ex.start(), p.finish + (tail.end() if tail else 0)))
            res.signals.append(f"time:exclude:{p.start.isoformat()}:{p.end.isoformat()}")
            continue
        if p.tag == "time:same_period_prev" and compare is None and not base_prev_year:
            # «¿cómo vamos … a la misma fecha del año anterior?»: the base of this year so far, never the window
            base_prev_year = True
            texts.append((_lead(text, p.begin), p.finish))
            res.signals += ["time:same_period", "time:compare"]
            continue
        base_at = base_start(text, p) if compare is None else None
        same = _SAME_PERIOD_BEFORE.search(text[: p.begin]) if compare is None else None
        if same:  # "¿y contra el mismo periodo de 2022?": the base is a window moved to that year
            compare = (p.start, p.end)
            texts.append((same.start(), p.finish))
            res.signals += ["time:compare", "time:same_period_base"]
            continue
        part = _SAME_PART_BEFORE.search(text[: p.begin]) if window is None else None
        whole = re.match(r"\s*(?:complet|enter)[oa]\b", text[p.finish :])  # «volviendo al 2024 completo»
        if part and p.granularity == "year" and not whole:  # "¿y en el mismo trimestre de 2025?"
            window = (p.start, p.end)
            texts.insert(0, (part.start(), p.finish))
            res.signals.append("time:same_part_of_year")
            continue
        if not p.year_said and p.tag is None and len(periods) == 1:
            res.signals.append("time:year_inferred")  # "¿y en el segundo trimestre?": a follow-up takes its year
        if base_at is not None:
            compare, base_prev_year = (p.start, p.end), p.kind == "prev_year"
            texts.append((base_at, p.finish))
            res.signals.append("time:compare")
            continue
        if window is not None:
            y = window[0].year
            whole_year = window[0] == date(y, 1, 1) and window[1].year == y
            months, year = (window, p.start.year) if inferred_year and p.granularity == "year" else (None, None)
            if (
                compare is None
                and whole_year
                and not p.year_said
                and p.kind == "absolute"
                and p.start.year == p.end.year
            ):
                months, year = (p.start, p.end), y
            if months is not None:
                # «en 2026, entre enero y marzo», «entre enero y marzo, en 2024»: months said without a year are the
                # months of the year said beside them, never a second period to compare
                window, inferred_year = (date(year, months[0].month, 1), month_end(year, months[1].month)), False
                texts.append((_lead(text, p.begin), p.finish))
                res.signals.append("time:months_of_year")
                continue
            if compare is None and p.kind == "absolute" and (p.end < window[0] or p.start > window[1]):
                # «los primeros 5 meses de 2025 … y cuántos en los primeros 5 de 2024»: a second period said is the
                # base of a comparison, never dropped; a whole year against part of one takes the same months
                part_of_year = window[0].year == window[1].year and (window[0].month, window[1].month) != (1, 12)
                whole_year = p.granularity == "year"
                compare = (
                    shift_year(window, p.start.year - window[0].year)
                    if part_of_year and whole_year
                    else (p.start, p.end)
                )
                texts.append((_lead(text, p.begin), p.finish))
                res.signals += ["time:compare", "time:second_period"] + (
                    ["time:same_period"] if part_of_year and whole_year else []
                )
                if compare[0] > window[1]:  # «cuántos en 2023 y cuántos en 2024»: a change reads from the earlier
                    window, compare = compare, window
            continue
        lead = _lead(text, p.begin)
        word = text[lead : p.finish].strip()  # the period's own words count: "de enero a la fecha"
        to_date = TO_DATE.match(text[p.finish :])
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
            inferred_year = not p.year_said and p.kind == "absolute" and p.start.year == p.end.year
            res.signals.append("time:relative" if p.kind in ("relative", "prev_year") else "time:absolute")
        if window[0] > window[1]:  # "desde 2030", "antes de 2015": outside the data; keep the window well-formed
            window = (p.start, p.end) if not word.startswith("antes") else (shift_year((p.start, p.end), -1))
            res.signals.append("time:outside_data")
        texts.insert(0, (lead, p.finish))
    if base_prev_year:  # the base is "the year before" whatever the window is
        if window is None:  # "¿más que el año pasado?": this year so far against the same months before
            window = (date(anchor.year, 1, 1), a_end)
        compare = shift_year(window, -1)
        res.signals.append("time:base_prev_year")
    elif compare is not None and window is None:  # "comparado con 2023": the next period of the same size
        window = shift_year(compare, 1)
        res.signals.append("time:window_from_base")  # a follow-up puts the previous turn's window here
    if (
        "time:same_period_base" in res.signals
        and window
        and compare
        and compare[0].month == 1
        and compare[1].month == 12
    ):
        # «enero a mayo de 2025 y (el) mismo periodo (de) 2023»: the window's months in the base year, not all of it
        compare = shift_year(window, compare[0].year - window[0].year) if window[0].year == window[1].year else compare
    said_same = re.search(rf"\b{SAME}\b", text) is not None  # «… frente a 2024 a la misma altura»
    one_year = bool(window and compare) and window[0].year == window[1].year and compare[1] > compare[0]
    whole_base = one_year and (compare[0].month, compare[1].month) == (1, 12)
    if said_same and whole_base and (window[0].month, window[1].month) != (1, 12):
        compare = shift_year(window, compare[0].year - window[0].year)
        res.signals.append("time:same_period")
    same = any(t in res.signals for t in ("time:same_period", "time:same_period_base"))
    if same and window and compare and window[1] > a_end >= window[0]:  # months aligned to the last published one
        cut = (window[1].year - a_end.year) * 12 + window[1].month - a_end.month
        window, compare = (window[0], a_end), (compare[0], month_end(*_ym(shift_months(compare[1], -cut))))
    if window is not None and (out := excluded(res.signals)):
        window = without(window, out)
    res.window, res.compare_window = window, compare
    if window is not None and any(p.granularity == "day" for p in periods):
        res.notes.insert(0, DAY_NOTE.format(months=month_words(*window)))
    res.window_text = " ".join(text[s:e] for s, e in texts) or None
    res.spans = [(p.begin, p.finish) for p in periods] + texts + invalid_spans + out_spans
    return res


def _ym(d: date) -> tuple[int, int]:
    return d.year, d.month


def reanchor(
    text: str, res: TimeResult, end: date | None, anchor: date, min_date: date, subject: str = "Ese delito"
) -> TimeResult:
    """The same words read against the series' own last published month, when it is not the store's.

    "violencia familiar en lo que va del año" is January to December 2022 when that crime stops in 2022
    (evals/v2/FORMAT.md, windows); Irapuato's own file runs to 2025-12, after the store (docs/decisions/0016). The
    answer says so, naming ``subject``."""
    if end is None or res.window is None or end == month_end(anchor.year, anchor.month):
        return res
    again = parse_time(text, end, min_date)
    if (again.window, again.compare_window) == (res.window, res.compare_window):
        return res
    again.notes.append(
        f"{subject} se publica hasta {MONTH_NAMES[end.month - 1]} de {end.year}: "
        "el periodo relativo se contó desde ese mes."
    )
    again.signals.append("time:crime_anchor")
    return again
