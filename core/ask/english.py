"""English words in a question, read as the Spanish the understanding knows («how many homicidio doloso cases did
Jalisco report in 2023?», «What's the intentional homicide rate per 100k in Leon?», «and in the whole state?»).

Casandra answers in Spanish. A consulate intern or a foreign correspondent writes English, or mixes both in one
sentence; the understanding reads Spanish. A message with English function words has its English phrases written
as their Spanish (crimes, measures, places, periods, follow-up cues) before anything reads it; words this table does
not hold stay as written, so the understood-or-asked guard still reports them. A Spanish message is left untouched.
"""

from __future__ import annotations

import re

# two of these make a message English, in part or whole («and where does Guanajuato rank in that?»)
_MARKERS = frozenset(
    [
        "the",
        "how",
        "many",
        "much",
        "what",
        "what's",
        "whats",
        "where",
        "which",
        "when",
        "did",
        "does",
        "do",
        "was",
        "were",
        "is",
        "are",
        "there",
        "and",
        "in",
        "of",
        "for",
        "per",
        "ranked",
        "rate",
        "cases",
        "nationally",
        "whole",
        "state",
        "country",
        "year",
        "month",
        "thanks",
        "thank",
        "please",
        "i",
        "i'm",
        "im",
        "need",
        "want",
        "could",
        "can",
        "you",
    ]
)
_SPANISH = frozenset(
    ["de", "la", "el", "en", "que", "cuantos", "cuantas", "los", "las", "del", "hubo", "por", "y", "es"]
)

# longest first within each line: a phrase is replaced before its words
_PHRASES: tuple[tuple[str, str], ...] = (
    # crimes
    (r"intentional\s+homicides?|murders?|homicides?\s+\(intentional\)", "homicidios dolosos"),
    (r"(?:unintentional|negligent|culpable)\s+homicides?|manslaughters?", "homicidios culposos"),
    (r"homicides?", "homicidios"),
    (r"femicides?|feminicides?", "feminicidios"),
    (r"kidnappings?|abductions?", "secuestros"),
    (r"domestic\s+violence|family\s+violence", "violencia familiar"),
    (r"extortions?", "extorsion"),
    (r"car\s+thefts?|vehicle\s+thefts?|stolen\s+cars?", "robo de vehiculo"),
    (r"robber(?:y|ies)|thefts?", "robos"),
    (r"drug\s+dealing|drug\s+trafficking|narcotics", "narcomenudeo"),
    (r"rapes?", "violaciones"),
    (r"frauds?", "fraude"),
    (r"threats?", "amenazas"),
    (r"crimes?|offen[cs]es?", "delitos"),
    # measures and shapes
    (r"per\s+100\s*(?:k|,000|000|\s+thousand)(?:\s+(?:people|inhabitants|residents))?", "por 100 mil habitantes"),
    (r"(?:the\s+)?rate", "la tasa"),
    (r"where\s+(?:does|did|do)\s+(\w+)\s+rank", r"en que lugar queda \1"),
    (r"(?:what\s+)?(?:place|position|rank)\s+(?:does|did|is)\s+(\w+)", r"en que lugar queda \1"),
    (r"rank(?:ing|ed)?", "ranking"),
    (r"how\s+many|number\s+of", "cuantos"),
    (r"what(?:'s|\s+is|\s+was)\s+the", "cual es"),
    (r"which\s+(?:month|year)", "que mes"),
    (r"cases?|incidents?", "casos"),
    (r"(?:was|is)\s+(?:that|it)\s+(?:more|higher)\s+than|more\s+than", "fue mas que"),
    (r"(?:was|is)\s+(?:that|it)\s+(?:less|lower)\s+than|less\s+than|fewer\s+than", "fue menos que"),
    (r"in\s+that|on\s+that", "en eso"),
    # places and periods
    (r"(?:in\s+)?the\s+whole\s+(?:state|country)|(?:in\s+)?all\s+of\s+the\s+state", "en todo el estado"),
    (r"nationally|nationwide|in\s+the\s+(?:whole\s+)?country|in\s+mexico", "a nivel nacional"),
    (r"that\s+(?:same\s+)?year", "ese año"),
    (r"last\s+year", "el año pasado"),
    (r"so\s+far\s+this\s+year|this\s+year\s+so\s+far", "en lo que va del año"),
    # glue
    (r"^(?:ok(?:ay)?\s*,?\s*)?and\b", "y"),
    (r"\band\b", "y"),
    (r"\b(?:in|at|for)\b", "en"),
    (r"\bthanks|thank\s+you(?:\s+so\s+much)?|thx\b", "gracias"),
    (r"\bperfect\b", "perfecto"),
)
_COMPILED = tuple((re.compile(rf"(?<![\w'])(?:{p})(?![\w'])", re.IGNORECASE), s) for p, s in _PHRASES)
# what an English question adds around its slots and says nothing: «did Jalisco report», «were there»
_FILLER = re.compile(
    r"(?<![\w'])(?:did|does|do|were\s+there|was\s+there|there\s+were|report(?:ed)?|have|has|had|the)(?![\w'])",
    re.IGNORECASE,
)


_INTRODUCTION = re.compile(
    r"^\W*(?:(?:hi|hello|hey|good\s+(?:morning|afternoon|evening))\W+)?(?:i'm|i\s+am|im|we\s+are|we're)\b[^,.;?!]*[,.;]\s*"
    r"(?=.*\b(?:how|what|which|where|when|cuant|cual|que)\b)",
    re.IGNORECASE,
)


def looks_english(text: str) -> bool:
    """Whether a message holds English function words (at least two), whatever else it holds."""
    words = re.findall(r"[a-z']+", text.lower())
    english = sum(w in _MARKERS for w in words)
    return english >= 2 and english >= sum(w in _SPANISH for w in words) // 2


def as_spanish(question: str) -> str:
    """``question`` with its English phrases written in Spanish; unchanged unless it looks English."""
    if not looks_english(question):
        return question
    # «Hi! I'm an intern at the US consulate in Leon, how many…»: who is writing, where they work, is no slot
    text = _INTRODUCTION.sub("", question)
    for rx, spanish in _COMPILED:
        text = rx.sub(spanish, text)
    return re.sub(r"\s{2,}", " ", _FILLER.sub(" ", text)).strip()
