"""Text in one place: slugs, accent folding, month names, month arithmetic and canonical JSON.

``delito`` and ``metodo`` keys are lowercase slugs of the SESNSP labels
(``homicidio_doloso``, ``con_arma_de_fuego``); ``entidad_id`` is the state abbreviation +
``.MUN.`` + the uppercase slug of the official name (docs/contracts/design.md §2).
"""

from __future__ import annotations

import calendar
import json
import re
import unicodedata
from datetime import date
from typing import Any

MONTHS = (
    "enero",
    "febrero",
    "marzo",
    "abril",
    "mayo",
    "junio",
    "julio",
    "agosto",
    "septiembre",
    "octubre",
    "noviembre",
    "diciembre",
)  # lowercase Spanish month names; MONTHS[m - 1] is month m
MONTHS_TITLE = tuple(m.capitalize() for m in MONTHS)  # as SESNSP headers write them ("Enero")

_NON_ALNUM = re.compile(r"[^0-9A-Za-z]+")
_SPACES = re.compile(r"\s+")


def strip_accents(text: str) -> str:
    """Remove diacritics (León → Leon, Acámbaro → Acambaro); keeps ñ as n."""
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def normalize_text(text: str) -> str:
    """Lowercase, accent-free, single-spaced text for comparisons."""
    return _SPACES.sub(" ", strip_accents(text).lower()).strip()


def slug_key(text: str) -> str:
    """Lowercase slug for crime and method keys: 'Con arma de fuego' → 'con_arma_de_fuego'."""
    return _NON_ALNUM.sub("_", strip_accents(text).lower()).strip("_")


def slug_id(text: str) -> str:
    """Uppercase slug for identifiers: 'Silao de la Victoria' → 'SILAO_DE_LA_VICTORIA'."""
    return _NON_ALNUM.sub("_", strip_accents(text).upper()).strip("_")


def municipality_id(state_abbr: str, official_name: str) -> str:
    """The ``entidad_id`` of a municipality, e.g. ``GTO.MUN.LEON``."""
    return f"{state_abbr}.MUN.{slug_id(official_name)}"


def header_key(text: str) -> str:
    """Normalized CSV header for layout detection: 'Cve. Municipio' → 'cve_municipio'."""
    return slug_key(text.replace("\ufeff", ""))


def fold(text: Any) -> str:
    """Lowercase ASCII with single spaces, for search boxes and loose comparisons (ñ → n, None → '')."""
    return " ".join(strip_accents(str(text or "")).encode("ascii", "ignore").decode().lower().split())


def month_index(d: date) -> int:
    """Months since year 0 (``year * 12 + month - 1``): month arithmetic as integers."""
    return d.year * 12 + d.month - 1


def month_from_index(index: int) -> date:
    """The first day of the month ``month_index`` numbers."""
    return date(index // 12, index % 12 + 1, 1)


def shift_months(d: date, months: int) -> date:
    """First day of the month ``months`` after d's month (negative goes back)."""
    return month_from_index(month_index(d) + months)


def months_between(start: date, end: date) -> int:
    """Whole months from start's month to end's month (0 when both fall in the same month)."""
    return month_index(end) - month_index(start)


def month_count(start: date, end: date) -> int:
    """Months in the window from start's month to end's month, both included."""
    return months_between(start, end) + 1


def month_end(y: int, m: int) -> date:
    """Last day of a month."""
    return date(y, m, calendar.monthrange(y, m)[1])


def month_words(d: date) -> str:
    """'noviembre de 2025'."""
    return f"{MONTHS[d.month - 1]} de {d.year}"


def canonical_json(obj: Any) -> str:
    """Sorted keys, no whitespace, UTF-8 text: the one form every hash and payload is computed on."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)
