"""Follow-ups (docs/contracts/004_chatbot_graph.md §2.1): detect "¿y en Celaya?", a correction or a reply to the
assistant's own question, and merge it with the previous turn; ``rewrite`` says the result as a standalone question.
"""

from __future__ import annotations

import re
from dataclasses import replace

from core.ask.understand import CrimeMatch, Understanding, national
from core.ask.understand.anaphora import (
    ANY_METHOD,
    ORDINALS,
    TOGETHER,
    earlier_places,
    picked_option,
    place_from_ranking,
    relative_window,
    sibling_place,
)
from core.ask.understand.crimes import kind_named
from core.ask.understand.lexicon import Lexicon
from core.ask.understand.rewrite import crime_phrase, describe
from core.ask.understand.tokens import tokenize
from core.text import normalize_text

# «ok, ¿y homicidios dolosos?», «bueno, y en Celaya»: an acknowledgement before the follow-up's own lead word
_ACK = (
    r"^(?:(?:ok|okay|oki|va|vale|bueno|sale|ya|oye|ah|aja|perfecto|gracias|excelente|muy\s+bien|de\s+acuerdo)\s*,?\s*)*"
)
_LEADS = re.compile(_ACK + r"(?:y|e|ahora|tambien|pero|solo|nomas|mejor|entonces)\b")
# A memo's follow-up: «Asimismo, …», «Favor de indicar ahora …», «Solicito también …»
_FORMAL_LEAD = re.compile(
    _ACK + r"(?:asimismo|igualmente|de\s+igual\s+(?:forma|manera)|adicionalmente|ademas|favor\s+de\s+\w+"
    r"|(?:le\s+)?solicito(?:\s+(?:tambien|ademas|ahora))?|se\s+solicita|podria\s+(?:indicar|proporcionar))\b"
)
# Words that point back at the previous answer: «el mismo indicador», «la misma serie», «cuántos de ellos»
_ANAPHORA = re.compile(
    r"\b(?:(?:el|ese|este)\s+mismo\s+(?:indicador|dato|calculo|ejercicio|analisis|reporte|desglose|numero|conteo)"
    r"|(?:la|esa|esta)\s+misma\s+(?:serie|consulta|cifra|tabla|grafica|informacion|tasa|comparacion|pregunta)"
    r"|el\s+(?:dato|valor|indicador|numero)\s+equivalente|el\s+equivalente"
    r"|(?:de|entre)\s+(?:ellos|ellas|esos|esas|estos|estas)|(?:ese|este)\s+mismo\s+periodo"
    r"|(?:en|de|con|sobre|para)\s+eso|(?:ese|este)\s+(?:mismo\s+)?delito)\b"  # «¿en qué lugar quedó … en eso?»
)
_MAX_FORMAL_TOKENS = 16
_SAME_THING = re.compile(
    r"\b(?:el\s+mismo\s+(?:indicador|dato|calculo|ejercicio|analisis|reporte|desglose)|la\s+misma\s+(?:serie|consulta|tabla"
    r"|grafica|comparacion)|el\s+(?:dato|valor|indicador)\s+equivalente|lo\s+mismo)\b"
)  # a memo's follow-up is wordier than a chat one, never a whole new question
_ALWAYS = re.compile(
    r"^(?:y\s+)?(?:lo\s+mismo|igual\s+(?:pero|para|en|con)|que\s+tal|y\s+si|que\s+hay\s+de|y\s+que\s+hay"
    r"|(?:el\s+|la\s+)?mism[oa]\s+(?:dato|cifra|indicador|consulta|numero|calculo|pregunta|tabla)"  # «mismo dato para X»
    r"|cambia(?:lo|la|los|las)?\s+(?:a|por|para))\b"  # «cámbialo a extorsión, estado, mismo periodo»
)
_FRAGMENT = re.compile(r"^(?:en|para|con|sin|durante|desde|de|del|por|a)\b")
_MAX_FOLLOW_UP_TOKENS = 10  # a long sentence that starts with "y" is a new question, not a continuation
# Corrections replace a slot of the previous turn: "no, me refiero a dolosos", "perdón, quise decir Celaya".
_SORRY = (
    r"(?:no|perdon|perdona|disculpa|disculpe|ups|error(?:\s+mio)?|corrijo|correccion|mi\s+error|oops|ay|ah"
    r"|me\s+equivoque(?:\s+de\s+(?:municipio|lugar|ciudad|delito|ano|periodo|fecha))?|fe\s+de\s+erratas|rectifico"
    r"|espera|esperate|aguanta|momento|un\s+momento|chin|rayos)"
)
_CORRECTION = re.compile(
    rf"^(?:{_SORRY}\s*,?\s*)*"
    r"(?:(?:me|se)\s+refier[eo]\s+(?:unicamente\s+|solo\s+|solamente\s+|nada\s+mas\s+)?a|me\s+referia\s+a"
    r"|quise\s+decir|queria\s+decir|quiero\s+decir|mas\s+bien|mejor"
    r"|en\s+realidad|era|sino)\b"
    rf"|^(?:{_SORRY}\s*,?\s*)*{_SORRY}\s*(?:,|$)"
    r"|^(?:corrijo|me\s+equivoque)\b"
    r"|\b(?:quise|queria)\s+decir$|\bme\s+referia$|\bera\s+lo\s+que\s+queria$"  # «abuso sexual quise decir»
)
# «perdón: abuso sexual» (the colon is gone once tokenized): an apology opening a short message corrects a slot
_SORRY_FIRST = re.compile(
    r"^(?:perdon|perdona|disculpa|disculpe|ups|oops|corrijo|correccion|chin|rayos|espera|error\s+mio|fe\s+de\s+erratas"
    r"|rectifico)\b"
)
# «Salamanca, no Salvatierra», «No, Celaya no: Irapuato», «no era Celaya sino Salamanca»: a place said with «no» is
# the one taken back, never one more place
_NOT_BEFORE = r"\bno\s+(?:era\s+|es\s+|fue\s+|en\s+|de\s+|para\s+)?(?:el\s+|la\s+)?"
_NOT_AFTER = r"(?:\s*,)?\s+no\b(?!\s+(?:registr|tuv|hub|hay|report|present|se\s)\w*)"
_MAX_CORRECTION_TOKENS = 6
_ADD_PLACE = re.compile(
    r"^(?:(?:y|ahora|ok|bueno|va|pues|entonces)\s+)*"
    r"(?:agrega|agregale|anade|anadele|suma|incluye|incluyele|mete|pon\s+tambien|ponlo\s+junto|ponla\s+junto"
    r"|junto\s+a|al\s+lado\s+de|compar(?:alo|ala|alos|alas|a|ar|ado|ada|amos)?\s+(?:con|contra)|contra|vs|versus"
    r"|frente\s+a|(?:y\s+)?(?:como\s+)?(?:esta|va|queda|sale)\s+(?:contra|frente\s+a))\b"
)
# A place added with «compáralo con Irapuato», «¿y contra Irapuato?» is a comparison of places, not of periods.
_VERSUS = re.compile(r"\b(?:compar\w*|contra|vs|versus|frente)\b")
# "¿esa tasa está por encima del promedio estatal?", "¿y cómo se compara con el total del estado?": the state is
# added next to the previous place, not put in its place
_WITH_STATE = re.compile(
    r"\b(?:arriba|abajo|encima|debajo)\s+(?:o\s+\w+\s+)?(?:del|de\s+la)\s+(?:estado|promedio|media|tasa)\b|"
    r"\b(?:promedio|media|tasa)\s+(?:estatal|del\s+estado)\b|\b(?:con|contra|frente\s+al?|que|vs|versus|respecto\s+al?)\s+"
    r"(?:el\s+|la\s+)?(?:total\s+del\s+|resto\s+del\s+|todo\s+el\s+|promedio\s+del\s+)?estado\b"
)
# "¿cuáles son?", "¿dónde?", "¿y cuántos?": a bare interrogative only continues the previous question
_BARE_QUESTION = re.compile(
    r"^(?:y\s+)?(?:cuales|cual|donde|cuantos|cuantas|que\s+municipios|en\s+cuales)(?:\s+son|\s+fueron)?$"
)
_ORDINAL_ALONE = re.compile(
    rf"^(?:{_SORRY}\s*,?\s*)*(?:y\s+|mejor\s+|era\s+)?(?:en\s+|para\s+|durante\s+|de\s+)?(?:el|la|del)\s+"
    r"(primer|primero|segundo|tercer|tercero|cuarto|quinto|sexto)"
    r"(?:\s+(?:trimestre|semestre|bimestre|cuatrimestre))?$"
)
# "ambos", "los dos" (tokens write "2"): the reply that asks for every subtype of a bare tipo, summed.
_BOTH = re.compile(r"\b(?:ambos|ambas|los\s+2|las\s+2|juntos|juntas|todos|todas|la\s+suma|sumados|sumalos)\b")


_EXTREME_UNITS = ("extreme:anio", "extreme:trimestre", "extreme:semestre")
_SHAPE_SETTINGS = frozenset({"extreme", "presence", "average", "vs_state", "order"})


def _pending(conversation) -> bool:
    """Whether the assistant's last turn asked the person something (a clarifying question)."""
    turns = getattr(conversation, "turns", None) or []
    return bool(turns) and getattr(turns[-1], "status", None) == "clarify"


def _modifies(u: Understanding) -> bool:
    """A slot that only makes sense on top of another question: a modalidad, a period, a qualifier, a measure."""
    cues = ("crime:qualifier:", "medida:tasa", "time:prev_of_previous", "time:same_period")
    return bool(u.methods or u.window or u.compare_window or any(s.startswith(cues) for s in u.signals))


def is_follow_up(question: str, current: Understanding | None = None, conversation=None) -> bool:
    """Whether the question only makes sense with the previous turn ("¿y en 2022?", "lo mismo para León").

    With the question's understanding and the conversation it also sees corrections ("no, me refiero a
    dolosos"), a bare reply to the assistant's own question ("Celaya") and a modifier with no crime
    ("¿cuántos fueron con arma de fuego?")."""
    tokens = tokenize(question or "")
    if not len(tokens):
        return False
    text = tokens.text
    n_words = sum(w.isalnum() for w in tokens.words)  # «¿y qué parte fue con arma de fuego, en porcentaje?»: commas
    if _ALWAYS.match(text) or _CORRECTION.match(text):
        return True
    if _SORRY_FIRST.match(text) and n_words <= _MAX_CORRECTION_TOKENS:
        return True
    if _LEADS.match(text) and n_words <= _MAX_FOLLOW_UP_TOKENS:
        return True
    if _LEADS.match(text) and n_words <= _MAX_FORMAL_TOKENS and current is not None and not current.crimes:
        return not re.search(r"\bdelitos?\b", text)  # «¿y cuál ha sido el peor mes de Silao este año?»: no crime
    if _ANAPHORA.search(text) and n_words <= _MAX_FORMAL_TOKENS:
        return True
    if _FORMAL_LEAD.match(text) and n_words <= _MAX_FORMAL_TOKENS:
        # «Asimismo, los homicidios no intencionales del mismo año»: a memo's next line keeps what it does not say
        complete = current is not None and current.crimes and current.window and (current.places or current.whole_state)
        if not complete:
            return True
    if bool(_FRAGMENT.match(text)) and n_words <= 5:  # "¿en Celaya?", "¿con arma blanca?"
        return True
    if current is None:
        return False
    if _pending(conversation) and picked_option(question, getattr(conversation, "last_understanding", None)):
        return True  # «el grande» after «¿Apaseo el Alto o Apaseo el Grande?»
    has_slot = bool(current.crimes or current.places or _modifies(current) or _BOTH.search(text))
    if _pending(conversation) and has_slot and n_words <= 8:  # "Celaya", "dolosos", "los dos juntos, …"
        return True
    if TOGETHER.search(text) and not current.crimes and n_words <= 20:  # «pon los dos municipios lado a lado con…»
        return True
    # «dolosos» alone names a crime only when nothing came before to qualify
    named_crime = bool(current.crimes) and "crime:qualifier_alone" not in current.signals
    if named_crime:
        return False
    if n_words > _MAX_FOLLOW_UP_TOKENS:  # «regresando a 2024, dámelo como tasa por cada cien mil habitantes»
        return n_words <= _MAX_FORMAL_TOKENS and _modifies(current) and not re.search(r"\bdelitos?\b", text)
    if _ADD_PLACE.match(text) or _ORDINAL_ALONE.match(text) or _BARE_QUESTION.match(text) or TOGETHER.search(text):
        return True
    shape_only = (
        _explicit_kind(current) and n_words <= _MAX_FOLLOW_UP_TOKENS
    )  # "¿cuántos por día?", "¿cómo se reparten por modalidad?"
    return _modifies(current) or shape_only or (bool(current.places) and n_words <= 4)


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


def _explicit_kind(u: Understanding) -> bool:
    # "kind:default" is the fallback to a single value; a shape found anyway («el más bajo», «promedio estatal») counts
    return u.kind != "unknown" and ("kind:default" not in u.signals or u.kind != "single_value")


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
    if current.crimes or not tipos or lex is None or not _BOTH.search(tokenize(current.question).text):
        return current
    subs = [lex.qualifiers.get(q, {}).get(tipos[0]) for q in ("dolos", "culpos")]
    refs = [lex.crime_by_key[k] for k in subs if k in lex.crime_by_key]
    crimes = [CrimeMatch(r.delito, r.label, "ambos", 95.0, r.in_data) for r in refs]
    return replace(current, crimes=crimes, signals=[*current.signals, "crime:both_subtypes"]) if crimes else current


def _narrowed_crime(current: Understanding, previous: Understanding, lexicon) -> Understanding:
    """«¿y cuántos de esos fueron a casa habitación?» after «robo en Querétaro»: the previous crime's own kind."""
    words = [t for t in current.unknown_terms if t.kind in ("other", "crime")]
    found = kind_named(previous.crimes[0], words, lexicon) if len(previous.crimes) == 1 and lexicon else None
    if current.crimes or found is None:
        return current
    crime, term = found
    terms, signals = [t for t in current.unknown_terms if t is not term], [*current.signals, "followup:narrowed_crime"]
    return replace(current, crimes=[crime], unknown_terms=terms, signals=signals)


def negated_places(current: Understanding) -> set[str]:
    """The places a question names only to take them back («Salamanca, no Salvatierra»)."""
    text = normalize_text(current.question or "")  # punctuation kept: «Celaya no: Irapuato» ≠ «no Irapuato»
    said = {p.entidad_id: re.escape(normalize_text(p.text)) for p in current.places if p.text}
    before = {e for e, w in said.items() if re.search(_NOT_BEFORE + w + r"\b", text)}
    # «Celaya no: Irapuato» takes Celaya back; in «Salamanca, no Salvatierra» the «no» belongs to Salvatierra
    taken = "|".join(said[e] for e in before) or r"(?!)"
    after = {
        e
        for e, w in said.items()
        if e not in before and re.search(rf"\b{w}{_NOT_AFTER}(?!\s+(?:\w+\s+){{0,2}}?(?:{taken})\b)", text)
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
        merged.signals += [s for s in previous.signals if s.startswith("crime:unqualified:")]  # still to ask
        kept.append("crime")
    if ANY_METHOD.search(tokenize(current.question).text):  # «¿y en total?», «quita lo del arma blanca»: it goes
        merged.methods, merged.violencia = [], None
    elif current.methods:  # "¿y con arma blanca?" asks for that method: it replaces the previous one
        merged.violencia = current.violencia
    else:
        merged.methods, merged.violencia = list(previous.methods), current.violencia or previous.violencia
        if previous.methods:
            kept.append("method")
    if current.window is None:
        merged.window, merged.window_text = previous.window, previous.window_text
        merged.compare_window = previous.compare_window
        kept.append("window")
    same_thing = bool(_SAME_THING.search(tokenize(current.question).text))
    other_end = _other_end(current, previous)
    if not _explicit_kind(current) or same_thing or other_end:  # «la misma serie para Irapuato»
        merged.kind = previous.kind
        # the shape's own settings go with it: «y en 2023?» after the lowest month is still the lowest month
        merged.signals += [s for s in previous.signals if s.split(":")[0] in _SHAPE_SETTINGS]
        merged.group_by_municipio = previous.group_by_municipio or current.group_by_municipio
        new_municipality = any(p.nivel == "municipio" for p in current.places)
        if previous.kind == "ranking" and new_municipality:  # "top 5…" then "¿y en Celaya?": Celaya's value
            merged.kind, merged.group_by_municipio = "single_value", False
        if other_end:
            merged.group_by_municipio = False
        if merged.kind == "comparison" and current.window is not None and current.compare_window is None:
            merged.compare_window = None  # a new single period: the comparison base is recomputed downstream
        kept.append("kind")
    if previous.group_by_municipio and not (current.places or current.whole_state) and merged.kind == previous.kind:
        merged.group_by_municipio = True  # «¿y en cuál bajaron más?» after a ranking of changes: still every place
    _presence_side(merged, current, previous)
    ordinal = _ORDINAL_ALONE.match(tokenize(current.question).text)
    relative_window(merged, current, previous, ORDINALS[ordinal.group(1)] if ordinal else None)
    text = tokenize(current.question).text
    if merged.kind == "extremes":
        _extreme_direction(merged, text)
        if current.window is None and previous.compare_window and "time:compare_span" in previous.signals:
            merged.window, merged.compare_window = (previous.compare_window[0], previous.window[1]), None  # «esos años»
        said_unit = re.search(r"\b(?:mes|meses|ano|anos|trimestres?|semestres?)\b", text)
        units = [x for x in previous.signals if x in _EXTREME_UNITS]
        if units and not said_unit and not any(x in _EXTREME_UNITS for x in merged.signals):
            merged.signals.append(units[0])  # «¿y el de menos?» after «el año con más…»: still years
    munis = [p for p in previous.places if p.nivel == "municipio"]
    only_state = current.places and all(p.nivel == "estado" for p in current.places)
    if current.places and (_ADD_PLACE.match(text) or (munis and only_state and _WITH_STATE.search(text))):
        merged.places = [*previous.places, *(p for p in current.places if p not in previous.places)]  # "agrega León"
        merged.signals.append("followup:added_place")
        if only_state and merged.kind == "comparison" and merged.compare_window is None:
            merged.kind = "places"  # "¿cómo se compara con el total del estado?": the place next to the state
        elif _VERSUS.search(text) and current.window is None and merged.kind in ("comparison", "single_value"):
            merged.kind, merged.compare_window = "places", None  # "compáralo con Irapuato": side by side
    _corrected_places(merged, current, previous)
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
    return national.carry(merged, current, previous)  # «¿y Michoacán?» after a state's place: still the states


__all__ = ["crime_phrase", "describe", "is_follow_up", "merge_follow_up", "negated_places"]
