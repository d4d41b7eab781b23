"""Follow-ups (docs/contracts/004_chatbot_graph.md §2.1): detect "¿y en Celaya?", a correction or a reply to the
assistant's own question, and merge it with the previous turn; ``rewrite`` says the result as a standalone question.
"""

from __future__ import annotations

import re
from dataclasses import replace

from core.ask.understand import CrimeMatch, Understanding, composition
from core.ask.understand.anaphora import (
    ANY_METHOD,
    ORDINALS,
    TOGETHER,
    earlier_places,
    picked_option,
    place_from_ranking,
    relative_window,
    sibling_place,
    those_places,
)
from core.ask.understand.continuation import (
    ADD_PLACE,
    BOTH,
    EXTREME_UNITS,
    NOT_AFTER,
    NOT_BEFORE,
    ORDINAL_ALONE,
    SAME_THING,
    SHAPE_SETTINGS,
    VERSUS,
    WITH_STATE,
    explicit_kind,
    is_follow_up,
)
from core.ask.understand.crimes import kind_named
from core.ask.understand.lexicon import Lexicon
from core.ask.understand.national_carry import carry as national_carry
from core.ask.understand.rewrite import crime_phrase, describe
from core.ask.understand.tokens import tokenize
from core.text import normalize_text

# After a peak: «¿y el mejor?», «¿y el de menos?», «¿y el más bajo?» ask the other end; «¿y el peor?» the top.
_TO_LOW = re.compile(r"\b(?:menos|menor|mejor|minimo|mas\s+(?:baj|tranquil|calmad)\w*)\b")
_TO_HIGH = re.compile(r"\b(?:peor|mayor|maximo|mas\s+(?:alt|violent|peligros)\w*)\b")


def _extreme_direction(merged: Understanding, text: str) -> None:
    """A follow-up to a peak that names the other end flips it; one that names neither keeps the previous end."""
    to = "min" if _TO_LOW.search(text) else "max" if _TO_HIGH.search(text) else None
    if to:
        merged.signals = [s for s in merged.signals if s not in ("extreme:min", "extreme:max")] + [f"extreme:{to}"]


# After «¿qué municipios no registraron…?»: «¿y cuántos sí tuvieron al menos uno?» asks the other side.
_WITH_SOME = re.compile(
    r"\b(?:al|por\s+lo)\s+menos\s+(?:un|uno|una|1)\b|\bcuant\w+\s+si\b|\bcon\s+(?:casos|alguno|registros)\b"
)
_WITH_NONE = re.compile(r"\bningun\w*\b|\bsin\s+(?:casos|ningun\w*|registros)\b|\bcuant\w+\s+no\b|\bno\s+tuvieron\b")


def _presence_side(merged: Understanding, current: Understanding, previous: Understanding) -> None:
    """A follow-up to «municipios sin/con casos» that names the other side keeps the shape and flips the side."""
    if previous.kind != "presence" or current.places or merged.kind not in ("presence", "single_value", "unknown"):
        return
    text = tokenize(current.question).text
    side = "con" if _WITH_SOME.search(text) else "sin" if _WITH_NONE.search(text) else None
    if side:
        merged.kind = "presence"
        merged.signals = [s for s in merged.signals if not s.startswith("presence:")] + [f"presence:{side}"]


# «¿y en total?», «de todo tipo», «sin importar el arma», «todas las modalidades»: no modalidad filter any more
_PLACES_WORDS = re.compile(r"\b(?:municipios?|lugar(?:es)?|ciudad(?:es)?|donde|en\s+cual(?:es)?)\b")


def _other_end(current: Understanding, previous: Understanding) -> bool:
    """«¿y el más violento?» after «el mes más tranquilo»: the other end of the same peak, not a ranking of places."""
    text = tokenize(current.question).text
    return (
        previous.kind == "extremes"
        and current.kind == "ranking"
        and not current.places
        and not _PLACES_WORDS.search(text)
    )


def _qualified(current: Understanding, previous: Understanding, lexicon) -> list[CrimeMatch]:
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


def _both_subtypes(current: Understanding, previous: Understanding, lexicon) -> Understanding:
    """ "ambos" after «¿homicidio doloso o culposo?»: every qualified subtype of the bare tipo, said as a sum."""
    tipos = [s.split(":", 2)[2] for s in previous.signals if s.startswith("crime:unqualified:")]
    lex = lexicon
    if current.crimes or not tipos or lex is None or not BOTH.search(tokenize(current.question).text):
        return current
    subs = [lex.qualifiers.get(q, {}).get(tipos[0]) for q in ("dolos", "culpos")]
    refs = [lex.crime_by_key[k] for k in subs if k in lex.crime_by_key]
    crimes = [CrimeMatch(r.delito, r.label, "ambos", 95.0, r.in_data) for r in refs]
    return replace(current, crimes=crimes, signals=[*current.signals, "crime:both_subtypes"]) if crimes else current


def _both_said(current: Understanding, previous: Understanding, conversation, lexicon) -> Understanding:
    """«las dos juntas» after «violaciones equiparadas…» then «¿y las simples?»: the two crimes just asked, one a turn."""
    turns = getattr(conversation, "turns", None) or []
    earlier = getattr(turns[-2], "understanding", None) if len(turns) >= 2 else None
    if current.crimes or earlier is None or lexicon is None or not BOTH.search(tokenize(current.question).text):
        return current
    pair = [*earlier.crimes[:1], *previous.crimes[:1]]
    if len(pair) != 2 or pair[0].delito == pair[1].delito or len(earlier.crimes) + len(previous.crimes) != 2:
        return current
    return replace(current, crimes=pair, signals=[*current.signals, "crime:both_said"])


def _narrowed_crime(current: Understanding, previous: Understanding, lexicon) -> Understanding:
    """«¿y cuántos de esos fueron a casa habitación?» after «robo en Querétaro»: the previous crime's own kind."""
    words = [t for t in current.unknown_terms if t.kind in ("other", "crime")]
    found = kind_named(previous.crimes[0], words, lexicon) if len(previous.crimes) == 1 and lexicon else None
    if current.crimes or found is None:
        return current
    crime, term = found
    terms, signals = [t for t in current.unknown_terms if t is not term], [*current.signals, "followup:narrowed_crime"]
    return replace(current, crimes=[crime], unknown_terms=terms, signals=signals)


_BARE_VIOLENCE = ("con_violencia", "sin_violencia")


def _violence_of_kind(current: Understanding, previous: Understanding) -> list[str]:
    """The previous turn's modalidades of a kind («robo de coche de 4 ruedas con/sin violencia») with the violence
    the follow-up says alone («¿y con violencia?»); empty when it says more, or the kind has no violence."""
    if [m for m in current.methods if m not in _BARE_VIOLENCE] or not current.violencia:
        return []
    tails = ("_con_violencia", "_sin_violencia")  # a kind's own modalidad, never the bare «Con violencia» row
    if not previous.methods or not all(m.endswith(tails) for m in previous.methods):
        return []
    kinds = {m.removesuffix(tails[0]).removesuffix(tails[1]) for m in previous.methods}
    return sorted(f"{k}_{current.violencia}_violencia" for k in kinds)


def _methods_carried(current: Understanding, previous: Understanding, lexicon) -> list[str]:
    """The previous modalidades a follow-up keeps: all of them for the same crime; for a crime named anew only those
    it publishes («¿y narcomenudeo?» after «robo con violencia» is all narcomenudeo, never 0 for a filter it lacks),
    and none that the previous crime's own words implied («¿y el total de vehículos?» after «robo de autos»)."""
    if current.crimes and "method:implied_kind" in previous.signals:
        return []  # «¿y el total de vehículos?» after «robo de autos»: the kind the crime's words named goes with them
    if not current.crimes or [c.delito for c in current.crimes] == [c.delito for c in previous.crimes]:
        return list(previous.methods)
    if lexicon is None:
        return list(previous.methods)

    def fits(method: str, crime: str) -> bool:
        own = lexicon.methods_of.get(crime)
        return own is None or method in own or any(o.endswith(f"_{method}") for o in own)

    return [m for m in previous.methods if all(fits(m, c.delito) for c in current.crimes)]


def _kind_with_violence_kept(current: Understanding, previous: Understanding) -> list[str]:
    """The modalidades a kind's name implies («carros»: coche de 4 ruedas con y sin violencia) with the violence the
    previous turn asked and this one does not say; empty otherwise."""
    if current.violencia or not previous.violencia or "method:implied" not in current.signals:
        return []
    if "violencia:ambas" in current.signals:  # «con y sin violencia juntos»
        return []
    return [m for m in current.methods if m.endswith(f"_{previous.violencia}_violencia")]


def negated_places(current: Understanding) -> set[str]:
    """The places a question names only to take them back («Salamanca, no Salvatierra»)."""
    text = normalize_text(current.question or "")  # punctuation kept: «Celaya no: Irapuato» ≠ «no Irapuato»
    said = {p.entidad_id: re.escape(normalize_text(p.text)) for p in current.places if p.text}
    before = {e for e, w in said.items() if re.search(NOT_BEFORE + w + r"\b", text)}
    # «Celaya no: Irapuato» takes Celaya back; in «Salamanca, no Salvatierra» the «no» belongs to Salvatierra
    taken = "|".join(said[e] for e in before) or r"(?!)"
    after = {
        e
        for e, w in said.items()
        if e not in before and re.search(rf"\b{w}{NOT_AFTER}(?!\s+(?:\w+\s+){{0,2}}?(?:{taken})\b)", text)
    }
    out = before | after
    return out if len(out) < len(current.places) else set()  # «no, Celaya» alone corrects to Celaya


def _corrected_places(merged: Understanding, current: Understanding, previous: Understanding) -> None:
    """Take back the places said with «no»; the others replace them (or join the ones still standing)."""
    negated = negated_places(current)
    if not negated:
        return
    kept = [p for p in previous.places if p.entidad_id not in negated]
    new = [p for p in current.places if p.entidad_id not in negated and p not in kept]
    merged.places = kept + new if len(previous.places) > 1 and kept else new or kept
    merged.signals.append("followup:place_taken_back")


def merge_follow_up(
    current: Understanding, previous: Understanding | None, lexicon=None, conversation=None
) -> Understanding:
    """The follow-up's slots over the previous turn's: what it says replaces, what it omits is kept."""
    if previous is None:
        return current
    current = place_from_ranking(current, previous, conversation)
    current = earlier_places(current, previous, conversation)
    current = those_places(current, conversation)
    if re.fullmatch(r"(?:por\s+|en\s+)?(?:aqui|aca)", current.generic_place or "") and (
        previous.places or previous.whole_state
    ):
        current = replace(current, generic_place=None)  # «¿y cuántos fueron aquí?»: the place talked about
    pick = picked_option(current.question, previous) if not current.places else None
    if not current.places and pick is None:  # «¿y en el Grande?» after Apaseo el Alto: its sibling, not Oaxaca's
        pick = sibling_place(current.question, previous, lexicon)
    if pick is not None:
        # the reply's words are the option's own: no other place was meant («grande» is no town of another state)
        terms = [t for t in current.unknown_terms if not t.kind.startswith("place")]
        current = replace(
            current,
            places=[pick],
            ambiguous_places=[],
            unknown_terms=terms,
            signals=[*current.signals, "followup:option"],
        )
    current = _both_subtypes(current, previous, lexicon)
    current = _both_said(current, previous, conversation, lexicon)
    current = _narrowed_crime(current, previous, lexicon)
    kept: list[str] = []
    merged = replace(current, signals=list(current.signals))
    if not current.crimes or "crime:qualifier_alone" in current.signals:
        qualified = _qualified(current, previous, lexicon)  # «¿y dolosos?» after «lesiones culposas»: that tipo
        if qualified:
            merged.crimes = qualified
            current = replace(current, crimes=qualified)
    named_state = any(s.startswith("national:place:") for s in current.signals)  # «mismo dato para Jalisco»
    if not (current.places or current.whole_state or current.generic_place or current.ambiguous_places or named_state):
        merged.places, merged.whole_state = list(previous.places), previous.whole_state
        merged.ambiguous_places = [list(g) for g in previous.ambiguous_places]
        merged.generic_place = previous.generic_place
        merged.unknown_terms = [t for t in merged.unknown_terms if t.kind != "place_deictic"]  # «ahí mismo»: that one
        kept.append("place")
    if not current.crimes:
        merged.crimes = list(previous.crimes)
        turns = getattr(conversation, "turns", None) or []
        if not turns or getattr(turns[-1], "status", None) != "ok":  # still to ask; once answered as a sum, a sum
            merged.signals += [s for s in previous.signals if s.startswith("crime:unqualified:")]
        kept.append("crime")
    if ANY_METHOD.search(tokenize(current.question).text):  # «¿y en total?», «quita lo del arma blanca»: it goes
        merged.methods, merged.violencia = [], None
    elif "violencia:ambas" in current.signals:  # «ahora con y sin violencia juntos»: no violence filter
        merged.methods, merged.violencia = list(current.methods), None
    elif current.methods and not current.crimes and _violence_of_kind(current, previous):
        # «¿y con violencia nomás?» after «robo de carro»: the kind asked before, with that violence
        merged.methods, merged.violencia = _violence_of_kind(current, previous), current.violencia
        kept.append("method")
    elif _kind_with_violence_kept(current, previous):
        # «¿y de esos cuántos fueron robo de carros?» after «robo con violencia»: that kind, with that violence
        merged.methods, merged.violencia = _kind_with_violence_kept(current, previous), previous.violencia
        kept.append("method")
    elif current.methods:  # "¿y con arma blanca?" asks for that method: it replaces the previous one
        merged.violencia = current.violencia
    else:
        merged.methods = _methods_carried(current, previous, lexicon)
        merged.violencia = current.violencia or (previous.violencia if merged.methods else None)
        if merged.methods:
            kept.append("method")
        elif previous.methods:
            merged.signals.append("followup:dropped:method")
    if current.window is None:
        merged.window, merged.window_text = previous.window, previous.window_text
        merged.compare_window = previous.compare_window
        kept.append("window")
    same_thing = bool(SAME_THING.search(tokenize(current.question).text))
    other_end = _other_end(current, previous)
    if not explicit_kind(current) or same_thing or other_end:  # «la misma serie para Irapuato»
        merged.kind = previous.kind
        # the shape's own settings go with it: «y en 2023?» after the lowest month is still the lowest month
        merged.signals += [s for s in previous.signals if s.split(":")[0] in SHAPE_SETTINGS]
        merged.group_by_municipio = previous.group_by_municipio or current.group_by_municipio
        new_municipality = any(p.nivel == "municipio" for p in current.places)
        if previous.kind == "ranking" and new_municipality:  # "top 5…" then "¿y en Celaya?": Celaya's value
            merged.kind, merged.group_by_municipio = "single_value", False
        if other_end:
            merged.group_by_municipio = False
        if merged.kind == "extremes" and "medida:tasa" in current.signals and current.window is not None:
            merged.kind = "single_value"  # «tasa 2022» after «el peor año»: that year's rate
        if merged.kind == "breakdown" and len(previous.crimes) > 1 and len(current.crimes) == 1:
            merged.kind = "single_value"  # «ahora solo amenazas» after «fraudes y amenazas, cuántos de cada uno»
        if merged.kind == "comparison" and current.window is not None and current.compare_window is None:
            merged.compare_window = None  # a new single period: the comparison base is recomputed downstream
        kept.append("kind")
    if (
        previous.kind == "composition"
        and len(current.crimes) == 1
        and composition.PART_WORDS.search(current.normalized)
    ):
        merged.kind = "composition"  # «¿y cuánto pesa la violencia familiar?» after a place's crimes: its part of them
    if previous.group_by_municipio and not (current.places or current.whole_state) and merged.kind == previous.kind:
        merged.group_by_municipio = True  # «¿y en cuál bajaron más?» after a ranking of changes: still every place
    _presence_side(merged, current, previous)
    if (
        merged.kind == "comparison"
        and current.window is not None
        and current.compare_window is None
        and previous.window is not None
        and previous.compare_window is None
        and current.window != previous.window
        and previous.kind != "comparison"
    ):  # «y en 2015, para ver cómo cambió» after 2024: the year talked about against the one said now
        merged.window, merged.compare_window = (
            max(current.window, previous.window),
            min(current.window, previous.window),
        )
    ordinal = ORDINAL_ALONE.match(tokenize(current.question).text)
    relative_window(merged, current, previous, ORDINALS[ordinal.group(1)] if ordinal else None)
    text = tokenize(current.question).text
    if merged.kind == "extremes":
        _extreme_direction(merged, text)
        if current.window is None and previous.compare_window and "time:compare_span" in previous.signals:
            merged.window, merged.compare_window = (previous.compare_window[0], previous.window[1]), None  # «esos años»
        said_unit = re.search(r"\b(?:mes|meses|ano|anos|trimestres?|semestres?)\b", text)
        units = [x for x in previous.signals if x in EXTREME_UNITS]
        if units and not said_unit and not any(x in EXTREME_UNITS for x in merged.signals):
            merged.signals.append(units[0])  # «¿y el de menos?» after «el año con más…»: still years
    munis = [p for p in previous.places if p.nivel == "municipio"]
    only_state = current.places and all(p.nivel == "estado" for p in current.places)
    # «¿y eso qué porcentaje es del estado?»: the municipality's share of its state, both kept
    share_of_state = munis and only_state and current.kind == "share" and "place:whole_state" in current.signals
    if current.places and (
        ADD_PLACE.match(text) or (munis and only_state and WITH_STATE.search(text)) or share_of_state
    ):
        merged.places = [*previous.places, *(p for p in current.places if p not in previous.places)]  # "agrega León"
        merged.signals.append("followup:added_place")
        if only_state and merged.kind == "comparison" and merged.compare_window is None:
            merged.kind = "places"  # "¿cómo se compara con el total del estado?": the place next to the state
        elif VERSUS.search(text) and current.window is None and merged.kind in ("comparison", "single_value"):
            merged.kind, merged.compare_window = "places", None  # "compáralo con Irapuato": side by side
        elif TOGETHER.search(text):  # «ponnos lado a lado con Salamanca en esos mismos meses de 2024»
            merged.kind, merged.compare_window = "places", None
    _corrected_places(merged, current, previous)
    if TOGETHER.search(text) and len(merged.places) >= 2 and "kind:default" in current.signals:
        merged.kind, merged.compare_window = "places", None  # «pon a Celaya y a Salamanca lado a lado, solo 2024»
    merged.top_k = current.top_k if current.top_k is not None else previous.top_k
    if "order:asc" not in current.signals:
        merged.order = previous.order
    if not any(s in current.signals for s in ("medida:tasa", "medida:conteo")):
        merged.medida = previous.medida
    merged.wants_evidence = current.wants_evidence or previous.wants_evidence
    if "victims:municipal" in previous.signals and "place" in kept:  # «doloso» after «¿víctimas… en León?»
        merged.signals.append("victims:municipal")
    merged.signals += ["followup:merged"] + [f"followup:kept:{k}" for k in kept]
    merged.signals = list(dict.fromkeys(merged.signals))
    return national_carry(merged, current, previous)  # «¿y Michoacán?» after a state's place: still the states


__all__ = ["crime_phrase", "describe", "is_follow_up", "merge_follow_up", "negated_places"]
