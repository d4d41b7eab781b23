"""What a follow-up points back at: the previous turn's window («el año anterior», «el siguiente», «ese
semestre», «¿y en el segundo?») and places (the ranking's first, an earlier turn's, the option a short reply names).

``followup.merge_follow_up`` calls these; each returns the understanding with the slot resolved, or leaves it.
"""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import date

from core.ask.understand import PlaceMatch, Understanding
from core.ask.understand.timeexpr import excluded, month_end, shift_year, without
from core.ask.understand.tokens import tokenize, words_of
from core.text import shift_months

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


_PAST = re.compile(r"\b(?:pasad[oa]|anterior|previo)\b")


# «ahora solo amenazas pero todo el año», «¿y en todo ese año?», «el año completo», «en todo el trimestre» (after
# «solo febrero»): the whole calendar part of the previous window
WHOLE_PART = re.compile(
    r"\btod[oa]\s+(?:el|ese|este|aquel)\s+(ano|semestre|trimestre|bimestre|cuatrimestre)\b"
    r"|\b(?:el|ese|al|del|de\s+ese)\s+(ano|semestre|trimestre|bimestre|cuatrimestre)\s+(?:complet|enter)o\b"
)
_PART_SIZE = {"ano": 12, "semestre": 6, "trimestre": 3, "bimestre": 2, "cuatrimestre": 4}


def _whole_part(text: str, pw: tuple[date, date]) -> tuple[date, date] | None:
    """The calendar part named («todo el trimestre») holding the previous window whole; None if it spans two."""
    found = WHOLE_PART.search(text)
    if found is None:
        return None
    size = _PART_SIZE[found.group(1) or found.group(2)]
    first = (pw[0].month - 1) // size * size + 1
    if pw[1].year != pw[0].year or pw[1].month > first + size - 1:
        return None
    return date(pw[0].year, first, 1), month_end(pw[0].year, first + size - 1)


# «¿y los tres meses de antes?», «el periodo anterior», «el trimestre previo»: the span of the same size before
_SPAN_BEFORE = re.compile(
    r"\b(?:los|las|el|la)\s+(?:\w+\s+)?(?:meses|semanas|periodo|trimestre|semestre|bimestre)\s+"
    r"(?:de\s+antes|anteriores|anterior|previos?|previas?|inmediatamente\s+anteriores)\b"
)


_OF_THOSE = re.compile(
    r"^\W*(?:y\s+)?(?:de|d)\s+(?:esos|esas|estos|estas|ellos|ellas)\s+(?:del?\s+)?(?:ano\s+)?(?:19|20)\d\d\b"
)


def _of_those_year(text: str, window: tuple[date, date] | None, pw: tuple[date, date]) -> bool:
    """«de esas del 2023…»: the year said only names which of the figures talked about (a part of that year)."""
    if window is None or not _OF_THOSE.search(text) or window[0].year != window[1].year:
        return False
    whole = (window[0].month, window[1].month) == (1, 12)
    return whole and pw[0].year == pw[1].year == window[0].year and pw != window


def relative_window(
    merged: Understanding, current: Understanding, previous: Understanding, ordinal: int | None = None
) -> None:
    """ "el año anterior", "el mismo periodo…", "compáralo con 2023": relative to the previous turn's window."""
    pw, sig, text = previous.window, current.signals, tokenize(current.question or "").text
    if pw is None:
        return
    own_period = re.search(r"\b(?:19|20)\d{2}\b|\blo\s+que\s+va\b|\beste\s+ano\b", text)
    if "time:same_period_prev" in sig and current.window and current.compare_window and own_period:
        # «regresando a Celaya, en lo que va de 2025 contra el mismo corte del año pasado»: its own periods
        merged.window, merged.compare_window, merged.kind = current.window, current.compare_window, "comparison"
    elif _of_those_year(text, current.window, pw):  # «de esas del 2023, ¿cuántas en Irapuato?» after its semester
        merged.window, merged.compare_window = pw, None
    elif (out := excluded(sig)) and current.window is None:  # «y el año con menos, sin contar 2025»
        merged.window, merged.compare_window = without(pw, out), None
    elif "time:same_period_prev" in sig:  # "¿y el mismo periodo del año anterior?"
        merged.window, merged.compare_window, merged.kind = pw, shift_year(pw, -1), "comparison"
    elif "time:same_period_base" in sig and current.compare_window and "time:window_from_base" not in sig:
        # «y en lo que va de 2025 en Celaya contra lo mismo de 2024»: both periods are the question's own
        merged.window, merged.compare_window, merged.kind = current.window, current.compare_window, "comparison"
    elif "time:same_period_base" in sig and current.compare_window:  # "¿y contra el mismo periodo de 2022?"
        years = current.compare_window[0].year - pw[0].year
        merged.window, merged.compare_window, merged.kind = pw, shift_year(pw, years), "comparison"
    elif "time:window_from_base" in sig and current.compare_window:  # "compáralo con 2023"
        merged.window, merged.kind = pw, "comparison"
    elif "time:prev_of_previous" in sig and current.compare_window is None:  # "¿y el año anterior?"
        merged.window, merged.compare_window = shift_year(pw, -1), None
    elif "time:month_of_that_year" in sig and current.window:  # «¿y nomás en abril de ese año?»
        merged.window, merged.compare_window = shift_year(current.window, pw[1].year - current.window[0].year), None
    elif (shift := next((s for s in sig if s.startswith("time:shift_years:")), None)) and not _YEAR_SAID.search(text):
        # «¿y dos años antes?» (not «y hace dos años, todo 2023»: the year said is the window)
        merged.window, merged.compare_window = shift_year(pw, int(shift.rsplit(":", 1)[1])), None
    elif adjacent := next((s for s in sig if s.startswith("time:adjacent:")), None):  # "¿y el año siguiente?"
        merged.window, merged.compare_window = _adjacent_window(pw, adjacent), None
    elif _SPAN_BEFORE.search(text) and current.window is None:  # «¿y los tres meses de antes?»: the span before
        size = (pw[1].year - pw[0].year) * 12 + pw[1].month - pw[0].month + 1
        merged.window, merged.compare_window = _adjacent_window(pw, f"time:adjacent:-{size}:span"), None
    elif (whole := _whole_part(text, pw)) and not (
        current.window and _YEAR_SAID.search(text)
    ):  # «pero todo el año», «¿y en todo ese año?», «en todo el trimestre»
        merged.window, merged.compare_window = whole, None
    elif "time:previous_window" in sig and not (current.window and _YEAR_SAID.search(text)):
        # "¿cuál fue el mes más alto de ese semestre?" (not «en todo ese periodo 2015-2024»: the years said)
        merged.window, merged.compare_window = pw, previous.compare_window
    elif "time:same_part_of_year" in sig and current.window and re.search(r"\b(?:vs|versus|contra|compar\w*)\b", text):
        # «vs mismo semestre 2024»: the window talked about against the same part of that year
        merged.window, merged.compare_window = pw, shift_year(pw, current.window[0].year - pw[0].year)
        merged.kind = "comparison"
    elif "time:same_part_of_year" in sig and current.window:  # "¿y en el mismo trimestre de 2025?"
        # «regresa a 2023» after «de 2019 a 2024»: a window of several years has no part of a year to keep
        several = pw[0].year != pw[1].year and (pw[0].month, pw[1].month) == (1, 12)
        merged.window = current.window if several else shift_year(pw, current.window[0].year - pw[0].year)
    elif "time:year_inferred" in sig and current.window and current.window[0].year != pw[0].year:
        merged.window = shift_year(current.window, pw[0].year - current.window[0].year)  # "¿y en el segundo trimestre?"
    elif "time:relative" in sig and current.compare_window is None and _before_talked_about(text, current, pw):
        # «¿y el año pasado?» after a whole year is the year before it (blind probes: «… en 2020» → «¿y el año
        # pasado?» means 2019, never the data's last year); after 2024 read from the data's end, 2023
        size = (pw[1].year - pw[0].year) * 12 + pw[1].month - pw[0].month + 1
        merged.window = _adjacent_window(pw, f"time:adjacent:-{size}:{'year' if size == 12 else 'span'}")
    elif ordinal is not None and current.window is None:
        part = _calendar_part(pw, ordinal)  # "¿y en el segundo?" after "el primer trimestre"
        if part is None:
            return
        merged.window = part
    else:
        return
    merged.window_text = None
    merged.signals.append("followup:relative_window")


def _before_talked_about(text: str, current: Understanding, pw) -> bool:
    """Whether a relative «pasado/anterior» names the span before the window talked about, not the data's own."""
    if not _PAST.search(text):
        return False
    if current.window == pw:
        return True
    whole_year = pw[0] == date(pw[0].year, 1, 1) and pw[1] == date(pw[0].year, 12, 31)
    return whole_year and bool(_YEAR_PAST.search(text)) and current.window is not None and _is_year(current.window)


def _is_year(window) -> bool:
    return window[0].month == 1 and window[0].day == 1 and window[1] == date(window[0].year, 12, 31)


_YEAR_SAID = re.compile(r"\b(?:19|20)\d{2}\b")
_YEAR_PAST = re.compile(r"\bano\s+pasado\b")


def _adjacent_window(window, tag: str):
    """The window next to ``window`` that a tag «time:adjacent:-6:span» names (one year: the same months shifted)."""
    months, unit = tag.split(":")[2:4]
    n = int(months)
    if unit == "year" and abs(n) == 12:
        return shift_year(window, n // 12)  # «el año siguiente» after «enero a junio de 2024»: enero a junio de 2025
    if n < 0:
        start = shift_months(window[0], n)
        end = shift_months(window[0], -1)
    else:
        start = shift_months(window[1], 1)
        end = shift_months(window[1], n)
    return start, month_end(end.year, end.month)


def _calendar_part(window, n: int):
    """The n-th part of the year of the same size as ``window`` (a quarter after a quarter), or None."""
    size = (window[1].year - window[0].year) * 12 + window[1].month - window[0].month + 1
    if size not in (2, 3, 4, 6) or (window[0].month - 1) % size or not 1 <= n <= 12 // size:
        return None
    first = size * (n - 1) + 1
    return date(window[0].year, first, 1), month_end(window[0].year, first + size - 1)


# «mi municipio», «nuestro municipio», «mi ciudad»: the asker's own, said earlier in the talk
_MINE = re.compile(r"\b(?:mi|nuestro|nuestra)\s+(?:municipio|ciudad|localidad|pueblo|muni)\b")
_INTRO = re.compile(r"\b(?:trabajo|trabajamos|soy|somos|vivo|vivimos|colaboro|represento|escribo|escribimos)\b")


def home_place(current: Understanding, conversation) -> Understanding:
    """«¿y en mi municipio…?» after «trabajo en planeación del municipio de Salamanca»: the municipality the asker said
    was theirs (the first turn that introduced them with one municipality); unchanged when none was said."""
    if current.places or not _MINE.search(current.generic_place or ""):
        return current
    for turn in getattr(conversation, "turns", None) or []:
        u = getattr(turn, "understanding", None)
        said = tokenize(getattr(turn, "question", "") or "").text
        munis = [p for p in (u.places if u else []) if p.nivel == "municipio"]
        if len(munis) == 1 and (_INTRO.search(said) or "place:generic" in u.signals):
            return replace(current, places=munis, generic_place=None, signals=[*current.signals, "place:home"])
    return current


def answered_window(conv) -> tuple[date, date] | None:
    """The period the last turn's answer covered (its envelope's effective range), or None."""
    turns = getattr(conv, "turns", None) or []
    result = turns[-1].result if turns else None
    effective = ((result or {}).get("meta") or {}).get("date_range_effective") or {}
    try:
        return date.fromisoformat(effective["from"]), date.fromisoformat(effective["to"])
    except (KeyError, TypeError, ValueError):
        return None


_THAT_MONTH = re.compile(r"\b(?:es[ea]|dicho|aquel|el\s+mismo)\s+mes\b")


def answered_month(conversation, question: str) -> tuple[date, date] | None:
    """«de ese mes, ¿cuántos fueron con arma de fuego?» after «¿cuál fue el pico?»: the month the last answer named
    (its peak or its low, as it was asked), or None."""
    turns = getattr(conversation, "turns", None) or []
    metrics = ((turns[-1].result or {}).get("metrics") or {}) if turns else {}
    if metrics.get("por") != "mes" or not _THAT_MONTH.search(tokenize(question or "").text):
        return None
    month = metrics.get("minimo_periodo" if metrics.get("enfoque") == "minimo" else "maximo_periodo")
    try:
        start = date.fromisoformat(f"{month}-01")
    except (TypeError, ValueError):
        return None
    return start, month_end(start.year, start.month)


# «mismos años», «esos diez años», «esos años»: the years a window of the talk spanned, however many turns ago
_THOSE_YEARS = re.compile(r"\b(?:(?:l[oa]s\s+)?mismos\s+anos|es[oa]s\s+(?:mism[oa]s\s+)?(?:(\d+)\s+)?anos)\b")


def earlier_years(question: str, conversation) -> tuple[date, date] | None:
    """The last window of the talk that spans several whole years, when the question points at «those years» (and
    has as many years as it says); None otherwise."""
    found = _THOSE_YEARS.search(tokenize(question or "").text)
    if found is None:
        return None
    for turn in reversed(getattr(conversation, "turns", None) or []):
        u = getattr(turn, "understanding", None)
        w = getattr(u, "window", None)
        if w is not None and u.compare_window and "time:compare_span" in u.signals:  # «serie de 2020 a 2024»
            w = (min(w[0], u.compare_window[0]), max(w[1], u.compare_window[1]))
        if w is None or (w[0].month, w[1].month) != (1, 12) or w[1].year == w[0].year:
            continue
        if found.group(1) and int(found.group(1)) != w[1].year - w[0].year + 1:
            continue
        return w
    return None
