"""``understand()``: one Spanish question → an ``Understanding`` (offline, deterministic).

Order matters and is why the matchers share one token mask: time expressions first (so
"marzo" or "2024" are never places), then exact crimes and methods, exact places, typo
matching for crimes and methods, and last partial or misspelled places on what is left.
"""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import date

from core.ask.understand import CrimeMatch, Understanding, UnknownTerm, accounting, composition, national
from core.ask.understand import crimes as crime_matcher
from core.ask.understand import kind as kind_matcher
from core.ask.understand import places as place_matcher
from core.ask.understand.lexicon import Lexicon
from core.ask.understand.placecues import introduction_end
from core.ask.understand.series_end import SeriesEnds, national_anchor
from core.ask.understand.shapes import yearly_series
from core.ask.understand.timeexpr import parse_time, reanchor
from core.ask.understand.timepairs import year_on_year
from core.ask.understand.tokens import COMMON_WORDS, MAX_CHARS, STOPWORDS, tokenize
from core.text import normalize_text

# A capitalized word after "en"/"de" that nothing matched is probably a place we do not know.
_CAPITALIZED_AFTER_CUE = re.compile(r"\b(?:en|de|para)\s+([A-ZÁÉÍÓÚÑ][\wáéíóúñü]+)")


def _unresolved(question: str, tokens, used: set[int]) -> list[str]:
    """Signals for capitalized names after a place cue that no matcher used ("en Tepic")."""
    free_words = {w for k, w in enumerate(tokens.words) if k not in used}
    out = []
    for m in _CAPITALIZED_AFTER_CUE.finditer(question):
        word = normalize_text(m.group(1))
        if word in free_words and word not in COMMON_WORDS and word not in STOPWORDS:
            out.append(f"place:unresolved:{word}")
    return out


def _coordinated(crimes: list, unknown: list, text: str, lexicon: Lexicon) -> tuple[list, list]:
    """«robos a negocio, casa y transeúnte»: a kind listed after a crime, with the crime's name elided, is that
    crime's sibling (robo a casa habitación, robo a transeúnte), never a word left unread."""
    if not crimes:
        return crimes, unknown
    out, left = list(crimes), []
    for term in unknown:
        listed = re.search(rf"(?:,|\by|\be)\s+(?:a\s+|de\s+)?{re.escape(term.text)}\b", text)
        # «de esos robos, ¿cuántos fueron a casa habitación?»: the kind is the part asked, in the crime's place
        part = re.search(rf"\b(?:fueron|eran|son|fue)\s+(?:a\s+|de\s+|en\s+)?{re.escape(term.text)}\b", text)
        found = (
            crime_matcher.kind_named(crimes[0], [term], lexicon)
            if (listed or part) and term.kind in ("other", "crime")
            else None
        )
        if found is not None and part and len(out) == 1:
            out = [found[0]]
        elif found is not None and all(c.delito != found[0].delito for c in out):
            out.append(found[0])
        elif found is None:
            left.append(term)
    return out, left


# «de cada tipo», «por clase», «según su tipo»: the kinds of a crime, not its modalidades
_EACH_KIND = re.compile(
    r"\b(?:cada|por|segun\s+(?:su|el))\s+(?:tipos?|clases?|categorias?|subtipos?)\b(?!\s+de\s+arma)"
)


def _named_as_place(crimes: list, found, tokens, question: str, lexicon: Lexicon) -> list:
    """«¿cuántos abusos sexuales hubo en Violacion?», «compara abusos sexuales en León y Violacion»: beside another
    crime, a one-word crime name written with a capital right after «en», or listed after a place, is where the
    question asks (a place it does not know), never a second crime."""
    if len(crimes) < 2:
        return crimes
    capitalized = accounting.capitalized_words(question)

    def where(i: int) -> bool:
        before = tokens.words[i - 1] if i > 0 else ""
        listed = before in ("y", "e", ",") and i > 1 and tokens.words[i - 2] in lexicon.places
        return before == "en" or listed

    placed = {
        c.delito for i, c in found.crimes if where(i) and len(c.text.split()) == 1 and tokens.words[i] in capitalized
    }
    kept = [c for c in crimes if c.delito not in placed]
    return kept or crimes


_EACH_ONE = re.compile(r"\bde\s+cada\s+(?:un[oa]|cual)\b")


def _kinds_of_bare_tipo(crimes: list, signals: list[str], kind: str, text: str, lexicon: Lexicon):
    """«homicidios de cada tipo»: a bare tipo that sums dolosos and culposos (docs/decisions/0010) asked by kind is
    its subtipos, each with its figure (the split of «ambos»), never a question back about which one."""
    bare = [s.split(":", 2)[2] for s in signals if s.startswith("crime:unqualified:")]
    if len(bare) != 1 or not _EACH_KIND.search(text):
        return crimes, signals, kind
    subs = [lexicon.qualifiers.get(q, {}).get(bare[0]) for q in ("dolos", "culpos")]
    refs = [lexicon.crime_by_key[k] for k in subs if k in lexicon.crime_by_key]
    if len(refs) != 2:
        return crimes, signals, kind
    said = next(c for c in crimes if c.delito == bare[0])
    parts = [CrimeMatch(r.delito, r.label, said.text, said.score, r.in_data) for r in refs]
    crimes = [c for c in crimes if c.delito != bare[0]] + parts
    signals = [s for s in signals if not s.startswith("crime:unqualified:")] + ["crime:each_subtype"]
    return crimes, signals, ("single_value" if kind == "breakdown" else kind)


_TOTAL_AND_PART = re.compile(
    r"\bcuant[oa]s\s+(?:fueron|hubo|son|hay|van)\b(?:\s+\w+){0,3}?\s+y\s+cuant[oa]s\b"
    # «cuántos homicidios dolosos hubo en León en 2023 y cuántos de esos fueron con arma de fuego»
    r"|\bcuant[oa]s\b(?:\s+\w+){1,12}?\s+y\s+cuant[oa]s\s+de\s+(?:es[oa]s|ell[oa]s|l[oa]s\s+cuales)\s+(?:fueron|eran|son)\b"
)
_RISE_OR_FALL = re.compile(
    r"\b(?:aument|disminu|cambi|crec|subi|baj|increment|reduj|reduc|vari|mejor|empeor|cay|caid)\w*"
)


def _places_compared(text: str, time, places, whole_state: bool):
    """«compara SMA con Dolores de 2015 a 2024»: with two places the verb compares them over one span, not 2024 vs 2015."""
    municipalities = [p for p in places if p.nivel == "municipio"]
    two = len(municipalities) >= 2 or (municipalities and whole_state)
    if not (two and "time:compare_span" in time.signals) or _RISE_OR_FALL.search(text):
        return time
    span = (min(time.window[0], time.compare_window[0]), max(time.window[1], time.compare_window[1]))
    signals = [s for s in time.signals if s not in ("time:compare", "time:compare_span")] + ["time:range"]
    return replace(time, window=span, compare_window=None, signals=signals)


_METHOD_ASIDE = re.compile(
    r"\b(?:no\s+(?:solo|solamente|nomas|unicamente)|sin\s+(?:importar|distinguir))(?:\s+(?:con|el|la|los|las|por|de|a))*$"
)
_DEATH_WORDS = frozenset(
    {"muerto", "muertos", "muerta", "muertas", "asesinado", "asesinados", "asesinada", "asesinadas"}
)


def _not_negated(crimes: list, text: str) -> list:
    """The crimes of a question without the ones it sets aside (never all of them)."""
    kept = [c for c in crimes if not crime_matcher.negated(c, text)]
    return kept or crimes


def understand(
    question: str,
    lexicon: Lexicon,
    anchor: date,
    min_date: date = date(2015, 1, 1),
    ends: SeriesEnds | None = None,
) -> Understanding:
    """Slots of a question: places, crimes, methods, window, kind and knobs. Relative time counts from ``anchor``,
    or from the series' own last published month when it is another (``ends``: the crime's, the named
    municipality's own file's, a national series')."""
    question = question if isinstance(question, str) else str(question)
    tokens = tokenize(question[:MAX_CHARS])
    signals: list[str] = []

    time = parse_time(tokens.text, anchor, min_date)
    signals += time.signals
    time_taken: set[int] = set()
    for s, e in time.spans:
        time_taken.update(range(*tokens.span_of(s, e)))
    for m in accounting.PUBLISHER.finditer(tokens.text):  # the source's name: no place, crime or country
        time_taken.update(range(*tokens.span_of(m.start(), m.end())))

    found = crime_matcher.exact_crimes(tokens, lexicon, time_taken, normalize_text(question))
    taken = time_taken | found.crime_tokens | found.method_tokens
    ranking = kind_matcher.has_ranking_cue(tokens.text)
    place_state = place_matcher.exact_places(tokens, lexicon, taken, ranking)
    crime_matcher.fuzzy_crimes(tokens, lexicon, taken, found)
    orphans = crime_matcher.qualify(tokens, lexicon, taken, found)
    place_matcher.other_states(tokens, lexicon, taken, place_state, accounting.capitalized_words(question))
    place_matcher.fuzzy_places(tokens, lexicon, taken, place_state, ranking)
    if not (kind_matcher.COOCCURRENCE.search(tokens.text) or kind_matcher.SEASONALITY.search(tokens.text)):
        crime_matcher.generic_total(tokens, lexicon, found)
    # the follow-up merge completes "¿y dolosos?" with the previous crime, in this lexicon
    signals += [f"crime:qualifier:{q}@{lexicon.version}" for q in orphans]
    intro_end = introduction_end(normalize_text(question))
    place_matcher.drop_introduced(place_state, intro_end)
    places, ambiguous, whole_state, generic = place_matcher.finish(tokens, lexicon, place_state)
    if intro_end and {i < intro_end for i, _ in found.crimes} == {True, False}:
        # «escribo del observatorio de violencia de género. ¿cuántas víctimas de homicidio doloso…?»: the crime in
        # the asker's introduction names where they work, the question names its own
        found.crimes = [(i, c) for i, c in found.crimes if i >= intro_end]
    crimes, methods = crime_matcher.ordered(found)
    # «…de 2024, todos, no solo arma de fuego», «sin importar el arma»: a modalidad named only to say it is not a filter
    aside = {m for i, m in found.methods if _METHOD_ASIDE.search(" ".join(tokens.words[max(0, i - 4) : i]))}
    methods = [m for m in methods if m not in aside]
    crimes = _not_negated(crimes, tokens.text)
    crimes = _named_as_place(crimes, found, tokens, question, lexicon)
    # «muertos por homicidio doloso», «un reportaje sobre las mujeres asesinadas… los feminicidios»: a word that only
    # says someone died names no crime beside a crime said
    said = [c for c in crimes if c.text not in _DEATH_WORDS]
    crimes = said or crimes
    # «asaltos en la calle… asaltos a transeúntes»: a subtipo named beside the sum that includes it is that sum
    inside = {k for c in crimes for k in lexicon.members.get(c.delito, ())}
    crimes = [c for c in crimes if c.delito not in inside]
    # «muertos por balaceras… homicidio doloso con arma de fuego»: the SESNSP crime said beside the everyday word
    named = {c.delito for c in crimes if not c.note}
    crimes = [c for c in crimes if not (c.note and named & set(lexicon.near.get(c.delito, ())))]
    if not crimes and orphans:  # «dolosos león 2023»: the crime the qualifier names (a follow-up may re-qualify)
        heads = frozenset(q for q in orphans if re.search(rf"[,;:(]\s*{q}\w*\b", normalize_text(question)))
        named = frozenset(time_taken | {k for i, j, *_ in place_state.found for k in range(i, j)})
        crimes = crime_matcher.qualified_alone(orphans, tokens, lexicon, heads, named)
        signals += ["crime:qualifier_alone"] if crimes else []
    signals += found.signals + place_state.signals
    signals += [f"crime:unqualified:{k}" for k in crime_matcher.unqualified(crimes, lexicon, found.signals)]
    asked_time = time
    end, subject = (ends or SeriesEnds()).of_crimes(crimes, places, lexicon, anchor)
    time = reanchor(tokens.text, time, end, anchor, min_date, subject)
    signals += [s for s in time.signals if s == "time:crime_anchor"]
    compared = _places_compared(tokens.text, time, places, whole_state)
    if compared is not time:
        signals = [x for x in signals if x not in time.signals] + compared.signals
        time = compared

    if not places and not ambiguous and not generic:
        signals += _unresolved(question[:MAX_CHARS], tokens, taken | found.crime_tokens | found.method_tokens)

    unknown = accounting.outside_terms(place_state.outside)
    unknown += [UnknownTerm(t, "time", "periodo no reconocido") for t in getattr(time, "unparsed", [])]
    unknown += accounting.account(
        question[:MAX_CHARS],
        tokens,
        taken | found.crime_tokens | found.method_tokens,
        lexicon,
        crime_tokens=found.crime_tokens,
        has_place=bool(places or ambiguous or generic or whole_state or place_state.outside),
        has_window=time.window is not None,
        place_starts=frozenset(t[0] for t in [*place_state.found, *place_state.outside]),
    )
    crimes, unknown = _coordinated(crimes, unknown, tokens.text, lexicon)
    signals += accounting.signals(unknown)
    named = found.crime_tokens | found.method_tokens
    masked = " ".join("_" if k in named else w for k, w in enumerate(tokens.words))
    decided = kind_matcher.decide(
        tokens,
        time.spans,
        masked_text=masked,
        has_compare_window=time.compare_window is not None,
        n_places=len([p for p in places if p.nivel == "municipio"]),
        has_total_series=any(c.delito == "total_delitos" for c in crimes),
        has_slots=bool(crimes or places or time.window or methods),
        placeless=not (places or ambiguous or generic or whole_state or place_state.outside),
    )
    signals += decided.signals
    crimes, signals, kind = _kinds_of_bare_tipo(crimes, signals, decided.kind, tokens.text, lexicon)
    narrowed = any(t.kind == "crime" for t in unknown)  # «robo de motocicleta con y sin violencia»: that kind
    if kind == "single_value" and "violencia:ambas" in signals and len(crimes) == 1 and not methods and not narrowed:
        kind = "breakdown"  # «con y sin violencia, ¿cuántos en total?»: the sum, with each violence's part
    if kind == "breakdown" and len(crimes) > 1 and _EACH_ONE.search(tokens.text) and not _EACH_KIND.search(tokens.text):
        kind = "single_value"  # «robo a negocio y fraude, cuántos de cada uno»: each crime named, its own figure
    if kind == "single_value" and len(crimes) == 1 and len(methods) == 1 and _TOTAL_AND_PART.search(tokens.text):
        kind = "breakdown"  # «secuestros en 2024, ¿cuántos fueron y cuántos extorsivos?»: the total and that part
    if kind == "share" and time.compare_window is not None and _RISE_OR_FALL.search(tokens.text):
        kind = "comparison"  # «2o semestre vs 1er semestre, ¿en qué % cambió?»: a change in percent, not a share
    if yearly_series(kind, time.window, tokens.text):
        kind = "annual_series"
    group_by = decided.group_by_municipio
    if composed := composition.read(tokens.text, crimes, time.compare_window is not None):
        # every crime of the place by tipo, a named one as its focus: the tipo is answered whole (dolosas and
        # culposas named in its row), so no question back about which one, and no ranking of places
        kind, group_by = "composition", False
        crimes = [c for c in crimes if c.delito != "total_delitos"]
        drop = ("crime:unqualified:", "group_by:", "kind:")
        signals = [s for s in signals if not s.startswith(drop)] + [composed.signal, "kind:composition"]
    elif kind == "share" and (part := composition.part_of_tipo(crimes, lexicon.family)):
        kind, group_by, crimes = "single_value", False, part  # the subtipo inside its tipo, where it is published
        signals = [s for s in signals if not s.startswith(("group_by:", "kind:"))] + ["share:part_of_tipo"]
    if "place:all_municipalities_summed" in decided.signals and not (places or ambiguous or generic):
        state = place_matcher.home_state(lexicon, kind_matcher.ALL_MUNICIPALITIES.search(tokens.text).group(0))
        places, whole_state = ([state], True) if state else (places, whole_state)
    understood = Understanding(
        question=question,
        normalized=normalize_text(question),
        places=places,
        generic_place=generic,
        ambiguous_places=ambiguous,
        whole_state=whole_state,
        crimes=crimes,
        methods=methods,
        violencia=found.violencia,
        window=time.window,
        window_text=time.window_text,
        compare_window=time.compare_window,
        kind=kind,
        top_k=decided.top_k,
        order=decided.order,
        medida=decided.medida,
        group_by_municipio=group_by,
        wants_evidence=decided.wants_evidence,
        signals=list(dict.fromkeys(signals)),
        notes=list(time.notes),
        unknown_terms=unknown,
    )
    understood = national.scope(
        year_on_year(understood)
    )  # the country, the states, victims and federal crimes (issue 14)
    return national_anchor(understood, tokens.text, asked_time, anchor, min_date, ends)
