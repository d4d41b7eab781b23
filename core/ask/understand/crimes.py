"""Crimes and methods in a question: labels, synonyms, plurals and typos → taxonomy keys.

Crime and method phrases are matched on singular stems ("homicidios dolosos" =
"homicidio doloso"). Crimes and methods are matched in separate passes, so "robo de auto
con violencia" yields both the crime (robo de vehículo) and the method (con violencia).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

from core.ask.understand import CrimeMatch, UnknownTerm
from core.ask.understand.lexicon import Lexicon, fuzzy_cutoff, qualifier_key
from core.ask.understand.tokens import (
    COMMON_WORDS,
    STOPWORDS,
    Tokens,
    exact_spans,
    free_ngrams,
    key_of,
    tokenize,
)

_SKIP = STOPWORDS | COMMON_WORDS
# "los municipios más violentos" ranks places by crime; it is not a "con violencia" filter.
_NOT_A_METHOD = re.compile(r"\b(?:mas|menos)\s+(?:violent[oa]s?|peligros[oa]s?|insegur[oa]s?)\b")


@dataclass
class CrimeResult:
    """Crimes and methods found, with the tokens they used."""

    crimes: list[tuple[int, CrimeMatch]] = field(default_factory=list)
    methods: list[tuple[int, str]] = field(default_factory=list)
    violencia: str | None = None
    signals: list[str] = field(default_factory=list)
    crime_tokens: set[int] = field(default_factory=set)
    method_tokens: set[int] = field(default_factory=set)
    implied: set[str] = field(default_factory=set)  # modalidades an alias implies (not said by their own words)


def _crime(lex: Lexicon, key: str, text: str, score: float) -> CrimeMatch:
    ref = lex.crimes[key]
    return CrimeMatch(ref.delito, ref.label, text, round(score, 1), ref.in_data, lex.notes.get(ref.delito))


def _crime_by_delito(lex: Lexicon, delito: str, text: str, score: float) -> CrimeMatch:
    ref = lex.crime_by_key[delito]
    return CrimeMatch(ref.delito, ref.label, text, round(score, 1), ref.in_data)


def _crime_signals(res: CrimeResult, lex: Lexicon, key: str, fuzzy: bool) -> None:
    ref = lex.crimes[key]
    res.signals.append("crime:fuzzy" if fuzzy else f"crime:{ref.how if ref.how != 'label' else 'exact'}")
    if ref.nivel == "tipo":
        res.signals.append("crime:tipo")
    if ref.how == "not_sesnsp":
        res.signals.append("crime:not_sesnsp")
    elif ref.how == "rnid":  # published by state in the 2026 methodology only (core/ask/understand/national.py)
        res.signals.append("crime:rnid_only")
    elif not ref.in_data:
        res.signals.append("crime:not_in_data")


def _method(res: CrimeResult, lex: Lexicon, i: int, key: str, fuzzy: bool) -> None:
    ref = lex.methods[key]
    if ref.metodo not in (m for _, m in res.methods):
        res.methods.append((i, ref.metodo))
    if ref.metodo in ("con_violencia", "sin_violencia"):  # «asaltos con violencia»: said, not only implied
        res.implied.discard(ref.metodo)
    if ref.violencia and res.violencia is None:
        res.violencia = ref.violencia
        res.signals.append(f"violencia:{ref.violencia}")
    res.signals.append("method:fuzzy" if fuzzy else "method:synonym")


def exact_crimes(tokens: Tokens, lex: Lexicon, taken: set[int], said: str = "") -> CrimeResult:
    """Exact crime and method phrases on tokens not used by the time expression; ``said`` is the question as written
    (normalized), which tells a tipo written by its name from one read from a verb."""
    res = CrimeResult()
    crime_taken = set(taken)
    for i, j, key in exact_spans(tokens, lex.crimes, lex.max_crime_len, crime_taken, stemmed=True):
        res.crimes.append((i, _crime(lex, key, tokens.phrase(i, j), 100.0)))
        res.crime_tokens.update(range(i, j))
        _crime_signals(res, lex, key, fuzzy=False)
        for implied in lex.implied_method.get(key, ()):  # «muertos en choques»: the modalidad too
            if implied not in (m for _, m in res.methods):
                res.methods.append((i, implied))
                res.implied.add(implied)
                res.signals.append("method:implied")
            if implied in ("con_violencia", "sin_violencia") and res.violencia is None:
                res.violencia = implied.split("_")[0]  # «asaltos»: robo con violencia, said as such
                res.signals.append(f"violencia:{res.violencia}")
        if key in lex.implied_kind:  # «robo de carro»: a kind of the crime, said by the crime's own words
            res.signals.append("method:implied_kind")
    # «sin violencia familiar»: the «violencia» of a crime's name is no «con/sin violencia» modalidad (a crime alias
    # and a modalidad may share other words: «murieron en accidentes viales»)
    method_taken = set(taken) | {k for k in res.crime_tokens if tokens.words[k] == "violencia"}
    for m in _NOT_A_METHOD.finditer(tokens.text):
        method_taken.update(range(*tokens.span_of(m.start(), m.end())))
    for i, j, key in exact_spans(tokens, lex.methods, lex.max_method_len, method_taken, stemmed=True):
        _method(res, lex, i, key, fuzzy=False)
        res.method_tokens.update(range(i, j))
    if _BOTH_VIOLENCES.search(tokens.text):  # «con y sin violencia juntos»: no violence filter, said as such
        res.methods = [(i, m) for i, m in res.methods if m not in ("con_violencia", "sin_violencia")]
        res.violencia = None
        res.signals = [s for s in res.signals if not s.startswith("violencia:")] + ["violencia:ambas"]
    if said:
        kept = verb_beside_kind([c for _, c in res.crimes], lex, said)
        res.crimes = [(i, c) for i, c in res.crimes if c in kept]
    _with_violence_said(res, lex, said)
    return res


# «con o sin violencia», «con y sin violencia juntos»: either, summed (a bare «con y sin violencia» lists both)
_BOTH_VIOLENCES = re.compile(
    r"\b(?:con\s+o\s+sin|sin\s+o\s+con)\s+violencia\b"
    r"|\b(?:con\s+(?:y|e)\s+sin|sin\s+y\s+con)\s+violencia\s+(?:juntos|juntas|sumad[oa]s|combinad[oa]s|en\s+conjunto)\b"
    # «con y sin violencia, ¿cuántos fueron en total?», «sumando con y sin violencia»
    r"|\b(?:con\s+(?:y|e)\s+sin|sin\s+y\s+con)\s+violencia\W+(?:\w+\W+){0,4}?(?:en\s+total|total|en\s+conjunto)\b"
    r"|\b(?:sumando|sumados?|juntando|juntos|en\s+total)\s+(?:\w+\s+){0,2}?(?:con\s+(?:y|e)\s+sin|sin\s+y\s+con)\s+violencia\b"
    # «cuántos carros robaron, con y sin violencia», «robo de carro con y sin violencia en León»: both, never the
    # last one alone (a bare tipo is then split by violence: core/ask/understand/parse.py)
    r"|\b(?:con\s+(?:y|e)\s+sin|sin\s+y\s+con)\s+violencia\b"
)


# «acoso sexual (no hostigamiento, sino acoso)», «sin contar el culposo»: a crime named only to be set aside
NEGATED_CRIME = r"\b(?:no|ni|sin\s+contar|excepto|salvo)\s+(?:el\s+|la\s+|los\s+|las\s+|de\s+|del\s+)?"


def negated(crime: CrimeMatch, text: str) -> bool:
    """Whether ``text`` names the crime only to set it aside («sin contar feminicidios»)."""
    return bool(crime.text and re.search(NEGATED_CRIME + re.escape(crime.text) + r"\b", text))


def _with_violence_said(res: CrimeResult, lex: Lexicon, said: str = "") -> None:
    """«robo de carro con violencia»: the kind's modalidades an alias implies, only those of the violence said; the
    bare «con violencia» then names nothing more (the kind's own modalidad holds it). Beside another crime the kind
    is a part of what is counted, and implies no filter (a crime set aside is no other crime: «asesinadas a balazos,
    sin contar feminicidios»)."""
    if (
        len({c.delito for _, c in res.crimes if not c.note and not negated(c, said)}) > 1
    ):  # «robos con violencia, contando robo de carro…»: a part
        res.methods = [(i, m) for i, m in res.methods if m not in res.implied]  # of a sum said, not a filter
        res.implied.clear()
    if not res.implied or res.violencia is None:
        return
    kind = [m for _, m in res.methods if m in res.implied and lex.method_by_key[m].violencia == res.violencia]
    if not kind:
        return
    bare = {m for _, m in res.methods if m not in res.implied and m.removesuffix("_violencia") in ("con", "sin")}
    res.methods = [(i, m) for i, m in res.methods if (m not in res.implied or m in kind) and m not in bare]


def _extend_with_typos(tokens: Tokens, lex: Lexicon, taken: set[int], res: CrimeResult) -> None:
    """ "homicidio dolozo": an exact crime plus a misspelled next word may be a longer crime."""
    for n, (i, crime) in enumerate(list(res.crimes)):
        j = i + len(crime.text.split())
        for extra in (1, 2):
            span = range(j, j + extra)
            if j + extra > len(tokens) or any(k in taken or tokens.words[k] in _SKIP for k in span):
                break
            query = tokens.phrase(i, j + extra, stemmed=True)
            hits = lex.fuzzy("crime", query, fuzzy_cutoff(query) or 100.0, limit=1)
            if hits and lex.crimes[hits[0][0]].delito != crime.delito:
                res.crimes[n] = (i, _crime(lex, hits[0][0], tokens.phrase(i, j + extra), hits[0][1]))
                taken.update(span)
                res.crime_tokens.update(span)
                _crime_signals(res, lex, hits[0][0], fuzzy=True)
                break


def qualify(tokens: Tokens, lex: Lexicon, taken: set[int], res: CrimeResult) -> list[str]:
    """ "homicidio doloso y culposo": a loose qualifier adds the sibling subtype of the crime before it.

    Returns the qualifiers that follow no crime ("¿y dolosos?"): a follow-up completes them."""
    orphans = []
    for k, word in enumerate(tokens.words):
        table = lex.qualifiers.get(qualifier_key(word)) if k not in taken and word.isalpha() else None
        if not table:
            continue
        if k > 0 and tokens.words[k - 1] in ("no", "ni"):  # "culposos, no dolosos": the negated one is not asked
            taken.add(k)
            continue
        for _i, crime in sorted((t for t in res.crimes if t[0] < k), key=lambda t: -t[0]):
            tipo = crime.delito if crime.delito in table else lex.tipo_of.get(crime.delito)
            if tipo not in table:
                continue
            sub = table[tipo]
            if crime.delito != tipo and all(c.delito != sub for _, c in res.crimes):  # a tipo already sums it
                res.crimes.append((k, _crime_by_delito(lex, sub, word, 95.0)))
                res.signals.append("crime:qualifier")
            elif crime.delito == tipo and not _other_qualifier_said(tokens, lex, word, tipo):
                # «todos los homicidios dolosos»: one qualifier only names that subtipo, never the sum
                res.crimes = [
                    (i, c) if c is not crime else (i, _crime_by_delito(lex, sub, word, 95.0)) for i, c in res.crimes
                ]
                res.signals.append("crime:qualifier")
            elif crime.delito == tipo:  # "homicidios, dolosos y culposos juntos": the tipo was qualified
                res.signals.append(f"crime:tipo_qualified:{tipo}")
            taken.add(k)
            break
        else:
            if not res.crimes:
                orphans.append(qualifier_key(word))
                taken.add(k)  # "¿y dolosos?": understood (a follow-up completes it), never a place like «Dolores»
    return orphans


def _gender(word: str) -> str | None:
    """«dolosos» masculine, «dolosas» feminine: the noun a Spanish adjective agrees with."""
    return "m" if word.endswith(("o", "os")) else "f" if word.endswith(("a", "as")) else None


def qualified_alone(
    orphans: list[str],
    tokens: Tokens,
    lex: Lexicon,
    heads: frozenset[str] = frozenset(),
    named: frozenset[int] = frozenset(),
) -> list[CrimeMatch]:
    """«dolosos león 2023», «¿cuántos culposos hubo?»: a qualifier said alone names the one loaded crime it qualifies
    and agrees with (the press's «los dolosos» are homicidios dolosos, «las dolosas» lesiones dolosas); none when
    several loaded crimes share it. ``heads``: qualifiers written after a comma or colon («Irapuato, dolosos»);
    ``named``: the tokens of the places and periods the question names, which a qualifier after them never qualifies
    («León dolosos 2023», «abasolo dolosos del 2020 al 2022»)."""
    out: list[CrimeMatch] = []
    for q in dict.fromkeys(orphans):
        at = next((k for k, w in enumerate(tokens.words) if qualifier_key(w) == q), None)
        if at and tokens.words[at - 1] not in _SKIP and q not in heads and (at - 1) not in named:
            # it qualifies the word before it, which is no crime: «posesión simple» is never a violación simple,
            # while «y la simple?», «dolosos león 2023» and «¿cuántos culposos?» head their own phrase
            continue
        subs = [lex.crime_by_key[k] for k in lex.qualifiers.get(q, {}).values() if k in lex.crime_by_key]
        said = _gender(tokens.words[at]) if at is not None else None
        loaded = [r for r in subs if r.in_data and (said is None or _gender(r.label.split()[-1]) in (said, None))]
        if len(loaded) == 1:
            word = tokens.words[at] if at is not None else q
            out.append(CrimeMatch(loaded[0].delito, loaded[0].label, word, 90.0, True))
    return out


def kind_named(base: CrimeMatch, words: list[UnknownTerm], lex: Lexicon) -> tuple[CrimeMatch, UnknownTerm] | None:
    """The one kind of ``base`` that a word left unread names, read with the crime's name before it («transportista»
    after robo: robo a transportista), with that word; None when no word names one."""
    family = {base.delito, lex.family.get(base.delito, base.delito)}
    # «¿y a negocio?» after robo a casa habitación: a sibling kind, read with its tipo's name before it
    tipo = lex.crime_by_key.get(lex.family.get(base.delito, base.delito))
    names = list(dict.fromkeys([base.label, *([tipo.label] if tipo is not None else [])]))
    for term in words:
        for name in names:
            for glue in (" a ", " de ", " por ", " "):
                found = [m for _, m in exact_crimes(tokenize(f"{name}{glue}{term.text}"), lex, set()).crimes]
                kinds = [m for m in found if m.delito not in family and lex.family.get(m.delito) in family]
                if len(found) == 1 and kinds:
                    return replace(kinds[0], text=term.text), term
    return None


def fuzzy_crimes(tokens: Tokens, lex: Lexicon, taken: set[int], res: CrimeResult) -> None:
    """Typos ("homisidios", "violencia familar") on the tokens nobody claimed; best score first."""
    _extend_with_typos(tokens, lex, taken, res)
    candidates = []
    for i, j in free_ngrams(tokens, taken, min(4, max(lex.max_crime_len, lex.max_method_len))):
        query = tokens.phrase(i, j, stemmed=True)
        cutoff = fuzzy_cutoff(query)
        if cutoff is None:
            continue
        for kind in ("crime", "method"):
            hits = lex.fuzzy(kind, query, cutoff, limit=1)
            if hits:
                candidates.append((-hits[0][1], -(j - i), i, j, kind, hits[0][0], hits[0][1]))
    for _, _, i, j, kind, key, score in sorted(candidates):
        if any(k in taken for k in range(i, j)):
            continue
        taken.update(range(i, j))
        if kind == "crime":
            if all(c.delito != lex.crimes[key].delito for _, c in res.crimes):
                res.crimes.append((i, _crime(lex, key, tokens.phrase(i, j), score)))
            res.crime_tokens.update(range(i, j))
            _crime_signals(res, lex, key, fuzzy=True)
        else:
            _method(res, lex, i, key, fuzzy=True)
            res.method_tokens.update(range(i, j))


# Plain "delitos" with no crime named is the yearly total; "¿qué delitos…?" asks which crimes instead.
_GENERIC_TOTAL = re.compile(
    r"(?<!\bque )(?<!\bcuales )(?<!\btipos de )(?<!\btipo de )(?<!\botros )(?<!\bdemas )"
    r"\bdelitos\b"
)


def generic_total(tokens: Tokens, lex: Lexicon, res: CrimeResult) -> None:
    """ "¿Cuántos delitos hubo en Irapuato?": no crime named, so the total of all crimes (yearly series)."""
    if res.crimes or "total_delitos" not in lex.crime_by_key:
        return
    m = _GENERIC_TOTAL.search(tokens.text)
    if m:
        res.crimes.append(
            (tokens.span_of(m.start(), m.end())[0], _crime_by_delito(lex, "total_delitos", "delitos", 90.0))
        )
        res.signals.append("crime:generic_total")


def ordered(res: CrimeResult) -> tuple[list[CrimeMatch], list[str]]:
    """Crimes (deduplicated) and methods in the order they were said."""
    crimes: list[CrimeMatch] = []
    for _, c in sorted(res.crimes, key=lambda t: t[0]):
        if all(x.delito != c.delito for x in crimes):
            crimes.append(c)
    methods = [m for _, m in sorted(res.methods, key=lambda t: t[0])]
    return crimes, list(dict.fromkeys(methods))


def verb_beside_kind(crimes: list[CrimeMatch], lex: Lexicon, said: str) -> list[CrimeMatch]:
    """«me robaron el carro…, ¿cuántos carros se robaron?»: a tipo read from a verb, beside one of its own subtipos,
    is that subtipo said again; ``said`` is the question as written (normalized): the tipo's own name written there
    («robos y robos de carro») asks both."""
    tipos = {lex.family.get(c.delito) for c in crimes}

    def redundant(c: CrimeMatch) -> bool:
        ref = lex.crime_by_key.get(c.delito)
        if c.delito not in tipos or ref is None:
            return False
        names = [key_of(n, stemmed=True) for n in (ref.label, ref.delito.replace("_", " "))]
        return not any(re.search(rf"\b{re.escape(n)}", said) for n in names if n)

    return [c for c in crimes if not redundant(c)]


def _other_qualifier_said(tokens: Tokens, lex: Lexicon, word: str, tipo: str) -> bool:
    """Whether another qualifier of the same tipo is said too («dolosos y culposos»): the tipo is their sum."""
    mine = qualifier_key(word)
    return any(
        w.isalpha() and qualifier_key(w) != mine and tipo in (lex.qualifiers.get(qualifier_key(w)) or {})
        for w in tokens.words
    )


def unqualified(crimes: list[CrimeMatch], lex: Lexicon, signals=()) -> list[str]:
    """Tipos said bare ("homicidios") whose subtypes differ in kind (doloso / culposo): asked, never summed silently.

    "todos los homicidios" or "homicidios totales" ask for the sum and are not bare (docs/decisions/0010)."""
    # only a tipo that sums intentional and unintentional acts; violación (simple + equiparada) is one crime to ask
    split = set(lex.qualifiers.get("dolos", {})) & set(lex.qualifiers.get("culpos", {}))
    out = []
    for c in crimes:
        ref = lex.crime_by_key.get(c.delito)
        if f"crime:tipo_qualified:{c.delito}" in signals:
            continue
        # «¿cuántos muertos hubo?»: a word for the dead says no more than the bare tipo
        bare = key_of(c.text, stemmed=True) in _bare_names(ref) | {"muerto", "muerta"} if ref is not None else False
        misspelt = c.score < 100 and len(c.text.split()) == 1  # «omicidios»: the bare tipo written with a typo
        if c.delito in split and ref is not None and (bare or misspelt):
            out.append(c.delito)
    return out


def _bare_names(ref) -> set[str]:
    return {key_of(ref.label, stemmed=True), key_of(ref.delito.replace("_", " "), stemmed=True)}
