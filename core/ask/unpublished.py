"""What a question asks that no SESNSP file publishes: arrests, police, hours, motives, causes, budgets.

``route`` asks ``unpublished`` before planning; the reply (``scope.unpublished_reply``) says what is not published
and offers the count the data has.
"""

from __future__ import annotations

import re

from core.ask.understand.tokens import expand_chat

# What the SESNSP does not publish whatever the crime: who was arrested, the police force, the hour or the weekday
_UNPUBLISHED = (
    (
        r"\b(?:cuant[oa]s|numero\s+de|cifra\s+de|total\s+de)\s+(?:personas\s+)?(?:detenid[oa]s|detenciones|arrestad[oa]s"
        r"|arrestos|capturad[oa]s|consignad[oa]s|sentenciad[oa]s|sentencias|vinculad[oa]s\s+a\s+proceso)\b"
        r"|\bno\s+carpetas\W+(?:sino\s+)?detenid[oa]s\b",
        "cuántas personas fueron detenidas, consignadas o sentenciadas",
    ),
    (
        # «¿cuántos narcos detuvieron en Salamanca?»: arrests asked with the verb
        r"\bcuant[oa]s\b.{0,40}?\b(?:detuvieron|arrestaron|capturaron|aprehendieron|consignaron|agarraron)\b",
        "cuántas personas fueron detenidas, consignadas o sentenciadas",
    ),
    (
        r"\bllamadas?\s+(?:al\s+|de\s+)?(?:911|emergencia\w*)\b|\b911\b",
        "las llamadas al 911 (son otra fuente, que Casandra no tiene cargada)",
    ),
    (
        r"\b(?:cuant[oa]s|numero\s+de)\s+(?:policias|patrullas|elementos|agentes|uniformados|camaras)\b"
        r"|\bpolicias\s+(?:municipales\s+|estatales\s+)?hay\b",
        "cuántos policías, patrullas o cámaras hay",
    ),
    (
        r"\ba\s+que\s+horas?\b|\bhoras?\s+del\s+dia\b|\bhorarios?\b|\bpor\s+hora\b"
        r"|\b(?:que|cual)\s+dias?\s+de\s+la\s+semana\b|\bdias?\s+de\s+la\s+semana\b"
        r"|\ben\s+la\s+(?:noche|madrugada)\s+o\b|\bde\s+noche\s+o\s+de\s+dia\b",
        "a qué hora ni qué día de la semana ocurren",
    ),
    (
        # «cuántos fueron por el narco o crimen organizado», «ajustes de cuentas»: a motive is never published
        r"\b(?:(?:fueron|fue|son|murieron|mataron|asesinad[oa]s|ejecutad[oa]s|muertes?|muertos)\s+(?:\w+\s+){0,3}?por"
        r"|relacionad[oa]s\s+(?:con|al?)|vinculad[oa]s\s+(?:con|al?))\s+(?:el\s+|los\s+)?(?:narco|crimen\s+organizado|"
        r"narcotrafico|carteles?|ajustes?\s+de\s+cuentas)\b|\bmotivos?\b|\bcausas?\s+de\s+(?:los|las|esos|esas)\b",
        "el motivo de cada delito (crimen organizado, ajustes de cuentas…)",
    ),
    (
        # «¿cuánto presupuesto tiene la policía?» (not «queremos pedir más presupuesto al congreso…, ¿cuántas…?»)
        r"\b(?:cuant[oa]|cual\s+es\s+el|que)\s+presupuesto\b|\bpresupuesto\s+(?:de|del|tiene)\s+(?:la\s+|el\s+)?"
        r"(?:policia|seguridad|municipio|ayuntamiento|estado)\b|\b(?:cuanto|cuanta)\s+(?:dinero|lana)\s+(?:tiene|gasta|"
        r"invierte|le\s+dan)\b",
        "el presupuesto de la policía o del municipio",
    ),
    (
        # «¿por qué hay tantos feminicidios en Oaxaca? ¿cuál es la causa principal?», «¿a qué se debe el aumento?»
        r"\bpor\s*que\s+(?:hay|hubo|son|fueron|ocurren|se\s+dan|aument\w+|sub\w+|creci\w+|baj\w+|disminu\w+)\s+"
        r"(?:tant[oa]s?|mas|menos|tan\s+poc[oa]s)\b|\b(?:cual|cuales)\s+(?:es|son|fue|fueron)\s+(?:la|las)\s+"
        r"(?:principal(?:es)?\s+)?causas?\b(?!\s+de\s+(?:denuncias?|carpetas|delitos?|investigaci))|\ba\s+que\s+se\s+deb(?:e|en|io|ieron)\b",
        "las causas de los delitos: cuentan cuántos hubo, no por qué ocurren",
    ),
)


def unpublished(normalized: str) -> str | None:
    """What the question asks that no SESNSP file publishes (arrests, police, hours), said in words; else None."""
    text = expand_chat(normalized)
    return next((what for pattern, what in _UNPUBLISHED if re.search(pattern, text)), None)
