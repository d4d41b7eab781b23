"""Follow-ups (docs/contracts/004_chatbot_graph.md §2.1): detect "¿y en Celaya?", merge it with the previous turn, and
rewrite the result as a standalone Spanish question built from the slots.
"""

from __future__ import annotations

import re
from dataclasses import replace

from core.ask.understand import CrimeMatch, PlaceMatch, Understanding
from core.ask.understand.lexicon import Lexicon
from core.ask.understand.timeexpr import shift_year
from core.ask.understand.tokens import tokenize

_LEADS = re.compile(r"^(?:y|e|ahora|tambien|pero|solo|nomas|mejor|entonces)\b")
_ALWAYS = re.compile(
    r"^(?:y\s+)?(?:lo\s+mismo|igual\s+(?:pero|para|en|con)|que\s+tal|y\s+si|que\s+hay\s+de|y\s+que\s+hay)\b"
)
_FRAGMENT = re.compile(r"^(?:en|para|con|sin|durante|desde|de|del|por|a)\b")
_MAX_FOLLOW_UP_TOKENS = 10  # a long sentence that starts with "y" is a new question, not a continuation
# Corrections replace a slot of the previous turn: "no, me refiero a dolosos", "perdón, quise decir Celaya".
_CORRECTION = re.compile(
    r"^(?:(?:no|perdon|perdona|disculpa|disculpe|ups|error|corrijo|correccion)\s*,?\s*)*"
    r"(?:me\s+refiero\s+a|me\s+referia\s+a|quise\s+decir|queria\s+decir|quiero\s+decir|mas\s+bien|mejor"
    r"|en\s+realidad|era|sino)\b"
    r"|^(?:no|perdon|perdona|disculpa)\s*,"
)
# A question about one place right after a ranking: its first place ("¿y cuántos tuvo en 2024?").
_ONE_PLACE = re.compile(
    r"\b(?:tuvo|registro|registra|tiene|ha\s+tenido|presento|sumo|acumulo|ese\s+municipio|ese\s+lugar|esa\s+ciudad"
    r"|dicho\s+municipio|el\s+primero|el\s+primer\s+lugar|alli|ahi)\b"
)
# "ambos", "los dos" (tokens write "2"): the reply that asks for every subtype of a bare tipo, summed.
_BOTH = re.compile(r"\b(?:ambos|ambas|los\s+2|las\s+2|juntos|juntas|todos|todas|la\s+suma|sumados|sumalos)\b")


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
    if _ALWAYS.match(text) or _CORRECTION.match(text):
        return True
    if _LEADS.match(text) and len(tokens) <= _MAX_FOLLOW_UP_TOKENS:
        return True
    if bool(_FRAGMENT.match(text)) and len(tokens) <= 5:  # "¿en Celaya?", "¿con arma blanca?"
        return True
    if current is None:
        return False
    has_slot = bool(current.crimes or current.places or _modifies(current) or _BOTH.search(text))
    if _pending(conversation) and has_slot and len(tokens) <= 6:  # "Celaya", "dolosos", "2023"
        return True
    if current.crimes or len(tokens) > _MAX_FOLLOW_UP_TOKENS:
        return False
    return _modifies(current) or (bool(current.places) and len(tokens) <= 4)


def _explicit_kind(u: Understanding) -> bool:
    return u.kind != "unknown" and "kind:default" not in u.signals


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


def _first_ranked(conversation) -> PlaceMatch | None:
    """The first place of the previous turn's ranking (its result's first row), or None."""
    turns = getattr(conversation, "turns", None) or []
    result = getattr(turns[-1], "result", None) if turns else None
    try:
        inline = result["data"]["inline"]
        names = [c["name"] for c in inline["columns"]]
        row = inline["rows"][0]
        eid, label = row[names.index("entidad_id")], row[names.index("label")]
    except (TypeError, KeyError, IndexError, ValueError):
        return None
    return PlaceMatch(eid, label, "municipio", "primer lugar", 100.0) if ".MUN." in str(eid) else None


def _place_from_ranking(current: Understanding, previous: Understanding, conversation) -> Understanding:
    """ "¿y cuántos tuvo en 2024?" after a ranking: the ranking's first place."""
    ranked = previous.kind == "ranking" or previous.group_by_municipio
    if current.places or current.whole_state or not ranked or not _ONE_PLACE.search(tokenize(current.question).text):
        return current
    first = _first_ranked(conversation)
    if first is None:
        return current
    return replace(current, places=[first], signals=[*current.signals, "followup:ranking_first"])


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


def _relative_window(merged: Understanding, current: Understanding, previous: Understanding) -> None:
    """ "el año anterior", "el mismo periodo…", "compáralo con 2023": relative to the previous turn's window."""
    pw, sig = previous.window, current.signals
    if pw is None:
        return
    if "time:same_period_prev" in sig:  # "¿y el mismo periodo del año anterior?"
        merged.window, merged.compare_window, merged.kind = pw, shift_year(pw, -1), "comparison"
    elif "time:same_period_base" in sig and current.compare_window:  # "¿y contra el mismo periodo de 2022?"
        years = current.compare_window[0].year - pw[0].year
        merged.window, merged.compare_window, merged.kind = pw, shift_year(pw, years), "comparison"
    elif "time:window_from_base" in sig and current.compare_window:  # "compáralo con 2023"
        merged.window, merged.kind = pw, "comparison"
    elif "time:prev_of_previous" in sig and current.compare_window is None:  # "¿y el año anterior?"
        merged.window, merged.compare_window = shift_year(pw, -1), None
    else:
        return
    merged.window_text = None
    merged.signals.append("followup:relative_window")


def merge_follow_up(
    current: Understanding, previous: Understanding | None, lexicon=None, conversation=None
) -> Understanding:
    """The follow-up's slots over the previous turn's: what it says replaces, what it omits is kept."""
    if previous is None:
        return current
    current = _place_from_ranking(current, previous, conversation)
    current = _both_subtypes(current, previous, lexicon)
    kept: list[str] = []
    merged = replace(current, signals=list(current.signals))
    if not current.crimes:
        qualified = _qualified(current, previous, lexicon)
        if qualified:
            merged.crimes = qualified
            current = replace(current, crimes=qualified)
    if not (current.places or current.whole_state or current.generic_place or current.ambiguous_places):
        merged.places, merged.whole_state = list(previous.places), previous.whole_state
        merged.ambiguous_places = [list(g) for g in previous.ambiguous_places]
        merged.generic_place = previous.generic_place
        kept.append("place")
    if not current.crimes:
        merged.crimes = list(previous.crimes)
        merged.signals += [s for s in previous.signals if s.startswith("crime:unqualified:")]  # still to ask
        kept.append("crime")
    if current.methods:  # "¿y con arma blanca?" asks for that method: it replaces the previous one
        merged.violencia = current.violencia
    else:
        merged.methods, merged.violencia = list(previous.methods), current.violencia or previous.violencia
        if previous.methods:
            kept.append("method")
    if current.window is None:
        merged.window, merged.window_text = previous.window, previous.window_text
        merged.compare_window = previous.compare_window
        kept.append("window")
    if not _explicit_kind(current):
        merged.kind = previous.kind
        merged.group_by_municipio = previous.group_by_municipio or current.group_by_municipio
        new_municipality = any(p.nivel == "municipio" for p in current.places)
        if previous.kind == "ranking" and new_municipality:  # "top 5…" then "¿y en Celaya?": Celaya's value
            merged.kind, merged.group_by_municipio = "single_value", False
        if merged.kind == "comparison" and current.window is not None and current.compare_window is None:
            merged.compare_window = None  # a new single period: the comparison base is recomputed downstream
        kept.append("kind")
    _relative_window(merged, current, previous)
    merged.top_k = current.top_k if current.top_k is not None else previous.top_k
    if "order:asc" not in current.signals:
        merged.order = previous.order
    if not any(s in current.signals for s in ("medida:tasa", "medida:conteo")):
        merged.medida = previous.medida
    merged.wants_evidence = current.wants_evidence or previous.wants_evidence
    merged.signals += ["followup:merged"] + [f"followup:kept:{k}" for k in kept]
    merged.signals = list(dict.fromkeys(merged.signals))
    return merged


# -- rewriting ------------------------------------------------------------------------------
_MASS = {
    "violencia",
    "trata",
    "corrupcion",
    "narcomenudeo",
    "falsedad",
    "falsificacion",
    "incumplimiento",
    "evasion",
    "contra",
    "otros",
    "delitos",
    "trafico",
    "dano",
    "despojo",
    "incesto",
    "allanamiento",
    "total",
}
_STOP = {"de", "a", "en", "con", "del", "al", "la", "el", "que", "y", "por", "sin"}
_ACCENT_OUT = str.maketrans("áéíóú", "aeiou")


def _plural_word(word: str) -> str:
    if word.endswith("s"):
        return word
    if word.endswith(("ón", "ión")):
        return word[:-2] + "ones"
    if word.endswith("z"):
        return word[:-1] + "ces"
    if word[-1].translate(_ACCENT_OUT) in "aeiou":
        return word + "s"
    return word + "es"


def crime_phrase(label: str) -> str:
    """'Homicidio doloso' → 'homicidios dolosos'; mass nouns → 'casos de violencia familiar'."""
    words = label.split()
    if not words:
        return "delitos"
    words[0] = words[0][0].lower() + words[0][1:]
    first = words[0].translate(_ACCENT_OUT).lower()
    if first in _MASS:
        return "casos de " + " ".join(words)
    out = []
    plural = True
    for w in words:
        if w.lower() in _STOP:
            plural = False
        out.append(_plural_word(w.lower()) if plural else w)
    return " ".join(out)


def _feminine(phrase: str) -> bool:
    first = phrase.split()[0].translate(_ACCENT_OUT)
    return first.endswith(("as", "iones", "ones")) and not first.startswith("casos")


def _methods_phrase(u: Understanding, lexicon) -> str:
    parts = []
    for m in u.methods:
        ref = getattr(lexicon, "method_by_key", {}).get(m)
        label = ref.label if ref else m.replace("_", " ")
        low = label[0].lower() + label[1:]
        low = low.replace(" Con ", " con ").replace(" Sin ", " sin ")
        first = low.split()[0] if low.split() else ""
        parts.append(low if first in ("con", "sin", "en", "por", "a") else f"en la modalidad «{low}»")
    if u.violencia and not any(p.startswith(("con violencia", "sin violencia")) or "violencia" in p for p in parts):
        parts.append(f"{u.violencia} violencia")
    return (" " + " y ".join(parts)) if parts else ""


def _crimes_text(u: Understanding) -> tuple[str, bool]:
    crimes = [c for c in u.crimes if c.delito != "total_delitos"]
    if not crimes:
        return "delitos", False
    phrases = [crime_phrase(c.label) for c in crimes]
    if len(phrases) == 1:
        return phrases[0], _feminine(phrases[0])
    joined = ", ".join(phrases[:-1]) + " y " + phrases[-1]
    return "casos de " + joined, False


def _place_text(u: Understanding, lexicon) -> str:
    munis = [p.label for p in u.places if p.nivel == "municipio"]
    states = [p.label for p in u.places if p.nivel == "estado"]
    if munis:
        return "en " + (munis[0] if len(munis) == 1 else ", ".join(munis[:-1]) + " y " + munis[-1])
    if states:
        return f"en todo el estado de {states[0]}"
    if u.ambiguous_places:
        return f"en {u.ambiguous_places[0][0].text}"
    if u.generic_place:
        g = u.generic_place
        return g if g.split()[0] in ("en", "de", "por", "para", "cerca") else f"en {g}"
    return ""


def _state_label(u: Understanding, lexicon) -> str:
    states = [p.label for p in u.places if p.nivel == "estado"]
    if states:
        return states[0]
    home = getattr(lexicon, "home_state", None)
    ref = getattr(lexicon, "entities", {}).get(home) if home else None
    return ref.label if ref else "el estado"


def _window_text(w) -> str:
    return f"entre {w[0].isoformat()} y {w[1].isoformat()}" if w else ""


def describe(u: Understanding, lexicon=None) -> str:
    """A complete Spanish question from the slots (the rewritten standalone question)."""
    crimes, fem = _crimes_text(u)
    crimes += _methods_phrase(u, lexicon)
    place = _place_text(u, lexicon)
    window = _window_text(u.window)
    rate = u.medida == "tasa_per_100k"
    state = _state_label(u, lexicon)
    if u.kind == "ranking":
        k = u.top_k
        most = "menor" if u.order == "asc" else "mayor"
        more = "menos" if u.order == "asc" else "más"
        measure = f"con {most} tasa de {crimes} por 100 mil habitantes" if rate else f"con {more} {crimes}"
        head = (
            "¿Cuál es el municipio"
            if k == 1
            else (f"¿Cuáles son los {k} municipios" if k else "¿Cuáles son los municipios")
        )
        parts = [head, measure, f"de {state}", window]
    elif u.kind == "series":
        parts = ["¿Cómo evolucionaron mes por mes", ("la tasa de " if rate else "los ") + crimes, place, window]
    elif u.kind == "comparison":
        base = _window_text(u.compare_window) if u.compare_window else "respecto al periodo anterior"
        if u.compare_window:
            base = "comparado con el periodo " + base[len("entre ") :].replace(" y ", " a ", 1)
        parts = ["¿Cómo cambiaron los" if not fem else "¿Cómo cambiaron las", crimes, place, window, base]
    elif u.kind == "share":
        focus = place if any(p.nivel == "municipio" for p in u.places) else "en cada municipio"
        parts = [f"¿Qué porcentaje de los {crimes} de {state} ocurrió", focus, window]
    elif u.kind == "anomalies":
        parts = [f"¿Hubo meses atípicos o picos de {crimes}", place, window]
    elif u.kind == "patterns":
        what = "estacionalidad" if any(s == "kind:seasonality" for s in u.signals) else "patrones de co-ocurrencia"
        parts = [f"¿Qué {what} muestran los {crimes}", place, window]
    elif u.kind == "annual_total" and u.group_by_municipio:
        k, more = u.top_k, "menos" if u.order == "asc" else "más"
        head = (
            "¿Cuál es el municipio"
            if k == 1
            else (f"¿Cuáles son los {k} municipios" if k else "¿Cuáles son los municipios")
        )
        parts = [head, f"con {more} delitos del fuero común (total anual) de {state}", window]
    elif u.kind == "annual_total":
        parts = ["¿Cuál fue el total anual de delitos del fuero común", place or f"en {state}", window]
    elif u.kind == "evidence":
        parts = [f"¿De qué registros sale el dato de {crimes}", place, window]
    elif rate:
        parts = [f"¿Cuál fue la tasa de {crimes} por 100 mil habitantes", place, window]
    else:
        parts = ["¿Cuántas" if fem else "¿Cuántos", crimes, "hubo", place, window]
    text = " ".join(p for p in parts if p).strip()
    text = re.sub(r"\s+", " ", text)
    if u.wants_evidence and u.kind != "evidence":
        text += ", con la evidencia"
    return text + "?"
