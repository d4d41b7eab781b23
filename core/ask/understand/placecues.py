"""When a word that is also an ordinary word is a place: the cues before a weak name («en Valle», «de Dolores»),
a list of places around it («valle, yuririá y salvatierra») and the words after it («Victoria de Durango»); and
when a place named is where the asker writes from, not the place asked about («hablo de una radio en Monterrey.»).

``core.ask.understand.places`` asks ``weak_name_taken`` before it takes a weak name («Valle», «Victoria», «Dolores»)
as the municipality; ``cue_before`` is also read by the accounting of unread words.
"""

from __future__ import annotations

import re

from core.ask.understand.lexicon import WEAK_NAMES, Lexicon
from core.ask.understand.tokens import Tokens, tokenize, words_of

_MONTH_WORDS = words_of(
    "enero febrero marzo abril mayo junio julio agosto septiembre setiembre octubre noviembre diciembre"
)
# Words after which a bare name is clearly a place ("en Valle", "de Dolores", "y Victoria").
PLACE_CUES = words_of("en de del para a y e o vs contra entre municipio ciudad cd desde hacia sobre versus ,")


def cue_before(tokens: Tokens, i: int) -> bool:
    """A place cue right before token i ("en Valle"), or before its article ("en el Valle")."""
    if i > 0 and tokens.words[i - 1] in PLACE_CUES:
        return True
    if i > 0 and tokens.words[i - 1] == "con" and any(w.startswith("compar") for w in tokens.words[: i - 1]):
        return True  # «compara SMA con Dolores»: «con» after a comparison verb introduces the other place
    return i > 1 and tokens.words[i - 1] in ("el", "la", "los", "las") and tokens.words[i - 2] in PLACE_CUES


def listed_beside_place(tokens: Tokens, i: int, j: int, lex: Lexicon) -> bool:
    """A weak name listed beside a place («lado a lado valle, yuririá y salvatierra»): a place too."""

    def strong(a: int, b: int) -> bool:
        return any(not e.weak for e in lex.places.get(tokens.phrase(a, b), ()))

    after = j < len(tokens) - 1 and tokens.words[j] in (",", "y", "e")
    before = i > 1 and tokens.words[i - 1] in (",", "y", "e")
    return (after and any(strong(j + 1, j + 1 + n) for n in (1, 2, 3, 4))) or (
        before and any(strong(i - 1 - n, i - 1) for n in (1, 2, 3, 4) if i - 1 - n >= 0)
    )


def state_after(tokens: Tokens, i: int, lex: Lexicon) -> bool:
    """Whether a state name starts at token i ("Dolores de Guanajuato" is still Dolores)."""
    return any(e.entity.nivel == "estado" for n in (1, 2, 3) for e in lex.places.get(tokens.phrase(i, i + n), ()))


def weak_name_taken(tokens: Tokens, i: int, j: int, key: str, lex: Lexicon) -> bool:
    """Whether the name at tokens i..j is taken as a place: always unless weak; a weak one after a cue or listed
    beside a place, and not starting a longer name."""
    entries = lex.places.get(key) or ()
    weak = all(e.weak for e in entries) if entries else key in WEAK_NAMES
    if not weak:
        return True
    # "el valle de la muerte", "Victoria de Durango": the weak word starts some other name
    after = tokens.words[j + 1] if j + 1 < len(tokens) else ""
    # «en Dolores de 2015 a 2024»: «de» before a year or a month starts the period, not a longer name
    period_next = after.isdigit() or after in _MONTH_WORDS
    followed = (
        j < len(tokens) and tokens.words[j] in ("de", "del") and not period_next and not state_after(tokens, j + 1, lex)
    )
    # «ahora dolores», «¿y valle?», «dolores?»: a name said alone (a follow-up's whole message) is the place
    alone = all(w in _ALONE_WORDS or not w.isalnum() for k, w in enumerate(tokens.words) if not i <= k < j)
    return (cue_before(tokens, i) or listed_beside_place(tokens, i, j, lex) or alone) and not followed


_ALONE_WORDS = frozenset(("ahora", "y", "e", "en", "pues", "ok", "sale", "bueno", "va", "tambien", "que", "tal", "con"))


# who is writing, said in a sentence of its own before the question («hablo de una radio en Monterrey.», «soy
# reportera en Toluca.», «le escribo de la dirección de planeación de Celaya.», «somos de la unión ganadera: …»)
_INTRO_SENTENCE = re.compile(
    r"^[^.?!¿;:]*?\b(?:soy|somos|hablo|hablamos|trabajo|trabajamos|escribo|escribimos|represento|representamos|colaboro"
    r"|colaboramos|vivo|vivimos|llamo|llamamos)\b[^.?!¿;:]*[.?!;:]"
)
# a heading of up to ten words before a colon that opens the message («Planeación Qro: cuántos…», «Urgente: …»);
# «10:30» is a time, not a heading
_LABEL = re.compile(r"^\s*¿?(?:[^\s:.?!¿;,]+\s+){0,9}[^\s:.?!¿;,\d]+\s*:(?!\d)\s*(?=\S)")


def introduction_end(normalized: str) -> int:
    """How many tokens the asker's introduction sentence (or a heading before a colon) takes at the start of
    ``normalized``; 0 without one."""
    found = _INTRO_SENTENCE.match(normalized) or _LABEL.match(normalized)
    return len(tokenize(found.group(0)).words) if found else 0


def introduction_chars(normalized: str) -> int:
    """How many characters of ``normalized`` the introduction sentence or heading takes; 0 without one."""
    found = _INTRO_SENTENCE.match(normalized) or _LABEL.match(normalized)
    return found.end() if found else 0


def colon_marks(question: str) -> frozenset[int]:
    """The token positions where a colon ends a clause («en el Bajío: primero Qro») — the tokens drop colons."""
    text = question or ""
    return frozenset(len(tokenize(text[: m.start()]).words) for m in re.finditer(r":(?!\d)", text))
