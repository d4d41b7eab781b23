"""Questions over the national tables (issue 14, docs/decisions/0011): the country, the 32 states, victims by
sexo and edad and the federal jurisdiction.

``scope`` reads the cues over the accent-free text (place names masked, so «Dolores Hidalgo Cuna de la
Independencia Nacional» is no «nacional») and adds ``national:*`` signals; the states a national question names
(«Guanajuato vs Jalisco», «¿en qué lugar está Puebla?») stop being places outside the store and become places of
the national tables. The planner (core/ask/plan/national.py) sends such a question to tools 21–23.

A state named alone («homicidios dolosos en Puebla en 2023») is answered from the state file too: its figure and
its place among the 32 (the municipal data stop at Guanajuato, which the answer says).
"""

from __future__ import annotations

import json
import re
from dataclasses import replace
from functools import lru_cache

from core.ask.understand import Understanding
from core.ask.understand.accounting import PUBLISHER
from core.ask.understand.placecues import introduction_chars
from core.ask.understand.tokens import STOPWORDS, key_of, tokenize
from core.config import CATALOGS_DIR
from core.dataset.entities import load_states
from core.text import normalize_text

_C = lambda *parts: re.compile("|".join(parts))

COUNTRY = _C(
    r"\ba\s+nivel\s+(?:nacional|pais|republica)\b",
    r"\ben\s+(?:todo\s+)?(?:el\s+pais|la\s+republica(?:\s+mexicana)?|mexico)\b|\btodo\s+mexico\b",
    # «el primero de todos (los) estados de México»: the country's states, not the Estado de México
    r"\b(?:tod[oa]s\s+(?:los\s+|las\s+)?|los\s+|las\s+)(?:estados|entidades)\s+(?:de|del)\s+(?:mexico|pais)\b",
    r"\b(?:todo(?:\s+el)?|resto\s+del)\s+pais\b",  # «ahora todo el país»
    r"\b(?:la|el|los|las)\s+del\s+pais\b",  # «¿y la del país?»
    # «y el país en ese mismo periodo», «todo el fuero federal del país»
    r"^\W*(?:y\s+|ahora\s+)?(?:en\s+)?(?:el|todo\s+el)\s+pais\b",
    r"\b(?:fuero\s+(?:comun|federal)|victimas|carpetas|delitos)\s+(?:\w+\s+)?del\s+pais\b",
    r"\b(?:total|cifra|suma|conteo)\s+(?:\w+\s+)?del\s+pais\b",  # «y el total federal del país ese año»
    r"\b(?:registro|registraron|tuvo|tiene|lleva|acumulo|sumo)\s+(?:todo\s+)?el\s+pais\b",  # «cuántas registró el país»
    r"\bnacional(?:es|mente)?\b",
)
# «¿en qué lugar está Guanajuato?», «ranking de estados», «¿qué estado tuvo más…?», «entre las 32 entidades»
RANK = _C(
    r"\b(?:que|cual)\s+(?:lugar|posicion|puesto|sitio)\s+(?:ocupa|ocupo|ocupaba|tiene|tuvo|tenia|esta|estuvo|estaba|quedo"
    r"|queda|se\s+ubica|aparece)\b",
    # «¿Gto sigue siendo el número uno?», «dame el lugar», «¿sigue en primer lugar?»: its place among the states
    r"\b(?:el\s+)?(?:numero|lugar)\s+(?:uno|1)\b|\bprimer\s+lugar\b|\b(?:dame|dime)\s+(?:el|su)\s+(?:lugar|posicion)\b",
    r"\ben\s+que\s+(?:lugar|posicion|puesto|sitio)\s+(?:esta|quedo|queda|se\s+ubica|aparece|se\s+encuentra)\b",
    # «en qué lugar del país quedamos», «qué lugar nacional ocupamos»: the asker's state among the 32
    r"\b(?:que|cual)\s+(?:lugar|posicion|puesto|sitio)\s+(?:del|en\s+el|a\s+nivel)\s+(?:pais|nacional|republica)\b",
    r"\b(?:que|cual)\s+(?:lugar|posicion|puesto|sitio)\s+(?:\w+\s+)?(?:quedamos|estamos|ocupamos|vamos|tenemos)\b",
    r"\b(?:lugar|posicion|puesto)\s+(?:nacional|entre\s+(?:los|las)\s+(?:estados|entidades))\b",
    r"\branking\s+(?:de\s+|por\s+|entre\s+(?:los\s+|las\s+)?)?(?:estados|entidades|nacional)\b",
    r"\branking\b.*\b(?:estados|entidades)\b",
    r"\b(?:entre|de)\s+(?:los|las)\s+32\b",
    r"\b(?:lugar|posicion|puesto)\s+(?:de|entre)\s+32\b",  # «¿y q lugar de 32?»: among the 32 states
    r"\b(?:que|cual|cuales)\s+(?:estados?|entidad(?:es)?(?:\s+federativas?)?)\b",
    r"\b(?:estados|entidades)\s+(?:con|que|donde|mas|menos)\b",
    # «por estado», «en cada entidad», «todos los estados»: the states' list
    r"\b(?:por|en\s+cada|de\s+cada)\s+(?:estado|entidad(?:\s+federativa)?)\b",
    r"\b(?:todos\s+los\s+estados|todas\s+las\s+entidades)\b",
    # «¿Guanajuato es primer lugar en narcomenudeo?», «¿es el estado con más extorsiones?», «lugar de Gto por tasa»,
    # «¿dónde queda Chihuahua…?», «Sonora: posición…» (a place's name is «_» here)
    r"\b(?:primer|segundo|tercer|ultimo|penultimo)\s+lugar\b",
    # «¿Guanajuato es el primero en extorsión?»: a place among the others (not «el primer mes»)
    r"\b(?:es|esta|fue|quedo|sigue\s+siendo)\s+(?:el\s+|la\s+)?(?:primer[oa]|segund[oa]|tercer[oa]|ultim[oa]|penultim[oa])"
    r"\s+(?:en|a\s+nivel|del?\s+pais|nacional)\b",
    r"\bes\s+el\s+estado\s+(?:con|que|mas|menos|donde)\b",
    r"\b(?:lugar|posicion|puesto|sitio)\s+(?:de\s+|del\s+)?(?:la\s+|el\s+)?_",
    r"\bdonde\s+(?:queda|esta|se\s+ubica|aparece)\s+(?:la\s+|el\s+)?_",
    r"_\s+(?:posicion|lugar|puesto)\b",
)
# «el estado con menos…», «segundo estado con más…»: which state, not Guanajuato's place («el estado» is no
# Guanajuato here)
WHICH_STATE = _C(
    r"\b(?:el|la)\s+(?:(?:primer|segundo|tercer|cuarto|quinto|ultimo|penultimo)o?\s+)?(?:estado|entidad)\s+"
    r"(?:con|que|donde)\s+(?:\w+\s+){0,2}?(?:mas|menos|mayor|menor)\b",
    r"\b(?:primer|segundo|tercer|cuarto|quinto|ultimo|penultimo)o?\s+(?:estado|entidad)\b",
)
# 2026 is published by state only, in the new methodology (RNID): a window inside it is the national tables'
RNID_YEAR = 2026
# a forecast is no question about published months («¿cuántos habrá en 2026?»)
_FUTURE = re.compile(r"\b(?:habra|habria|habran|pronostic\w*|predic\w*|proyecc\w*|estima\w*|esper[ae]\w*)\b")
# the state-level file asked by name («según el archivo estatal», «con las cifras estatales del SESNSP»)
STATE_FILE = _C(
    r"\b(?:archivo|fuente|cifras?|datos|serie|tabla|reporte|registros?)\s+(?:estatal(?:es)?|por\s+(?:estado|entidad))\b",
    r"\b(?:archivo|fuente|serie|tabla)\s+(?:de\s+)?(?:los\s+)?estados\b",
)
VS_COUNTRY = _C(
    r"\b(?:tasa|promedio|media|indice)\s+(?:nacional|del\s+pais)\b",
    r"\b(?:que|vs|versus|contra|frente\s+al?|respecto\s+al?|comparad[oa]s?\s+con)\s+(?:el\s+|al\s+)?"
    r"(?:pais|resto\s+del\s+pais|promedio\s+nacional|nacional)\b",
)
# victims counted: «¿cuántas víctimas…?», «víctimas mujeres», «¿cuántas fueron mujeres?», «por sexo», «por edad»
VICTIMS = _C(
    r"\bcuant[oa]s\s+(?:\w+\s+){0,2}?victimas\b",
    r"\bvictimas\s+(?:de|por|mujeres|hombres|menores|femeninas|masculinas)\b",
    r"\bvictimas\W*\s+(?:y\s+)?no\s+(?:las\s+)?(?:carpetas|delitos|denuncias)\b",  # «víctimas (no carpetas) de…»
    r"\b(?:mujeres|hombres|menores|ninos|ninas|adolescentes)\s+(?:\w+\s+){0,2}?victimas\b",
    r"\bpor\s+(?:sexo|genero|rango\s+de\s+edad|edad|grupo\s+de\s+edad)\b",
    r"\b(?:fueron|eran|son)\s+(?:mujeres|hombres|menores)\b",
    # «¿cuántas mujeres murieron por homicidio culposo…, víctimas?»
    r"\bcuant[oa]s\s+(?:mujeres|hombres|menores|ninos|ninas)\s+(?:murieron|fueron\s+asesinad\w+|asesinaron|mataron)\b",
    r",\s*victimas\W*$",
    # «y mujeres asesinadas con arma de fuego… en ese mismo lapso?»: the dead counted by sex are victims
    r"(?:^\W*y\s+|\bcuant[oa]s\s+)(?:mujeres|hombres|menores|ninos|ninas)\s+(?:asesinad[oa]s|muert[oa]s|privad[oa]s\s+de\s+la\s+vida)\b",
)
FEDERAL = _C(r"\bfuero\s+federal\b", r"\bdelitos?\s+(?:del\s+orden\s+)?federal(?:es)?\b", r"\bfederales\b", r"\bfgr\b")


@lru_cache(maxsize=2)
def _federal_aliases(cue: bool = False) -> list[tuple[re.Pattern, str]]:
    """Everyday names of federal crimes (catalogs/taxonomy/alias_federal.json) → their key, longest first; with
    ``cue`` (the question says «federal») also the names the common jurisdiction shares («armas de fuego», «delitos
    ambientales»: ``con_federal``)."""
    data = json.loads((CATALOGS_DIR / "taxonomy" / "alias_federal.json").read_text(encoding="utf-8"))
    names = [
        (a, e["clave"]) for e in data["alias"] for a in [*e["alias"], *(e.get("con_federal") or [] if cue else [])]
    ]
    pairs = [(v, k) for a, k in names for v in _word_orders(key_of(a))]
    pairs.sort(key=lambda p: len(p[0]), reverse=True)
    return [(re.compile(rf"\b{re.escape(a)}\b"), k) for a, k in dict.fromkeys(pairs) if a]


def _word_orders(alias: str) -> list[str]:
    """An alias and the press's other order of its «federal(es)»: «patrimoniales federales» is also «federales
    patrimoniales» («delitos federales patrimoniales»)."""
    m = re.fullmatch(r"(delitos\s+)?(.+?)\s+(federal|federales)", alias)
    return [alias] if m is None else [alias, f"{m.group(1) or ''}{m.group(3)} {m.group(2)}"]


def federal_key(text: str, federal_said: bool = False) -> str | None:
    """The federal crime an everyday name in ``text`` points at («huachicol», «portación de armas»), or None; of
    two names that nest (a law and one of its crimes: «narcomenudeo federal (Ley General de Salud)») the finer.
    ``federal_said``: the conversation is about federal crimes already («solo los de armas»)."""
    cue = federal_said or bool(FEDERAL.search(text))
    found = list(dict.fromkeys(k for pattern, k in _federal_aliases(cue) if pattern.search(text)))
    finer = [k for k in found if not any(o != k and o.startswith(f"{k}_") for o in found)]
    return finer[0] if finer else None


def _federal_words(text: str) -> set[str]:
    """The words of the federal names found in ``text``: understood, never «No tomé en cuenta» or an unknown crime."""
    aliases = _federal_aliases(bool(FEDERAL.search(text)))
    return {w for pattern, _ in aliases for m in pattern.finditer(text) for w in m.group(0).split()}


# the words the cues themselves are: never an unknown place («Nacional» of Santiago Pinotepa) or crime («federales»)
_CUE_WORDS = frozenset(
    {"nacional", "nacionales", "federal", "federales", "pais", "republica", "mexico", "fgr", "fuero", "fueros"}
)
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
        "concepto",  # «¿cuántos de esos fueron del concepto contra la salud?»: the federal file's own word
        "conceptos",
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
    return PUBLISHER.sub(" _ ", text).strip()  # «…del Sistema Nacional de Seguridad Pública»: no country cue


def foreign_states(u: Understanding) -> list[str]:
    """The abbreviations of the states outside the municipal store that the question names."""
    return list(dict.fromkeys(s.rsplit(":", 1)[1] for s in u.signals if s.startswith("place:not_in_store:")))


@lru_cache(maxsize=1)
def _state_names() -> dict[str, str]:
    """Accent-free full names and aliases of the 32 states → abbreviation («san luis potosi» → «SLP»)."""
    out: dict[str, str] = {}
    for st in load_states():
        for name in (st.nombre, *st.aliases):
            out.setdefault(key_of(name), st.abreviatura)
    return out


# «Aguascalientes capital», «la ciudad de Querétaro», «el municipio de Puebla»: the city, not the state
_CITY_CUE = re.compile(
    r"\b(?:capital|ciudad(?!\s+de\s+mexico)|cd(?!\s*\.?\s*de\s+mexico)|municipio|municipal|zona\s+metropolitana"
    r"|area\s+metropolitana)\b"
)


def _city_cued(u: Understanding, text: str) -> bool:
    """Whether the question cues a city; a cue in the asker's introduction («somos del municipio de Celaya; …
    ¿Qro?») is where they write from, not the place asked about."""
    if not _CITY_CUE.search(text):
        return False
    raw = normalize_text(u.question or "")
    return bool(_CITY_CUE.search(raw[introduction_chars(raw) :]))


def _foreign_places(u: Understanding, text: str) -> tuple[list[str], bool]:
    """(states named, whether a municipality of another state is named).

    A state whose capital has its name («San Luis Potosí», «Zacatecas») is the state unless a city is cued."""
    states, city = foreign_states(u), _city_cued(u, text)
    names = _state_names()
    municipal = False
    for t in u.unknown_terms:
        if t.kind != "place_foreign":
            continue
        name = re.sub(r"^(?:el\s+)?estado\s+de\s+", "", t.text)  # «el estado de Querétaro»
        abbr = names.get(key_of(name)) or (name.upper() if name.upper() in names.values() else None)
        if abbr and not city:
            states.append(abbr)
        elif not abbr or city:
            municipal = True
    return list(dict.fromkeys(states)), municipal


def scope(u: Understanding) -> Understanding:
    """The understanding with its national signals (and the states a national question names taken as places)."""
    text = _masked(u)
    municipal = any(p.nivel == "municipio" for p in u.places)
    states, elsewhere = _foreign_places(u, text)
    # «¿Guanajuato es el estado con más…?» asks its place; «¿cuál es el estado con menos…?» asks which
    raw = tokenize(u.question or "").text  # «el estado» is masked as Guanajuato's place in ``text``
    which = bool(WHICH_STATE.search(raw)) and not re.search(
        r"(?<!cual )(?<!que )\bes\s+(?:el|la)\s+(?:estado|entidad)\b", raw
    )
    country, rank, versus = bool(COUNTRY.search(text)), bool(RANK.search(text)) or which, bool(VS_COUNTRY.search(text))
    fed_key = federal_key(text)  # «huachicol», «Ley Federal de Armas de Fuego»: federal even without «federal»
    federal = bool(FEDERAL.search(text)) or fed_key is not None
    victims = bool(VICTIMS.search(text)) and not municipal
    home = any(p.nivel == "estado" for p in u.places) or u.whole_state
    # a crime named: the yearly total of every crime has 2026 in its own file (total_anual)
    specific = [c for c in u.crimes if c.delito != "total_delitos"]
    rnid = bool(u.window and specific) and u.window[0].year >= RNID_YEAR and not _FUTURE.search(text)
    # a subtipo only the 2026 methodology has («tentativa de homicidio»): its own series, by state only, whatever
    # the window or the place says (a municipality gets its state's figure and the reason: plan/national.py)
    rnid_only = "crime:rnid_only" in u.signals and not _FUTURE.search(text)
    rnid = rnid or rnid_only
    municipal = municipal and not rnid_only
    signals: list[str] = ["national:rnid"] if rnid and not municipal else []
    if federal and (not municipal or FEDERAL.search(text)):
        # «¿cuántos delitos federales hubo en Celaya?»: published by state only; the state's, said so (plan/national)
        signals += ["national:federal", *(["federal:municipal"] if municipal else [])]
        signals += [f"national:federal_key:{fed_key}"] if fed_key else []
    elif victims:
        signals.append("national:victims")
    elif VICTIMS.search(text) and municipal:  # victims are published by state only: plan/granularity says so
        signals.append("victims:municipal")
    elif STATE_FILE.search(text) and not municipal:  # the state file by name: its figure and place
        signals.append("national:rank")
    elif ((rank or versus) and not municipal) or (states and (home or country or not (municipal or elsewhere))):
        signals.append("national:rank")
        if not (rank or versus or home or country):  # a state named alone: a follow-up keeps the previous scope
            signals.append("national:alone")
    elif country and not municipal and not states:
        signals.append("national:country")
    elif rnid and not municipal:  # «homicidios dolosos en Guanajuato en el primer trimestre de 2026»
        signals += ["national:rank", "national:rnid_scope"]  # national only for its 2026 window
    if not signals:
        return into_2026(u)  # «homicidios dolosos en León en enero de 2026»: its state's, said so
    if versus:
        signals.append("national:vs_country")
    if which and "national:rank" in signals and not states:
        signals.append("national:which_state")  # the country's list: the state asked for is the answer
    # «¿en qué lugar estamos / quedamos (a nivel nacional)?» with no state named: the asker's own state among the 32
    ours = "national:rank" in signals and not (states or u.places) and bool(WE.search(text))
    if country and not (home or states or ours):
        signals.append("national:place:MX")
    signals += [f"national:place:{s}" for s in states]
    # the states are the national tables' places now; the cue words are no unknown place or crime
    named = _federal_words(text) | {"federales", "delitos", "delito", "ley"} if fed_key else set()
    kept = [
        t
        for t in u.unknown_terms
        if not (t.kind == "place_foreign" and states)
        and not (t.kind.startswith("place") and set(t.text.split()) & _CUE_WORDS)
        and not (t.kind.startswith("place") and fed_key and set(t.text.split()) <= named)  # «(Ley General de Salud)»
        and not (t.kind == "crime" and set(t.text.split()) <= _CUE_WORDS | {"delito", "delitos"})
        and not (not t.kind.startswith("place") and set(t.text.split()) - STOPWORDS <= _NATIONAL_WORDS | named)
    ]
    dropped = {s for s in u.signals if s.startswith("place:not_in_store:") or s == "place:other_state"}
    # «vinculados a la Ley de Migración»: a capitalized word of a federal law's name is no place
    dropped |= {s for s in u.signals if s.startswith("place:unresolved:") and s.rsplit(":", 1)[1] in named}
    return replace(
        u,
        unknown_terms=kept,
        signals=[s for s in u.signals if s not in dropped] + signals,
        whole_state=u.whole_state or ours,
    )


# «¿en qué lugar quedamos?»: the asker's own state (a follow-up: the state the talk is about)
WE = re.compile(r"\b(?:quedamos|estamos|ocupamos|vamos|tenemos|salimos|andamos)\b")


# what a national number counts, beyond its place: a follow-up that only moves the place keeps it
MEASURES = ("national:federal", "national:victims", "national:rnid")


def into_2026(u: Understanding) -> Understanding:
    """A question about a named crime in a 2026 window: the 2026 methodology (RNID), published by state only — a
    municipality's question gets its state's figure and the reason (``rnid:municipal``, plan/national.py)."""
    specific = [c for c in u.crimes if c.delito != "total_delitos"]
    if "national:rnid" in u.signals or not (u.window and specific) or u.window[0].year < RNID_YEAR:
        return u
    if _FUTURE.search(tokenize(u.question or "").text) or "national:federal" in u.signals:
        return u
    add = ["national:rnid"] + ([] if is_national(u) else ["national:rank", "national:rnid_scope"])
    add += ["rnid:municipal"] if any(p.nivel == "municipio" for p in u.places) else []
    return replace(u, signals=list(dict.fromkeys([*u.signals, *add])))


def series_key(u: Understanding) -> str | None:
    """«medida/fuero/metodologia» of the state-level series a national question reads (the catalog's
    ``series_ends`` key), or None: a municipal question, or a 2026 one (its window is its own)."""
    if not is_national(u) or "national:rnid" in u.signals:
        return None
    if "national:federal" in u.signals:
        return "carpetas/federal/IDEFF"
    if "national:victims" in u.signals:
        return "victimas/comun/IDFC"
    return "carpetas/comun/IDFC"


def is_national(u: Understanding | None) -> bool:
    """Whether the question is for the national tables."""
    return bool(u) and any(
        s.startswith(("national:rank", "national:country", "national:victims", "national:federal")) for s in u.signals
    )
