"""Canonical names: slugs for keys and identifiers, and accent-free text for matching.

``delito`` and ``metodo`` keys are lowercase slugs of the SESNSP labels
(``homicidio_doloso``, ``con_arma_de_fuego``); ``entidad_id`` is the state abbreviation +
``.MUN.`` + the uppercase slug of the official name (DESIGN §2).
"""
from __future__ import annotations

import re
import unicodedata

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
