"""What a follow-up points back at among places: the ranking's first (or n-th), an earlier turn's, «esos tres», the
option a short reply names, the asker's own municipality; and the modalidad filter it drops («en total», «quita lo del
arma»). The periods it points at are talkedtime.py's.

``followup.merge_follow_up`` calls these; each returns the understanding with the slot resolved, or leaves it.
"""

from __future__ import annotations

import re
from dataclasses import replace

from core.ask.understand import PlaceMatch, Understanding
from core.ask.understand.tokens import tokenize, words_of

# A follow-up that drops the previous modalidad filter: «¿y en total, de todo tipo?», «quita lo del arma blanca»
ANY_METHOD = re.compile(
    r"\b(?:en\s+total|de\s+todo\s+tipo|de\s+todos\s+los\s+tipos|todas\s+las\s+modalidades|sin\s+importar\s+(?:el|la)\s+"
    r"(?:arma|modalidad|forma|tipo)|sin\s+filtr\w*|con\s+cualquier\s+arma|cualquier\s+modalidad"
    # «contando todas las armas», «con todas las armas», «todos los tipos de arma»
    r"|(?:contando|con|de|incluyendo)\s+todas\s+las\s+armas|todos\s+los\s+tipos\s+de\s+armas?"
    r"|sin\s+distinguir\s+(?:el|la|los|las)?\s*(?:arma|armas|modalidad|modalidades|tipo)"
    # «ya sin lo del arma», «todos, no solo con arma blanca», «contando todos, no solo arma de fuego», «(todos)»
    r"|(?:ya\s+)?sin\s+lo\s+(?:del|de\s+la)\s+(?:arma|modalidad|violencia)"
    r"|tod[oa]s\W+(?:y\s+)?no\s+(?:solo|nomas|nada\s+mas|solamente)\b|(?:contando|incluyendo)\s+tod[oa]s\b"
    r"|\btod[oa]s\W*$|\btod[oa]s\s+(?:los|las)\s+(?!municipios|estados|meses|anos|delitos|dias)\w+\W*$"
    # «la serie de todos los dolosos en SMA»: every case of the crime, whatever words follow
    r"|(?<!porcentaje es de )(?<!porcentaje de )(?<!parte de )(?<!total de )(?<!proporcion de )"
    r"\btod[oa]s\s+(?:los|las)\s+(?:dolos|culpos|homicidi|asesinat|casos|robos|lesiones|feminicid|secuestr|extorsi)\w*"
    r"|(?:quit|olvid|elimin|borr)\w*\s+(?:(?:lo|el\s+filtro|la\s+parte|la\s+modalidad)\s+)?(?:de\s+|del\s+)?(?:el\s+|la\s+|lo\s+)?"
    r"(?:arma|armas|modalidad|filtro|con\s+violencia|sin\s+violencia|violencia|cuchillo|navaja|pistola|balazos|bala))\b"
)

ORDINALS = {"primer": 1, "primero": 1, "segundo": 2, "tercer": 3, "tercero": 3, "cuarto": 4, "quinto": 5, "sexto": 6}
# A question about one place right after a ranking: its first place ("¿y cuántos tuvo en 2024?").
_ONE_PLACE = re.compile(
    r"\b(?:tuvo|registro|registra|tiene|ha\s+tenido|presento|sumo|acumulo|ese\s+municipio|ese\s+lugar|esa\s+ciudad"
    r"|dicho\s+municipio|el\s+primero|el\s+primer\s+lugar|alli|ahi)\b"
)

_OPTION_FILLER = frozenset(
    words_of("el la los las de del en y o pues ese esa este esta uno una opcion me refiero a al")
)


def picked_option(question: str, previous: Understanding | None) -> PlaceMatch | None:
    """The one place of the previous turn's «¿Cuál de estos lugares…?» that a short reply names by its own words
    («el grande» → Apaseo el Grande, «el segundo» → the second option); None when it names none or several."""
    if previous is None or not previous.ambiguous_places:
        return None
    options = previous.ambiguous_places[0]
    words = [w for w in tokenize(question or "").words if w not in _OPTION_FILLER and w.isalnum()]
    if not words or len(words) > 3:
        return None
    if len(words) == 1 and words[0] in ORDINALS and ORDINALS[words[0]] <= len(options):
        return options[ORDINALS[words[0]] - 1]
    hits = [o for o in options if set(words) <= set(tokenize(o.label).words)]
    return hits[0] if len(hits) == 1 else None


def sibling_place(question: str, previous: Understanding | None, lexicon) -> PlaceMatch | None:
    """«¿y en el Grande?» after Apaseo el Alto: the one municipality that shares the previous place's first word and
    ends with the reply's own words; None when it names none or several."""
    prev = [p for p in (previous.places if previous else []) if p.nivel == "municipio"]
    words = [w for w in tokenize(question or "").words if w not in _OPTION_FILLER and w.isalnum()]
    if lexicon is None or len(prev) != 1 or not words or len(words) > 2:
        return None
    first = tokenize(prev[0].label).words[0]
    hits = []
    for e in lexicon.entities.values():
        name = tokenize(e.label).words
        same_stem = e.nivel == "municipio" and e.entidad_id != prev[0].entidad_id and name[0] == first
        if same_stem and list(name[-len(words) :]) == words:
            hits.append(e)
    if len(hits) != 1:
        return None
    return PlaceMatch(hits[0].entidad_id, hits[0].label, "municipio", " ".join(words), 100.0)


def _first_ranked(conversation, n: int = 1) -> PlaceMatch | None:
    """The n-th place of the last ranking the talk showed (its result's n-th row), or None."""
    for turn in reversed((getattr(conversation, "turns", None) or [])[-3:]):
        u = getattr(turn, "understanding", None)
        if u is None or not (u.kind == "ranking" or u.group_by_municipio):
            continue
        try:
            inline = turn.result["data"]["inline"]
            names = [c["name"] for c in inline["columns"]]
            row = inline["rows"][n - 1]
            eid, label = row[names.index("entidad_id")], row[names.index("label")]
        except (TypeError, KeyError, IndexError, ValueError):
            return None
        return PlaceMatch(eid, label, "municipio", f"lugar {n}", 100.0) if ".MUN." in str(eid) else None
    return None


# «del segundo lugar, ¿cuál es su tasa?», «el tercero de la lista»: a place of the ranking just shown, by position
_NTH = re.compile(
    r"\b(?:el|del|al|en\s+el)\s+(segundo|2do|2o|tercer|tercero|3er|3ro|3o|cuarto|4to|quinto|5to)\b"
    r"(?:\s+(?:lugar|puesto|sitio|de\s+la\s+lista))?(?!\s+(?:trimestre|semestre|bimestre|mes|ano|periodo|cuatrimestre))"
)
_NTH_VALUE = {"segundo": 2, "2do": 2, "2o": 2, "tercer": 3, "tercero": 3, "3er": 3, "3ro": 3, "3o": 3, "cuarto": 4}
_NTH_VALUE |= {"4to": 4, "quinto": 5, "5to": 5}


# «ponlos lado a lado», «compáralos»: the places of the last two turns, side by side
TOGETHER = re.compile(
    r"\b(?:lado\s+a\s+lado|compar(?:alos|alas|arlos|arlas)|juntos|juntas|en\s+(?:una|la\s+misma)\s+(?:tabla|grafica)"
    r"|(?:pon|ponme|muestra|muestrame)(?:los|las)?\s+(?:juntos|juntas|lado)"
    r"|junto\s+(?:a|con)\s+(?!(?:el|la|los|las)\s+(?:estado|total|pais)\b))\b"  # «Irapuato junto a Salamanca y Celaya»
)


def earlier_places(current: Understanding, previous: Understanding, conversation) -> Understanding:
    """«ponlos lado a lado» after «… en Uriangato» and «¿y en Moroleón?»: both municipalities, side by side."""
    state = [p for p in current.places if p.nivel == "estado"] if current.whole_state else []
    if (current.places and current.places != state) or not TOGETHER.search(tokenize(current.question).text):
        return current  # only «… con el total del estado» may come with them
    turns = getattr(conversation, "turns", None) or []
    last = [p for p in previous.places if p.nivel == "municipio"]
    earlier = next(
        (
            u
            for u in (getattr(t, "understanding", None) for t in reversed(turns[:-1]))
            if u is not None and any(p.nivel == "municipio" and p not in last for p in u.places)
        ),
        None,
    )
    if len(last) != 1 or earlier is None:
        return current
    places = [*(p for p in earlier.places if p.nivel == "municipio" and p not in last), *last, *state]
    return replace(current, places=places, kind="places", signals=[*current.signals, "followup:earlier_places"])


THOSE_N = re.compile(
    r"\b(?:de\s+)?(?:esos|estos|los|esas|estas|las)\s+(dos|tres|cuatro|cinco|2|3|4|5)\b"
    r"(?!\s+(?:anos|meses|numeros|cifras|datos|valores|periodos|trimestres|semestres|delitos|primer[oa]s|ultim[oa]s))"
)
_N = {"dos": 2, "tres": 3, "cuatro": 4, "cinco": 5}


def those_places(current: Understanding, conversation) -> Understanding:
    """«de esos tres municipios, ¿cuál tuvo más por cada cien mil?»: the last N municipalities talked about, one a
    turn, side by side."""
    found = THOSE_N.search(tokenize(current.question).text)
    state = [p for p in current.places if p.nivel == "estado"] if current.whole_state else []
    if (current.places and current.places != state) or found is None:
        return current  # «los tres juntos y el total del estado»: only the state may come with them
    n = _N.get(found.group(1)) or int(found.group(1))
    places: list = []  # the latest turns first; each turn's own places keep the order they were said in
    for t in reversed(getattr(conversation, "turns", None) or []):
        own = [p for p in getattr(getattr(t, "understanding", None), "places", None) or [] if p.nivel == "municipio"]
        seen = {p.entidad_id for p in places}
        places = [p for p in own if p.entidad_id not in seen] + places
        if len(places) >= n:
            break
    if len(places) != n:
        return current
    places = [*places, *state]
    return replace(current, places=places, kind="places", signals=[*current.signals, "followup:those_places"])


def place_from_ranking(current: Understanding, previous: Understanding, conversation) -> Understanding:
    """ "¿y cuántos tuvo en 2024?" after a ranking: the ranking's first place."""
    text = tokenize(current.question).text
    nth = _NTH.search(text)
    if nth and not (current.places or current.whole_state):  # a position of the last ranking, not the states'
        place = _first_ranked(conversation, _NTH_VALUE[nth.group(1)])
        if place is not None:
            signals = [s for s in current.signals if not s.startswith("national:")] + ["followup:ranking_nth"]
            return replace(current, places=[place], signals=signals)
    ranked = previous.kind == "ranking" or previous.group_by_municipio
    if THOSE_N.search(text):  # «cuántos tuvo cada uno de los dos»: the places talked about (those_places)
        return current
    if current.places or current.whole_state or not ranked or not _ONE_PLACE.search(text):
        return current
    first = _first_ranked(conversation)
    if first is None:
        return current
    return replace(current, places=[first], signals=[*current.signals, "followup:ranking_first"])


# «mi municipio», «nuestro municipio», «mi ciudad»: the asker's own, said earlier in the talk
_MINE = re.compile(r"\b(?:mi|nuestro|nuestra)\s+(?:municipio|ciudad|localidad|pueblo|muni)\b")
_INTRO = re.compile(r"\b(?:trabajo|trabajamos|soy|somos|vivo|vivimos|colaboro|represento|escribo|escribimos)\b")


def home_place(current: Understanding, conversation) -> Understanding:
    """«¿y en mi municipio…?» after «trabajo en planeación del municipio de Salamanca»: the municipality the asker said
    was theirs (the first turn that introduced them with one municipality); unchanged when none was said. «bueno,
    cambiando de tema: narcomenudeo primer semestre 2024» from that asker, still talking about it: the same."""
    home = _home(conversation)
    if current.places or home is None:
        return current
    if _MINE.search(current.generic_place or "") or _still_home(current, conversation, home):
        return replace(current, places=[home], generic_place=None, signals=[*current.signals, "place:home"])
    return current


def _home(conversation):
    """The municipality the asker introduced themselves with, or None."""
    for turn in getattr(conversation, "turns", None) or []:
        u = getattr(turn, "understanding", None)
        said = tokenize(getattr(turn, "question", "") or "").text
        munis = [p for p in (u.places if u else []) if p.nivel == "municipio"]
        if len(munis) == 1 and (_INTRO.search(said) or "place:generic" in u.signals):
            return munis[0]
    return None


# «cambiando de tema: …», «otra cosa: …»: a new crime, said with no place
_TOPIC_CHANGE = re.compile(
    r"^\W*(?:(?:bueno|ok|oye|va|ya)\W+)?(?:cambiando(?:\s+de\s+tema)?|otro\s+tema|otra\s+cosa)\b"
)


def _still_home(current: Understanding, conversation, home) -> bool:
    """Whether a topic change that names no place comes right after a turn about the asker's own municipality."""
    last = getattr(conversation, "last_understanding", None)
    named = current.whole_state or current.generic_place or any(s.startswith("national:") for s in current.signals)
    talked = last is not None and [p.entidad_id for p in last.places] == [home.entidad_id]
    return bool(_TOPIC_CHANGE.search(tokenize(current.question or "").text)) and not named and talked
