"""What a follow-up carries from the previous turn: its crimes (qualified, narrowed, both) and its modalidades.

«¿y dolosos?» after «homicidios culposos» is the qualified crime; «¿y cuántos de esos fueron a casa habitación?» the
previous crime's own kind; «¿y con violencia?» after «robo de carro» that kind with that violence; «¿y narcomenudeo?»
after «robo con violencia» keeps no filter narcomenudeo lacks; a whole new question, or a modalidad breakdown's parts,
keep none; an unanswered «¿sobre qué delito?» leaves the talk's crime standing.
"""

from __future__ import annotations

import re
from dataclasses import replace

from core.ask.understand import CrimeMatch, Understanding
from core.ask.understand.continuation import BOTH, explicit_kind, restated
from core.ask.understand.crimes import kind_named
from core.ask.understand.lexicon import Lexicon
from core.ask.understand.tokens import tokenize


def qualified(current: Understanding, previous: Understanding, lexicon) -> list[CrimeMatch]:
    """ "¿y dolosos?" after "homicidios culposos": the previous crimes with the new qualifier."""
    out: list[CrimeMatch] = []
    for tag in (s for s in current.signals if s.startswith("crime:qualifier:")):
        key, _, version = tag[len("crime:qualifier:") :].partition("@")
        lex = lexicon or Lexicon.cached(version)
        table = lex.qualifiers.get(key, {}) if lex is not None else {}
        for crime in previous.crimes:
            tipo = crime.delito if crime.delito in table else lex.tipo_of.get(crime.delito) if lex else None
            ref = lex.crime_by_key.get(table[tipo]) if tipo in table else None
            if ref is not None and all(c.delito != ref.delito for c in out):
                out.append(CrimeMatch(ref.delito, ref.label, key, 95.0, ref.in_data))
    return out


# «volviendo a los dolosos», «regresemos a los culposos»: a crime the talk had before, named by its qualifier
_BACK_TO = re.compile(r"\b(?:volv\w*|regres\w*|de\s+vuelta)\s+(?:a|al|con)\s+(?:l[oa]s?\s+|el\s+)?(\w+)")


def back_to_qualified(current: Understanding, previous: Understanding, conversation, lexicon) -> list[CrimeMatch]:
    """«volviendo a los dolosos» after lesiones, in a talk that was about homicidios dolosos: that earlier crime."""
    back = _BACK_TO.search(tokenize(current.question or "").text)
    tags = [s for s in current.signals if s.startswith("crime:qualifier:")]
    if back is None or not tags:
        return []
    key, _, version = tags[0][len("crime:qualifier:") :].partition("@")
    lex = lexicon or Lexicon.cached(version)
    targets = set((lex.qualifiers.get(key, {}) if lex is not None else {}).values())
    now = {c.delito for c in qualified(current, previous, lexicon)} | {c.delito for c in previous.crimes}
    for turn in reversed(getattr(conversation, "turns", None) or []):
        u = getattr(turn, "understanding", None)
        earlier = [c for c in (u.crimes if u else []) if c.delito in targets and c.delito not in now]
        if earlier:
            return earlier[:1]
    return []


def both_subtypes(current: Understanding, previous: Understanding, lexicon) -> Understanding:
    """ "ambos" after «¿homicidio doloso o culposo?»: every qualified subtype of the bare tipo, said as a sum."""
    tipos = [s.split(":", 2)[2] for s in previous.signals if s.startswith("crime:unqualified:")]
    lex = lexicon
    if current.crimes or not tipos or lex is None or not BOTH.search(tokenize(current.question).text):
        return current
    subs = [lex.qualifiers.get(q, {}).get(tipos[0]) for q in ("dolos", "culpos")]
    refs = [lex.crime_by_key[k] for k in subs if k in lex.crime_by_key]
    crimes = [CrimeMatch(r.delito, r.label, "ambos", 95.0, r.in_data) for r in refs]
    return replace(current, crimes=crimes, signals=[*current.signals, "crime:both_subtypes"]) if crimes else current


def both_said(current: Understanding, previous: Understanding, conversation, lexicon) -> Understanding:
    """«las dos juntas» after «violaciones equiparadas…» then «¿y las simples?»: the two crimes just asked, one a turn."""
    turns = getattr(conversation, "turns", None) or []
    earlier = getattr(turns[-2], "understanding", None) if len(turns) >= 2 else None
    if current.crimes or earlier is None or lexicon is None or not BOTH.search(tokenize(current.question).text):
        return current
    pair = [*earlier.crimes[:1], *previous.crimes[:1]]
    if len(pair) != 2 or pair[0].delito == pair[1].delito or len(earlier.crimes) + len(previous.crimes) != 2:
        return current
    return replace(current, crimes=pair, signals=[*current.signals, "crime:both_said"])


def narrowed_crime(current: Understanding, previous: Understanding, lexicon) -> Understanding:
    """«¿y cuántos de esos fueron a casa habitación?» after «robo en Querétaro»: the previous crime's own kind."""
    words = [t for t in current.unknown_terms if t.kind in ("other", "crime")]
    found = kind_named(previous.crimes[0], words, lexicon) if len(previous.crimes) == 1 and lexicon else None
    if current.crimes or found is None:
        return current
    crime, term = found
    terms, signals = [t for t in current.unknown_terms if t is not term], [*current.signals, "followup:narrowed_crime"]
    return replace(current, crimes=[crime], unknown_terms=terms, signals=signals)


def with_earlier_crime(previous: Understanding, conversation) -> Understanding:
    """«¿Sobre qué delito?» asked, then «volviendo a León, ¿cuál fue el peor mes?»: the crime of the last turn that had
    one (and its modalidades), as if the unanswered question had not been asked."""
    for t in reversed(getattr(conversation, "turns", None) or []):
        u = getattr(t, "understanding", None)
        if u is not None and u.crimes and getattr(t, "status", None) == "ok":
            return replace(previous, crimes=list(u.crimes), methods=previous.methods or list(u.methods))
    return previous


_BARE_VIOLENCE = ("con_violencia", "sin_violencia")


def violence_of_kind(current: Understanding, previous: Understanding) -> list[str]:
    """The previous turn's modalidades of a kind («robo de coche de 4 ruedas con/sin violencia») with the violence
    the follow-up says alone («¿y con violencia?»); empty when it says more, or the kind has no violence."""
    if [m for m in current.methods if m not in _BARE_VIOLENCE] or not current.violencia:
        return []
    tails = ("_con_violencia", "_sin_violencia")  # a kind's own modalidad, never the bare «Con violencia» row
    if not previous.methods or not all(m.endswith(tails) for m in previous.methods):
        return []
    kinds = {m.removesuffix(tails[0]).removesuffix(tails[1]) for m in previous.methods}
    return sorted(f"{k}_{current.violencia}_violencia" for k in kinds)


def methods_carried(current: Understanding, previous: Understanding, lexicon) -> list[str]:
    """The previous modalidades a follow-up keeps: all of them for the same crime; for a crime named anew only those
    it publishes («¿y narcomenudeo?» after «robo con violencia» is all narcomenudeo, never 0 for a filter it lacks),
    and none that the previous crime's own words implied («¿y el total de vehículos?» after «robo de autos»)."""
    if current.crimes and "method:implied_kind" in previous.signals:
        return []  # «¿y el total de vehículos?» after «robo de autos»: the kind the crime's words named goes with them
    if restated(current, previous):
        return []  # «ok, entonces feminicidios en Celaya del 2021 al 2024»: a whole new question keeps no filter
    if current.kind == "breakdown" and explicit_kind(current) and not current.methods and not previous.violencia:
        return []  # «dame el desglose completo por modalidad» after «¿y con arma blanca?»: every modalidad
    parts = previous.kind == "breakdown" and bool(previous.methods) and not previous.violencia
    if parts and ((explicit_kind(current) and current.kind != "breakdown") or "medida:tasa" in current.signals):
        # «pásame la serie mensual» after «cómo se reparten por modalidad», «número absoluto» or «en tasa» after
        # «¿cuántos en total y cuántos con arma de fuego?»: the parts, or the one focused, were no filter
        return []
    if not current.crimes or [c.delito for c in current.crimes] == [c.delito for c in previous.crimes]:
        return list(previous.methods)
    if lexicon is None:
        return list(previous.methods)

    def fits(method: str, crime: str) -> bool:
        own = lexicon.methods_of.get(crime)
        return own is None or method in own or any(o.endswith(f"_{method}") for o in own)

    return [m for m in previous.methods if all(fits(m, c.delito) for c in current.crimes)]


def kind_with_violence_kept(current: Understanding, previous: Understanding) -> list[str]:
    """The modalidades a kind's name implies («carros»: coche de 4 ruedas con y sin violencia) with the violence the
    previous turn asked and this one does not say; empty otherwise."""
    if current.violencia or not previous.violencia or "method:implied" not in current.signals:
        return []
    if "violencia:ambas" in current.signals:  # «con y sin violencia juntos»
        return []
    # only a part of what was counted («¿y de esos, cuántos fueron robo de carros?»); «¿y robo de carros?» alone is
    # the kind whole
    if not _OF_THOSE.search(tokenize(current.question or "").text):
        return []
    return [m for m in current.methods if m.endswith(f"_{previous.violencia}_violencia")]


_OF_THOSE = re.compile(
    r"\b(?:de|d)\s+(?:esos|esas|ellos|ellas|estos|estas|los\s+cuales|las\s+cuales)\b|\bcuant[oa]s\s+fueron\b"
)


def pointed_word(current: Understanding) -> bool:
    """Whether the only crimes named are everyday words pointed at («esas balaceras», «esos levantones»)."""
    words = [c.text for c in current.crimes if c.delito.startswith("no_sesnsp:")]
    if not words or len(words) != len(current.crimes):
        return False
    text = tokenize(current.question or "").text
    return all(re.search(rf"\b(?:es[oa]s|est[oa]s|dich[oa]s|aquell[oa]s)\s+{re.escape(w)}", text) for w in words)


def pointed_crime(current: Understanding, previous: Understanding, family: dict[str, str]) -> bool:
    """«de las víctimas de esos homicidios» after homicidios dolosos: the crime talked about, pointed at by its tipo
    (or its own name), never the bare tipo asked back."""
    if not current.crimes or not previous.crimes:
        return False
    talked = {c.delito for c in previous.crimes} | {family.get(c.delito) for c in previous.crimes}
    text = tokenize(current.question or "").text
    return all(
        c.delito in talked and re.search(rf"\b(?:es[oa]s|est[oa]s|dich[oa]s|aquell[oa]s)\s+{re.escape(c.text)}", text)
        for c in current.crimes
    )


def unanswered_word(previous: Understanding, conversation) -> bool:
    """Whether the last turn named only words that are no SESNSP crime and got no number."""
    turns = getattr(conversation, "turns", None) or []
    return (
        bool(turns)
        and getattr(turns[-1], "status", None) != "ok"
        and all(c.delito.startswith("no_sesnsp:") for c in previous.crimes)
    )
