"""What kind of answer a question wants, and its knobs: top_k, order, medida, grouping (B4).

Cues are regexes over the accent-free token text. Several kinds can be cued at once; the
precedence in ``decide`` picks the one the tools must answer ("picos" beats "mes por mes",
a comparison window beats "ranking"). Each cue leaves a ``kind:…`` signal.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from core.ask.understand.shapes import CHANGE_VERB, FALL, METHOD_SHARE, RISE, SHAPE_CUES, shape_of
from core.ask.understand.tokens import NUMBER_RE, Tokens, number_value

_C = lambda *parts: re.compile("|".join(parts))

EVIDENCE = _C(
    r"\bevidencias?\b",
    r"\bde\s+donde\s+(?:sale|salen|viene|vienen|provienen?|obtienen?|se\s+obtiene|sacan)\b",
    r"\bfilas\b",
    r"\bfuentes?\s+(?:de\s+(?:los\s+)?datos?|del\s+dato|de\s+la\s+informacion|oficial)\b",
    r"\bregistros\s+(?:originales|fuente|que\s+respaldan)\b",
    r"\bdatos\s+crudos\b",
    r"\bprocedencia\b",
    r"\bcual\s+es\s+la\s+fuente\b",
    r"\brespaldan?\b",
    r"\bmuestrame\s+los\s+(?:datos|registros)\b",
)
ANOMALIES = _C(
    r"\banomal\w*",
    r"(?<!\by )\bpicos?\b",  # not «ciento y pico» (a hundred-odd)
    r"\batipic\w*",
    r"\binusual\w*",
    r"\brepunte\w*",
    r"\boutliers?\b",
    r"\bfuera\s+de\s+lo\s+(?:normal|comun|habitual)\b",
    r"\bse\s+dispar\w+",
    r"\bbrusc\w+",
    r"\bextraordinari\w+",
    r"\bvalores\s+extremos\b",
    r"\bmeses\s+raros\b",
    r"\bsaltos?\b",
)
SEASONALITY = _C(
    r"\bestacional\w*",
    r"\b(?:en\s+)?que\s+meses\b",
    r"\bque\s+mes\s+del\s+ano\b",
    r"\btemporadas?\b",
    r"\bmeses\s+en\s+(?:los\s+)?que\b",
    r"\bmeses\s+del\s+ano\b",
    r"\bciclos?\b",
    r"\bepoca\s+del\s+ano\b",
)
# "juntos" alone is not enough: "homicidios, dolosos y culposos juntos" is a sum, not a co-occurrence.
COOCCURRENCE = _C(
    r"\bpatron(?:es)?\b",
    r"\bco\s*-?\s*ocurren\w*",
    r"\bcoocurren\w*",
    r"\b(?:ocurren|suceden|aparecen|van|se\s+presentan|presentarse|ocurrir|aparecer|suelen\s+ir)\s+juntos\b",
    r"\bcorrelacion\w*",
    r"\bcorrelacionad\w+",
    r"\brelacion\s+entre\b",
    r"\bse\s+asocian\b",
    r"\basociad[oa]s?\s+(?:con|a)\b",
    r"\bse\s+relacionan\b",
    r"\bvan\s+de\s+la\s+mano\b",
)
_NEGATED_SHAPE = re.compile(
    r"\bno\s+(?:(?:lo|la|los|las)\s+)?(?:quiero\s+|necesito\s+)?(?:ano\s+(?:por|a|tras)\s+ano|mes\s+(?:por|a|tras)\s+mes"
    r"|por\s+(?:anos?|mes(?:es)?)|cada\s+(?:ano|mes)|desglosad\w*|separad\w*|anual\w*|mensual\w*)\b"
)
_SHOT_UP_MOST = re.compile(r"\bse\s+dispar\w+\s+mas\b")
_CHANGE_IN_PERCENT = re.compile(r"\b(?:en|como)\s+(?:porcentaje|por\s+ciento)\b|\bporcentualmente\b|\ben\s+%")
_CHANGED = re.compile(r"\b(?:cambi|subi|baj|aument|disminu|creci|vari|increment|reduj|cay)\w*")
SHARE = _C(
    r"\bporcentajes?\b",
    r"\bporcentual\w*",
    r"\bproporcion(?:es)?\b",  # not «proporcionar» / «proporcione» (a memo's «give me»)
    r"\bque\s+parte\b",
    r"%",
    r"\bpor\s+ciento\b",
    r"\bparticipacion\b",
    r"\bque\s+fraccion\b",
    r"\bcuanto\s+representa\w*",
    r"\bque\s+tanto\s+representa\w*",
    r"\brepresenta\w*\s+del\s+total\b",
)
RANKING = _C(
    r"\btop\b",
    r"\btop\s*\d+",
    r"\branking\b",
    r"\bclasificacion\b",
    r"\bordena\w*\b",
    r"\b(?:cuales|que)\s+(?:son\s+(?:los|las)\s+)?(?:municipios|ciudades|lugares|zonas)\b",
    r"\b(?:en\s+)?(?:que|cual)\s+(?:es\s+el\s+)?(?:municipio|ciudad|lugar|zona|region)\b",
    r"\b(?:en\s+)?donde\s+(?:\w+\s+){0,3}?(?:mas|menos|mayor|menor)\b",
    rf"\b(?:los|las)\s+(?:{NUMBER_RE}\s+)?(?:municipios|ciudades|lugares)\s+(?:con|que|mas|menos|de\s+mayor|de\s+menor)\b",
    r"(?:\bel\s+|^\W*)(?:municipio|lugar|ciudad)\s+(?:con|que|mas|menos|de\s+mayor|de\s+menor)\b",
    r"\bmunicipios?\s+(?:con|que\s+tienen|que\s+tuvieron|que\s+registraron)\s+(?:mas|menos|mayor|menor)\b",
    r"\b(?:mas|menos)\s+(?:violent|peligros|insegur|segur|tranquil)\w*",
    r"\b(?:peores|mejores)\b",
    rf"\b{NUMBER_RE}\s+(?:municipios|ciudades)\b",
    r"\bprimeros\s+lugares\b",
)
# «la suma de los 46 municipios», «el total de los cuarenta y seis municipios»: every municipality of the state
# (catalogs/entities: Guanajuato has 46) summed is the state's figure, not a top 46.
ALL_MUNICIPALITIES = re.compile(r"\b(?:(?:los|sus)\s+)?(?:46|cuarenta\s+y\s+seis)\s+municipios\b")
SUMMED = re.compile(r"\b(?:total(?:es)?|suma\w*|sumad\w+|en\s+conjunto|acumulad\w+|estatal)\b")
# Grouping without ranking words: a ranking only when nothing else (a series, a share) is asked.
GROUPING = _C(
    r"\bpor\s+municipios?\b",
    r"\bcada\s+municipio\b",
    r"\bmunicipio\s+por\s+municipio\b",
    r"\bentre\s+(?:los|todos\s+los)\s+municipios\b",
    r"\btodos\s+los\s+municipios\b",
    r"\bdesglos\w+\s+por\s+municipio\b",
)
RANKING_ONE = _C(
    r"(?:\bel\s+|^\W*)(?:municipio|lugar|ciudad)\s+(?:con|que|mas|menos|de\s+mayor|de\s+menor)\b",
    r"\b(?:que|cual)\s+(?:es\s+el\s+)?(?:municipio|ciudad|lugar)\b.*\b(?:mas|menos|mayor|menor)\b",
)
SERIES = _C(
    r"\bmes\s+(?:a|por|tras)\s+mes\b",
    r"\bpor\s+mes(?:es)?\b",
    r"\bmensual\w*",
    r"\bevolucion\w*",
    r"\bevoluciona\w*",
    r"\btendencias?\b",
    r"\bseries?\b",
    r"\bcada\s+mes\b",
    r"\bano\s+(?:por|a|tras)\s+ano\b",
    r"\b(?:desglos\w*|separad[oa]s?)\s+(?:por|en)\s+(?:anos?|mes(?:es)?)\b|\bpor\s+anos?\b",
    r"\ba\s+lo\s+largo\b",
    r"\bcomportamiento\b",
    r"\bgrafica\w*",
    r"\btrayectoria\b",
    r"\bcomo\s+(?:ha|han)\s+(?:ido|evolucionado|variado)\b",
    r"\bhistorico\b",
)
ANNUAL = _C(
    r"\btotal\s+(?:de\s+)?(?:los\s+)?delitos\b",
    r"\btodos\s+los\s+delitos\b",
    r"\bincidencia\s+(?:delictiva\s+)?total\b",
    r"\bdelitos\s+totales\b",
    r"\btotal\s+delictivo\b",
    r"\btotal\s+anual\b",
)
CHANGE = _C(
    r"\baument\w*",
    r"\bdisminu\w*",
    r"\bcambi(?:o|aron|ado|a|an)\b(?!\s+de\s+(?:tema|asunto|tercio)\b)",  # «Cambio de tema: …» opens a question
    r"\bcompar\w*",
    r"\bvariacion\w*",
    r"\bcreci\w*",
    r"\bsubi\w*",
    r"\bsubier\w*",
    r"\bincrement\w*",
    r"\breduj\w*",
    r"\breduc\w*",
    r"\bbaj(?:o|aron)\b",
    r"\bdiferencia\w*",
    r"\b(?:mejor|empeor)(?:o|aron|ado)\b",
    r"\bvs\b",
    r"\bversus\b",
)
SINGLE = _C(
    r"\bcuant[oa]s?\b",
    r"\bnumero\s+de\b",
    r"\bcantidad\s+de\b",
    r"\btotal\b",
    r"\bcifras?\b",
    r"\bconteo\b",
    r"\bhubo\b",
    r"\bse\s+registr\w+",
    r"\bse\s+cometi\w+",
    r"\bocurri\w+",
    r"\bdime\b",
    r"\bdame\b",
)
RATE = _C(
    r"(?<!\bno )(?<!\bsin )(?<!\bno en )(?<!\bno por )(?<!\bno la )(?<!\bno a la )(?<!\bno a )(?<!\bvez de )"
    r"(?<!\bugar de )\btasas?\b",  # «me refería al conteo, no a la tasa»
    r"\bpor\s+cada\s+(?:(?:100|cien)\s+mil|100|cien|mil|100,000|100000)(?:\s+habitantes)?\b",
    r"\bpor\s+(?:100|cien)\s+mil\b",
    r"\bpor\s+100,000\b",
    r"\bpor\s+100000\b",
    r"\bper\s*capita\b",
    r"\bpor\s+habitantes?\b",
    r"\b100\s*k\b",
    r"\bpor\s+cada\s+mil\b",
    r"\bpor\s+mil\s+habitantes\b",
    r"\bpor\s+poblacion\b",
)
COUNT = _C(
    r"\bnumeros?\s+absolutos?\b",
    r"\bcifras?\s+absolutas?\b",
    r"\b(?:en|el|a|al|por)\s+(?:conteo|conteos|cifras\s+absolutas|numeros)\b",  # «regresemos a conteo»
    r"\b(?:sin|no|en\s+vez\s+de|en\s+lugar\s+de)\s+(?:en\s+|por\s+|la\s+|a\s+la\s+|a\s+)?tasas?\b",  # «no a la tasa»
    # «¿en qué lugar quedó … en número de carpetas?», «por cantidad de casos»: the count, after a rate
    r"(?:\b(?:en|por)\s+(?:el\s+)?|,\s*)(?:numero|cantidad|total)\s+de\s+(?:carpetas|casos|delitos|denuncias|victimas)\b",
)
ASC = _C(
    r"(?<!al )(?<!lo )(?<!a )\bmenos\b(?!\s+de\b)",
    r"\bmenor(?:es)?\b",
    r"\bmas\s+baj[oa]s?\b",
    r"\bmas\s+segur[oa]s?\b",
    r"\bmas\s+tranquil[oa]s?\b",
    r"\bbottom\b",
    r"\bascendente\b",
    r"\bmejores\b",
    r"\bde\s+menor\s+a\s+mayor\b",
)
_TOPK = [
    re.compile(rf"\btop\s*({NUMBER_RE})\b"),
    re.compile(
        rf"\b(?:los|las)\s+({NUMBER_RE})\s+(?:municipios|ciudades|lugares|primeros|principales|con|que|mas|menos|"
        r"peores|mejores|delitos)\b"
    ),
    re.compile(rf"\b(?:primeros|principales)\s+({NUMBER_RE})\b"),
    re.compile(
        rf"\b({NUMBER_RE})\s+(?:primeros|principales|mayores|municipios|ciudades|lugares|peores|mejores|delitos)\b"
    ),
]


def shape_cues() -> tuple[re.Pattern, ...]:
    """The regexes of the everyday shapes (shapes.py): their words count as understood (the accounting of content words)."""
    return SHAPE_CUES


@dataclass
class KindResult:
    """The kind and its knobs."""

    kind: str = "unknown"
    top_k: int | None = None
    order: str = "desc"
    medida: str = "conteo"
    group_by_municipio: bool = False
    wants_evidence: bool = False
    signals: list[str] = field(default_factory=list)


def has_ranking_cue(text: str) -> bool:
    """Whether the question ranks places (decides "municipio de Guanajuato" = the state, B4)."""
    return bool(RANKING.search(text) or GROUPING.search(text))


def _top_k(tokens: Tokens, taken_chars: list[tuple[int, int]]) -> tuple[int | None, str | None]:
    for rx in _TOPK:
        for m in rx.finditer(tokens.text):
            if any(s <= m.start(1) < e for s, e in taken_chars):
                continue  # a number inside "últimos 12 meses" is time, not top_k
            value = number_value(m.group(1))
            if value and 1 <= value <= 100:
                return value, "top_k:digits" if m.group(1).isdigit() else "top_k:word"
    return None, None


# «el mayor aumento», «las mayores caídas»: a superlative of a change needs a set to pick from
_SUPERLATIVE_CHANGE = re.compile(
    r"\b(?:mayor(?:es)?|menor(?:es)?)\s+(?:aumento|alza|incremento|crecimiento|subida|caida|baja|descenso"
    r"|disminucion|reduccion)(?:s|es)?\b"
)


def decide(
    tokens: Tokens,
    time_spans: list[tuple[int, int]],
    has_compare_window: bool,
    n_places: int,
    has_total_series: bool,
    has_slots: bool,
    masked_text: str | None = None,
    placeless: bool = False,
) -> KindResult:
    """The kind of question (precedence below) plus top_k, order, medida and B4 grouping."""
    text = _NEGATED_SHAPE.sub(lambda m: " " * len(m[0]), tokens.text)  # «todo junto, no año por año»: no series
    res = KindResult()
    cue = {
        name: bool(rx.search(text))
        for name, rx in (
            ("evidence", EVIDENCE),
            ("anomalies", ANOMALIES),
            ("seasonality", SEASONALITY),
            ("cooccurrence", COOCCURRENCE),
            ("share", SHARE),
            ("ranking", RANKING),
            ("grouping", GROUPING),
            ("series", SERIES),
            ("annual", ANNUAL),
            ("change", CHANGE),
            ("single", SINGLE),
        )
    }
    if cue["ranking"] and SUMMED.search(text) and ALL_MUNICIPALITIES.search(text):
        rest = ALL_MUNICIPALITIES.sub(" ", text)
        if not (RANKING.search(rest) or GROUPING.search(rest)):
            cue["ranking"] = False
            res.signals.append("place:all_municipalities_summed")
    if cue["anomalies"] and _SHOT_UP_MOST.search(text) and (cue["grouping"] or cue["ranking"]):
        cue["anomalies"], cue["change"] = False, True  # «¿en qué municipio se dispararon más…?»: a change ranking
    if cue["share"] and _CHANGE_IN_PERCENT.search(text) and _CHANGED.search(text):
        cue["share"], cue["change"] = False, True  # «¿subió o bajó? dímelo en porcentaje»: a change, in percent
    strong = [k for k in ("anomalies", "seasonality", "cooccurrence", "share", "ranking", "series") if cue[k]]
    if cue["evidence"]:
        res.wants_evidence = True
        res.signals.append("kind:evidence")
    if cue["evidence"] and not strong and not has_compare_window:
        res.kind = "evidence"
    elif cue["anomalies"]:
        res.kind = "anomalies"
    elif cue["seasonality"] or cue["cooccurrence"]:
        res.kind = "patterns"
        res.signals.append("kind:seasonality" if cue["seasonality"] else "kind:cooccurrence")
    elif cue["share"]:
        res.kind = "share"
    elif has_compare_window:
        res.kind = "comparison"
    elif cue["ranking"]:
        res.kind = "annual_total" if has_total_series else "ranking"  # the yearly series ranks municipalities itself
    elif cue["series"]:
        res.kind = "annual_total" if has_total_series else "series"
    elif cue["grouping"] and not has_total_series:
        res.kind = "ranking"
    elif has_total_series or cue["annual"]:
        res.kind = "annual_total"
    elif (
        cue["change"]
        and n_places >= 2
        and not re.search(r"\b(?:aument|disminu|cambi|creci|subi|baj|increment|reduj|reduc)", text)
    ):
        res.kind = "single_value"  # "compara León y Celaya": one value per place, side by side
        res.signals.append("kind:place_comparison")
    elif cue["change"]:
        res.kind = "comparison"
    elif cue["single"]:
        res.kind = "single_value"
    elif has_slots:
        res.kind = "single_value"
        res.signals.append("kind:default")
    grouping, annual = bool(GROUPING.search(text)), bool(ANNUAL.search(text))
    shape = (
        None
        if res.kind in ("patterns", "evidence")
        else shape_of(text, res.signals, has_total_series, grouping, annual)
    )
    if res.kind == "anomalies" and shape not in ("extremes", "annual_series"):  # «¿se dispararon? dame cuántos por año»
        shape = None  # "picos" alone are anomalies; "pico mensual" is the peak month
    if res.kind == "comparison" and shape == "places" and has_compare_window:
        shape = None  # "2024 frente a 2023": two windows, a comparison
    if shape == "annual_series" and (cue["ranking"] or cue["grouping"]):
        shape = None  # "¿qué municipios subieron más año con año?": a ranking of changes
    if shape is None and res.kind == "ranking" and CHANGE_VERB.search(text):
        res.kind = "comparison"  # "los municipios donde más cayó …": a ranking of changes, not of totals
    if res.kind == "share" and METHOD_SHARE.search(text) and not GROUPING.search(text):
        shape = "breakdown"  # "¿qué porcentaje … fueron con arma de fuego?": the share of a modalidad inside the place
    if shape:
        res.kind = shape
    if res.kind == "comparison" and CHANGE_VERB.search(text) and re.search(r"\b(?:cuales|donde)\b.*\bmas\b", text):
        res.group_by_municipio = True  # "¿y cuáles subieron más?": the places, ranked by their change
    if res.kind == "comparison" and placeless and _SUPERLATIVE_CHANGE.search(text):
        res.group_by_municipio = True  # «mayor aumento de HD…» with no place: a superlative ranks the municipalities
        res.signals.append("group_by:superlative_change")
    if res.kind == "comparison":
        direction = "asc" if FALL.search(text) else "desc" if RISE.search(text) else None
        if direction:
            res.signals.append(f"direction:{direction}")
    if res.kind not in ("unknown", "evidence") or cue["evidence"]:
        res.signals.append(f"kind:{res.kind}")
    if cue["ranking"] or cue["grouping"] or res.kind == "ranking":
        res.group_by_municipio = True
        res.signals.append("group_by:municipio")
    res.top_k, tag = _top_k(tokens, time_spans)
    if "place:all_municipalities_summed" in res.signals:
        res.top_k, tag = None, None  # «los 46 municipios» summed: no top 46
    if res.top_k is None and RANKING_ONE.search(text):
        res.top_k, tag = 1, "top_k:singular"
    if tag:
        res.signals.append(tag)
    if ASC.search(masked_text if masked_text is not None else text):  # "corrupción de menores" is no order
        res.order = "asc"
        res.signals.append("order:asc")
    if RATE.search(text):
        res.medida = "tasa_per_100k"
        res.signals.append("medida:tasa")
    elif COUNT.search(text):
        res.signals.append("medida:conteo")
    return res


def cue_spans(text: str) -> list[tuple[int, int]]:
    """Character spans of every shape cue of this module in ``text``: the words the kind matcher understands."""
    found = set()
    for value in list(globals().values()):  # every cue regex, including the ones added later
        for rx in value if isinstance(value, (list, tuple)) else [value]:
            if isinstance(rx, re.Pattern):
                found.update(m.span() for m in rx.finditer(text) if m.end() > m.start())
    return sorted(found)
