"""The words of Spanish periods and what they become: month names and abbreviations, ordinals, calendar parts,
seasons, units, year patterns, «el mismo periodo», and the ``Period`` a rule of ``timegrammar`` returns, with the
calendar helpers its rules share (the last n months, a window in words).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date

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
_YEAR = r"(?:20(?:0\d|1\d|2\d|30))"
# «el año siguiente», «los 6 meses anteriores»: a span next to another window (the previous turn's)
_UNIT = r"(mes|meses|anos?|trimestres?|semestres?|bimestres?|cuatrimestres?)"
_SIDE = r"(anteriores|anterior|previos?|siguientes?|posteriores|posterior|proximos?)"
_UNIT_MONTHS = {"mes": 1, "ano": 12, "tri": 3, "sem": 6, "bim": 2, "cua": 4}
_YEAR_LIKE = re.compile(r"\b(?:19\d\d|20\d\d)\b")  # a year the data cannot have: reported, not ignored
_OF = r"(?:\s+(?:de|del)(?:\s+(?:el\s+)?ano)?)?"  # "de", "del", "del año"
# «el segundo semestre del 22»: the press's two-digit year, only right after «del» / «año» (never a day or a count)
_SHORT_YEAR = r"(?:(?<=del )|(?<=ano ))(?:1[5-9]|2\d)\b(?!\s*(?:%|de\b|mil\b))"
# The year of a month or quarter: digits, or "este año" / "el año pasado".
_YEAR_REF = rf"(?:\s+(?:de\s+|del\s+)?(?:(?:el\s+)?(?:ano\s+)?({_YEAR}|{_SHORT_YEAR})|(este\s+ano|(?:el\s+)?ano\s+(?:pasado|anterior|antepasado))))"
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
    "quinto": 5,
    "5to": 5,
    "5o": 5,
    "5": 5,
    "sexto": 6,
    "6to": 6,
    "6o": 6,
    "6": 6,
}
# Roman numerals of reports («el III trimestre», «trimestre IV»): only ever read next to a part of the year
ROMAN = {"i": 1, "ii": 2, "iii": 3, "iv": 4, "v": 5, "vi": 6}
_ORD.update(ROMAN)
_ORD_RE = "(?:" + "|".join(sorted(_ORD, key=len, reverse=True)) + "|septimo|octavo|noveno|decimo|[7-9])"
# A calendar part of a year: its size in months (trimestre N = months 3N-2..3N, and so on).
PART_MONTHS = {"bimestre": 2, "trimestre": 3, "cuatrimestre": 4, "semestre": 6}
# The abbreviations of reports and police memos: «1er trim», «2o sem.», «3er bim».
PART_ABBR = {"trim": "trimestre", "sem": "semestre", "bim": "bimestre", "cuatrim": "cuatrimestre"}
_PART = "(" + "|".join([*PART_MONTHS, *PART_ABBR]) + ")"
# Meteorological seasons (the eval's convention, said in the answer); winter starts in December of its year.
SEASONS = {"primavera": (3, 5), "verano": (6, 8), "otono": (9, 11), "invierno": (12, 2)}
_DAY = r"(\d{1,2}|primero|1o)"
# "el mismo periodo", "los mismos meses", "el mismo lapso / corte / tramo": the window of the question, moved.
SAME = (
    r"(?:(?:el\s+|los\s+|al\s+|a\s+los\s+|la\s+|a\s+la\s+)?(?:mism[oa]s?|igual(?:es)?)\s+"
    r"(?:periodo|periodos|mes|meses|lapso|corte|tramo|fecha|fechas|altura|tiempo)"
    r"|al\s+mismo\s+mes|lo\s+mismo"  # «comparado con lo mismo del año pasado», «acumulado al mismo mes de 2024»
    r"|(?:por|a|en|para)\s+(?:estas|esas)\s+(?:fechas|alturas))"  # «a estas alturas del año pasado»
)


@dataclass
class Period:
    """A window found in the text, with its character span and how it was said."""

    start: date
    end: date
    begin: int  # character offsets in Tokens.text
    finish: int
    kind: str  # absolute | relative | prev_year (relative "año pasado/anterior": a base candidate) | invalid
    granularity: str = "month"  # year | month | span | day
    year_said: bool = True  # False: "en marzo", the year was inferred (a range may take its partner's)
    note: str | None = None  # Spanish, for the answer ("los datos son mensuales…")
    tag: str | None = None  # a signal ("time:prev_of_previous": relative to the previous turn's window)


def _recent_year(anchor: date, month: int) -> int:
    """The year of the latest such month that is not after the anchor."""
    return anchor.year if month <= anchor.month else anchor.year - 1


def _months_after(end: date, n: int) -> date:
    """The last day of the n-th month after ``end``'s month."""
    nxt = shift_months(end, n)
    return month_end(nxt.year, nxt.month)


def last_months(anchor: date, n: int) -> tuple[date, date]:
    """The n whole months that end with the anchor's month."""
    return shift_months(anchor, -(n - 1)), month_end(anchor.year, anchor.month)


DAY_NOTE = "Los datos son mensuales: las fechas por día se tomaron como meses completos ({months})."


def month_words(start: date, end: date) -> str:
    """'marzo de 2021 a mayo de 2021': a window in words."""
    first = f"{MONTH_NAMES[start.month - 1]} de {start.year}"
    last = f"{MONTH_NAMES[end.month - 1]} de {end.year}"
    return first if (start.year, start.month) == (end.year, end.month) else f"{first} a {last}"
