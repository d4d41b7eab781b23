"""Follow-ups (docs/contracts/004_chatbot_graph.md §2.1): detect "¿y en Celaya?", a correction or a reply to the
assistant's own question, and merge it with the previous turn; ``rewrite`` says the result as a standalone question.
"""

from __future__ import annotations

import re
from dataclasses import replace

from core.ask.understand import Understanding, composition
from core.ask.understand.anaphora import (
    ANY_METHOD,
    ORDINALS,
    TOGETHER,
    earlier_places,
    picked_option,
    place_from_ranking,
    sibling_place,
    those_places,
)
from core.ask.understand.carried import (
    back_to_qualified,
    both_said,
    both_subtypes,
    kind_with_violence_kept,
    methods_carried,
    narrowed_crime,
    pointed_crime,
    pointed_word,
    qualified,
    unanswered_word,
    violence_of_kind,
    with_earlier_crime,
)
from core.ask.understand.continuation import (
    ADD_PLACE,
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
    restated,
)
from core.ask.understand.national_carry import carry as national_carry
from core.ask.understand.rewrite import crime_phrase, describe
from core.ask.understand.shapes import extreme_direction, other_end, presence_side, series_talked, yearly_series
from core.ask.understand.talkedtime import (
    answered_month,
    answered_window,
    earlier_years,
    part_named_apart,
    relative_window,
)
from core.ask.understand.timepairs import year_on_year
from core.ask.understand.tokens import tokenize
from core.text import normalize_text


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


# «quita lo del arma blanca», «todos, no solo con arma de fuego»: the modalidad named is the one taken away
_BY_UNIT = re.compile(r"\b(?:ahora\s+)?por\s+(?:semestres?|trimestres?|bimestres?|anos?)\b")
_MORE_CASES = re.compile(r"\bcon\s+mas\s+(?:casos|carpetas|denuncias|delitos|registros)\b")
_BACK = re.compile(
    r"^\W*(?:ok\W+|bueno\W+)?(?:regresando|volviendo|regresemos|volvamos|regresa|vuelve)\s+(?:a|al|con)\b"
)


def _back_to_place(current: Understanding, previous: Understanding, conversation) -> Understanding:
    """«regresando a Celaya, …»: a modalidad asked since the talk left that place (for another place) stays there."""
    if not current.places or not _BACK.match(tokenize(current.question).text):
        return previous
    for turn in reversed((getattr(conversation, "turns", None) or [])[:-1]):
        u = getattr(turn, "understanding", None)
        same = u is not None and [p.entidad_id for p in u.places] == [p.entidad_id for p in current.places]
        if same and u.crimes:
            # only a filter added since is taken back: one dropped since («todos, no solo…») stays dropped
            kept = [m for m in previous.methods if m in u.methods]
            return replace(previous, methods=kept, violencia=previous.violencia if kept else None)
    return previous


_OF_ALL = re.compile(
    r"\b(?:porcentaje|parte|proporcion)\s+(?:es\s+|son\s+|representa\s+)?(?:de|del)\s+(?:tod[oa]s|el\s+total)\b"
)
_NOT_ONLY = re.compile(
    r"\bno\s+(?:solo|nomas|nada\s+mas|solamente|unicamente)\b|\bsin\s+lo\s+de|\b(?:quit|olvid|elimin|borr)\w*"
    r"|\bsin\s+(?:distinguir|importar)\b"
)
_VALLEY = re.compile(r"^\W*(?:y\s+)?(?:(?:cual|cuando)\s+(?:fue|es|estuvo)\s+)?el\s+valle\W*$")
_BOTH_PERIODS = re.compile(
    r"\b(?:(?:en\s+)?cada\s+uno\s+de\s+los\s+(?:dos|2)|(?:en\s+)?ambos|(?:en\s+)?los\s+(?:dos|2))\s+(?:anos|periodos|trimestres|semestres)\b"
)
_HOW_MANY_HAD = re.compile(r"\bcuant[oa]s\s+(?:tuvieron|registraron|reportaron|presentaron|hubo\s+con)\b")
_THAT_ONE = re.compile(r"^\W*(?:y\s+)?(?:la|el)\s+(?:de|del)\b")  # «¿y la de 2020?»: that measure, that year
_ONLY = re.compile(r"\b(?:solo|solamente|nada\s+mas|nomas|unicamente)\b")


def merge_follow_up(
    current: Understanding, previous: Understanding | None, lexicon=None, conversation=None
) -> Understanding:
    """The follow-up's slots over the previous turn's: what it says replaces, what it omits is kept."""
    if previous is None:
        return current
    if previous.kind in ("extremes", "series", "annual_series") and _VALLEY.match(tokenize(current.question).text):
        # «¿y el valle?» after a series' peak: its lowest point, not Valle de Santiago
        signals = [x for x in current.signals if not x.startswith("place:")] + ["kind:extremes", "extreme:min"]
        current = replace(current, places=[], unknown_terms=[], kind="extremes", signals=signals)
    previous = _back_to_place(current, previous, conversation)
    if previous.kind == "extremes" and (month := answered_month(conversation, current.question)):
        previous = replace(previous, window=month)  # «de ese mes, ¿cuántos…?» after the peak month: that month
    if previous.window is None and "time:previous_window" in current.signals:
        # «el peor mes de todo ese rango» after an answer with no period said: the period that answer covered
        previous = replace(previous, window=answered_window(conversation))
    if current.window is None and previous.window and (part := part_named_apart(current.question, previous.window)):
        current = replace(current, window=part)  # «regresa a trimestres: el tercero» after a semester
    if current.window is None and (years := earlier_years(current.question, conversation)):
        current = replace(current, window=years)  # «ahora solo León, mismos años»: the years of the series before
        if yearly_series(current.kind, years, current.normalized):
            current = replace(current, kind="annual_series")  # «…, la serie» of ten whole years: year by year
    family = getattr(lexicon, "family", {}) or {}
    if (pointed_word(current) and previous.crimes) or pointed_crime(current, previous, family):
        # «de las víctimas de esas balaceras», «… de esos homicidios»: the crime talked about
        dropped = ("crime:not_sesnsp", "crime:unqualified:")
        current = replace(current, crimes=[], signals=[s for s in current.signals if not s.startswith(dropped)])
    if not current.crimes and (not previous.crimes or unanswered_word(previous, conversation)):
        # a clarifying question left unanswered, or a word the data has no crime for («¿en qué colonias hay más
        # balaceras?», given no number): the talk's crime stands
        previous = with_earlier_crime(previous, conversation)
    current = place_from_ranking(current, previous, conversation)
    current = those_places(current, conversation)  # «de esos tres, juntos»: the number said wins over «juntos»
    current = earlier_places(current, previous, conversation)
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
    current = both_subtypes(current, previous, lexicon)
    current = both_said(current, previous, conversation, lexicon)
    current = narrowed_crime(current, previous, lexicon)
    kept: list[str] = []
    merged = replace(current, signals=list(current.signals))
    if not current.crimes or "crime:qualifier_alone" in current.signals:
        requalified = back_to_qualified(current, previous, conversation, lexicon) or qualified(
            current, previous, lexicon
        )  # «¿y dolosos?» after «lesiones culposas»: that tipo; «volviendo a los dolosos»: the earlier one
        if requalified:
            merged.crimes = requalified
            current = replace(current, crimes=requalified)
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
    said = tokenize(current.question).text
    if ANY_METHOD.search(said) and (not current.methods or _NOT_ONLY.search(said)):
        merged.methods, merged.violencia = [], None  # «¿y en total?», «quita lo del arma blanca»: it goes (not «a
        # balazos en total»: the modalidad said now stays)
    elif "violencia:ambas" in current.signals:  # «ahora con y sin violencia juntos»: no violence filter
        merged.methods, merged.violencia = list(current.methods), None
    elif current.methods and not current.crimes and violence_of_kind(current, previous):
        # «¿y con violencia nomás?» after «robo de carro»: the kind asked before, with that violence
        merged.methods, merged.violencia = violence_of_kind(current, previous), current.violencia
        kept.append("method")
    elif kind_with_violence_kept(current, previous):
        # «¿y de esos cuántos fueron robo de carros?» after «robo con violencia»: that kind, with that violence
        merged.methods, merged.violencia = kind_with_violence_kept(current, previous), previous.violencia
        kept.append("method")
    elif current.methods:  # "¿y con arma blanca?" asks for that method: it replaces the previous one
        merged.violencia = current.violencia
    else:
        merged.methods = methods_carried(current, previous, lexicon)
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
    at_other_end = other_end(current, previous)
    # «y por conteo», «¿y en tasa?» after a ranking: only the measure changes, the shape stays
    measure_only = (
        any(x in current.signals for x in ("medida:tasa", "medida:conteo")) and current.kind == "single_value"
    )
    measure_only = measure_only and not (current.crimes or current.places or current.window)
    # a whole new question («ahora lesiones dolosas en Irapuato 2022») has its own shape, never the last one's share
    pending = bool(turns := getattr(conversation, "turns", None)) and getattr(turns[-1], "status", None) == "clarify"
    own_question = restated(current, previous) and not explicit_kind(current) and not same_thing and not pending
    if (not explicit_kind(current) or same_thing or at_other_end or measure_only) and not own_question:
        merged.kind = previous.kind
        if previous.kind == "breakdown" and "medida:tasa" in current.signals and not merged.methods:
            merged.kind = "single_value"  # «pásamelo en tasa» after a total and its part: the total's rate
        if previous.kind == "average" and "medida:conteo" in current.signals:
            merged.kind = "single_value"  # «¿y en conteo?» after a monthly average: the count of the period
        # the shape's own settings go with it: «y en 2023?» after the lowest month is still the lowest month
        if merged.kind == previous.kind:
            merged.signals += [s for s in previous.signals if s.split(":")[0] in SHAPE_SETTINGS]
        merged.group_by_municipio = previous.group_by_municipio or current.group_by_municipio
        new_municipality = any(p.nivel == "municipio" for p in current.places)
        if previous.kind == "ranking" and (new_municipality or current.whole_state):
            # "top 5…" then "¿y en Celaya?" or «¿y la tasa de todo el estado?»: that place's value
            merged.kind, merged.group_by_municipio = "single_value", False
        if at_other_end:
            merged.group_by_municipio = False
        if merged.kind == "extremes" and "medida:tasa" in current.signals and current.window is not None:
            merged.kind = "single_value"  # «tasa 2022» after «el peor año»: that year's rate
        if merged.kind == "breakdown" and len(previous.crimes) > 1 and len(current.crimes) == 1:
            merged.kind = "single_value"  # «ahora solo amenazas» after «fraudes y amenazas, cuántos de cada uno»
        if merged.kind == "comparison" and current.window is not None and current.compare_window is None:
            merged.compare_window = None  # a new single period: the comparison base is recomputed downstream
            said = tokenize(current.question).text
            value = _ONLY.search(said) or "medida:tasa" in current.signals or _THAT_ONE.match(said)
            if value and not VERSUS.search(said):
                # «exprésalo como tasa, solo el primer semestre de 2025», «la tasa de 2024», «¿y la de 2020?»
                merged.kind = "single_value"
        kept.append("kind")
    if (
        previous.kind == "composition"
        and len(current.crimes) == 1
        and composition.PART_WORDS.search(current.normalized)
    ):
        merged.kind = "composition"  # «¿y cuánto pesa la violencia familiar?» after a place's crimes: its part of them
    if previous.group_by_municipio and not (current.places or current.whole_state) and merged.kind == previous.kind:
        merged.group_by_municipio = True  # «¿y en cuál bajaron más?» after a ranking of changes: still every place
    presence_side(merged, current, previous)
    if (
        merged.kind == "comparison"
        and current.window is not None
        and current.compare_window is None
        and previous.window is not None
        and previous.compare_window is None
        and current.window != previous.window
        and previous.kind != "comparison"
        and "time:previous_window" not in current.signals  # «ese año, para comparar»: the same period, no second
    ):  # «y en 2015, para ver cómo cambió» after 2024: the year talked about against the one said now
        merged.window, merged.compare_window = (
            max(current.window, previous.window),
            min(current.window, previous.window),
        )
    ordinal = ORDINAL_ALONE.match(tokenize(current.question).text)
    relative_window(merged, current, previous, ORDINALS[ordinal.group(1)] if ordinal else None)
    text = tokenize(current.question).text
    ranking_before = previous.kind == "ranking" and previous.group_by_municipio
    if ranking_before and any(s.startswith("top_k:") for s in current.signals) and not current.places:
        merged.kind, merged.group_by_municipio = "ranking", True  # «dame los 5 primeros» after «¿cuál tuvo más?»
    if merged.kind == "extremes" and current.window is not None and _BY_UNIT.search(text):
        merged.kind = "single_value"  # «ahora por semestres: segundo semestre de 2019» after the peak month
    if merged.compare_window is not None and merged.window is not None and _BOTH_PERIODS.search(text):
        merged.kind = "comparison"  # «¿cuántos tuvo ese municipio en cada uno de los dos años?»: both periods
    if previous.kind == "presence" and not current.places and _HOW_MANY_HAD.search(text):
        # «¿y cuántos tuvieron secuestros ese mismo año?» after «¿cuántos municipios registraron al menos uno?»
        merged.kind, merged.group_by_municipio = "presence", False
        merged.signals.append("presence:con")
    one_place = [p for p in current.places if p.nivel == "municipio"]
    if merged.kind == "ranking" and len(one_place) == 1 == len(current.places) and current.top_k is None:
        # «¿me lo puedes dar por municipio? me interesan las de Celaya»: that municipality's figure, not a top 10
        merged.kind, merged.group_by_municipio = "single_value", False
    if merged.kind == "share" and previous.methods and not current.methods and _OF_ALL.search(text):
        # «y eso, ¿qué porcentaje es de todos los homicidios dolosos de allá?»: the modalidad's part of the place's
        # total, not the place's part of the state
        merged.kind, merged.crimes = "breakdown", list(previous.crimes)
    if merged.kind == "extremes":
        extreme_direction(merged, text)
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
    if (series := series_talked(current, previous, conversation)) is not None:
        merged.kind = series  # «ahora la misma serie pero de Celaya» after the series' peak: the series again
    merged.top_k = current.top_k if current.top_k is not None else previous.top_k
    if "order:asc" not in current.signals:
        merged.order = previous.order
    if not any(s in current.signals for s in ("medida:tasa", "medida:conteo")):
        merged.medida = previous.medida
        if "kind:series" in current.signals:  # «pásame la serie mensual» after a ranking by rate: counts by month
            merged.medida = "conteo"
        if merged.kind == "ranking" and _MORE_CASES.search(tokenize(current.question).text):
            merged.medida = "conteo"  # «top 5 municipios con más casos» after a rate: by count
    merged.wants_evidence = current.wants_evidence or previous.wants_evidence
    if "victims:municipal" in previous.signals and "place" in kept:  # «doloso» after «¿víctimas… en León?»
        merged.signals.append("victims:municipal")
    merged.signals += ["followup:merged"] + [f"followup:kept:{k}" for k in kept]
    merged.signals = list(dict.fromkeys(merged.signals))
    return national_carry(
        year_on_year(merged), current, previous
    )  # «¿y Michoacán?» after a state's place: still the states


__all__ = ["crime_phrase", "describe", "is_follow_up", "merge_follow_up", "negated_places"]
