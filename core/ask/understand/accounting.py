"""Accounting of every word of a question: understood by a matcher, a shape cue, known filler, or «not understood».

After the matchers ran, each token is either used (time, crime, modalidad, place), inside a cue of the
kind matcher (``kind.cue_spans``), known filler (``catalogs/lexicon/relleno.txt``, the tokenizer's
function and question words), or left over. Leftovers are grouped into phrases and classified by
where they stand: a capitalized name after a place cue is an unknown place (with the closest names of
the store), a strong time word is a period that did not parse, words next to a crime (or in a
question without one) are an unknown crime, anything else is harmless («No tomé en cuenta: …»).
Nothing here guesses: the planner asks, refuses or says what it left out (docs/decisions/0009).
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

from core.ask.understand import UnknownTerm, composition
from core.ask.understand.kind import cue_spans
from core.ask.understand.lexicon import WEAK_NAMES, Lexicon
from core.ask.understand.placecues import PLACE_CUES, colon_marks, introduction_end
from core.ask.understand.placenames import similarity
from core.ask.understand.places import BELOW_MUNICIPALITY, suggestions
from core.ask.understand.tokens import COMMON_WORDS, NUMBER_WORDS, STOPWORDS, Tokens, stem, words_of
from core.config import CATALOGS_DIR
from core.text import normalize_text

FILLER_FILE = Path("lexicon") / "relleno.txt"
# Words that only ever name a time: left over, they are a period that did not parse (never a default window).
TIME_WORDS = words_of(
    "enero febrero marzo abril mayo junio julio agosto septiembre setiembre octubre noviembre diciembre "
    "primavera verano otono invierno navidad navidades decembrino decembrina cuaresma pascua vacaciones "
    "sexenio sexenios lustro lustros decada decadas madrugada madrugadas finde ayer antier anteayer hoy manana"
)
# The speaker's own days («para la junta de mañana», «lo necesito hoy»): beside a period that parsed they are
# context, not the period asked (the data are monthly); alone they are still a period not understood.
_SPEAKER_DAYS = words_of("hoy manana ayer antier anteayer ahorita")
# «a finales de 2022», «antes de la pandemia»: a vague part of a year or an event. With no period parsed it is a
# period that did not parse (asked); beside one («antes de la pandemia (2019)», «a inicios de 2023 me mudé…, ¿cuántos
# hubo ese año?») it is said as not taken into account, never silently dropped.
_VAGUE_TIME = words_of("inicios principios comienzos finales fines mediados pandemia covid cuarentena confinamiento")
_YEAR = re.compile(r"^(?:19|20)\d\d$")
# A capitalized word of the original question (accent-free afterwards): names of places start so.
_CAPITALIZED = re.compile(r"\b[A-ZÁÉÍÓÚÑ][\wáéíóúñü]*")
# the publisher named as the source: its name says «Nacional», which is neither a place (Santiago Pinotepa
# Nacional) nor the country («según el Secretariado Ejecutivo del Sistema Nacional de Seguridad Pública»)
# the source's name, and the jurisdiction every municipal and state file is in («del fuero común»): understood words
PUBLISHER = re.compile(
    r"\b(?:secretariado\s+ejecutivo\s+del\s+)?sistema\s+nacional\s+de\s+seguridad\s+publica\b"
    r"|\b(?:del\s+)?fuero\s+(?:comun|local|estatal)\b"
)
# How close an unknown name must be to a store name for it to be offered as a typo of it.
_TYPO_SUGGESTION = 75.0
# Connectors between a crime and the words that narrow it («robo de celulares», «asalto a tortillerías»).
_CRIME_LINKS = words_of("de del a al en con contra por para")


# A place pointed at but not named («ahí», «el municipio»): a follow-up takes the previous one, a first question asks.
_DEICTIC = re.compile(
    r"\b(?:ahi|alli|alla|(?:el|ese|este|dicho) municipio|(?:la|esa|esta) ciudad)\b"
    # «el municipio con la mayor reducción», «el municipio que más…», «el municipio donde…»: a ranking's frame
    r"(?!\s+(?:de|con|que|donde|en\s+donde|en\s+(?:el|la)\s+que|cuyo|cuya|mas|menos)\b)"
)
_LOCATIVES = words_of("en desde hacia municipio ciudad cd")
_REGIONS = words_of(
    "norte sur noreste noroeste sureste suroeste oriente poniente este oeste region regiones sierra altos bajio "
    "corredor franja frontera"
)
# Where the one asking works or writes from («soy asesor en el Congreso del Estado», «trabajo en el DIF municipal»,
# «le escribo desde la Secretaría de Seguridad»): an institution, never a place asked about.
INSTITUTIONS = words_of(
    "congreso cabildo ayuntamiento presidencia gobierno secretaria secretaria subsecretaria fiscalia procuraduria "
    "dif universidad facultad instituto escuela preparatoria colegio consulado embajada comision senado camara "
    "tribunal juzgado observatorio periodico diario noticiero radiodifusora televisora empresa aseguradora banco "
    "oficina area direccion departamento unidad coordinacion jefatura regiduria contraloria sindicatura asociacion "
    "colectivo fundacion ong despacho consultora agencia dependencia hospital"
)
_GENERIC_CRIME = words_of("delito delitos crimen crimenes ilicito ilicitos")
# Words after which a question names its crime («¿cuántos asaltos…?», «delitos de huachicoleo»).
_CRIME_SLOTS = words_of("cuantos cuantas de del por sobre hubo")


@lru_cache(maxsize=4)
def _filler_at(path: Path) -> frozenset[str]:
    words: set[str] = set()
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.lstrip().startswith("#"):
            words.update(normalize_text(line).split())
    return frozenset(words)


def filler_words(catalogs_dir: str | Path = CATALOGS_DIR) -> frozenset[str]:
    """The known filler vocabulary (accent-free), read once."""
    return _filler_at((Path(catalogs_dir) / FILLER_FILE).resolve())


def capitalized_words(question: str) -> frozenset[str]:
    """Accent-free forms of the words written with a capital letter («Guadalajara» → «guadalajara»)."""
    return frozenset(normalize_text(w) for w in _CAPITALIZED.findall(question))


def is_filler(word: str) -> bool:
    """A word that carries nothing to match: function words, question words, numbers, known filler."""
    if word.isdigit() or not word.isalnum() or word in STOPWORDS or word in COMMON_WORDS or word in NUMBER_WORDS:
        return True
    filler = filler_words()
    return word in filler or stem(word) in filler


def _cue_tokens(tokens: Tokens) -> set[int]:
    """Tokens inside a shape cue of the kind matcher («top», «mes por mes», «por cada 100 mil»)."""
    out: set[int] = set()
    for start, end in [*cue_spans(tokens.text), *composition.cue_spans(tokens.text)]:
        out.update(range(*tokens.span_of(start, end)))
    return out


def leftovers(tokens: Tokens, used: set[int], capitalized: frozenset[str] = frozenset()) -> list[tuple[int, int]]:
    """Runs [i, j) of tokens nobody understood; a single connector between two runs joins them.

    A capitalized name after a place cue is a name even when a loose shape cue covers it («en Bajío»)."""
    cues = {
        k
        for k in _cue_tokens(tokens)
        if not (tokens.words[k] in capitalized and (_after_cue(tokens, k) or tokens.words[k] == "bajio"))
    }
    free = [
        k
        for k, w in enumerate(tokens.words)
        if k not in used
        and k not in cues
        and (w in TIME_WORDS or w in _VAGUE_TIME or _YEAR.match(w) or not is_filler(w))
    ]
    runs: list[list[int]] = []
    for k in free:
        if runs and (k == runs[-1][-1] + 1 or (k == runs[-1][-1] + 2 and tokens.words[k - 1] in _CRIME_LINKS)):
            runs[-1].append(k)
        else:
            runs.append([k])
    return [(r[0], r[-1] + 1) for r in runs]


def _after_cue(tokens: Tokens, i: int) -> bool:
    """A place cue right before, or before its article («en Zapopan», «en la Piedad»)."""
    if i > 0 and tokens.words[i - 1] in PLACE_CUES:
        return True
    return i > 1 and tokens.words[i - 1] in ("el", "la", "los", "las") and tokens.words[i - 2] in PLACE_CUES


# «… en Atarjea, es para una nota sobre la sierra gorda»: what a piece is about is its frame, not the place asked
_PIECES = words_of(
    "nota notas reportaje reportajes informe articulo tesis trabajo investigacion seminario boletin programa"
)


def _topic_of_a_piece(tokens: Tokens, i: int) -> bool:
    """Whether token ``i`` follows «(una nota, un reportaje…) sobre / acerca de / de» within a few words."""
    before = tokens.words[max(0, i - 5) : i]
    return any(w in _PIECES for w in before) and any(w in ("sobre", "acerca", "de", "del") for w in before)


def _gloss(tokens: Tokens, i: int) -> bool:
    """Whether token ``i`` follows «lo de (el/la/los/las)»: a name for what was just said, not a place."""
    before = [w for w in tokens.words[max(0, i - 4) : i] if w not in ("el", "la", "los", "las")]
    return before[-2:] == ["lo", "de"] or before[-2:] == ["lo", "del"]


def _place_in_later_clause(tokens: Tokens, j: int, place_starts: frozenset[int], colons: frozenset[int]) -> bool:
    """Whether a place the question names begins after the first comma or colon that follows token ``j``."""
    comma = next((k for k in range(j, len(tokens)) if tokens.words[k] == "," or k in colons), None)
    return comma is not None and any(k >= comma for k in place_starts)


def _classify(
    tokens: Tokens,
    i: int,
    j: int,
    lex: Lexicon,
    capitalized: frozenset[str],
    crime_tokens: set[int],
    has_place: bool,
    has_window: bool = False,
    place_starts: frozenset[int] = frozenset(),
    frame: tuple[int, frozenset[int]] = (0, frozenset()),
) -> UnknownTerm:
    text = tokens.phrase(i, j)
    intro, colons = frame
    words = tokens.words[i:j]
    if (
        has_window
        and any(w in _SPEAKER_DAYS for w in words)
        and not any((w in TIME_WORDS and w not in _SPEAKER_DAYS) or _YEAR.match(w) for w in words)
    ):
        return UnknownTerm(text, "other", "")
    if any(w in _VAGUE_TIME for w in words) and not any(w in TIME_WORDS or _YEAR.match(w) for w in words):
        return UnknownTerm(text, "other" if has_window else "time", "" if has_window else "periodo no reconocido")
    if any(w in TIME_WORDS or _YEAR.match(w) for w in words) and tokens.words[i - 1 : i] != ("ese",):
        return UnknownTerm(text, "time", "periodo no reconocido")
    if _gloss(tokens, i):  # «violación a la intimidad sexual (lo de la Ley Olimpia)»: what the crime is called
        return UnknownTerm(text, "other", "")
    if any(tokens.words[k] in BELOW_MUNICIPALITY for k in range(max(0, i - 2), i)):
        return UnknownTerm(text, "place_below", "lugar más fino que el municipio")
    if any(w in _REGIONS for w in words) and (_after_cue(tokens, i) or "bajio" in words):  # «¿cómo está el Bajío?»
        # «en el noreste del estado», «en la Sierra Gorda»: a region is no municipality and never the whole state;
        # in an earlier clause than the municipality asked about («un reportaje sobre el corredor industrial, ¿cuántos
        # … en Irapuato?») it is context, said as not taken into account
        if has_place and (_place_in_later_clause(tokens, j, place_starts, colons) or _topic_of_a_piece(tokens, i)):
            return UnknownTerm(text, "other", "región sin datos propios")
        return UnknownTerm(text, "place_unknown", "región sin datos propios", suggestions(lex, text))
    if words[0] in INSTITUTIONS:  # «en el Congreso del Estado», «la Fiscalía»: where the asker works, said as such
        return UnknownTerm(text, "other", "")
    if has_place and _introduction_before(tokens, i):  # «escribimos de la CANACO Irapuato. ¿Cuántos… en Irapuato?»
        return UnknownTerm(text, "other", "")
    if j <= intro and has_place:
        # «Planeación Qro: cuántos delitos federales…», «somos de la unión ganadera: abigeato…»: the heading or the
        # introduction names who asks; the question after it says what (with no place of its own, «Dolores: …» may
        # be the place, asked about)
        return UnknownTerm(text, "other", "")
    named = any(w in capitalized for w in words if w not in STOPWORDS)
    verb = [w for w in words if w != "para"]
    purpose = "para" in words[:1] or tokens.words[i - 1 : i] == ("para",)
    if not named and purpose and len(verb) == 1 and re.search(r"(?:ar|er|ir)$", verb[0]):
        return UnknownTerm(text, "other", "")  # «…el mismo semestre de 2023 para contrastar»: a purpose, no place
    if _after_cue(tokens, i) and (named or not has_place):
        # with no place in the question, a word after «en» is asked about: the state is never its stand-in
        near = suggestions(lex, text)
        if named or _after_locative(tokens, i) or _close(text, near):
            return UnknownTerm(text, "place_unknown", "lugar no reconocido", near)
    if not has_place and named and any(w in WEAK_NAMES or w in lex.partial for w in words):
        # («secuestros Santiago 2023»: a part of several names — Valle de Santiago, Santiago Maravatío — is asked too)
        # «Dolores: homicidios 2022», «Victoria en 2023»: a written name that is also an ordinary word is only
        # taken as a place after a cue; with no cue and no other place it is asked about, never dropped for the state
        return UnknownTerm(text, "place_unknown", "lugar no reconocido", suggestions(lex, text))
    touches_crime = (i - 1) in crime_tokens or ((i - 2) in crime_tokens and tokens.words[i - 1] in _CRIME_LINKS)
    # «delitos sexuales», «delitos de alto impacto»: a kind of crime the store does not name, never all crimes
    adjective = re.search(r"(?:al|ales|ico|icos|ica|icas|ivo|ivos|iva|ivas|oso|osos|osa|osas|ario|arios)$", words[0])
    touches_crime = touches_crime or (i > 0 and tokens.words[i - 1] in _GENERIC_CRIME and bool(adjective))
    touches_crime = touches_crime or (
        i > 1 and tokens.words[i - 1] in _CRIME_LINKS and tokens.words[i - 2] in _GENERIC_CRIME
    )
    if touches_crime or (not crime_tokens and _crime_position(tokens, i)):
        return UnknownTerm(text, "crime", "delito no reconocido")
    return UnknownTerm(text, "other", "")


# who is writing («soy de…», «escribimos de la CANACO…», «represento a…»): its clause names the asker's frame
_INTRODUCING = words_of("soy somos escribo escribimos escribe represento representamos trabajo trabajamos colaboro")


def _introduction_before(tokens: Tokens, i: int) -> bool:
    """Whether token ``i`` is within four words after saying who writes, with no comma between («escribimos de la
    CANACO»; the tokens keep commas, not full stops, so a longer reach would swallow the question's own places)."""
    for k in range(i - 1, max(-1, i - 5), -1):
        if tokens.words[k] == ",":
            return False
        if tokens.words[k] in _INTRODUCING:
            return True
    return False


def _after_locative(tokens: Tokens, i: int) -> bool:
    """Right after «en» (or «en el/la»): where a place is said, unlike «de esos» or «y el tercero»."""
    if i > 0 and tokens.words[i - 1] in _LOCATIVES:
        return True
    return i > 1 and tokens.words[i - 1] in ("el", "la", "los", "las") and tokens.words[i - 2] in _LOCATIVES


def _crime_position(tokens: Tokens, i: int) -> bool:
    """Where a crime is named: first, after «cuántos», «casos de», «delitos de», «por», «sobre»."""
    before = [w for w in tokens.words[:i] if w not in ("el", "la", "los", "las", "un", "una")]
    return not before or before[-1] in _CRIME_SLOTS


def _close(text: str, near: tuple[str, ...]) -> bool:
    """Whether an unknown lowercase word looks like a typo of one of the offered store names."""
    return any(similarity(text, name) >= _TYPO_SUGGESTION for name in near)


def account(
    question: str,
    tokens: Tokens,
    used: set[int],
    lex: Lexicon,
    *,
    crime_tokens: set[int],
    has_place: bool,
    has_window: bool = False,
    place_starts: frozenset[int] = frozenset(),
) -> list[UnknownTerm]:
    """What no matcher understood, classified (place, time, crime or harmless), in the order written;
    ``place_starts`` are the token positions where a place the question names begins (the store's or not)."""
    capitalized = capitalized_words(question)
    frame = (introduction_end(normalize_text(question)), colon_marks(question))
    deictic = [] if has_place else [UnknownTerm(m.group(0), "place_deictic") for m in _DEICTIC.finditer(tokens.text)]
    return deictic + [
        _classify(tokens, i, j, lex, capitalized, crime_tokens, has_place, has_window, place_starts, frame)
        for i, j in leftovers(tokens, used, capitalized)
    ]


def outside_terms(outside: list[tuple[int, int, str, str, str, tuple[str, ...]]]) -> list[UnknownTerm]:
    """Places recognised as outside the store (another state, another state's municipality), with their states."""
    return [UnknownTerm(text, kind, detail, (), states) for _i, _j, text, kind, detail, states in sorted(outside)]


def signals(terms: list[UnknownTerm]) -> list[str]:
    """One ``unknown:<kind>`` tag per kind found, for the rationale and the audit."""
    return list(dict.fromkeys(f"unknown:{t.kind}" for t in terms))
