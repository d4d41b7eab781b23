"""Robbery said with a verb or a participle, read as the noun the catalog names crimes with (and people a crime was
done to, read as its victims: «mujeres secuestradas» → «mujeres victimas de secuestro»).

«cuántas motos se robaron», «carros robados», «me robaron el celular» → «robo de motos / carros / celular», before
any matcher runs (``core.ask.understand.tokens.tokenize``), so the crime, its modalidades and the narrowing words
are found as in «robo de motocicleta» (docs: CONTRIBUTING, a phrasing class is a rule, not a sentence).
"""

from __future__ import annotations

import re

# Robbery said with the verb or its participle («cuántas motos se robaron», «carros robados», «me robaron el
# celular»): read as the noun the catalog names crimes with, «robo de <lo robado>», before any matcher runs.
_ROB_VERBS = frozenset({"robaron", "roban", "robaban", "hurtaron", "robara", "robaran"})
_ROB_PARTICIPLES = frozenset({"robado", "robada", "robados", "robadas", "hurtado", "hurtados", "hurtada", "hurtadas"})
_PERFECT = frozenset({"ha", "han", "habia", "habian", "hayan", "haya", "hubo"})
_CLITICS = frozenset({"se", "me", "le", "les", "nos", "te"})
_DETERMINERS = frozenset(
    {
        "el",
        "la",
        "los",
        "las",
        "su",
        "sus",
        "mi",
        "mis",
        "tu",
        "tus",
        "un",
        "una",
        "unos",
        "unas",
        "nuestro",
        "nuestros",
    }
)
_QUANTITIES = frozenset(
    {"muchos", "muchas", "varios", "varias", "tantos", "tantas", "cuantos", "cuantas", "mas", "menos"}
)
# words that are never the thing taken: prepositions, conjunctions, question words, quantities, punctuation
_NOT_TAKEN = frozenset(
    re.findall(
        r"\S+",
        "en de del a al por para durante entre desde hasta y o e ni que cuantos cuantas cuanto cuanta mas menos muchos "
        "muchas todos todas donde cuando como cual cuales hay hubo fueron son se me le les nos te , - / %",
    )
)


def _taken(word: str) -> bool:
    return word not in _NOT_TAKEN and word not in _DETERMINERS and not word[:1].isdigit()


def robbery_as_noun(words: list[str]) -> list[str]:
    """«motos se robaron» / «les robaron el celular» / «carros robados» → «robo de motos / celular / carros»."""
    out: list[str] = []
    i = 0
    while i < len(words):
        w = words[i]
        verb = w in _ROB_VERBS or (w in _ROB_PARTICIPLES and bool(out) and out[-1] in _PERFECT)
        if verb:
            while out and out[-1] in _CLITICS | _PERFECT:
                out.pop()
            j = i + 1
            while j < len(words) and (words[j] in _DETERMINERS | _QUANTITIES or words[j][:1].isdigit()):
                j += 1
            if j < len(words) and _taken(words[j]):  # the thing taken follows the verb
                out += ["robo", "de", words[j]]
                i = j + 1
                continue
            if out and out[-1].endswith("s") and _taken(out[-1]):  # «cuántas motos se robaron»
                out[-1:] = ["robo", "de", out[-1]]
            else:
                out.append("robo")
            i += 1
            continue
        if w in _ROB_PARTICIPLES and out and _taken(out[-1]):  # «vehículos robados»
            out[-1:] = ["robo", "de", out[-1]]
            i += 1
            continue
        out.append(w)
        i += 1
    return out


# «mujeres secuestradas», «personas extorsionadas»: people the crime was done to are its victims
_PEOPLE = frozenset(
    {"mujeres", "hombres", "personas", "ninos", "ninas", "menores", "jovenes", "adolescentes", "mujer", "hombre"}
)
_VICTIM_PARTICIPLES = {
    "secuestrad": "secuestro",
    "extorsionad": "extorsion",
    "lesionad": "lesiones",
}


def victims_as_noun(words: list[str]) -> list[str]:
    """«mujeres secuestradas» → «mujeres victimas de secuestro»: the victims measure and its crime."""
    out: list[str] = []
    for w in words:
        crime = next((c for stem, c in _VICTIM_PARTICIPLES.items() if re.fullmatch(stem + r"[oa]s?", w)), None)
        if crime and out and out[-1] in _PEOPLE:
            out += ["victimas", "de", crime]
        else:
            out.append(w)
    return out


# «robos a negocio y a casa habitación», «robo de autopartes o de vehículo»: the second kind shares the first's noun
_ROB_NOUNS = frozenset({"robo", "robos", "asalto", "asaltos", "hurto", "hurtos"})
_KIND_LINKS = frozenset({"a", "al", "de"})
_AND = frozenset({"y", "o", "e", ","})
# where the crime's words stop: the place, the period or the question goes on
_CRIME_ENDS = frozenset(
    re.findall(r"\S+", "en durante entre desde hasta hubo hay fueron se que cuantos cuantas por para con sin")
)


def elided_robbery(words: list[str]) -> list[str]:
    """«robos a negocio y a casa habitación» → «robos a negocio y robo a casa habitación»: a kind after «y a» / «o
    de» inside the crime's words is another robbery, so each is matched as the catalog names it."""
    out: list[str] = []
    head = False
    for i, w in enumerate(words):
        nxt = words[i + 1] if i + 1 < len(words) else ""
        if w in _ROB_NOUNS and nxt in _KIND_LINKS:
            head = True
        elif w in _CRIME_ENDS or w[:1].isdigit():
            head = False
        elif head and w in _KIND_LINKS and out and out[-1] in _AND and nxt and nxt not in _CRIME_ENDS:
            out.append("robo")
        out.append(w)
    return out
