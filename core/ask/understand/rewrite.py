"""The rewritten standalone question: a follow-up's merged slots said back as one complete Spanish question.

``describe(u)`` is what the intake stage stores as ``rewritten_question`` (docs/contracts/004_chatbot_graph.md §2.1):
"¿y en Celaya?" after "¿Cuántos homicidios dolosos hubo en León en 2024?" becomes "¿Cuántos homicidios dolosos
hubo en Celaya entre 2024-01-01 y 2024-12-31?".
"""

from __future__ import annotations

import re

from core.ask.understand import Understanding

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


def is_feminine(phrase: str) -> bool:
    """Whether a crime phrase takes «cuántas» («lesiones dolosas», «violaciones»), not «cuántos»."""
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
        return phrases[0], is_feminine(phrases[0])
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
