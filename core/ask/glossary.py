"""The glossary of methodology terms: each term a vocabulary of how people write it and the ``docs/metodologia``
section that defines it.

A definition question («¿qué es una modalidad?», «¿el homicidio doloso incluye los feminicidios?», «¿un mes sin
datos es cero?») is recognised by its terms and its frame, never runs a database tool, and is answered from the
sections of every term it asks about, each cited («documento § sección»).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from core.ask.index_terms import defined_terms, tokenize
from core.ask.methodology import DocIndex, Passage, cite, quote, sentences
from core.ask.understand.tokens import expand_chat
from core.text import fold

if TYPE_CHECKING:
    from core.ask.understand import Understanding


@dataclass(frozen=True)
class Term:
    """A glossary term: its key, the patterns that name it (over folded text) and its section («doc.md § title»).

    ``crime`` terms also name crimes in data questions, so alone they need a definitional frame; ``words`` are what
    an answer must show for the term (the first that the section holds is used to pick its sentences).
    """

    key: str
    patterns: tuple[str, ...]
    section: str
    words: tuple[str, ...]
    crime: bool = False
    covers: tuple[str, ...] = ()  # member terms this term's section already answers

    def found(self, text: str) -> re.Match | None:
        """The first mention of the term in folded text, or None."""
        hits = [m for m in (re.search(p, text) for p in self.patterns) if m]
        return min(hits, key=lambda m: m.start()) if hits else None


_MES = r"mes(es)?|enero|febrero|marzo|abril|mayo|junio|julio|agosto|septiembre|octubre|noviembre|diciembre"
# «sin datos», «no hay cifras», «vacío», «no publicado»: a month with nothing published
_MISSING = r"vacios?|vacias?|(sin|no hay|no tiene|no trae|faltan?) (datos?|cifras?|informacion|registros?)|no (esta |estan |ha sido |han sido |se ha |ha )?publicad\w*|sin (cifras?|datos?) publicad\w*|sin publicar|no aparece\w*|falta\w*"
_C, _S, _Q = "conceptos.md § ", "sesnsp.md § ", "cobertura_y_calidad.md § "
_VF = "Violación simple y violación equiparada"
# Pairs come before their members: a pair section answers both terms at once.
GLOSSARY: tuple[Term, ...] = (
    Term(
        "feminicidio_vs_doloso",
        (r"feminicidio.{0,80}\b(homicidio|asesinato)s?\b", r"\b(homicidio|asesinato)s?\b.{0,80}feminicidio"),
        _C + "Homicidio doloso y feminicidio",
        ("feminicidio", "homicidio doloso"),
    ),
    Term("violacion_equiparada", (r"\bequiparadas?\b",), _C + _VF, ("equiparada", "violación simple"), crime=True),
    Term("violacion_simple", (r"\bviolacion(es)? simples?\b",), _C + _VF, ("violación simple",), crime=True),
    Term(
        "homicidio_modalidades",
        (r"\bmodalidad(es)?\b.{0,60}\bhomicidios?\b", r"\bhomicidios?\b.{0,60}\bmodalidad(es)?\b"),
        _C + "Modalidades del homicidio y «Con otro elemento»",
        ("modalidades del homicidio", "arma de fuego", "otro elemento"),
        covers=("modalidad", "homicidio", "doloso_culposo"),
    ),
    Term(
        "con_otro_elemento",
        (r"\botros? elementos?\b",),
        _C + "Modalidades del homicidio y «Con otro elemento»",
        ("con otro elemento", "otro elemento"),
    ),
    Term(
        "no_especificado",
        (r"\bno especificad[oa]s?\b",),
        _C + "Modalidad o método y «No especificado»",
        ("no especificado",),
    ),
    Term(
        "secuestro_modalidades",
        (r"\b(expres|extorsivos?|calidad de rehen|para causar dano)\b",),
        _C + "Secuestro y sus modalidades",
        ("secuestro exprés", "exprés", "extorsivo"),
    ),
    Term(
        "modalidad",
        (r"\bmodalidad(es)?\b", r"\bmetodos?\b(?! de)"),
        _C + "Modalidad o método y «No especificado»",
        ("modalidad",),
    ),
    Term(
        "subtipo",
        (
            r"\bsubtipos?\b",
            r"\btipos? de delitos?\b(?=.{0,30}\b(es|son|significa|quiere)\b)",
            r"\btipo\b(?=,? (y )?subtipo)",
        ),
        _C + "Bien jurídico, tipo, subtipo y modalidad",
        ("subtipo", "tipo"),
    ),
    Term(
        "bien_juridico",
        (r"\bbien(es)? juridicos?\b",),
        _C + "Bien jurídico, tipo, subtipo y modalidad",
        ("bien jurídico",),
    ),
    Term(
        "mes_no_publicado",
        (
            rf"\b({_MES}) (sin (datos?|cifras?|informacion|registros?)|vaci[oa]s?|no publicad[oa]s?|sin publicar|faltantes?)",
            rf"\b({_MES}) (que )?no (aparece|sale|esta|viene)n?",
            rf"\b({_MES}) (que )?no (tiene|tienen|trae|traen|hay) (datos?|cifras?|informacion|registros?)",
            rf"\b({_MES})(?: (?:de |del )?\d{{4}})? (aparece|sale|esta|viene)n? (vaci[oa]s?|en blanco|sin datos?)",
            rf"\b({_MISSING})\b.{{0,60}}\bceros?\b",
            rf"\bceros?\b.{{0,60}}\b({_MISSING})\b",
        ),
        _Q + "Mes no publicado no es cero",
        ("no publicado", "cero"),
    ),
    Term(
        "carpetas_vs_victimas",
        (
            r"\bcarpetas?\b",
            r"\bvictimas?\b",
            r"\baveriguacion(es)? previas?\b",
            r"\bincidencia delictiva\b",
            r"\bpersonas (asesinadas|muertas|afectadas)\b",
        ),
        _S + "Carpetas de investigación y víctimas",
        ("carpeta", "víctima", "incidencia", "delito"),
    ),
    Term("fuero", (r"\bfuero\b", r"\bfederal(es)?\b"), _S + "Fuero común y fuero federal", ("fuero común", "federal")),
    Term(
        "metodologia_2026",
        (
            r"\brnid\b",
            r"\b(metodologia|catalogo|cambio)\b.{0,40}\b2026\b",
            r"\b2026\b.{0,40}\b(metodologia|catalogo)\b",
            r"\bnueva metodologia\b",
            r"\bidfc\b",
            r"\bcompar\w*\b.{0,30}\b2026\b|\b2026\b.{0,30}\bcompar\w*",
        ),
        _S + "Cambio de metodología en 2026 (RNID)",
        ("2026", "RNID"),
    ),
    Term(
        "cifra_negra",
        (r"\bcifra negra\b", r"\b(no (se )?denuncia\w*|sin denuncia\w*|no denunciad\w*)\b"),
        _S + "Cifra negra",
        ("cifra negra", "denuncia"),
    ),
    Term(
        "fuente",
        (
            r"\bfuentes?\b",
            # «¿de dónde sacan esto?», «¿de dónde viene la info?»: where the figures come from
            r"\bde donde (la |lo |los |las )?(vienen?|salen?|provienen?|sacan|sacas?|obtienen|obtienes?|toman|tomas?)\b",
            # «¿es confiable?», «¿qué tan confiables son esas cifras?», «¿son oficiales?»: whether to trust them
            r"\b(es|son|sera|seran|que tan) (datos |cifras )?(confiables?|fiables?|oficiales?|verdaderos?|reales?)\b"
            r"|\bconfiabilidad\b",
        ),
        "fuentes.md § Datos públicos republicados por terceros",
        ("fuente", "SESNSP"),
    ),
    Term(
        "total_delitos",
        (r"\btotal (anual )?de (los )?delitos\b",),
        "delitos_disponibles.md § Total de delitos del fuero común (`total_delitos`)",
        ("total de delitos",),
        crime=True,
    ),
    Term(
        "tasa",
        (r"\btasas?\b", r"\bpor (cada )?(100|cien) mil\b"),
        "tasas_y_poblacion.md § Fórmula de la tasa",
        ("tasa",),
    ),
    Term(
        "victimas_valores",
        (r"\bno identificad[oa]s?\b", r"\brangos? de edad\b", r"\bedad(es)? no especificad[oa]s?\b"),
        _C + "Valores del archivo de víctimas: «No identificado» y rangos de edad",
        ("no identificado", "rango de edad", "no especificado"),
        covers=("sexo_edad", "no_especificado", "carpetas_vs_victimas"),
    ),
    Term(
        "sexo_edad",
        (
            r"\b(edad|edades|sexo|genero)\b.{0,40}\bvictimas?\b",
            r"\bvictimas?\b.{0,40}\b(edad|edades|sexo|genero|hombres|mujeres)\b",
        ),
        "limitaciones.md § El archivo municipal no informa sexo ni edad de las víctimas",
        ("sexo", "edad"),
    ),
    Term(
        "doloso_culposo",
        (r"\bdolos[oa]s?\b", r"\bculpos[oa]s?\b"),
        _C + "Doloso y culposo",
        ("doloso", "culposo"),
        crime=True,
    ),
    Term("feminicidio", (r"\bfeminicidios?\b",), _C + "Homicidio doloso y feminicidio", ("feminicidio",), crime=True),
    Term("violacion", (r"\bviolacion(es)?\b",), _C + _VF, ("violación",), crime=True),
    Term(
        "violencia_familiar",
        (r"\bviolencia familiar\b", r"\bviolencia intrafamiliar\b"),
        _C + "Violencia familiar",
        ("violencia familiar",),
        crime=True,
    ),
    Term("abuso_sexual", (r"\babuso sexual\b",), _C + "Abuso sexual", ("abuso sexual",), crime=True),
    Term(
        "acoso_hostigamiento",
        (r"\bacoso\b", r"\bhostigamiento\b"),
        _C + "Hostigamiento sexual y acoso sexual",
        ("hostigamiento", "acoso"),
        crime=True,
    ),
    Term("secuestro", (r"\bsecuestros?\b",), _C + "Secuestro y sus modalidades", ("secuestro",), crime=True),
    Term(
        "robo_violencia",
        (r"\brobos?\b.{0,20}\b(con|sin) violencia\b",),
        _C + "Robo con violencia y sin violencia",
        ("violencia",),
        crime=True,
    ),
    Term(
        "corrupcion_de_menores",
        (r"\bcorrupcion de menores\b",),
        _C + "Corrupción de menores",
        ("corrupción de menores",),
        crime=True,
    ),
    Term("trata", (r"\btrata\b",), _C + "Trata de personas", ("trata",), crime=True),
    Term("electorales", (r"\b(delitos? )?electorales?\b",), _C + "Delitos electorales", ("electoral",), crime=True),
    Term("homicidio", (r"\bhomicidios?\b",), _C + "Doloso y culposo", ("homicidio",), crime=True),
    Term(
        "sesnsp",
        (r"\bsesnsp\b", r"\bsecretariado ejecutivo\b"),
        _S + "Qué es el SESNSP y qué publica",
        ("SESNSP",),
        crime=True,
    ),
    Term(
        "municipio",
        (r"\b(colonias?|barrios?|calles?|cuadrantes?|localidad(es)?)\b",),
        "limitaciones.md § El municipio es el nivel más fino: no hay cifras por colonia ni por calle",
        ("municipio",),
        crime=True,
    ),
)
WEAK = frozenset({"sesnsp"})  # terms that name the subject of a question only when nothing else is asked
# How a definition is asked: «qué es», «diferencia», «incluye», «cuenta como», «es lo mismo», «van aparte».
FRAME = re.compile(
    r"\b(que (es|son|significa\w*|quiere decir|se entiende|incluye\w*|abarca\w*|cuenta\w*|mide\w*|cambia\w*)"
    r"|que diferencia|diferencia\w*|diferenci\w*|distingue\w*|distint[oa]s?|lo mismo(?!\s*,|\s+(?:pero|para|en|con|por|de|del|solo|ahora|ya)\b)|es igual|son iguales"
    r"|(es|son|forma|forman) parte|dentro de|incluy\w*|incluid[oa]s?|abarca\w*|se cuenta\w*|cuenta\w* como"
    r"|se suma\w*|se juntan?|van aparte|por separado|aparte|se considera\w*|defin\w*|explica\w*|significa\w*"
    r"|(se |debe\w* )?(interpreta|considera|toma|lee)\w* como|equivale\w* a|aclar\w* si"  # «debe interpretarse como cero»
    r"|quiere decir|en que consiste|a que se refiere|comparables?|se puede\w* comparar|cuenta\w* (los |las )?(victimas|carpetas|delitos|personas)"
    r"|(es|son) (un |una |el |la |los |las )?(tipo|subtipo|modalidad|forma|clase|variante)s?"
    r"|(cifras?|datos|numeros|conteos?)\b.{0,30}\b(son|cuentan|miden|representan|se refieren|significan)"
    r"|(que onda|que pasa) con (lo|eso) de|que es eso de|eso de que|por que"
    r"|de donde (la |lo |los |las )?(sacan|sacas|obtienen|sale|salen|viene|vienen|toman|provienen?)|de que fuente"
    r"|(es|son|sera|seran|que tan) (datos |cifras )?(confiables?|fiables?|oficiales?|verdaderos?|reales?)|confiabilidad"
    r"|se (toma|toman|trata|tratan|cuenta|cuentan|registra|registran|considera|consideran) como|equivale\w*"
    r"|(que|cuales) (modalidades|subtipos|tipos|categorias|variantes) (tiene|tienen|hay|incluye\w*|abarca\w*)"
    r"|cuales son (las|los) (modalidades|subtipos|tipos|categorias))\b"
)
# A question after a number, a ranking or a list is a data question, whatever terms it names.
# a figure asked, whatever terms it names («¿en qué posición queda Oaxaca por tasa de feminicidio?»)
_DATA = re.compile(
    r"\b(cuant[oa]s|top|ranking|dame (el |la |los |las )?(numeros?|cifras?|totale?s?)"
    r"|(que|cual|en que) (lugar|posicion|puesto|sitio)|(lugar|posicion|puesto) (ocupa|queda|quedo|tiene))\b"
)
EARLY = 30  # characters: a word this close to a sentence's start is what the sentence is about
MAX_SENTENCES = 4  # per section: its topic sentence and the best sentence of each term asked


def terms_in(folded: str) -> list[Term]:
    """The glossary terms a question names, in the order it names them; a pair drops the members it covers."""
    found = [(m.start(), i, t) for i, t in enumerate(GLOSSARY) if (m := t.found(folded))]
    terms = [t for _, _, t in sorted(found, key=lambda x: (x[0], x[1]))]
    covered = {k for t in terms for k in t.covers}
    terms = [t for t in terms if t.key not in covered]
    if len(terms) > 1:  # «el SESNSP» frames a question about something else
        terms = [t for t in terms if t.key not in WEAK]
    sections = {t.section for t in terms if not t.crime}
    # a crime term whose section another term already brings adds nothing
    return [t for t in terms if not (t.crime and t.section in sections)] or terms


def asks_definition(folded: str, u: Understanding | None, framed_only: bool = False) -> bool:
    """Whether a question asks what a term means (not a figure): its terms and frame, and no data slots.

    ``framed_only``: in a conversation, «¿y la tasa?» continues the last question; only a framed one defines.
    """
    folded = expand_chat(folded)  # «q es homicidio culposo», «xq sale vacío»
    terms = terms_in(folded)
    if not terms or _DATA.search(folded):
        return False
    # «los datos estatales»: the state file named, not a place asked about
    said = bool(u and (u.places or u.generic_place or any(x.startswith("national:place:") for x in u.signals)))
    places = said and not re.search(
        r"\b(datos|cifras|archivos?|series?|tablas?) (estatal|estatales|nacional|nacionales)\b", folded
    )
    window = bool(u and u.window)
    concept = any(not t.crime for t in terms)
    if FRAME.search(folded):
        return not places and (not window or concept)
    # without a frame, only a bare term with no shape («¿víctimas o carpetas?», «el RNID») asks what it means
    return (
        concept
        and not places
        and not window
        and not framed_only
        and (u is None or u.kind in ("unknown", "single_value"))
    )


def section_of(citation: str) -> Passage | None:
    """The methodology passage with this citation («doc.md § title»), or None."""
    return next((p for p in DocIndex.load().passages if cite(p) == citation), None)


def passages_for(question: str, retrieved: list[Passage]) -> list[Passage]:
    """The sections of the question's glossary terms first, then the retrieved ones (no repeats)."""
    own = [p for t in terms_in(fold(question)) if (p := section_of(t.section)) is not None]
    seen: dict[str, Passage] = {}
    for p in own + list(retrieved):
        seen.setdefault(cite(p), p)
    return list(seen.values())


_HOW = re.compile(r"\bc[oó]mo (?:se )?(?:calcul|obtien|sac|mid)|\bf[oó]rmula\b|\bcalculan?\b", re.IGNORECASE)
_FORMULA = re.compile(r"\S\s*=\s*\S.*[×÷*/]")  # «tasa = eventos ÷ población × 100 000»


def _best(sents: list[str], words: tuple[str, ...], asked: set[str], how: bool = False) -> int | None:
    """The sentence that best defines one of ``words`` (a defining sentence beats a mention; for «¿cómo se
    calcula…?» a formula beats both), or None."""
    best = None
    for i, s in enumerate(sents[1:], start=1):  # the topic sentence (0) is always in the answer
        folded = fold(s)
        if not any(fold(w) in folded for w in words):
            continue
        subject = " ".join(fold(d) for d in defined_terms(s))
        # a sentence about the word («El subtipo precisa…», «La modalidad «Con otro elemento» agrupa…») beats one
        # that lists it among others
        opens = any(re.match(rf"(el|la|los|las|un|una) ({fold(w)})", folded) for w in words)
        early = any(0 <= folded.find(fold(w)) < EARLY for w in words)
        score = 3 * any(fold(w) in subject for w in words) + 3 * opens + 2 * early + len(asked & set(tokenize(s)))
        score += 6 * (how and bool(_FORMULA.search(s)))
        score -= 0.01 * i
        if best is None or score > best[0]:
            best = (score, i)
    return best[1] if best else None


def define(question: str, passages: list[Passage]) -> tuple[str, list[Passage]]:
    """The answer to a definition: for each section of the terms asked, its topic sentence and the sentences that
    define each term; the passages cited. Without glossary terms, the best retrieved sentence (``quote``)."""
    terms = terms_in(fold(question))
    by_cite = {cite(p): p for p in passages}
    asked = set(tokenize(question, query=True))
    how = bool(_HOW.search(question))
    paragraphs, cited = [], []
    for section in dict.fromkeys(t.section for t in terms):
        p = by_cite.get(section) or section_of(section)
        if p is None:
            continue
        sents = sentences(p.text)
        picks = [0]
        for t in (t for t in terms if t.section == section):
            for word in t.words:
                i = _best(sents, (word,), asked, how)
                if i is not None:
                    picks.append(i)
        chosen = sorted(list(dict.fromkeys(picks))[:MAX_SENTENCES])
        if chosen == [0] and len(sents) > 1:
            chosen = [0, 1]  # a topic sentence alone frames the answer without giving it
        paragraphs.append(" ".join(sents[i] for i in chosen))
        cited.append(p)
    if not paragraphs:
        text, best = quote(question, passages)
        return text, [best]
    return "\n\n".join(paragraphs), cited
