"""The everyday answer shapes (issue 13 §2): cue vocabularies for the peak or lowest period, averages,
municipalities with or without events, modalidades inside a place, the annual series, a place against the
state and the direction of a change; ``kind.decide`` asks ``shape_of`` after its own precedence.

Cues are regexes over the accent-free token text, like kind's; ``SHAPE_CUES`` are counted as understood words.
"""

from __future__ import annotations

import re

from core.ask.understand import Understanding
from core.ask.understand.tokens import tokenize

_C = lambda *parts: re.compile("|".join(parts))

EXTREME = _C(
    r"\b(?:mes|ano|trimestre|semestre)\s+(?:con|de|en\s+que\s+hubo|en\s+el\s+que\s+hubo)\s+(?:mas|menos|mayor|menor)\b",
    r"\b(?:trimestre|semestre)\s+(?:mas\s+(?:violent|alt|baj|tranquil)\w*|pico|record)\b",
    # «¿cuándo hubo más secuestros, qué año?», «¿en qué año hubo menos…?»
    r"\bcuando\s+(?:hubo|se\s+registr\w+|fue|ocurri\w+|hay)\s+(?:mas|menos)\b",
    r"\ben\s+que\s+(?:mes|ano|trimestre|semestre)\s+(?:hubo|se\s+registr\w+|ocurri\w+|hay)\s+(?:mas|menos)\b",
    r"\b(?:que|q|cual)\s+(?:fue\s+el\s+|es\s+el\s+)?(?:mes|ano)\b(?!\s+del\s+ano)(?:\s+(?:\w+|,)){0,8}?\s+(?:mas|menos|mayor|menor|peor|mejor)\b",
    r"\b(?:peor|mejor)\s+(?:mes|ano|trimestre|semestre)\b",
    r"\b(?:mes|ano)\s+mas\s+(?:violent|alt|baj|tranquil|calmad|peligros|sangrient|letal|mortifer)\w*",
    r"\b(?:mes|ano)\s+(?:pico|record|maximo|minimo)\b",
    r"\b(?:maximo|minimo)\s+(?:mensual|anual)\b",
    r"\b(?:mes|ano)\s+(?:fue\s+)?(?:el\s+)?(?:peor|mejor)\b",
    r"\b(?:mes|ano)\s+con\s+(?:el|la)\s+(?:\w+\s+){0,2}?(?:mas|menos|mayor|menor)\b",
    # «año de máxima incidencia», «mes de mayor número de…», «el récord en un solo mes», «el pico… ¿qué mes fue?»
    r"\b(?:mes|ano)\s+de\s+(?:mayor|menor|maxima|minima|mas\s+alta|mas\s+baja)\b",
    r"\brecord\b.{0,60}?\b(?:mes|ano)\b",
    r"\b(?:mes|ano)\b.{0,40}?\brecord\b",
    r"\bpico\b.{0,60}?\b(?:que|cual)\s+(?:mes|ano)\b",
    r"\b(?:que|cual)\s+(?:mes|ano)\b.{0,90}?\b(?:pico|maximo|minimo|record)\b",  # «qué mes de 2021 marcó el pico»
    # «¿cuál fue el pico de esa serie?», «¿y ahí el pico?», «¿cuándo fue el pico?»: one peak, not the outliers
    r"\b(?:cual|cuando)\s+(?:fue|es|estuvo|se\s+dio)\s+el\s+(?:pico|punto\s+mas\s+alto|maximo)\b",
    r"^\W*(?:y\s+)?(?:ahi|alli|aca|ahi\s+mismo)\s+(?:el|cual\s+fue\s+el)\s+pico\W*$",
    r"\bel\s+pico\s+(?:de|en)\s+(?:esa|esta|la)\s+(?:serie|grafica|curva)\b",
    # «identificar el mes de 2024 con el menor registro», «el año del periodo con más…»
    r"\b(?:mes|ano)\s+(?:de|del)\s+(?:[\w]+\s+){0,3}?con\s+(?:el\s+|la\s+)?(?:\w+\s+){0,2}?(?:mas|menos|mayor|menor)\b",
    r"\bpico\s+(?:mensual|anual|maximo)\b",
    r"\b(?:mes|ano)\s+pico\b",
    # «¿cuál de esos años fue el peor?», «de esos meses, ¿cuál tuvo más?»: the peak among the periods just given
    # («de esos seis meses, ¿cuál fue el peor?»: with how many)
    r"\bcual\s+de\s+(?:esos|estos|los)\s+(?:\w+\s+)?(?:meses|anos)\b.{0,40}?\b(?:peor|mejor|mas|menos|mayor|menor)\b",
    r"\b(?:esos|estos)\s+(?:\w+\s+)?(?:meses|anos)\W+(?:\w+\W+){0,2}?cual\s+(?:\w+\s+){0,2}?(?:peor|mejor|mas|menos|mayor|menor)\b",
    r"^\W*(?:y\s+)?(?:cual\s+fue\s+)?el\s+pico\W*$",  # «¿cuál fue el pico?» after a series
    # «el mejor», «¿y el peor?» alone, after a peak: the other end
    r"^\W*(?:y\s+)?(?:el|la)\s+(?:mejor|peor)\W*$",
    # «¿y en cuál hubo menos?» after the year with most: the other end
    r"^\W*(?:y\s+)?(?:en\s+)?cual\s+(?:hubo|fue|tuvo|se\s+registr\w+)\s+(?:mas|menos)\W*$",
    # a bare follow-up to a peak: «¿y el más bajo?», «¿y el mes más alto?»
    r"^\W*(?:y\s+)?(?:cual\s+fue\s+)?(?:el|la)\s+(?:mes\s+|ano\s+)?mas\s+(?:bajo|alto|baja|alta)"
    r"(?:\s+de\s+(?:esos|estos|los)\s+(?:\w+\s+)?(?:anos|meses))?\W*$",
)
EXTREME_LOW = _C(r"\b(?:menos|menor|mejor|minimo|minima)\b", r"\bmas\s+(?:baj|tranquil|calmad)\w*")
AVERAGE = _C(
    r"\bpromedio\b(?!\s+(?:estatal|del\s+estado|estado|de(?:l)?\s+(?:gto|guanajuato)|nacional))",
    r"\bmedia\s+(?:mensual|diaria|anual)\b",
    r"\b(?:al|por|cada)\s+dia\b",
    r"(?<!\bun )(?<!\bel )(?<!\bdel )(?<!\bal )(?<!\bmi )(?<!\bsu )\bdiari[oa]s?\b",  # «un diario»: a newspaper
    r"\bdiariamente\b",
    r"\bal\s+mes\b",
)
# «somos de un diario nacional», «el diario local»: a newspaper, never «per day»
AVERAGE_DAY = _C(
    r"\b(?:al|por|cada)\s+dia\b",
    r"(?<!\bun )(?<!\bel )(?<!\bdel )(?<!\bal )(?<!\bmi )(?<!\bsu )\bdiari\w*",
    r"\bmedia\s+diaria\b",
)
_PLACES_FRAME = r"(?:municipios?|lugares|ciudades|localidades|donde)"
PRESENCE = _C(
    rf"\b{_PLACES_FRAME}\b.*\b(?:no\s+(?:registr|tuv|report|hub|present|se\s+registr)\w*|sin\s+(?:ningun|registros?|casos?)\w*|"
    r"con\s+cero|cero|con\s+0)\b",
    rf"\b(?:cuantos|en\s+cuantos)\s+{_PLACES_FRAME}\b",
    # «de los 46 municipios, ¿en cuántos hubo…?», «¿qué municipios se libraron de…?»
    r"\bmunicipios\b.*\ben\s+cuantos\s+(?:hubo|hay|se\s+registr\w+|registr\w+|tuv\w+|se\s+present\w+)\b",
    r"\b(?:municipios|lugares)\b.*\b(?:se\s+)?libr(?:aron|o|aran)\s+de\b",
    rf"\b{_PLACES_FRAME}\b.*\b(?:al|por\s+lo)\s+menos\s+(?:un|uno|una)\b",
    r"\bningun\s+(?:municipio|lugar)\b",
    r"\b(?:municipios|lugares|ciudades)\s+(?:que\s+(?:estan|quedaron|estuvieron)\s+)?(?:sin|libres?\s+de)\b",
    rf"\b{_PLACES_FRAME}\b.*\b(?:algun|alguna)\b",
    r"\b(?:algun|ningun)\s+(?:municipio|lugar)\s+(?:sin|con|que|donde)\b",  # «¿hay algún municipio sin…?»
)
PRESENCE_NONE = _C(
    r"\b(?:municipios?|lugares|lugar|ciudades)\s+(?:que\s+(?:estan|quedaron|estuvieron)\s+)?(?:sin|libres?\s+de)\b",
    r"\bno\s+(?:registr|tuv|report|hub|present|se\s+registr)\w*",
    r"\bsin\s+ningun\w*",
    r"\bsin\s+(?:registros?|casos?)\b",
    r"\bcero\b",
    r"\b(?:municipios|lugares)\s+con\s+0\b",
    r"\bningun\s+(?:municipio|lugar)\b",
    r"\bno\s+\w+\s+(?:a\s+)?(?:nadie|ninguno|ninguna|nada)\b",  # «donde no mataron a nadie»
    r"\b(?:se\s+)?libr(?:aron|o|aran|ado|ados)\s+de\b",  # «¿qué municipios se libraron de los feminicidios?»
)
# the kinds a crime is split into, as people name them: «de cada tipo», «por clase», «por categoría»
_KINDS = r"(?:tipos?|clases?|categorias?|modalidad(?:es)?|subtipos?)"
BREAKDOWN = _C(
    r"\bpor\s+modalidad\w*",
    rf"\bcada\s+(?:{_KINDS}|delito)\b",  # «de cada tipo», «cuánto de cada delito del grupo robos»
    rf"\bpor\s+{_KINDS}\b(?!\s+de\s+delitos?)",
    # «separados por tipo», «divididos por modalidad», «clasificados por clase», «agrupados por tipo»
    r"\b(?:separad|dividid|agrupad|clasificad|repartid|distribuid|segmentad)[oa]s?\s+(?:por|segun|en)\b",
    # «la distribución de los homicidios…»; a distribution over months or places is a series or a ranking
    r"\bdistribucion\b(?!.*\b(?:mensual|anual|mes|meses|ano|anos|municipios?|estados?|entidad\w*|geografic\w*"
    r"|territorial)\b)",
    r"\bcuant[oa]s?\b.*\bde\s+cada\s+(?:un[oa]|cual)\b",  # «qué tipos de robo y cuántos de cada uno»
    r"\b(?:del|el|al)\s+grupo\s+(?:de\s+)?(?:los\s+)?(?=\w)",  # «del grupo robos»: the crime's own members
    r"\bmodalidades\b",
    # «desglosado por año / por mes» is a series, «desglosado por municipio» a ranking: not the modalidades
    r"\bdesglos\w*\b(?!\s+(?:(?:por|en)\s+(?:municipios?|anos?|mes(?:es)?|trimestres?|semestres?)"
    r"|(?:ano|mes)\s+(?:por|a|tras)\s+(?:ano|mes)))",
    r"\bpor\s+tipo\s+de\s+arma\b",
    r"\bcon\s+que\s+(?:armas?|se\s+cometi\w*|medio|matan|mataron|asesinan|asesinaron|los\s+mat\w+)\b",
    r"\bde\s+que\s+(?:tipos?|clases?)\s+(?:fueron|son|eran|fue|hubo)\b",  # «¿de qué tipo fueron?»
    r"\bque\s+armas?\s+se\s+usa\w*",
    r"\bcomo\s+se\s+cometi\w*",
    r"\bcada\s+modalidad\b",
    # «¿cuál fue la forma más común?», «la manera más frecuente de cometerlos»: the modalidades, compared
    r"\b(?:forma|formas|manera|maneras|modo|modos)\s+(?:mas\s+)?(?:comun|comunes|frecuente|frecuentes|usad[oa]s?)\b",
    r"\bpor\s+tipos?\b(?!\s+de\s+delitos?)",
    r"\bse\s+reparte\w*",
    # «la composición por medio empleado», «según el medio utilizado»
    r"\bcomposicion\b",
    r"\b(?:por|segun)\s+(?:el\s+)?(?:medio|arma|instrumento)\s+(?:empleado|utilizado|usado)\b",
    r"\bsegun\s+(?:el|la|su)\s+(?:arma|medio|modalidad|tipo)\b",
    r"\bque\s+tipos?\s+de\s+\w+\s+(?:predomin|hubo|hay|fue|son|se)\w*",
    r"\bpredomin\w*",
    # «cuántos fueron con pistola, cuántos con cuchillo»: the count asked per modalidad, one after another
    r"\bcuant[oa]s\b.*(?:\by|,)\s+cuant[oa]s\s+(?:fueron\s+|eran\s+)?"
    r"(?:con|sin|por|en\s+accidente|a\s+(?:balazos|tiros|punaladas|cuchillazos|golpes))\b",
    # «¿son más por accidentes de tránsito o por otra cosa?», «¿con pistola, con cuchillo o cómo?»: which modalidad
    r"\bo\s+(?:por|con|de|en)\s+otr[oa]s?\s+(?:cosa|causa|forma|manera|modalidad|tipo|motivo)s?\b",
    r"\b(?:son|fueron|es|fue)\s+mas\s+(?:por|con|en)\b.*\bo\s+(?:por|con|en)\b",
    r"\bcomo\s+(?:los\s+|las\s+|la\s+|le\s+)?(?:mataron|matan|asesinaron|asesinan|murieron|mueren)\b",
    r"\b(?:con|por)\s+\w+(?:\s+\w+){0,3}\s*,?\s+o\s+(?:como|que|cual)\s*$",
)
METHOD_SHARE = _C(
    r"\b(?:fueron|fue|son|eran|era|se\s+cometi\w+|se\s+perpetr\w+|correspond\w+\s+a)\s+(?:con|por|a\s+(?:balazos|tiros|punaladas|cuchillo)|en\s+accidente|balaceras?)\b",
    r"\b(?:forma|manera|modo)\s+(?:mas\s+)?(?:comun|frecuente|usad[oa])\b",  # «la forma más común, en porcentaje»
    # «porcentaje de homicidios dolosos con arma de fuego en Celaya vs el estado»: the modalidad named right in the
    # share, no verb; «… con arma de fuego ocurrió en Celaya» is the place's share of the state, not this
    r"\b(?:porcentajes?|proporcion|por\s+ciento)\s+(?:de|del)\b(?:(?!\b(?:ocurri|sucedi|se\s+registr|aport|concentr|tuvo)\w*).)*"
    r"\b(?:con\s+(?:arma|armas|otro\s+elemento|violencia)|sin\s+violencia|en\s+accidentes?)\b"
    r"(?!.*\b(?:ocurri|sucedi|se\s+registr|aport|concentr|tuvo|correspond)\w*)",
)
YEARLY = _C(
    r"\banual\w*",
    r"\bano\s+(?:por|a|tras|con)\s+ano\b",
    r"\bpor\s+anos?\b",
    r"\bcada\s+ano\b",
    r"\binteranual\w*",
    r"\bde\s+un\s+ano\s+a\s+otro\b",
    r"\bano\s+contra\s+ano\b",
    r"\bx\s+anos?\b",  # "x año": the abbreviation of "por año"
    r"\bpor\s+separado\b",  # «el 2021 y el 2022 por separado»: each year its own figure
)
VS_STATE = _C(
    r"\b(?:promedio|media|tasa)\s+(?:estatal|del\s+estado|estado)\b",  # «vs promedio edo.»
    r"\b(?:frente|contra|respecto|comparad\w+|en\s+comparacion)\s+(?:al?|con)?\s*(?:el\s+|la\s+|todo\s+el\s+|toda\s+la\s+)?(?:estado|entidad|total\s+estatal)\b",
    r"\bque\s+(?:el|en\s+el|todo\s+el)\s+estado\b",
    r"\bque\s+(?:el\s+)?promedio\b",
    # «León y el estado» (not «¿y en todo el estado?», a follow-up that only moves the place)
    r"(?<!^)\b(?:y|vs|versus|contra|frente\s+a|con)\s+(?:en\s+)?(?:el|del|todo\s+el|al)\s+estado\b",
    r"\b(?:la|el)\s+(?:del\s+estado|estatal)\b",
    r"\bcon\s+(?:la|el)\s+(?:estatal|del\s+estado)\b",
    r"\bpromedio\s+de\s+(?:gto|guanajuato)\b",
    # «¿eso está arriba o abajo del estado?», «por encima de la media estatal», «¿arriba o abajo del estatal?»
    r"\b(?:arriba|abajo|encima|debajo)\s+(?:o\s+(?:arriba|abajo|encima|debajo)\s+)?(?:del|de\s+la|de\s+el)\s+"
    r"(?:estado|estatal|(?:promedio|media|tasa|total)(?:\s+(?:estatal|del\s+estado))?)\b",
)
FALL = _C(
    r"\bmejor(?:o|aron|ado|ia)\b",  # «¿qué municipio mejoró más?»: fewer cases
    r"\bcaida\w*",
    r"\bdescenso\w*",
    r"\bbaj\w*",
    r"\bdisminu\w*",
    r"\breduj\w*",
    r"\breduc\w*",
    r"\bcay\w*",
    r"\bdescend\w*",
    r"\bmejor\w*",
)
RISE = _C(
    r"\bempeor(?:o|aron|ado)\b",
    r"\balza\w*",
    r"\brepunt\w*",
    r"\baument\w*",
    r"\bsubi\w*",
    r"\bsubier\w*",
    r"\bcreci\w*",
    r"\bincrement\w*",
    r"\bempeor\w*",
    r"\bdispar\w*",
)
# a change said as a verb or a noun ("bajaron", "la mayor caída"); "la tasa más baja" is no change
CHANGE_VERB = _C(
    r"\b(?:bajaron|bajo|cayo|cayeron|disminuy\w+|disminucion\w*|se\s+redu(?:jo|jeron)|reduccion\w*|descend\w+)\b",
    r"\b(?:subieron|subio|aumentaron|aumento|crecieron|crecio|se\s+increment\w+|incremento|alza|repunt\w+)\b",
    r"\b(?:caida|descenso)s?\b",
    r"\b(?:mejoro|mejoraron|empeoro|empeoraron)\b",
    r"\bse\s+dispar\w+\s+mas\b",  # «¿en qué municipio se dispararon más…?»
)
# every cue, the sub-cues that pick a variant included: kind.py holds this tuple, so its cue_spans counts them
SHAPE_CUES = (
    EXTREME,
    EXTREME_LOW,
    AVERAGE,
    AVERAGE_DAY,
    PRESENCE,
    PRESENCE_NONE,
    BREAKDOWN,
    METHOD_SHARE,
    YEARLY,
    VS_STATE,
    FALL,
    RISE,
    CHANGE_VERB,
)


def shape_of(text: str, signals: list[str], has_total_series: bool, grouping: bool, annual: bool) -> str | None:
    """The everyday shape a question asks for (adding its signals); None when it asks none of them."""
    if EXTREME.search(text):
        signals.append("extreme:min" if EXTREME_LOW.search(text) else "extreme:max")
        # the unit is the one the cue names («¿en qué mes del primer semestre…?» asks a month, not a semester)
        said = re.search(r"\b(mes|ano|trimestre|semestre)(?:e?s)?\b", EXTREME.search(text).group(0))
        unit = said.group(1) if said else None
        if unit is None:
            found = re.search(r"\b(trimestre|semestre|ano)\s+(?:con|de|mas|en\s+que|fue|pico|record)\b", text)
            unit = found.group(1) if found else None
        if unit is None and re.search(r"\bano\b", text) and not re.search(r"\bmes\b", text):
            unit = "ano"
        if unit in ("trimestre", "semestre", "ano"):
            signals.append(f"extreme:{'anio' if unit == 'ano' else unit}")  # «el trimestre con más… de 2023»
        return "extremes"
    if PRESENCE.search(text):
        signals.append("presence:sin" if PRESENCE_NONE.search(text) else "presence:con")
        return "presence"
    if AVERAGE.search(text) and not VS_STATE.search(text):
        signals.append("average:day" if AVERAGE_DAY.search(text) else "average:month")
        return "average"
    if VS_STATE.search(text):
        signals.append("vs_state")
        return "places"
    if BREAKDOWN.search(text) and not grouping:
        return "breakdown"
    if YEARLY.search(text) and not has_total_series and not annual:
        return "annual_series"
    return None


# a series over several whole years with no monthly word: «la serie de 2018 a 2022» is read year by year
_MONTHLY = re.compile(r"\b(?:mensual\w*|por\s+mes(?:es)?|mes\s+(?:a|por|tras)\s+mes|cada\s+mes|meses)\b")


def yearly_series(kind: str, window, text: str) -> bool:
    """Whether a series asked over three or more whole calendar years, with no monthly word, is yearly."""
    if kind != "series" or window is None or _MONTHLY.search(text):
        return False
    whole = (window[0].month, window[0].day, window[1].month, window[1].day) == (1, 1, 12, 31)
    return whole and window[1].year - window[0].year >= 2


# After a peak: «¿y el mejor?», «¿y el de menos?», «¿y el más bajo?» ask the other end; «¿y el peor?» the top.
_TO_LOW = re.compile(r"\b(?:menos|menor|mejor|minimo|mas\s+(?:baj|tranquil|calmad)\w*)\b")
_TO_HIGH = re.compile(r"\b(?:peor|mayor|maximo|mas\s+(?:alt|violent|peligros)\w*)\b")


def extreme_direction(merged: Understanding, text: str) -> None:
    """A follow-up to a peak that names the other end flips it; one that names neither keeps the previous end."""
    to = "min" if _TO_LOW.search(text) else "max" if _TO_HIGH.search(text) else None
    if to:
        merged.signals = [s for s in merged.signals if s not in ("extreme:min", "extreme:max")] + [f"extreme:{to}"]


# After «¿qué municipios no registraron…?»: «¿y cuántos sí tuvieron al menos uno?» asks the other side.
_WITH_SOME = re.compile(
    r"\b(?:al|por\s+lo)\s+menos\s+(?:un|uno|una|1)\b|\bcuant\w+\s+si\b|\bcon\s+(?:casos|alguno|registros)\b"
)
_WITH_NONE = re.compile(r"\bningun\w*\b|\bsin\s+(?:casos|ningun\w*|registros)\b|\bcuant\w+\s+no\b|\bno\s+tuvieron\b")


def presence_side(merged: Understanding, current: Understanding, previous: Understanding) -> None:
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


def other_end(current: Understanding, previous: Understanding) -> bool:
    """«¿y el más violento?» after «el mes más tranquilo»: the other end of the same peak, not a ranking of places."""
    text = tokenize(current.question).text
    return (
        previous.kind == "extremes"
        and current.kind == "ranking"
        and not current.places
        and not _PLACES_WORDS.search(text)
    )


_SAME_SERIES = re.compile(r"\b(?:la\s+)?misma\s+serie\b")


def series_talked(current: Understanding, previous: Understanding, conversation) -> str | None:
    """«la misma serie» after a turn that was no series: the kind of the last series of the talk, or None."""
    if previous.kind in ("series", "annual_series") or not _SAME_SERIES.search(tokenize(current.question or "").text):
        return None
    for turn in reversed(getattr(conversation, "turns", None) or []):
        u = getattr(turn, "understanding", None)
        if u is not None and u.kind in ("series", "annual_series"):
            return u.kind
    return None
