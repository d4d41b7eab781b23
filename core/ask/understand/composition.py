"""What a place's crimes are made of: «¿cuál fue el delito más común en Celaya en 2024?», «top 3 delitos en Silao»,
«¿de qué se compone la incidencia?», and a named crime's part of the place's total («¿qué peso tiene la violencia
familiar dentro del total de delitos del municipio?», «el narcomenudeo como porcentaje de todos los delitos»).

Both are one kind, ``composition``: every crime of the place at the tipo level with its share (tool 20 with no
crime), the named crime as its focus. Without these words the question is about the yearly total of all crimes
(«¿cuántos delitos hubo en León?») or a ranking of places («el municipio con más delitos»), as before.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_C = lambda *parts: re.compile("|".join(parts))

_MOST = r"(?:comun|frecuent|denunci|registr|comet|report|repit|ocurr|numeros|habitual)\w*"
# «el delito más común», «los delitos que más se denuncian», «qué tipo de delito es el más denunciado»
WHICH_CRIMES = _C(
    rf"\bdelitos?\s+(?:(?:es|fue|son|fueron|ha\s+sido)\s+(?:el|la|los|las)\s+)?(?:que\s+)?mas\s+(?:se\s+)?{_MOST}",
    rf"\bdelitos?\s+(?:que\s+)?(?:se\s+)?{_MOST}\s+(?:con\s+)?mas\b",
    r"\b(?:principales|primeros|mayores)\s+(?:\w+\s+)?delitos\b",
    r"\bdelitos\s+(?:principales|predominantes?|prevalecientes?|dominantes?|mas\s+import\w+)\b",
    r"\btop\s*\d*\s+(?:de\s+)?(?:los\s+)?delitos\b",
    r"\b(?:que|cuales)\s+(?:son\s+(?:los|las)\s+)?(?:tipos?\s+de\s+)?delitos\s+(?:predomin|prevalec|abund|destac|sobresal|"
    r"domin|pesan|se\s+(?:denuncian|cometen|registran|reportan)\s+mas|hay\s+mas)\w*",
    r"\bde\s+que\s+se\s+compone\w*",
    r"\bcomo\s+se\s+compone\w*",
    r"\bcomposicion\b",
    r"\b(?:desglos\w+|reparto|distribucion|desagreg\w+)\s+(?:\w+\s+){0,3}?por\s+(?:tipos?\s+de\s+)?delitos?\b",
    r"\bpor\s+tipos?\s+de\s+delitos?\b",
    r"\bdelito\s+por\s+delito\b",
    r"\bprincipal(?:es)?\s+(?:causas?|motivos?|delitos?)\s+de\s+(?:denuncias?|carpetas|delitos?)\b",
    r"\b(?:el\s+)?principal\s+delito\b",
    r"\bdelito\s+principal\b",
    r"\bdelitos?\s+(?:numero\s+(?:uno|1)|#\s*1)\b",
    r"\bde\s+que\s+(?:esta|estan)\s+(?:hech|compuest|formad)\w*",
)
# «cuál fue el más común» after «de todos los delitos»: the superlative alone, with crime in general said
MOST_ALONE = re.compile(rf"\b(?:el|la|los|las)\s+(?:\w+\s+)?mas\s+{_MOST}")
CRIME_IN_GENERAL = re.compile(r"\b(?:delitos?|denuncias|incidencia|ilicitos|carpetas|criminalidad|delincuencia)\b")
# the place's total as the denominator of a named crime: «del total de delitos», «de todos los delitos»
TOTAL_OF_PLACE = _C(
    r"\b(?:del|al|el|dentro\s+del|sobre\s+el|respecto\s+al|frente\s+al|contra\s+el)\s+total\s+(?:de\s+(?:los\s+)?)?"
    r"(?:delitos|denuncias|carpetas|la\s+incidencia)\b",
    # «del total del estado» alone is the state's total of the same crime (a place's share), not of every crime
    r"\b(?:del|el)\s+total\s+(?:delictivo|de\s+(?:la\s+)?incidencia)\b",
    r"\b(?:de|entre|sobre)\s+tod[oa]s\s+(?:los|las)\s+(?:delitos|denuncias|carpetas)\b",
    r"\b(?:de|en)\s+la\s+incidencia\s+(?:delictiva\s+)?total\b",
)
# «¿qué proporción de los delitos de Celaya fueron robos?»: the place's crimes, unless the crime itself follows
# («de los delitos de robo, ¿cuántos con violencia?»)
OF_THE_CRIMES = re.compile(r"\bde\s+(?:los|las)\s+(?:delitos|denuncias|carpetas)\s+(?:de|del|en)\s+(\w+)")
PART_WORDS = _C(
    r"\bporcentaje\b",
    r"\bproporcion\b",
    r"\bpes(?:o|a|an|aba|aron)\b",
    r"\brepresenta\w*",
    r"\bque\s+parte\b",
    r"%",
    r"\bpor\s+ciento\b",
    r"\bcuanto\s+es\s+(?:eso\s+)?del\s+total\b",
    r"\bparticipacion\b",
)
# a ranking of places or a change is another question («¿qué municipio tiene más delitos?», «¿qué delitos subieron?»)
PLACES_RANKED = _C(
    r"\b(?:que|cual(?:es)?|los|las|\d+|top\s*\d*)\s+(?:municipios|ciudades|lugares|zonas|regiones|estados)\b",
    r"\b(?:que|cual)\s+(?:es\s+el\s+)?(?:municipio|ciudad|lugar|zona|region)\b",
    r"(?:\bel\s+|^\W*)(?:municipio|lugar|ciudad)\s+(?:con|que|mas|de\s+mayor)\b",
    r"\b(?:por|cada)\s+municipios?\b",
    r"\bentre\s+(?:los\s+|todos\s+los\s+)?municipios\b",
)
CHANGED = re.compile(r"\b(?:aument|disminu|cambi|creci|subi|baj|increment|reduj|reduc|cay|dispar)\w*")


@dataclass(frozen=True)
class Composition:
    """A composition read: the focus crime keys (empty: every crime, the most common first)."""

    focus: tuple[str, ...]
    signal: str


def read(text: str, crimes: list, has_compare_window: bool) -> Composition | None:
    """The composition a question asks for, or None; ``crimes`` are its matched crimes (``total_delitos`` is the
    yearly series' name, «todos los delitos», not a crime of its own)."""
    if has_compare_window or PLACES_RANKED.search(text) or CHANGED.search(text):
        return None
    named = tuple(c.delito for c in crimes if c.delito != "total_delitos")
    if not named:
        if WHICH_CRIMES.search(text):
            return Composition((), "composition:which")
        if MOST_ALONE.search(text) and CRIME_IN_GENERAL.search(text):
            return Composition((), "composition:most_common")
        return None
    if len(named) == 1 and PART_WORDS.search(text) and (TOTAL_OF_PLACE.search(text) or _of_the_crimes(text, crimes)):
        return Composition(named, "composition:share_of_total")
    return None


def _of_the_crimes(text: str, crimes: list) -> bool:
    """«de los delitos de Celaya»: generic crimes of a place, not «de los delitos de robo» (the crime's own words)."""
    said = {w for c in crimes for w in (c.text or "").split()}
    return any(m.group(1) not in said for m in OF_THE_CRIMES.finditer(text))


def cue_spans(text: str) -> list[tuple[int, int]]:
    """Character spans of this module's cues in ``text``: words the understanding reads (never «not understood»)."""
    cues = (WHICH_CRIMES, MOST_ALONE, TOTAL_OF_PLACE, PART_WORDS)
    return sorted({m.span() for rx in cues for m in rx.finditer(text) if m.end() > m.start()})


def part_of_tipo(crimes: list, family: dict[str, str]) -> list | None:
    """«de los robos en Celaya, ¿qué porcentaje fueron robo a negocio?»: a tipo named beside one of its own subtipos
    in a share asks about the subtipo inside its tipo. The subtipo is kept alone (None: not this case), so where the
    municipality does not publish it the answer says so (plan/granularity.py) instead of the tipo's share of the
    state."""
    if len(crimes) != 2:
        return None
    a, b = crimes
    if family.get(b.delito) == a.delito:
        return [b]
    if family.get(a.delito) == b.delito:
        return [a]
    return None
