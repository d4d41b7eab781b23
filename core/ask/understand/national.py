"""Questions over the national tables (issue 14, docs/decisions/0011): the country, the 32 states, victims by
sexo and edad and the federal jurisdiction.

``scope`` reads the cues over the accent-free text (place names masked, so «Dolores Hidalgo Cuna de la
Independencia Nacional» is no «nacional») and adds ``national:*`` signals; the states a national question names
(«Guanajuato vs Jalisco», «¿en qué lugar está Puebla?») stop being places outside the store and become places of
the national tables. The planner (core/ask/plan/national.py) sends such a question to tools 21–23.

A state named alone («homicidios dolosos en Puebla en 2023») is still said to be outside the loaded municipal
data: its state figure comes with the evaluation set's update (issue 14 note), not silently.
"""

from __future__ import annotations

import re
from dataclasses import replace

from core.ask.understand import Understanding
from core.ask.understand.tokens import tokenize

_C = lambda *parts: re.compile("|".join(parts))

COUNTRY = _C(
    r"\ba\s+nivel\s+(?:nacional|pais|republica)\b",
    r"\ben\s+(?:todo\s+)?(?:el\s+pais|la\s+republica(?:\s+mexicana)?|mexico)\b",
    r"\b(?:todo|resto\s+del)\s+pais\b",
    r"\b(?:la|el|los|las)\s+del\s+pais\b",  # «¿y la del país?»
    r"\bnacional(?:es|mente)?\b",
)
# «¿en qué lugar está Guanajuato?», «ranking de estados», «¿qué estado tuvo más…?», «entre las 32 entidades»
RANK = _C(
    r"\b(?:que|cual)\s+(?:lugar|posicion|puesto|sitio)\s+(?:ocupa|ocupo|tiene|tuvo|esta|estuvo|quedo|queda|se\s+ubica"
    r"|aparece|tiene)\b",
    r"\ben\s+que\s+(?:lugar|posicion|puesto|sitio)\s+(?:esta|quedo|queda|se\s+ubica|aparece|se\s+encuentra)\b",
    r"\b(?:lugar|posicion|puesto)\s+(?:nacional|entre\s+(?:los|las)\s+(?:estados|entidades))\b",
    r"\branking\s+(?:de\s+|por\s+|entre\s+(?:los\s+|las\s+)?)?(?:estados|entidades|nacional)\b",
    r"\branking\b.*\b(?:estados|entidades)\b",
    r"\b(?:entre|de)\s+(?:los|las)\s+32\b",
    r"\b(?:que|cual|cuales)\s+(?:estados?|entidad(?:es)?(?:\s+federativas?)?)\b",
    r"\b(?:estados|entidades)\s+(?:con|que|donde|mas|menos)\b",
    # «¿Guanajuato es primer lugar en narcomenudeo?», «¿es el estado con más extorsiones?», «lugar de Gto por tasa»,
    # «¿dónde queda Chihuahua…?», «Sonora: posición…» (a place's name is «_» here)
    r"\b(?:primer|segundo|tercer|ultimo|penultimo)\s+lugar\b",
    r"\bes\s+el\s+estado\s+(?:con|que|mas|menos|donde)\b",
    r"\b(?:lugar|posicion|puesto|sitio)\s+(?:de\s+|del\s+)?(?:la\s+|el\s+)?_",
    r"\bdonde\s+(?:queda|esta|se\s+ubica|aparece)\s+(?:la\s+|el\s+)?_",
    r"_\s+(?:posicion|lugar|puesto)\b",
)
# 2026 is published by state only, in the new methodology (RNID): a window inside it is the national tables'
RNID_YEAR = 2026
# a forecast is no question about published months («¿cuántos habrá en 2026?»)
_FUTURE = re.compile(r"\b(?:habra|habria|habran|pronostic\w*|predic\w*|proyecc\w*|estima\w*|esper[ae]\w*)\b")
VS_COUNTRY = _C(
    r"\b(?:tasa|promedio|media|indice)\s+(?:nacional|del\s+pais)\b",
    r"\b(?:que|vs|versus|contra|frente\s+al?|respecto\s+al?|comparad[oa]s?\s+con)\s+(?:el\s+|al\s+)?"
    r"(?:pais|resto\s+del\s+pais|promedio\s+nacional|nacional)\b",
)
# victims counted: «¿cuántas víctimas…?», «víctimas mujeres», «¿cuántas fueron mujeres?», «por sexo», «por edad»
VICTIMS = _C(
    r"\bcuant[oa]s\s+(?:\w+\s+){0,2}?victimas\b",
    r"\bvictimas\s+(?:de|por|mujeres|hombres|menores|femeninas|masculinas)\b",
    r"\b(?:mujeres|hombres|menores|ninos|ninas|adolescentes)\s+(?:\w+\s+){0,2}?victimas\b",
    r"\bpor\s+(?:sexo|genero|rango\s+de\s+edad|edad|grupo\s+de\s+edad)\b",
    r"\b(?:fueron|eran|son)\s+(?:mujeres|hombres|menores)\b",
)
FEDERAL = _C(r"\bfuero\s+federal\b", r"\bdelitos?\s+(?:del\s+orden\s+)?federal(?:es)?\b", r"\bfederales\b", r"\bfgr\b")
# the words the cues themselves are: never an unknown place («Nacional» of Santiago Pinotepa) or crime («federales»)
_CUE_WORDS = frozenset({"nacional", "nacionales", "federal", "federales", "pais", "republica", "mexico", "fgr"})
# the rest of a national question's own words: understood, never «No tomé en cuenta»
_NATIONAL_WORDS = _CUE_WORDS | frozenset(
    [
        "ranking",
        "lugar",
        "posicion",
        "puesto",
        "sitio",
        "estados",
        "estado",
        "entidades",
        "entidad",
        "federativa",
        "federativas",
        "victimas",
        "victima",
        "mujeres",
        "hombres",
        "menores",
        "ninos",
        "ninas",
        "adolescentes",
        "sexo",
        "genero",
        "edad",
        "rango",
        "grupo",
        "fuero",
        "nivel",
        "resto",
        "32",
        "ocupa",
        "frente",
        "comparado",
        "comparada",
        "ver",
    ]
)


def _masked(u: Understanding) -> str:
    """The question's tokens with the names of its places blanked out."""
    text = f" {tokenize(u.question or '').text} "
    foreign = [t.text for t in u.unknown_terms if t.kind == "place_foreign" and not set(t.text.split()) & _CUE_WORDS]
    names = [p.text for p in u.places] + foreign  # «Nacional» (Santiago Pinotepa's) is the cue, not a place
    for raw in sorted(names, key=len, reverse=True):
        name = tokenize(raw or "").text
        if name:
            text = text.replace(f" {name} ", " _ ")
    return text.strip()


def _foreign_states(u: Understanding) -> list[str]:
    """The abbreviations of the states outside the municipal store that the question names."""
    return list(dict.fromkeys(s.rsplit(":", 1)[1] for s in u.signals if s.startswith("place:not_in_store:")))


def scope(u: Understanding) -> Understanding:
    """The understanding with its national signals (and the states a national question names taken as places)."""
    text = _masked(u)
    municipal = any(p.nivel == "municipio" for p in u.places)
    states = _foreign_states(u)
    country, rank, versus = bool(COUNTRY.search(text)), bool(RANK.search(text)), bool(VS_COUNTRY.search(text))
    federal = bool(FEDERAL.search(text))
    victims = bool(VICTIMS.search(text)) and not municipal
    home = any(p.nivel == "estado" for p in u.places) or u.whole_state
    # a crime named: the yearly total of every crime has 2026 in its own file (total_anual)
    specific = [c for c in u.crimes if c.delito != "total_delitos"]
    rnid = bool(u.window and specific) and u.window[0].year >= RNID_YEAR and not _FUTURE.search(text)
    signals: list[str] = ["national:rnid"] if rnid and not municipal else []
    if federal and not municipal:
        signals.append("national:federal")
    elif victims:
        signals.append("national:victims")
    elif ((rank or versus) and not municipal) or (states and (home or country)):
        signals.append("national:rank")
    elif country and not municipal and not states:
        signals.append("national:country")
    elif rnid and not municipal:  # «homicidios dolosos en Guanajuato en el primer trimestre de 2026»
        signals.append("national:rank")
    if not signals:
        return u
    if versus:
        signals.append("national:vs_country")
    if country and not (home or states):
        signals.append("national:place:MX")
    signals += [f"national:place:{s}" for s in states]
    # the states are the national tables' places now; the cue words are no unknown place or crime
    kept = [
        t
        for t in u.unknown_terms
        if not (t.kind == "place_foreign" and states)
        and not (t.kind.startswith("place") and set(t.text.split()) & _CUE_WORDS)
        and not (t.kind == "crime" and set(t.text.split()) <= _CUE_WORDS | {"delito", "delitos"})
        and not (not t.kind.startswith("place") and set(t.text.split()) <= _NATIONAL_WORDS)
    ]
    dropped = {s for s in u.signals if s.startswith("place:not_in_store:") or s == "place:other_state"}
    return replace(
        u,
        unknown_terms=kept,
        signals=[s for s in u.signals if s not in dropped] + signals,
    )


def carry(merged: Understanding, current: Understanding, previous: Understanding) -> Understanding:
    """A follow-up to a national question stays national («¿y Michoacán?», «¿y en Nuevo León?», «¿y en
    feminicidios?»): the previous scope, with the states it names in place of the previous ones."""
    before = [s for s in previous.signals if s.startswith("national:")]
    if not before or any(s.startswith("national:") for s in current.signals):
        return merged
    if any(p.nivel == "municipio" for p in merged.places):
        return merged  # «¿y en León?»: municipal again
    states = _foreign_states(current)
    scope_ = [s for s in before if not (states and s.startswith("national:place:"))]
    kept = [t for t in merged.unknown_terms if not (t.kind == "place_foreign" and states)]
    dropped = {s for s in merged.signals if s.startswith("place:not_in_store:") or s == "place:other_state"}
    signals = [s for s in merged.signals if s not in dropped] + scope_ + [f"national:place:{s}" for s in states]
    places = [p for p in merged.places if not states] if states else merged.places
    whole = merged.whole_state and not states
    return replace(merged, unknown_terms=kept, signals=list(dict.fromkeys(signals)), places=places, whole_state=whole)


def is_national(u: Understanding | None) -> bool:
    """Whether the question is for the national tables."""
    return bool(u) and any(
        s.startswith(("national:rank", "national:country", "national:victims", "national:federal")) for s in u.signals
    )
