"""A follow-up to a national question: what it keeps of the previous scope (the states, the measure — federal crimes,
victims, the 2026 methodology — and the federal crime narrowed), and the 2026 methodology a merged window reaches.

``core.ask.understand.followup.merge_follow_up`` calls ``carry`` last, on the merged understanding.
"""

from __future__ import annotations

import re
from dataclasses import replace

from core.ask.understand import Understanding
from core.ask.understand.continuation import restated
from core.ask.understand.national import (
    MEASURES,
    RNID_YEAR,
    WE,
    federal_key,
    foreign_states,
    into_2026,
)
from core.ask.understand.tokens import tokenize


def carry(merged: Understanding, current: Understanding, previous: Understanding) -> Understanding:
    """A follow-up to a national question stays national («¿y Michoacán?», «¿y en Nuevo León?», «¿y en
    feminicidios?»): the previous scope, with the states it names in place of the previous ones; a follow-up whose
    merged window is in 2026 reads the 2026 methodology («¿y en todo Guanajuato ese mes?» after January 2026)."""
    return into_2026(_carry(merged, current, previous))


def _carry(merged: Understanding, current: Understanding, previous: Understanding) -> Understanding:
    before = [s for s in previous.signals if s.startswith("national:")]
    if re.search(r"\bfuero\s+comun\b", tokenize(current.question or "").text):  # «y el del fuero común…»
        before = [s for s in before if not s.startswith("national:federal")]
        merged = replace(merged, signals=[s for s in merged.signals if not s.startswith("national:federal")])
    own = [s for s in current.signals if s.startswith("national:")]
    key = "national:federal_key:"
    narrowed = federal_key(tokenize(current.question or "").text, federal_said=True)
    if "national:federal" in before and narrowed and not any(s.startswith(key) for s in own):
        # «solo los de armas» after federal crimes: that law's crimes, in the same state and period
        before = [s for s in before if not s.startswith(key)] + [f"{key}{narrowed}"]
        merged = replace(merged, signals=[s for s in merged.signals if not s.startswith(key)] + [f"{key}{narrowed}"])
    said = tokenize(current.question or "").text
    carpetas = re.search(r"\b(?:carpetas?|denuncias?|delitos)\b", said) and not re.search(r"\bvictimas?\b", said)
    if (
        "national:victims" in before
        and "national:victims" not in current.signals
        and (carpetas or restated(current, previous))
    ):
        # a whole new question, or «ahora feminicidio, carpetas en Oaxaca»: counted as carpetas again
        before = [s for s in before if s != "national:victims"]
        if all(s.startswith("national:place:") for s in before):
            before = []  # nothing left of the previous scope but its state: the question's own scope stands
        merged = replace(merged, signals=[s for s in merged.signals if s != "national:victims"])
    if "national:victims" in before and any(p.nivel == "municipio" for p in merged.places):
        merged = replace(merged, signals=[*merged.signals, "victims:municipal"])  # «¿y de esas, cuántas en León?»
    dropped_key = any(s.startswith(key) for s in before) and not any(s.startswith(key) for s in own)
    if dropped_key and re.search(r"\btotal\b", tokenize(current.question or "").text):
        before = [s for s in before if not s.startswith(key)]  # «y el total federal del país»: the filter goes
        merged = replace(merged, signals=[s for s in merged.signals if not s.startswith(key)], methods=[])
    if not before or (own and "national:alone" not in own):
        # «¿y en todo el país?» after federal crimes, victims or a 2026 month: another place, the same measure
        measure = [s for s in before if s.startswith(MEASURES)]
        states_before = [s for s in before if s.startswith("national:place:")]
        own_measure = any(s.startswith(MEASURES) for s in own)
        own_state = any(s.startswith("national:place:") for s in own)
        if own_measure and states_before and not (current.places or own_state):  # «y de las víctimas de esos…»
            merged = replace(merged, signals=list(dict.fromkeys([*merged.signals, *states_before])))
        ours = WE.search(tokenize(current.question or "").text)
        # «¿y en qué lugar nacional quedó?»: the country is the ranking's frame, the state is the talk's
        ranked = re.search(r"\b(?:lugar|puesto|posicion|sitio)\b", tokenize(current.question or "").text)
        frame = "national:place:MX" not in own or ranked
        its_rank = "national:rank" in own and "national:which_state" not in own and bool(frame)
        named = any(x.startswith("national:place:") and x != "national:place:MX" for x in own)
        if (ours or its_rank) and states_before and not (current.places or named):
            # «¿en qué lugar quedamos?» in a talk about Jalisco (an adviser of its congress), «¿y en qué puesto
            # queda?» after Nuevo León: that state, not ours nor the country's list
            signals = [s for s in merged.signals if s != "national:place:MX"]
            merged = replace(
                merged, signals=list(dict.fromkeys([*signals, *states_before])), whole_state=False, places=[]
            )
        # «tráfico de menores, mismo periodo, todo el país» after victims: a new crime, the talk's measure
        goes_on = not current.crimes or ("time:previous_window" in current.signals and not carpetas)
        if own and measure and goes_on and not any(s.startswith(MEASURES) for s in own):
            signals = list(dict.fromkeys([*merged.signals, *measure]))
            if "national:place:MX" in own and not current.places:  # the country in place of the previous state
                signals = [s for s in signals if not s.startswith("national:place:") or s == "national:place:MX"]
                merged = replace(merged, places=[], whole_state=False)
            return _before_2026(replace(merged, signals=signals))
        return merged
    if any(p.nivel == "municipio" for p in merged.places):
        return merged  # «¿y en León?»: municipal again
    # «¿y en Nuevo León?» after a federal or victims question: that scope, for the state named
    states = foreign_states(current) or [s.rsplit(":", 1)[1] for s in own if s.startswith("national:place:")]
    merged = replace(merged, signals=[s for s in merged.signals if s not in own])
    scope_ = [s for s in before if not (states and s.startswith("national:place:"))]
    kept = [t for t in merged.unknown_terms if not (t.kind == "place_foreign" and states)]
    dropped = {s for s in merged.signals if s.startswith("place:not_in_store:") or s == "place:other_state"}
    signals = [s for s in merged.signals if s not in dropped] + scope_ + [f"national:place:{s}" for s in states]
    places = [p for p in merged.places if not states] if states else merged.places
    whole = merged.whole_state and not states
    merged = replace(merged, unknown_terms=kept, signals=list(dict.fromkeys(signals)), places=places, whole_state=whole)
    return _before_2026(merged)


def _before_2026(u: Understanding) -> Understanding:
    """«¿y en el mismo periodo de 2025?» after a 2026 question: the series to 2025 again (the 2026 methodology only
    for 2026 windows). A question national only for its 2026 window (Guanajuato's) goes back to the municipal sums:
    its 2026 period, of another methodology and published by state only, is said, not compared."""
    windows = [w for w in (u.window, u.compare_window) if w is not None]
    before = [w for w in windows if w[1].year < RNID_YEAR]
    if not before or "crime:rnid_only" in u.signals:
        return u
    crossing = len(before) < len(windows)
    scope = "national:rnid_scope" in u.signals
    if crossing and not scope:
        return u  # a state's 2025 beside its 2026: each period in its own methodology (plan/national.py)
    drop = {"national:rnid", "national:rank", "national:rnid_scope"} if scope else {"national:rnid"}
    notes = list(u.notes)
    if crossing:
        notes.append(
            "El periodo de 2026 se publica con otra metodología (RNID) y solo por estado: no es comparable con la "
            "serie hasta 2025, así que doy la cifra del periodo pedido."
        )
    kind = "single_value" if crossing and u.kind == "comparison" else u.kind
    window, compare = (before[0], None) if crossing else (u.window, u.compare_window)
    signals = [s for s in u.signals if s not in drop]
    return replace(u, signals=signals, notes=notes, kind=kind, window=window, compare_window=compare)


# «¿En qué lugar queda la capital?», «dame el de toda la ciudad» in a talk about the Ciudad de México
_CAPITAL = re.compile(r"\b(?:la\s+capital(?:\s+del\s+pais)?|(?:toda\s+)?la\s+ciudad(?:\s+de\s+mexico)?)\b")
_CITY_WORDS = frozenset({"capital", "ciudad"})


def capital_city(current: Understanding, conversation) -> Understanding:
    """«la capital», «toda la ciudad» when the talk's last state is the Ciudad de México: that state (its state
    file), never Guanajuato's capital; unchanged in any other talk or when another place is named."""
    text = tokenize(current.question or "").text
    if not _CAPITAL.search(text) or any(not (_CITY_WORDS & set(p.text.split())) for p in current.places):
        return current
    last = _talk_state(conversation)
    country = re.search(r"\bcapital\s+(?:del\s+pais|de\s+la\s+republica|de\s+mexico|nacional)\b", text)
    if last != "CDMX" and not country:  # «¿y la capital del país?» is the CDMX in any talk
        return current
    terms = [t for t in current.unknown_terms if t.kind != "place_deictic" and t.text != "nacional"]
    signals = [s for s in current.signals if not s.startswith(("place:", "group_by:"))]
    signals += ["national:rank", "national:place:CDMX"]
    kind = "single_value" if current.kind == "ranking" else current.kind
    return replace(
        current,
        places=[],
        generic_place=None,
        unknown_terms=terms,
        signals=signals,
        group_by_municipio=False,
        kind=kind,
    )


def _talk_state(conversation) -> str | None:
    """The state the talk was last about: its last national turn's state, or Guanajuato when a turn about one of its
    places came after; None when nothing was said."""
    for turn in reversed(getattr(conversation, "turns", None) or []):
        u = getattr(turn, "understanding", None)
        states = [s.rsplit(":", 1)[1] for s in (u.signals if u else []) if s.startswith("national:place:")]
        if states:
            return states[-1]
        if u is not None and (u.places or u.whole_state):
            return "GTO"
    return None


_BACK_TO_STATE = re.compile(
    r"\b(?:volviendo|regresando|de\s+vuelta|regresemos|volvamos|regresa|vuelve)\s+al\s+estado\b"
)


def back_to_talk_state(current: Understanding, conversation) -> Understanding:
    """«volviendo al estado» in a talk about Michoacán (after one of its municipalities): that state, never ours."""
    text = tokenize(current.question or "").text
    named = any(s.startswith("national:place:") for s in current.signals)
    if not _BACK_TO_STATE.search(text) or named or any(p.nivel == "municipio" for p in current.places):
        return current
    last = _talk_state(conversation)
    if last in (None, "MX", "GTO"):
        return current
    signals = [s for s in current.signals if not s.startswith("place:")] + ["national:rank", f"national:place:{last}"]
    return replace(current, places=[], whole_state=False, signals=signals)
