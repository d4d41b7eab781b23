"""Place names beyond exact lookup: a Spanish sound fold for typos and the national reference list.

``fold`` writes a name the way it sounds in Mexican Spanish («Zelaya», «Selaya» and «Celaya»
are one word; doubled letters, a silent «h», «v»/«b» and «ll»/«y» collapse), and ``similarity``
scores two names on that fold. The scorer and ``FUZZY_THRESHOLDS`` were chosen by measuring
misspellings of the store's names against names of other states' municipalities and common
Spanish words (docs/decisions/0009-place-spelling-threshold.md): at the threshold no near-miss is
accepted. ``national_names`` reads ``catalogs/entities/municipios_mx.csv`` so a municipality of
another state is recognised as such, never replaced by the state.
"""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from rapidfuzz import fuzz

from core.ask.understand.tokens import COMMON_WORDS, STOPWORDS, key_of
from core.config import CATALOGS_DIR

NATIONAL_FILE = Path("entities") / "municipios_mx.csv"
# Heads of long names too generic to stand for one municipality («Villa de Álvarez» is not «Villa»).
_GENERIC_HEADS = frozenset({"villa", "ciudad", "heroica", "san", "santa", "santo", "santiago", "general", "nuevo"})
# Measured (ADR 0009), by the length of the folded name: the lowest score at which no misspelling
# lands on the wrong place and no other state's municipality or common Spanish word is taken for a
# place of the store (one edit of a short name is another word: «campo» is one letter from «Ocampo»).
FUZZY_THRESHOLDS = ((6, 92.0), (8, 84.0), (99, 80.0))  # (longest folded length, minimum score)
MIN_FUZZY_CHARS = 5  # shorter names are matched exactly or not at all

# Ordered rewrites: digraphs before single letters, so «ch» and «qu» survive the «h»/«c» rules.
_FOLD_RULES = [
    (re.compile(r"ch"), "1"),
    (re.compile(r"qu(?=[ei])"), "k"),
    (re.compile(r"gu(?=[ei])"), "g"),
    (re.compile(r"g(?=[ei])"), "j"),
    (re.compile(r"c(?=[ei])"), "s"),
    (re.compile(r"[cq]"), "k"),
    (re.compile(r"z"), "s"),
    (re.compile(r"ll"), "y"),
    (re.compile(r"y\b"), "i"),
    (re.compile(r"v"), "b"),
    (re.compile(r"w"), "u"),
    (re.compile(r"h"), ""),
    (re.compile(r"(\w)\1+"), r"\1"),
]


def fold(name: str) -> str:
    """A normalized name written as it sounds («Zelaya» → «selaia», «Irapuatto» → «irapuato»)."""
    out = key_of(name)
    for rx, repl in _FOLD_RULES:
        out = rx.sub(repl, out)
    return out


def fuzzy_threshold(query: str) -> float | None:
    """The score a typo of this name needs to be accepted (None: too short to guess)."""
    n = len(fold(query).replace(" ", ""))
    if n < MIN_FUZZY_CHARS:
        return None
    return next(score for longest, score in FUZZY_THRESHOLDS if n <= longest)


def similarity(query: str, key: str) -> float:
    """0-100: how close a written name is to a place key, on the sound fold (the measured scorer)."""
    return float(fuzz.ratio(fold(query), fold(key)))


@dataclass(frozen=True)
class NationalPlace:
    """A municipality of the national reference list (no data: only its name and state)."""

    cve_geo: str
    estado: str  # abbreviation of catalogs/entities/estados.csv
    nombre: str


@lru_cache(maxsize=4)
def _national_at(path: Path) -> tuple[NationalPlace, ...]:
    with path.open(encoding="utf-8-sig", newline="") as fh:
        return tuple(NationalPlace(r["cve_geo"], r["estado"], r["nombre"].strip()) for r in csv.DictReader(fh))


def national_places(catalogs_dir: str | Path = CATALOGS_DIR) -> tuple[NationalPlace, ...]:
    """Every municipality of Mexico (INEGI MG 2023), read once."""
    return _national_at((Path(catalogs_dir) / NATIONAL_FILE).resolve())


def _heads(name: str) -> list[str]:
    """A long official name's everyday form: «Acambay de Ruíz Castañeda» → «acambay»."""
    key = key_of(name)
    out = []
    head = re.split(r"\s(?:de|del)\s", key, maxsplit=1)[0]
    if re.fullmatch(r"(?:san|santa|santo|santiago)\s\w+", head):
        head = key  # «San José» of «San José de Gracia» is a saint's name, not one municipality
    # «San Pedro Tlaquepaque» is said «Tlaquepaque»: the saint's name is dropped in everyday speech
    saint = re.match(r"(?:san|santa|santo|santiago)\s\w+\s(?!(?:de|del|la|las|los|el)\b)(.+)$", head)
    for short in (head, saint.group(1) if saint else ""):
        if short != key and len(short) >= MIN_FUZZY_CHARS and short not in _GENERIC_HEADS and not is_common_word(short):
            out.append(short)
    return out


@lru_cache(maxsize=8)
def _national_index(store_keys: frozenset[str]) -> dict[str, tuple[NationalPlace, ...]]:
    index: dict[str, tuple[NationalPlace, ...]] = {}
    for place in national_places():
        for key in [key_of(place.nombre), *_heads(place.nombre)]:
            if key and key not in store_keys and key not in STOPWORDS and place not in index.get(key, ()):
                index[key] = index.get(key, ()) + (place,)
    return index


def national_names(store_keys: frozenset[str]) -> dict[str, tuple[NationalPlace, ...]]:
    """Name key → municipalities of other states, leaving out every name the store already has."""
    return _national_index(store_keys)


@lru_cache(maxsize=1)
def state_names() -> dict[str, str]:
    """Abbreviation → name of the 32 states («JAL» → «Jalisco»)."""
    from core.dataset.entities import load_states

    return {s.abreviatura: s.nombre for s in load_states()}


def describe_other(places: tuple[NationalPlace, ...]) -> str:
    """«Guadalajara, municipio de Jalisco»; a name of several states lists them."""
    names = state_names()
    states = sorted({names.get(p.estado, p.estado) for p in places})
    if len(states) == 1:
        return f"{places[0].nombre}, municipio de {states[0]}"
    return f"{places[0].nombre}, municipio de {', '.join(states[:-1])} y {states[-1]}"


def is_common_word(key: str) -> bool:
    """A one-word name that is also question vocabulary («Centro», «Progreso»): a place only after a cue."""
    return " " not in key and (key in COMMON_WORDS or key in STOPWORDS)
