"""The index terms of Spanish methodology text: lowercased, accent-free, stopword-filtered, lightly stemmed.

The stopwords and the stemmer are our own (nothing is downloaded), tuned for the methodology documents and the
questions asked about them: «estado», «contra» and «sin» are kept, «tasa» and «tasas» meet at «tas». The
subjects of defining sentences («El feminicidio es …») are the terms a section defines.
"""

from __future__ import annotations

import re

from core.text import strip_accents

MAX_DEFINED_WORDS = 3  # longer subjects are descriptions ("la relación entre …"), not defined terms
# "El homicidio doloso es la …": the subject of a defining sentence, at the start of a sentence
_DEFINES = re.compile(r"(?:^|(?<=[.;:]\s))(?:El|La|Los|Las|Un|Una)\s+([^.,;:]{3,80}?)\s+(?:es|son)\s+\w")

# A short hand-made list: bm25s's Spanish list drops "estado", "contra" and "sin", which matter here.
STOPWORDS = frozenset(
    [
        "a",
        "al",
        "algo",
        "algun",
        "alguna",
        "algunas",
        "alguno",
        "algunos",
        "ante",
        "antes",
        "aqui",
        "asi",
        "aun",
        "cada",
        "cual",
        "cuales",
        "cuando",
        "cuanta",
        "cuantas",
        "cuanto",
        "cuantos",
        "de",
        "del",
        "desde",
        "donde",
        "dos",
        "durante",
        "e",
        "el",
        "ella",
        "ellas",
        "ellos",
        "en",
        "entre",
        "era",
        "eran",
        "es",
        "esa",
        "esas",
        "ese",
        "eso",
        "esos",
        "esta",
        "estan",
        "estas",
        "este",
        "esto",
        "estos",
        "fue",
        "fueron",
        "ha",
        "habia",
        "han",
        "hay",
        "la",
        "las",
        "le",
        "les",
        "lo",
        "los",
        "mas",
        "me",
        "mi",
        "mis",
        "muy",
        "nada",
        "ni",
        "no",
        "nos",
        "o",
        "otra",
        "otras",
        "otro",
        "otros",
        "para",
        "pero",
        "poco",
        "por",
        "porque",
        "pues",
        "que",
        "quien",
        "quienes",
        "se",
        "sea",
        "segun",
        "ser",
        "si",
        "sido",
        "siempre",
        "sobre",
        "solo",
        "son",
        "su",
        "sus",
        "tal",
        "tambien",
        "tan",
        "tanto",
        "te",
        "tiene",
        "tienen",
        "todo",
        "todos",
        "tu",
        "tus",
        "u",
        "un",
        "una",
        "unas",
        "uno",
        "unos",
        "usted",
        "y",
        "ya",
        "yo",
        "puede",
        "pueden",
        "hace",
        "hacen",
        "como",
        "casandra",
    ]
)
# How a question is asked, not what it asks about: dropped from queries only.
QUESTION_WORDS = frozenset(
    [
        "significa",
        "significan",
        "quiere",
        "quieren",
        "decir",
        "puedo",
        "podemos",
        "saber",
        "pasa",
        "explica",
        "explicame",
        "dime",
        "digame",
        "entender",
        "entiendo",
        "viene",
        "vienen",
        "sale",
        "salen",
    ]
)
# Longest suffix first; a stem keeps at least three letters, so "tasa" and "tasas" meet at "tas".
_SUFFIXES = sorted(
    [
        "aciones",
        "uciones",
        "iciones",
        "acion",
        "ucion",
        "icion",
        "amientos",
        "imientos",
        "amiento",
        "imiento",
        "mente",
        "idades",
        "idad",
        "ables",
        "ibles",
        "able",
        "ible",
        "istas",
        "ista",
        "osas",
        "osos",
        "osa",
        "oso",
        "ados",
        "adas",
        "idos",
        "idas",
        "ado",
        "ada",
        "ido",
        "ida",
        "ando",
        "iendo",
        "aron",
        "ieron",
        "aban",
        "ales",
        "al",
        "iones",
        "ion",
        "an",
        "en",
        "ar",
        "er",
        "ir",
        "as",
        "es",
        "os",
        "a",
        "e",
        "o",
        "s",
    ],
    key=lambda s: (-len(s), s),
)
_WORD = re.compile(r"[a-z0-9]+")


def stem(word: str) -> str:
    """Light Spanish stem: strip the longest known suffix, keeping three letters at least."""
    if word.isdigit() or len(word) <= 3:
        return word
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word


def tokenize(text: str, query: bool = False) -> list[str]:
    """Accent-free, lowercased, stopword-filtered, stemmed tokens (``query`` also drops question words)."""
    plain = strip_accents(text.lower())  # also turns ñ into n
    drop = STOPWORDS | QUESTION_WORDS if query else STOPWORDS
    return [stem(w) for w in _WORD.findall(plain) if w not in drop]


def defined_terms(text: str) -> list[str]:
    """Short subjects of defining sentences ("El feminicidio es …" → "feminicidio")."""
    return [t for t in _DEFINES.findall(text) if len(tokenize(t)) <= MAX_DEFINED_WORDS]
