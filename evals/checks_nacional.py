"""Checkers of the kinds issue 14 adds (``evals.expect_nacional``), over ``evals.checks_v2.Answer``-like objects.

No import of ``evals.checks_v2`` (it imports this module): an answer is anything with ``text``, ``rows``, ``has``,
``has_count`` and ``says``.
"""

from __future__ import annotations

import re
from typing import Any

from core.text import fold
from evals.answer_text import key_matches, numbers_in
from evals.oracle import DEC_TOL, SHARE_TOL
from evals.oracle_nacional import HOMICIDE_LIKE

_ORDINALS = ("primer", "segund", "tercer", "cuart", "quint", "sext", "septim", "octav", "noven", "decim")
_RANK_KEYS = ("rank", "ranking", "lugar", "posicion", "pos")
# what counts as saying that a level is not published (folded; any one of them)
NOT_PUBLISHED = (
    "no se publica",
    "no publica",
    "no esta publicad",
    "no se desglosa",
    "no desglosa",
    "no hay desglose",
    "sin desglose",
    "no se separa",
    "no separa",
    "no distingue",
    "no se distingue",
    "no esta disponible",
    "no estan disponibles",
    "no disponible",
    "no existe",
    "no hay datos",
    "no tengo",
    "no tenemos",
    "solo a nivel estatal",
    "solo por estado",
    "solo existe",
    "solo se publica",
    "unicamente",
)
_LEVEL_WORDS = {"municipio": ("municipi",), "subtipo": ("subtipo", "desglos", "detalle"), "victimas": ("victima",)}
_METHOD = ("metodolog", "rnid", "catalogo", "nueva clasificacion")


def _position_said(a: Any, position: int, value: float) -> bool:
    """The position: «quinto lugar», «lugar 5», «posición 5», «5.º», «5°», «5o lugar», «#5», «5 de 32», or a rank column
    in a row that also carries the state's figure (a ranking table's other rows do not count)."""
    t, n = fold(a.text), str(position)
    place = r"(?:lugar|puesto|sitio|posicion)"
    pats = [
        rf"\b{place}\s+(?:numero\s+|no\.\s*)?{n}\b",
        rf"\b{n}\s*(?:\.\s*)?[º°]",
        rf"\b{n}\.?o\b",  # «2.º» folds to «2.o»
        rf"\b{n}\s*(?:\.\s*)?(?:o|er|ro|do|to|vo|no|mo)\s+{place}\b",
        rf"#\s*{n}\b",
        rf"\b{n}\s+de\s+(?:los\s+|las\s+)?32\b",
    ]
    if position <= len(_ORDINALS):
        pats.append(rf"\b{_ORDINALS[position - 1]}\w*\s+(?:\w+\s+)?{place}\b")  # «primer lugar», «quinta posición»
        pats.append(rf"\b{place}\s+{_ORDINALS[position - 1]}")
    if any(re.search(p, t) for p in pats):
        return True
    figures = lambda r: [x for x in r.values() if isinstance(x, (int, float)) and abs(x - value) <= DEC_TOL]
    return any(str(r.get(k)) == n and figures(r) for r in a.rows for k in _RANK_KEYS if k in r)


def check_state_number(a: Any, e, x) -> tuple[bool, str]:
    """The figure is in the text; an RNID figure also names the methodology."""
    if not a.has(x, 0.0 if e.medida == "conteo" else DEC_TOL, rows=False):
        return False, "el texto no dice la cifra"
    return e.serie != "rnid" or a.says(*_METHOD), "no advierte el cambio de metodología (RNID 2026)"


def check_state_rank(a: Any, e, x) -> tuple[bool, str]:
    """The position (ordinal, «lugar N», or a rank column) and the state's figure are in the text or rows."""
    if not a.has(x["value"], 0.0 if e.medida == "conteo" else DEC_TOL):
        return False, "no da la cifra del estado"
    return _position_said(a, x["position"], x["value"]), f"no dice el lugar {x['position']}"


def check_victims_share(a: Any, e, x) -> tuple[bool, str]:
    """The share of ``sexo`` (±0.1) or its count of victims is in the text or rows."""
    ok = a.has(round(x["share"], 4), SHARE_TOL) or a.has(x["count"])
    return ok, "no da la proporción ni el número de víctimas de ese sexo"


def check_federal_number(a: Any, e, x) -> tuple[bool, str]:
    """The figure is in the text, which says it is fuero federal."""
    if not a.has(x, rows=False):
        return False, "el texto no dice la cifra"
    return a.says("federal"), "no dice que es fuero federal"


def check_municipal_tipo_number(a: Any, e, x) -> tuple[bool, str]:
    """The count is in the text; for homicidio / lesiones at tipo level the text says doloso and culposo are mixed."""
    if not a.has(x, rows=False):
        return False, "el texto no dice la cifra"
    mixed = e.tipo in HOMICIDE_LIKE and e.subtipo is None  # Irapuato's subtipo is not mixed
    return not mixed or a.says("culpos"), "no advierte que mezcla dolosos y culposos"


def _sentences(text: str) -> list[str]:
    return [s for s in re.split(r"(?<=[.;!?])\s+|\n+", fold(text)) if s.strip()]


def check_granularity_note(a: Any, e, x) -> tuple[bool, str]:
    """Says the level is not published; no sentence labels a count with the finer term (and the place, if any)."""
    from evals.checks_v2 import place_names  # lazy: checks_v2 imports this module

    terms = [fold(t) for t in ([e.term] if isinstance(e.term, str) else e.term)]
    names = place_names().get(str(int(e.place)), []) if e.place and e.place != "11" else []
    for s in _sentences(a.text):
        # «el estado de Guanajuato» is the state, not the capital that shares its name
        said = [n for n in names if re.search(rf"(?<!estado de ){re.escape(n)}", s)]
        labelled = any(t in s for t in terms) and (not names or said)
        if labelled and numbers_in(s, drop_dates=True) and not any(p in s for p in NOT_PUBLISHED):
            return False, f"da una cifra con la etiqueta fina: {s[:80]!r}"
    for r in a.rows:
        label = fold(" ".join(str(v) for v in r.values()))
        if any(t in label for t in terms) and (not e.place or e.place == "11" or key_matches(r, e.place)):
            return False, "una fila lleva la etiqueta fina"
    if not a.says(*NOT_PUBLISHED):
        return False, "no dice que ese nivel no se publica"
    return a.says(*_LEVEL_WORDS[e.level]), f"no nombra el nivel ({e.level})"


NATIONAL_CHECKERS = {k[6:]: f for k, f in globals().items() if k.startswith("check_")}
