"""Tokens of a question: accent-free words with positions, singular stems and Spanish numbers.

Every matcher (time, crimes, places, kind) works on the same token list, so the spans one
matcher claims can be masked for the next without re-tokenizing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from core.ask.understand.robbery import elided_robbery, robbery_as_noun, victims_as_noun
from core.text import normalize_text

# Words, numbers with thousands separators ("100,000"), and the symbols that carry meaning.
# A comma is a token too: "homicidios, dolosos y culposos" must not read as "homicidios dolosos".
MAX_CHARS = 2000  # longer text is cut before tokenizing: no analyst question is longer, and it bounds the work
_TOKEN = re.compile(r"[a-z0-9]+(?:[.,][0-9]{3})*|[%/\-,]")


def words_of(text: str) -> frozenset[str]:
    """The whitespace-separated words of a vocabulary written as one readable block of text."""
    return frozenset(text.split())


# Function words: never a place or crime on their own, never the edge of a fuzzy n-gram.
STOPWORDS = words_of(
    "a al ante con contra de del desde e el en entre hacia hasta la las lo los o para por que se segun sin "
    "sobre su sus tras u un una unos unas y ya mi mis me le les nos es son fue fueron ha han hay ser esta este "
    "esto estos estas eso esa ese como cual cuales cuando donde quien cuanto cuanta cuantos cuantas muy mas menos "
    "pero aunque pues tambien"  # conjunctions: «casa habitación pero para León» is no crime name
)

# Question vocabulary that must never be read as a (fuzzy) place or crime name.
COMMON_WORDS = words_of(
    """
    hubo habido hubieron registro registraron registrado registrados registradas ocurrieron ocurrio ocurren
    paso pasaron cometieron cometidos cometidas casos caso delito delitos incidencia incidencias numero cantidad
    total totales suma sumas sumar sumado sumados cifra cifras dato datos dame dime muestrame muestra quiero saber podrias puedes favor gracias
    municipio municipios ciudad ciudades estado estados entidad entidades lugar lugares zona zonas region
    top ranking lista listado tabla grafica serie series tendencia tendencias evolucion mensual anual
    mes meses ano anos periodo periodos trimestre trimestres semestre semestres semana semanas dia dias hoy ayer
    ultimo ultimos ultima ultimas primer primero primeros segundo tercer cuarto pasado pasada anterior actual
    enero febrero marzo abril mayo junio julio agosto septiembre setiembre octubre noviembre diciembre
    tasa tasas habitantes habitante poblacion porcentaje proporcion parte comparado comparacion compara comparar
    versus aumento aumentaron disminuyo disminuyeron cambio cambiaron subio bajo crecio variacion diferencia
    anomalias anomalia picos pico atipico atipicos inusual repunte patrones patron estacionalidad juntos
    evidencia fuente filas registros mayor menor mayores menores mejor peor peores mejores principales
    violencia violento violentos violenta violentas arma armas fuego blanca otro otros otra otras elemento
    tipo tipos modalidad modalidades personas victimas victima gente cuanto tanto tanta nivel general todo toda
    todos todas cada vez veces sido tenido tuvo tuvieron tiene tienen capital provincia colonia aqui alla
    tarjeta tarjetas nota notas informe reporte articulo completo completa completos completas entero entera
    """
)

# Spanish number words used for "top cinco", "últimos doce meses".
NUMBER_WORDS = {
    "un": 1,
    "uno": 1,
    "una": 1,
    "dos": 2,
    "tres": 3,
    "cuatro": 4,
    "cinco": 5,
    "seis": 6,
    "siete": 7,
    "ocho": 8,
    "nueve": 9,
    "diez": 10,
    "once": 11,
    "doce": 12,
    "trece": 13,
    "catorce": 14,
    "quince": 15,
    "dieciseis": 16,
    "diecisiete": 17,
    "dieciocho": 18,
    "diecinueve": 19,
    "veinte": 20,
    "veinticuatro": 24,
    "treinta": 30,
    "treintaiseis": 36,
}
NUMBER_RE = r"(?:\d{1,3}|" + "|".join(sorted(NUMBER_WORDS, key=len, reverse=True)) + ")"

# The grammar of Spanish cardinals, for "dos mil veintitrés", "treinta y seis", "ciento veinte".
_UNITS = {
    **{w: v for w, v in NUMBER_WORDS.items() if v < 30 and w not in ("treintaiseis",)},
    "cero": 0,
    "dieciseis": 16,
    "veintiun": 21,
    "veintiuno": 21,
    "veintiuna": 21,
    "veintidos": 22,
    "veintitres": 23,
    "veinticinco": 25,
    "veintiseis": 26,
    "veintisiete": 27,
    "veintiocho": 28,
    "veintinueve": 29,
}
_TENS = {"treinta": 30, "cuarenta": 40, "cincuenta": 50, "sesenta": 60, "setenta": 70, "ochenta": 80, "noventa": 90}
_HUNDREDS = {
    "cien": 100,
    "ciento": 100,
    "doscientos": 200,
    "trescientos": 300,
    "cuatrocientos": 400,
    "quinientos": 500,
    "seiscientos": 600,
    "setecientos": 700,
    "ochocientos": 800,
    "novecientos": 900,
}
_NUMBER_PARTS = {**_UNITS, **_TENS, **_HUNDREDS, "mil": 1000}
_NOT_ALONE = frozenset({"un", "uno", "una", "cero", "mil", "cien", "ciento"})


def spanish_number(words) -> tuple[int, int] | None:
    """The value of the Spanish cardinal that starts ``words`` and how many words it takes (None: no number)."""
    total = current = used = 0
    k = 0
    while k < len(words):
        w = words[k]
        if w == "y" and k > 0 and words[k - 1] in _TENS and k + 1 < len(words) and words[k + 1] in _UNITS:
            k += 1  # "treinta y seis": "y" joins tens and units only
            continue
        if w not in _NUMBER_PARTS:
            break
        if w == "mil":
            total += max(current, 1) * 1000
            current = 0
        else:
            current += _NUMBER_PARTS[w]
        k += 1
        used = k
    if not used:
        return None
    return total + current, used


def _digits_for_words(words: list[str]) -> list[str]:
    """Number words → digits ("dos mil veintitrés" → "2023"); a lone "un"/"cien" and a rate's "mil" stay words."""
    out, k = [], 0
    while k < len(words):
        spoken = _UNITS.get(words[k + 1]) if words[k] == "veinte" and k + 1 < len(words) else None
        if spoken is not None and 10 <= spoken <= 29:  # «el veinte veinte», «veinte veinticuatro»: a year said aloud
            out.append(str(2000 + spoken))
            k += 2
            continue
        found = spanish_number(words[k:]) if words[k] in _NUMBER_PARTS else None
        if found is None:
            out.append(words[k])
            k += 1
            continue
        value, n = found
        if (n == 1 and words[k] in _NOT_ALONE) or words[k + n - 1] == "mil":  # "por cada cien mil habitantes"
            out.extend(words[k : k + n])
        else:
            out.append(str(value))
        k += n
    return out


_NO_STEM = frozenset({"mas", "menos", "tres", "seis", "dos", "pais", "vs", "versus", "crisis", "gas"})


def number_value(token: str) -> int | None:
    """The integer a digit string or Spanish number word stands for (None otherwise)."""
    if token.isdigit():
        return int(token)
    return NUMBER_WORDS.get(token)


def stem(token: str) -> str:
    """A crude singular form, so 'homicidios dolosos' and 'homicidio doloso' share one key."""
    if len(token) <= 4 or token in _NO_STEM or not token.isalpha():
        return token
    if token.endswith("iones"):
        return token[:-2]
    if token.endswith("ces"):
        return token[:-3] + "z"
    if token.endswith("es") and token[-3] in "lrndj":
        return token[:-2]
    if token.endswith("s"):
        return token[:-1]
    return token


def feminine(key: str) -> str | None:
    """The feminine of a key whose participles say who died («asesinado a balazo» → «asesinada a balazo»); None
    when it has none (the stems are singular, not gender-free)."""
    words = key.split()
    fem = [w[:-1] + "a" if w.endswith(("ado", "ido")) or w == "muerto" else w for w in words]
    return " ".join(fem) if fem != words else None


@dataclass(frozen=True)
class Tokens:
    """The question as accent-free tokens, with their stems and character offsets in ``text``."""

    words: tuple[str, ...]
    stems: tuple[str, ...]
    text: str  # the words joined by single spaces: what the regexes run on
    starts: tuple[int, ...]

    def __len__(self) -> int:
        return len(self.words)

    def span_of(self, char_start: int, char_end: int) -> tuple[int, int]:
        """Token range [i, j) covered by a character range of ``text``."""
        i = next((k for k, s in enumerate(self.starts) if s + len(self.words[k]) > char_start), len(self.words))
        j = i
        while j < len(self.words) and self.starts[j] < char_end:
            j += 1
        return i, j

    def phrase(self, i: int, j: int, stemmed: bool = False) -> str:
        """Tokens i..j-1 joined by spaces (stems when asked)."""
        return " ".join((self.stems if stemmed else self.words)[i:j])


# Chat and press shorthand written as one token, read as the word it stands for before any matcher runs
# («en q municipio», «x 100 mil hab», «el edo», «Sn Fco del Rincón», «Cd. Manuel Doblado»).
SHORTHAND = {
    "q": "que",
    "k": "que",
    "x": "por",
    "xq": "porque",
    "pq": "porque",
    "tmb": "tambien",
    "tb": "tambien",
    "edo": "estado",
    "mpio": "municipio",
    "mpios": "municipios",
    "hab": "habitantes",
    "habs": "habitantes",
    "sn": "san",
    "sta": "santa",
    "fco": "francisco",
    "gral": "general",
    "cd": "ciudad",
    "pa": "para",  # «pa la junta», «pa' León»: spoken «para»
    "d": "de",  # «sn luis d la paz», «robos d vehículo»
    "violensia": "violencia",  # the commonest misspelling of the modalidad («robo con violensia»)
    "num": "numero",
    "nro": "numero",
    "kiere": "quiere",  # «q kiere decir…»: phone spelling
    "kieres": "quieres",
    "ubo": "hubo",  # «cuantos asesinatos ubo»
    "moto": "motocicleta",  # «robo de moto»
    "motos": "motocicletas",
}
_CHAT = re.compile(r"\b(?:q|k|ke|xq|pq|porq|x|tmb|tb|d|kiere|kieres|ubo)\b")
_CHAT_WORDS = {"ke": "que", "porq": "porque"}


def expand_chat(normalized: str) -> str:
    """A normalized message with its chat shorthand written out («en q calles», «xq sale vacío», «d un diario»), for
    the checks that read whole phrases before tokenizing (scope, courtesy, definitions)."""
    return _CHAT.sub(lambda m: _CHAT_WORDS.get(m.group(0)) or SHORTHAND.get(m.group(0), m.group(0)), normalized)


# A police memo's «c/» and «s/» («mes c/ mayor num de VF», «robo s/ violencia»): «con» and «sin», read before the
# slash is dropped (it would leave a bare «c» read as a place); «c/u» is «cada uno».
_SLASH_SHORTHAND = re.compile(r"(?<![\w/])(c/u|[cCsS]/)(?=\s*\w)")
_SLASH_WORDS = {"c/u": "cada uno ", "c/": "con ", "s/": "sin "}


# «2020–2024», «enero—marzo»: typographic dashes are the hyphen of a range
_DASHES = str.maketrans({"\u2013": "-", "\u2014": "-", "\u2012": "-", "\u2212": "-", "\u2010": "-", "\u2011": "-"})
# «2021→2022», «2021 -> 2022»: from one period to the next (a change), said «del 2021 al 2022»
_ARROW = r"\s*(?:\u2192|\u21d2|\u27f6|->|=>)\s*"
_YEAR_ARROW = re.compile(rf"\b(\d{{4}}){_ARROW}(?=\d{{4}}\b)")
_ARROWS = re.compile(_ARROW)


_YEAR_SAID = re.compile(r"\b(?:este|el)\s+a[nñ]o\s+((?:19|20)\d\d)\b", re.IGNORECASE)


def _arrows(text: str) -> str:
    """Arrows between periods in words: «2021→2022» is «del 2021 al 2022», any other arrow «a»."""
    text = _SLASH_SHORTHAND.sub(lambda m: _SLASH_WORDS[m.group(1).lower()], text)
    text = _YEAR_SAID.sub(r"\1", text)  # «en enero de este año 2026»: the year written names it
    return _ARROWS.sub(" a ", _YEAR_ARROW.sub(r" del \1 al ", text))


# «Irapuat0», «h0micidios»: a zero typed for the letter o inside a word (three letters at least, no other digit)
_ZERO_FOR_O = re.compile(r"(?=(?:[a-z0]*[a-z]){3})[a-z0]*0[a-z0]*")


def _letter_o(word: str) -> str:
    return word.replace("0", "o") if _ZERO_FOR_O.fullmatch(word) else word


def tokenize(text: str) -> Tokens:
    """Split normalized text into tokens (shorthand expanded, numbers in words as digits, robbery verbs as the
    noun); the joined form keeps one space between tokens."""
    found = _TOKEN.findall(normalize_text(_arrows(text)).translate(_DASHES))
    spelled = _digits_for_words([SHORTHAND.get(w, w) for w in map(_letter_o, found)])
    words = tuple(victims_as_noun(elided_robbery(robbery_as_noun(spelled))))
    starts, pos = [], 0
    for w in words:
        starts.append(pos)
        pos += len(w) + 1
    return Tokens(words, tuple(stem(w) for w in words), " ".join(words), tuple(starts))


def key_of(phrase: str, stemmed: bool = False) -> str:
    """The lexicon key of a catalog phrase: the same tokenization the questions get."""
    toks = tokenize(phrase)
    return toks.phrase(0, len(toks), stemmed)


def exact_spans(
    tokens: Tokens, keys: dict, max_len: int, taken: set[int], stemmed: bool = False, accept=None
) -> list[tuple[int, int, str]]:
    """Longest-first exact matches of lexicon keys on free tokens: (i, j, key); marks them taken.

    ``accept(i, j, key)`` may veto a match (a weak name without a place cue)."""
    found = []
    for n in range(min(max_len, len(tokens)), 0, -1):
        for i in range(len(tokens) - n + 1):
            if any(k in taken for k in range(i, i + n)):
                continue
            key = tokens.phrase(i, i + n, stemmed)
            if key in keys and (accept is None or accept(i, i + n, key)):
                found.append((i, i + n, key))
                taken.update(range(i, i + n))
    return sorted(found)


def free_ngrams(tokens: Tokens, taken: set[int], max_n: int = 4):
    """N-grams of free tokens worth a fuzzy look: no stopword at the edges, one uncommon word inside."""
    for n in range(min(max_n, len(tokens)), 0, -1):
        for i in range(len(tokens) - n + 1):
            words = tokens.words[i : i + n]
            if any(k in taken for k in range(i, i + n)) or words[0] in STOPWORDS or words[-1] in STOPWORDS:
                continue
            if "," in words:
                continue
            if all(w in COMMON_WORDS or w in STOPWORDS or not w.isalpha() for w in words):
                continue
            yield i, i + n
