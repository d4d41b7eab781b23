"""Places in a question: municipalities and states by name, alias, partial name or typo.

Rules that matter (docs/contracts/004_chatbot_graph.md §5.A): generic places ("mi municipio", "donde vivo") are
reported, never guessed; a name shared by two places is ambiguous unless the text says
which; "Guanajuato" alone is the state, "el municipio de Guanajuato" the municipality,
except in "¿en qué municipio de Guanajuato…?", which ranks the state's municipalities (B4).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from rapidfuzz import fuzz, process

from core.ask.understand import PlaceMatch
from core.ask.understand.lexicon import (
    EntityRef,
    Lexicon,
    PlaceEntry,
)
from core.ask.understand.placecues import PLACE_CUES, cue_before, weak_name_taken
from core.ask.understand.placenames import (
    describe_other,
    fold,
    fuzzy_threshold,
    is_common_word,
    national_names,
    state_names,
)
from core.ask.understand.tokens import (
    NUMBER_WORDS,
    STOPWORDS,
    Tokens,
    exact_spans,
    free_ngrams,
    key_of,
    words_of,
)

BELOW_MUNICIPALITY = words_of(
    "colonia colonias col barrio barrios fraccionamiento fraccionamientos fracc calle calles avenida av bulevar "
    "boulevard blvd calzada callejon privada cuadrante cuadrantes cuadra manzana localidad rancheria ejido "
    "carretera carreteras tramo tramos autopista autopistas libramiento crucero"
)
# A lowercase one-word name right after one of these is the ordinary noun («la suma de los municipios»: not Suma,
# Yucatán): Spanish puts no article before a bare town name; names that carry one hold it («El Salto»).
_DETERMINERS = words_of("el la los las lo un una unos unas su sus esta este esa ese estas estos esas esos al")
# Before "municipio de X" these words make it a question about the state's municipalities.
_GROUPING_WORDS = words_of("que cual cuales cada los todos varios otros sus demas")

GENERIC_RE = re.compile(
    r"\b(?:(?:en|de|por|para)\s+)?(?:mi|mis|nuestr[oa]s?)\s+(?:municipio|ciudad|colonia|zona|barrio|localidad|comunidad|"
    r"pueblo|region|rumbo|estado|provincia|fraccionamiento|cuadra|calle|casa|area|entidad|alrededores)\b"
    r"|\b(?:por\s+|en\s+)?donde\s+(?:vivo|vivimos|resido|radico|estoy|trabajo)\b|\b(?:por\s+)?(?:aqui|aca)\b"
    r"|\bcerca\s+de\s+(?:mi|aqui|mi\s+casa)\b|\besta\s+(?:zona|colonia|ciudad)\b"
)
WHOLE_STATE_RE = re.compile(
    r"\b(?:en\s+)?tod[oa]\s+(?:el\s+estado|la\s+entidad)\b|\b(?:en|de|del)\s+(?:el\s+)?estado\b(?!\s+de\b)"
    r"|\b(?:a\s+)?nivel\s+(?:estatal|estado|de\s+estado)\b|\bestatal(?:es|mente)?\b|\b(?:en|de)\s+la\s+entidad\b"
    r"|\b(?:el|al)\s+estado\b(?!\s+de\b)"  # «volviendo al estado»
)


@dataclass
class PlaceState:
    """Places found so far, shared by the exact and the fuzzy pass."""

    found: list[tuple[int, int, EntityRef, str, float, str]] = field(
        default_factory=list
    )  # i, j, entity, text, score, how
    ambiguous: list[tuple[int, list[PlaceMatch]]] = field(default_factory=list)
    generic: str | None = None
    whole_state_text: str | None = None
    signals: list[str] = field(default_factory=list)
    # places the store does not have: (i, j, text, kind, detail, the states it may be in); never replaced by the state
    outside: list[tuple[int, int, str, str, str, tuple[str, ...]]] = field(default_factory=list)


def _match(ref: EntityRef, text: str, score: float) -> PlaceMatch:
    return PlaceMatch(ref.entidad_id, ref.label, ref.nivel, text, round(score, 1))


def home_state(lex: Lexicon, text: str) -> PlaceMatch | None:
    """The store's own state as the place a phrase names («la suma de los 46 municipios»)."""
    ref = lex.entities.get(lex.home_state or "")
    return _match(ref, text, 100.0) if ref is not None else None


def _mentioned_states(tokens: Tokens, lex: Lexicon) -> set[str]:
    """States named anywhere (for "León, Gto." or "Victoria, Tamaulipas")."""
    out = set()
    for n in range(1, 4):
        for i in range(len(tokens) - n + 1):
            for e in lex.places.get(tokens.phrase(i, i + n), ()):
                if e.entity.nivel == "estado" and not e.weak:
                    out.add(e.entity.entidad_id)
    return out


def _resolve(
    entries: tuple[PlaceEntry, ...], key: str, i: int, tokens: Tokens, lex: Lexicon, states: set[str], ranking: bool
) -> tuple[list[EntityRef], str]:
    """One entity (or several: ambiguous) for a matched name, and the signal explaining why."""
    by_level = {lvl: [e.entity for e in entries if e.entity.nivel == lvl] for lvl in ("estado", "municipio")}
    if key.startswith("municipio de "):
        bare = lex.places.get(key[len("municipio de ") :], ())
        state_twins = [e.entity for e in bare if e.entity.nivel == "estado"]
        prev = tokens.words[i - 1] if i > 0 else ""
        grouping = prev in _GROUPING_WORDS or prev.isdigit() or prev in NUMBER_WORDS
        if state_twins and (grouping or ranking):  # B4: "¿qué municipio de Guanajuato…?" ranks the state
            return state_twins[:1], "place:state"
    elif by_level["estado"]:
        return by_level["estado"][:1], "place:state"
    munis = by_level["municipio"]
    if len(munis) > 1 and states:
        munis = [m for m in munis if m.estado_id in states] or munis
    if len(munis) > 1 and lex.home_state:
        home = [m for m in munis if m.estado_id == lex.home_state]
        if len(home) == 1:
            return home, "place:home_preferred"
    how = entries[0].how
    return munis, "place:exact" if how in ("label", "short") else "place:alias"


def _add(state: PlaceState, i: int, j: int, refs: list[EntityRef], text: str, score: float, signal: str) -> None:
    if len(refs) == 1:
        state.found.append((i, j, refs[0], text, score, signal))
        state.signals.append(signal)
    elif refs:
        state.ambiguous.append((i, [_match(r, text, score) for r in sorted(refs, key=lambda r: r.entidad_id)]))
        state.signals.append("place:ambiguous")


def exact_places(tokens: Tokens, lex: Lexicon, taken: set[int], ranking: bool) -> PlaceState:
    """Generic places, exact names and aliases, states outside the store, and "todo el estado"."""
    st = PlaceState()
    m = GENERIC_RE.search(tokens.text)
    if m and all(k in taken for k in range(*tokens.span_of(m.start(), m.end()))):
        m = None  # «de 2019 para acá»: the «acá» of a period is time, no place pointed at
    if m:
        st.generic = m.group(0)
        taken.update(range(*tokens.span_of(m.start(), m.end())))
        st.signals.append("place:generic")

    def accept(i: int, j: int, key: str) -> bool:
        """Veto weak names ("Valle", "Victoria") that no place cue introduces."""
        return weak_name_taken(tokens, i, j, key, lex)

    states = _mentioned_states(tokens, lex)
    # Longer names elsewhere first: «San Felipe de Jesús» (Sonora) is not «San Felipe» plus a word.
    other_states(tokens, lex, taken, st, frozenset(), min_words=2)
    for i, j, key in exact_spans(tokens, lex.any_place, lex.max_place_len, taken, accept=accept):
        if lex.any_place[key] == "foreign" and _longer_elsewhere(tokens, i, j, lex):
            taken.difference_update(range(i, j))  # «Oaxaca de Juárez» is a municipality: other_states takes it
            continue
        if lex.any_place[key] == "foreign":  # reported so the answer can say the store lacks that state
            st.signals.append(f"place:not_in_store:{lex.foreign_states[key]}")
            name = state_names().get(lex.foreign_states[key], key)
            st.outside.append((i, j, key, "place_foreign", f"el estado de {name}", (lex.foreign_states[key],)))
            continue
        refs, signal = _resolve(lex.places[key], key, i, tokens, lex, states, ranking)
        _add(st, i, j, refs, key, 100.0, signal)
    for m in WHOLE_STATE_RE.finditer(tokens.text):
        i, j = tokens.span_of(m.start(), m.end())
        if not any(k in taken for k in range(i, j)):
            st.whole_state_text = st.whole_state_text or m.group(0)
            taken.update(range(i, j))
    return st


def _complete_typos(tokens: Tokens, lex: Lexicon, taken: set[int], st: PlaceState) -> None:
    """«Silao de la Victorio»: an exact short name plus misspelt words of its long name is that place."""
    for n, (i, j, ref, *_) in enumerate(list(st.found)):
        if len(key_of(ref.label).split()) <= j - i:
            continue  # «Irapuato hablo de 2021»: a name said whole has no misspelt rest to read
        for extra in (1, 2, 3):
            span = range(j, j + extra)
            if j + extra > len(tokens) or any(k in taken for k in span):
                break
            last = tokens.words[j + extra - 1]
            if last in PLACE_CUES or last in STOPWORDS or len(last) < 3:  # «Salamanca en», «Celaya con»: no name
                continue
            query = tokens.phrase(i, j + extra)
            hits = store_fuzzy(lex, query, limit=1)
            if hits and any(e.entity.entidad_id == ref.entidad_id for e in lex.places[hits[0][0]]):
                taken.update(span)
                shown = min(fuzz.ratio(query, hits[0][0]), 99.0)  # a typo: the answer says «Entendí»
                st.found[n] = (i, j + extra, ref, query, shown, "place:fuzzy")
                break


def _typo_of_longer(tokens: Tokens, lex: Lexicon, taken: set[int], i: int) -> bool:
    """Whether a misspelt longer name of the store starts or ends at token i (then the typo pass reads it whole):
    «Apaseo el Grnade», «San Fransisco del Rincón» (whose «Rincón» alone would also be Purísima's)."""
    for n in (2, 3, 4):
        for start in dict.fromkeys((i, i + 1 - n)):
            if start < 0 or start + n > len(tokens) or any(k in taken for k in range(start, start + n)):
                continue
            query = tokens.phrase(start, start + n)
            hits = store_fuzzy(lex, query, limit=2)
            clear = hits and (len(hits) == 1 or hits[1][1] < hits[0][1] - 2)
            if clear and not _rival_at_least(lex, query, hits[0][1]):
                return True
    return False


def fuzzy_places(tokens: Tokens, lex: Lexicon, taken: set[int], st: PlaceState, ranking: bool) -> None:
    """Partial names after a cue ("en Santiago") and typos ("Salamnca") on the tokens nobody claimed."""
    states = _mentioned_states(tokens, lex)
    _complete_typos(tokens, lex, taken, st)
    for i, w in enumerate(tokens.words):
        if i in taken or w not in lex.partial or not cue_before(tokens, i):
            continue
        if _typo_of_longer(tokens, lex, taken, i):  # «Apaseo el Grnade» is one place, not «Apaseo» alone
            continue
        refs = [lex.entities[e] for e in sorted(lex.partial[w])]
        if len(refs) > 1 and states:
            refs = [r for r in refs if r.estado_id in states] or refs
        _add(st, i, i + 1, refs, w, 80.0, "place:partial")
        taken.add(i)
    for i, j in free_ngrams(tokens, taken, min(4, lex.max_place_len)):
        if any(k in taken for k in range(i, j)):
            continue
        query = tokens.phrase(i, j)
        hits = [(k, s) for k, s in store_fuzzy(lex, query) if not all(e.weak for e in lex.places[k])]
        if not hits or _rival_at_least(lex, query, hits[0][1]):
            continue
        best = hits[0][1]
        close = [k for k, s in hits if s >= best - 2]
        refs_by_key = {k: _resolve(lex.places[k], k, i, tokens, lex, states, ranking) for k in close}
        entities = {r.entidad_id: r for refs, _ in refs_by_key.values() for r in refs}
        # the score shown is the spelling's own (not the fold's 100 for «Zelaya»): a typo is never exact
        shown = min(fuzz.ratio(query, close[0]), 99.0)
        _add(st, i, j, list(entities.values()), query, shown, "place:fuzzy")
        taken.update(range(i, j))


def other_states(
    tokens: Tokens, lex: Lexicon, taken: set[int], st: PlaceState, capitalized: frozenset[str], min_words: int = 1
) -> None:
    """Municipalities of other states by exact name («Guadalajara», «Tepic»): recorded as outside the store.

    Runs before the typo pass, so a real name elsewhere is never bent into a Guanajuato name; a name
    that is also an everyday word («Progreso», «Centro») counts only capitalized after a place cue."""
    index = national_names(store_names(lex))

    def accept(i: int, j: int, key: str) -> bool:
        if j - i < min_words or any(tokens.phrase(i, k) in lex.places for k in range(j, len(tokens) + 1)):
            return False  # a name of the store as long or longer starts here («San José Iturbide»)
        if _inside_store_name(tokens, lex, i, j):
            return False  # «La Paz» inside «San Luis de la Paz»: the store's longer name holds it
        if any(tokens.words[k] in BELOW_MUNICIPALITY for k in range(max(0, i - 2), i)):
            return False  # «colonia Centro», «calle Morelos»: below the municipality, not a municipality
        if is_common_word(key):
            return j - i == 1 and key in capitalized and cue_before(tokens, i)
        if j - i == 1 and i > 0 and tokens.words[i - 1] in _DETERMINERS and key not in capitalized:
            return False
        if all(key_of(p.nombre) != key for p in index[key]):
            # a short everyday form («Tlaquepaque», but also «nombre» of Nombre de Dios): written as a name
            # or said where a place goes, never an ordinary word of the sentence («el nombre del delito»); in a terse
            # note a year right after it («hom dol tlaquepaque 2024») says where it goes too
            year_next = j < len(tokens) and re.fullmatch(r"(?:19|20)\d\d", tokens.words[j]) is not None
            return key in capitalized or cue_before(tokens, i) or year_next
        return True

    longest = max((len(k.split()) for k in index), default=1)
    for i, j, key in exact_spans(tokens, index, longest, taken, accept=accept):
        states = tuple(sorted({p.estado for p in index[key]}))
        st.outside.append((i, j, key, "place_foreign", describe_other(index[key]), states))
        st.signals.append("place:other_state")


def _inside_store_name(tokens: Tokens, lex: Lexicon, i: int, j: int) -> bool:
    """Whether a store name that starts before token i covers tokens i..j («San Luis de la Paz» holds «la paz»)."""
    return any(
        tokens.phrase(start, end) in lex.places
        for start in range(max(0, i - 5), i)
        for end in range(j, min(len(tokens), start + 8) + 1)
    )


def _longer_elsewhere(tokens: Tokens, i: int, j: int, lex: Lexicon) -> bool:
    """Whether another state's municipality with a longer name starts where a state's name does."""
    index = national_names(store_names(lex))
    return any(tokens.phrase(i, k) in index for k in range(j + 1, min(len(tokens), i + 8) + 1))


_FOLDED: dict[tuple[str, int], tuple[list[str], list[str]]] = {}


def store_names(lex: Lexicon) -> frozenset[str]:
    """Every name the store answers to, whole or partial («Maravatío» is Santiago Maravatío, not Michoacán's)."""
    return frozenset(lex.places) | frozenset(lex.partial)


def _folded_bucket(lex: Lexicon, words: int) -> tuple[list[str], list[str]]:
    """The store's place keys of one word count and their sound folds (cached per lexicon version)."""
    cache_key = (lex.version, words)
    if cache_key not in _FOLDED:
        keys = sorted(k for k in lex.places if len(k.split()) == words and len(k.replace(" ", "")) >= 5)
        _FOLDED[cache_key] = (keys, [fold(k) for k in keys])
    return _FOLDED[cache_key]


def store_fuzzy(lex: Lexicon, query: str, limit: int = 6) -> list[tuple[str, float]]:
    """Store place keys a typo may mean, best first, at the measured threshold (ADR 0009)."""
    cutoff = fuzzy_threshold(query)
    if cutoff is None:
        return []
    keys, folded = _folded_bucket(lex, len(query.split()))
    hits = process.extract(fold(query), folded, scorer=fuzz.ratio, limit=limit, score_cutoff=cutoff)
    return sorted(((keys[k], float(s)) for _f, s, k in hits), key=lambda t: (-t[1], t[0]))


def _rival_at_least(lex: Lexicon, query: str, score: float) -> bool:
    """Whether some other state's municipality is as close as the store's best name («Tacámbaro», not Acámbaro)."""
    cache_key = (lex.version, -len(query.split()))  # negative word counts: the rivals' bucket
    if cache_key not in _FOLDED:
        rivals = [k for k in national_names(store_names(lex)) if len(k.split()) == -cache_key[1]]
        _FOLDED[cache_key] = (rivals, [fold(k) for k in rivals])
    best = process.extractOne(fold(query), _FOLDED[cache_key][1], scorer=fuzz.ratio, score_cutoff=score)
    return best is not None


def suggestions(lex: Lexicon, text: str, limit: int = 3) -> tuple[str, ...]:
    """The store's municipality names closest to an unknown one (for «¿quisiste decir…?»)."""
    labels = sorted({e.label for e in lex.entities.values() if e.nivel == "municipio"})
    query = fold(text)
    scored = process.extract(query, [fold(x) for x in labels], scorer=fuzz.WRatio, limit=limit, score_cutoff=60)
    return tuple(labels[k] for _f, _s, k in sorted(scored, key=lambda t: (-t[1], labels[t[2]])))


def drop_introduced(st: PlaceState, intro_end: int) -> None:
    """Places said only in the asker's introduction («soy reportera en Toluca. ¿cuántos feminicidios hubo en el
    Edomex…?») are where they write from: dropped when the question names a place of its own."""
    said = [*st.found, *st.outside]
    if intro_end and any(x[0] < intro_end for x in said) and any(x[0] >= intro_end for x in said):
        st.found = [x for x in st.found if x[0] >= intro_end]
        st.outside = [x for x in st.outside if x[0] >= intro_end]
        gone = ("place:not_in_store",) + (() if st.outside else ("place:other_state",))
        st.signals = [x for x in st.signals if not x.startswith(gone)] + ["place:introduction"]


def finish(
    tokens: Tokens, lex: Lexicon, st: PlaceState
) -> tuple[list[PlaceMatch], list[list[PlaceMatch]], bool, str | None]:
    """Drop states that only qualify a municipality ("León, Gto."); decide whole_state; order by position."""
    munis = [(i, j, ref) for i, j, ref, *_ in st.found if ref.nivel == "municipio"]
    kept = []
    for item in st.found:
        i, _j, ref, _text, _score, _how = item
        qualifies = ref.nivel == "estado" and any(
            m.estado_id == ref.entidad_id
            and (mj == i or (mj == i - 1 and tokens.words[mj] in ("de", "del", "estado", ",")))
            for _mi, mj, m in munis
        )
        if qualifies:
            st.signals.append("place:state_qualifier")
            continue
        kept.append(item)
    places: list[PlaceMatch] = []
    for _i, _j, ref, text, score, _how in sorted(kept, key=lambda t: t[0]):
        if all(p.entidad_id != ref.entidad_id for p in places):
            places.append(_match(ref, text, score))
    whole_state = any(p.nivel == "estado" for p in places)
    if st.whole_state_text:
        whole_state = True
        state_id = next((p.entidad_id for p in places if p.nivel == "estado"), None)
        if state_id is None:
            state_ids = sorted({p.entidad_id.split(".")[0] for p in places}) or [lex.home_state]
            ref = lex.entities.get(state_ids[0] or "")
            if ref is not None:
                places.append(_match(ref, st.whole_state_text, 100.0))
        st.signals.append("place:whole_state")
    ambiguous = [group for _, group in sorted(st.ambiguous, key=lambda t: t[0])]
    # «mi municipio … comparado con el estado»: the state beside it does not say which municipality is meant
    generic = st.generic if not any(p.nivel == "municipio" for p in places) and not ambiguous else None
    return places, ambiguous, whole_state, generic
