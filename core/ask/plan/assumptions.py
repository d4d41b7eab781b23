"""What the understanding did not understand or assumed, as clarifying questions and answer notes.

A place outside the store (another state, another state's municipality, an unknown name) or a period
that did not parse blocks the turn with a question and no figure: the state is never put in its
place (docs/decisions/0009-place-spelling-threshold.md). A crime word nobody knows blocks when no
other crime was named. What is assumed or left out is written in the answer: a typo read as a
place or crime («Entendí: Celaya»), the whole state when no place was said, the words not taken
into account.
"""

from __future__ import annotations

import re
from dataclasses import replace

from core.ask.contracts import ClarifyingQuestion
from core.ask.understand import Understanding
from core.ask.understand.placenames import state_names
from core.ask.understand.rewrite import crime_phrase, is_feminine
from core.text import normalize_text

_PLACE_KINDS = ("place_foreign", "place_unknown")
_EXAMPLES = "Por ejemplo: «en 2024», «de enero a marzo de 2025» o «los últimos 12 meses»."


def _home(catalog) -> str:
    """The name of the store's state («Guanajuato»)."""
    states = [e["label"] for e in catalog.entities if e["nivel"] == "estado"]
    return states[0] if len(states) == 1 else " y ".join(sorted(states)) or "el estado"


def _quote(words: list[str]) -> str:
    return ", ".join(f"«{w}»" for w in words)


def as_written(question: str, text: str) -> str:
    """The words of the question behind an accent-free term («guadalajara» → «Guadalajara»)."""
    words = re.findall(r"[\wÁÉÍÓÚÑáéíóúñü]+", question)
    n = len(text.split())
    for i in range(len(words) - n + 1):
        if normalize_text(" ".join(words[i : i + n])) == text:
            return " ".join(words[i : i + n])
    return text


def _outside(u: Understanding, detail: str, text: str) -> str:
    """«Guadalajara, municipio de Jalisco»; «CDMX» (el estado de Ciudad de México)."""
    written = as_written(u.question, text)
    return detail if normalize_text(written) in normalize_text(detail) else f"«{written}» ({detail})"


_MAX_NAMED = 2
_MAX_QUESTION = 300  # ClarifyingQuestion.question's limit (contracts)


def _fit(parts: list[str]) -> str:
    """The parts joined; past the contract's length the middle sentences go first, the question itself stays."""
    while len(" ".join(parts)) > _MAX_QUESTION and len(parts) > 2:
        parts = [parts[0], *parts[2:]]
    text = " ".join(parts)
    return text if len(text) <= _MAX_QUESTION else text[: _MAX_QUESTION - 1].rstrip() + "…"


def place_question(u: Understanding, catalog, usual: list[str]) -> ClarifyingQuestion | None:
    """The question for places the store does not have: say which, offer the closest names, give no figure."""
    terms = [t for t in u.unknown_terms if t.kind in _PLACE_KINDS]
    pointed = [as_written(u.question, t.text) for t in u.unknown_terms if t.kind == "place_deictic"]
    if not terms and pointed and not u.places and not u.whole_state:  # «ahí» with nothing before it to point at
        return ClarifyingQuestion(
            question=f"¿De qué municipio hablas con {_quote(pointed)}?",
            reason="missing_place",
            blocking=True,
            options=usual[:12],
        )
    if not terms:
        return None
    home = _home(catalog)
    terms = _settled(terms)
    foreign = [_outside(u, t.detail, t.text) for t in terms if t.kind == "place_foreign"]
    if len(foreign) > _MAX_NAMED:  # a list of many places is said short: the question has a length limit
        foreign = [*foreign[:_MAX_NAMED], f"{len(foreign) - _MAX_NAMED} lugares más"]
    unknown = [t for t in terms if t.kind == "place_unknown"]
    near = list(dict.fromkeys(s for t in unknown for s in t.suggestions))[: _MAX_NAMED + 1]
    parts = []
    states = [t for t in terms if t.kind == "place_foreign" and t.detail.startswith("el estado de ")]
    if foreign and len(states) == len(foreign) and not unknown:
        # another state alone: its municipalities are not loaded, its state figures are (the national tables)
        names = [_outside(u, t.detail, t.text).removeprefix("el estado de ") for t in states]  # «CDMX» as written
        named, both = " ni de ".join(names), " y ".join(names)
        parts.append(
            f"No tengo datos por municipio de {named}: de los otros estados solo están cargadas las cifras estatales "
            f"del SESNSP. No doy una cifra de otro lugar en su lugar. ¿Quieres ver a {both} en el ranking de estados "
            f"o frente a {home}?"
        )
        return ClarifyingQuestion(
            question=_fit(parts),
            reason="missing_place",
            blocking=True,
            options=["Ranking de estados", f"{named} frente a {home}"],
        )
    offer = _state_offer(u, terms, states) if foreign and not unknown else None
    if foreign:
        cities = [_outside(u, t.detail, t.text) for t in terms if t.kind == "place_foreign" and t not in states]
        named = " ni de ".join(cities or foreign).replace("de el estado", "del estado")
        line = f"No tengo datos de {named}: por municipio solo están cargados los de {home}"
        if states and cities and not offer:  # «Zamora, Michoacán»: the state itself has its state figures
            names = " y ".join(_outside(u, t.detail, t.text).removeprefix("el estado de ") for t in states)
            line += f"; de {names} solo están las cifras estatales"
        parts.append((line + ".").replace("de el estado", "del estado"))
    if offer:  # another state's municipality: its state's figure is offered, never given as the municipality's
        ask, options = offer
        parts += ["No doy la cifra de otro lugar en su lugar.", ask]
        return ClarifyingQuestion(question=_fit(parts), reason="missing_place", blocking=True, options=options)
    if unknown:
        written = [as_written(u.question, t.text) for t in unknown]
        parts.append(f"No reconocí el lugar {_quote(written)} entre los municipios de {home}.")
    parts.append("No doy una cifra de otro lugar en su lugar.")
    parts.append(
        f"¿Te refieres a {' o '.join(near)}?" if near else f"¿Quieres la cifra de {home} o de alguno de sus municipios?"
    )
    return ClarifyingQuestion(
        question=_fit(parts),
        reason="missing_place",
        blocking=True,
        options=(near or [home, *usual])[:12],
    )


def _settled(terms: list) -> list:
    """«Guadalupe, NL»: a name several states share, with the state the question also names, is that state's."""
    said = {s for t in terms if t.kind == "place_foreign" and t.detail.startswith("el estado de ") for s in t.states}
    out = []
    for t in terms:
        only = [s for s in t.states if s in said]
        if t.kind == "place_foreign" and len(t.states) > 1 and len(only) == 1:
            name = t.detail.split(", municipio de ")[0]
            t = replace(t, detail=f"{name}, municipio de {state_names().get(only[0], only[0])}", states=tuple(only))
        out.append(t)
    return out


def _state_offer(u: Understanding, terms: list, named_states: list) -> tuple[str, list[str]] | None:
    """For one municipality of another state («Zapopan»): the question that offers its state's figure (the state
    file has every state), and that question as the option; a name several states share («Guadalupe») asks which
    state, one option each, unless the question names the state. None when there is nothing to offer."""
    cities = [t for t in terms if t.kind == "place_foreign" and t not in named_states]
    specific = [c for c in u.crimes if c.delito != "total_delitos"]
    # a state's place among the 32 (a follow-up of «¿en qué lugar está Guanajuato…?») is answered by its figure too
    ranked = u.kind == "ranking" and "national:rank" in u.signals
    if len(cities) != 1 or not cities[0].states or not specific or not (u.kind in _STATE_KINDS or ranked):
        return None
    said = {s for t in named_states for s in t.states}
    candidates = [s for s in cities[0].states if s in said] or list(cities[0].states)
    names = state_names()
    options = [_in_state(u, specific, names.get(s, s)) for s in candidates[:_MAX_STATES]]
    if len(candidates) == 1:
        state = names.get(candidates[0], candidates[0])
        ask = f"De {state} sí tengo la cifra estatal del SESNSP (todo el estado, no el municipio): ¿quieres esa?"
        return ask, options
    ask = "¿De cuál de esos estados quieres la cifra estatal del SESNSP (todo el estado, no el municipio)?"
    return ask, options


# the question kinds a state's figure answers as asked (a count or a rate of the window); a ranking, a series or a
# comparison of another state's municipality is not offered
_STATE_KINDS = ("single_value", "unknown")
_MAX_STATES = 6


def _in_state(u: Understanding, crimes: list, state: str) -> str:
    """«¿Cuántos robos a negocio hubo en Jalisco en 2024?»: the question asked, in the state."""
    phrases = [crime_phrase(c.label) for c in crimes]
    what = phrases[0] if len(phrases) == 1 else "casos de " + ", ".join(phrases[:-1]) + " y " + phrases[-1]
    window = ""
    if u.window is not None:
        a, b = u.window
        whole = (a.month, a.day, b.month, b.day) == (1, 1, 12, 31)
        if whole:
            window = f" en {a.year}" if a.year == b.year else f" de {a.year} a {b.year}"
        else:
            window = f" entre {a.isoformat()} y {b.isoformat()}"
    if u.medida == "tasa_per_100k":
        return f"¿Cuál fue la tasa de {what} por 100 mil habitantes en {state}{window}?"
    return f"¿{'Cuántas' if is_feminine(what) else 'Cuántos'} {what} hubo en {state}{window}?"


def time_question(u: Understanding) -> ClarifyingQuestion | None:
    """The question for a period that did not parse: never a default window in its place."""
    terms = [as_written(u.question, t.text) for t in u.unknown_terms if t.kind == "time"]
    if not terms:
        return None
    return ClarifyingQuestion(
        question=f"No entendí el periodo {_quote(terms)}, así que no supongo otro. ¿Qué periodo quieres? {_EXAMPLES}",
        reason="missing_period",
        blocking=True,
        options=[],
    )


def crime_words(u: Understanding) -> list[str]:
    """Crime-like words nobody knows, when no specific crime was named (they would otherwise be dropped)."""
    specific = [c for c in u.crimes if c.delito != "total_delitos"]
    return [] if specific else [as_written(u.question, t.text) for t in u.unknown_terms if t.kind == "crime"]


def crime_question(u: Understanding, catalog) -> ClarifyingQuestion | None:
    """An unknown crime word with no other crime named: say it and list the crimes of the data."""
    words = crime_words(u)
    if not words:
        return None
    crimes = [
        c
        for c in catalog.crimes
        if c.get("en_datos") and c.get("granularity") == "month" and c.get("nivel") == "subtipo"
    ]
    return ClarifyingQuestion(
        question=f"No reconocí {_quote(words)} como un delito de los datos. ¿Sobre qué delito? Estos son los que hay.",
        reason="missing_crime",
        blocking=True,
        options=[c["subtipo"] for c in crimes][:12],
    )


def questions(u: Understanding | None, catalog, usual: list[str]) -> list[ClarifyingQuestion]:
    """Every blocking question the unknown words of a question raise (place, period, crime)."""
    if u is None:
        return []
    found = [place_question(u, catalog, usual), time_question(u), crime_question(u, catalog)]
    return [q for q in found if q is not None]


def notes(u: Understanding | None, catalog) -> list[str]:
    """What the answer assumed or left out, in Spanish: typos read as names, the state by default, ignored words."""
    if u is None:
        return []
    out = []
    for p in u.places:
        if p.score < 100:
            out.append(f"Entendí: {p.label} (escribiste «{p.text}»).")
    for c in u.crimes:
        if c.score < 95 and c.delito != "total_delitos":
            out.append(f"Entendí: {c.label} (escribiste «{c.text}»).")
    national = any(s.startswith("national:") for s in u.signals)  # the national tables say their own place
    if _state_assumed(u) and not national:
        out.append(f"Sin lugar en la pregunta: la cifra es de todo el estado de {_home(catalog)}.")
    if _PEOPLE.search(normalize_text(u.question)) and u.crimes and "national:victims" not in u.signals:
        # «número de víctimas de homicidio»: the store counts crimes (carpetas), never people; the answer says so
        out.append(_PEOPLE_NOTE)
    unknown_crimes = crime_words(u)
    ignored = [
        as_written(u.question, t.text)
        for t in u.unknown_terms
        if t.kind in ("other", "crime") and as_written(u.question, t.text) not in unknown_crimes
    ]
    if ignored:
        out.append(f"No tomé en cuenta: {_quote(ignored)}.")
    return out


_PEOPLE = re.compile(r"\b(?:victimas?|personas|muertos|fallecidos|asesinad[oa]s|occisos)\b")
_PEOPLE_NOTE = (
    "La cifra cuenta delitos (carpetas de investigación), no personas: una carpeta puede tener varias víctimas. "
    "Ver sesnsp.md § Carpetas de investigación y víctimas."
)


def _state_assumed(u: Understanding) -> bool:
    """No place said and the answer is one figure of the state (a question over its municipalities assumes none)."""
    named = u.places or u.ambiguous_places or u.generic_place
    return not named and not u.group_by_municipio and u.kind != "presence"


def tags(u: Understanding | None) -> list[str]:
    """The same assumptions as rationale tags of the plan (planner_meta), for the audit."""
    if u is None:
        return []
    out = [f"assumed:place:{p.entidad_id}<-{p.text}" for p in u.places if p.score < 100]
    out += [f"assumed:crime:{c.delito}<-{c.text}" for c in u.crimes if c.score < 95 and c.delito != "total_delitos"]
    if _state_assumed(u) and not any(s.startswith("national:") for s in u.signals):
        out.append("assumed:state_scope")
    out += [f"not_understood:{t.kind}:{t.text}" for t in u.unknown_terms]
    return out
