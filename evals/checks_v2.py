"""Checkers of the new evaluation set (``evals/v2``): the oracle's figures against an answer's text and rows."""

from __future__ import annotations

import csv
import re
from functools import cache
from typing import Any

from core.config import CATALOGS_DIR
from core.engine.envelope import records
from core.text import MONTHS, fold
from evals.answer_text import _num, inegi_codes, key_matches, number_in_text, numbers_in
from evals.checks_nacional import NATIONAL_CHECKERS
from evals.oracle import DEC_TOL, SHARE_TOL, YOY_TOL

_SHORT = {  # how people and answers shorten the long official names
    "11014": ["dolores hidalgo", "dolores"],
    "11037": ["silao"],
    "11035": ["juventino rosas"],
    "11003": ["san miguel de allende", "san miguel"],
    "11031": ["san francisco del rincon"],
    "11015": ["guanajuato capital", "municipio de guanajuato", "ciudad de guanajuato", "capital del estado"],
}
_NOT_LOADED = (
    "no esta",
    "no estan",
    "no hay dato",
    "no tengo",
    "no tenemos",
    "no cuento",
    "no se encuentra",
    "no incluye",
    "no se incluye",
    "no contiene",
    "no forma parte",
    "no esta cargad",
    "no disponible",
    "no estan disponibles",
    "fuera de",
    "sin datos",
    "no se cargo",
    "no cubre",
    "no abarca",
    "no tiene dato",
)
_DOWN = ("baj", "disminu", "cay", "caida", "redu", "descen", "menos", "menor")
_UP = ("aument", "sub", "crec", "alza", "increment", "mas", "mayor")
# not counts: «46 municipios», and the unit of a rate («por cada 100 mil habitantes», «100,000»)
_NOT_A_COUNT = re.compile(r"\b46 municipios\b|\b100(?:,000| 000| mil)\b")


@cache
def place_names() -> dict[str, list[str]]:
    """INEGI code → folded names (official, then short forms), from the entity catalogue."""
    with open(CATALOGS_DIR / "entities" / "municipios.csv", encoding="utf-8") as f:
        rows = [(str(int(r["cve_municipio"])), fold(r["nombre"]), fold(r["nombre_corto"])) for r in csv.DictReader(f)]
    return {c: list(dict.fromkeys([n, short, *_SHORT.get(c, [])])) for c, n, short in rows}


def places_in_order(text: str, bare_state: bool = False) -> list[str]:
    """Municipality codes in the order the text names them (longest names first, so «Victoria» ≠ «Silao…»).

    A bare «Guanajuato» is the state's name too: it counts as the capital only with ``bare_state``.
    """
    t, hits = fold(text), []
    for code, alias in sorted(((c, a) for c, al in place_names().items() for a in al), key=lambda x: -len(x[1])):
        for m in re.finditer(rf"\b{re.escape(alias)}\b", t):
            if bare_state or alias != "guanajuato":
                hits.append((m.start(), code))
            t = t[: m.start()] + " " * len(alias) + t[m.end() :]
    return [c for _, c in sorted(hits)]


class Answer:
    """What a checker reads from one turn's JSON (``Turn.as_dict()``)."""

    def __init__(self, turn: dict):
        a = turn.get("answer") or {}
        self.turn, self.text, self.answer = turn, a.get("text") or "", a
        self.strategy = (turn.get("planner_state") or {}).get("strategy")
        self.envelopes = turn.get("envelopes") or []
        ok = [e for e in self.envelopes if e.get("status") == "ok"]
        self.rows = [r for e in ok for r in records(e)]
        metrics = [v for e in ok for v in (e.get("metrics") or {}).values()]
        self.row_numbers = [n for n in (_num(v) for r in self.rows for v in r.values()) if n is not None]
        self.row_numbers += [n for n in map(_num, metrics) if n is not None]

    def has(self, value: float, tol: float = 0.0, rows: bool = True) -> bool:
        """The figure is written in the text (``2,581``; decimals within ``tol``) or, if ``rows``, is a row value."""
        whole = tol == 0 and float(value).is_integer()
        if number_in_text(int(value) if whole else round(value, 4), self.text, 0 if whole else max(tol, DEC_TOL)):
            return True
        return rows and any(abs(n - value) <= (0 if whole else max(tol, DEC_TOL)) + 1e-9 for n in self.row_numbers)

    def has_count(self) -> bool:
        """Any count or rate: a number in the text (dates, years and «46 municipios» aside) or a result row."""
        return bool(numbers_in(_NOT_A_COUNT.sub(" ", fold(self.text)), drop_dates=True)) or bool(self.rows)

    def asks(self) -> bool:
        """The assistant asked back."""
        return self.strategy == "clarify_then_retrieve" or bool(self.answer.get("clarifying_options"))

    def says(self, *phrases: str) -> bool:
        """Any of the phrases (accent- and case-insensitive) is in the text."""
        t = fold(self.text)
        return any(fold(p) in t for p in phrases)


def _terms(term: Any) -> list[str]:
    return [term] if isinstance(term, str) else list(term or [])


def _month_named(a: Answer, ym: str, multi_year: bool) -> bool:
    """The text names the month (``julio``, with its year when the window spans years) or writes ``YYYY-MM``."""
    t, name = fold(a.text), MONTHS[int(ym[5:]) - 1]
    year = rf"(?:\s+(?:de|del)?\s*{ym[:4]})" if multi_year else ""
    return ym in t or re.search(rf"\b{name}{year}\b", t) is not None


def check_number(a: Answer, e, x) -> tuple[bool, str]:
    """The figure is in the answer text."""
    tol = 0.0 if e.medida == "conteo" else DEC_TOL
    return a.has(x, tol, rows=False), "el texto no dice la cifra"


def check_extreme(a: Answer, e, x) -> tuple[bool, str]:
    """Names the month (or year) of one of the tied extremes, and its figure."""
    if not a.has(x["value"], rows=False):
        return False, "el texto no dice la cifra del extremo"
    if e.unit == "month":
        ok = any(_month_named(a, m, x["multi_year"]) for m in x["at"])
    else:
        ok = any(re.search(rf"\b{y}\b", a.text) for y in x["at"])
    return ok, "no nombra el mes o año del extremo"


def check_places_zero(a: Answer, e, x) -> tuple[bool, str]:
    """The count of places is in the answer; for a list, every place named (≤ 10) also passes."""
    if a.has(x["count"], rows=False):
        return True, ""
    if e.answer == "list" and 0 < x["count"] <= 10:
        named = set(places_in_order(a.text, bare_state=True)) | {
            c for c in x["places"] for r in a.rows if key_matches(r, c)
        }
        return set(x["places"]) <= named, "faltan lugares de la lista"
    return False, "no dice cuántos lugares"


def check_breakdown(a: Answer, e, x) -> tuple[bool, str]:
    """The largest modalidad's share (±0.1) or count is in the answer text or rows."""
    ok = any(a.has(round(pct, 4), SHARE_TOL) or a.has(n) for _, n, pct in x["largest"])
    return ok, "no da la parte de la modalidad principal"


def check_annual_series(a: Answer, e, x) -> tuple[bool, str]:
    """Each year's total in rows or text, and the last year-over-year % (±0.5, either sign)."""
    missing = [y for y, v in x["years"] if not a.has(v)]
    if missing:
        return False, f"faltan los totales de {missing}"
    yoy = x["yoy"]
    return yoy is None or a.has(round(abs(yoy), 4), YOY_TOL) or a.has(
        round(yoy, 4), YOY_TOL
    ), "falta la variación anual"


def check_side_by_side(a: Answer, e, x) -> tuple[bool, str]:
    """Every place's figure is in the answer text or rows."""
    tol = 0.0 if e.medida == "conteo" else DEC_TOL
    missing = [p for p, v in x.items() if not a.has(v, tol)]
    return not missing, f"faltan las cifras de {missing}"


def check_vs_state(a: Answer, e, x) -> tuple[bool, str]:
    """Both rates in the text, and the right verdict (the wrong one absent)."""
    if not (a.has(x["place"], DEC_TOL, rows=False) and a.has(x["state"], DEC_TOL, rows=False)):
        return False, "faltan las dos tasas en el texto"
    wrong = "por debajo" if x["verdict"] == "por encima" else "por encima"
    return a.says(x["verdict"]) and not a.says(wrong), "veredicto ausente o equivocado"


def check_change_rank(a: Answer, e, x) -> tuple[bool, str]:
    """The first municipality (first row, or first named in the text) is the expected one, direction worded."""
    rows = [r for r in a.rows if str(r.get("entidad_id") or "").startswith("GTO.MUN")]
    first_row = bool(rows) and any(key_matches(rows[0], c) for c in x["first"])
    named = places_in_order(a.text)
    if not (first_row or (named and named[0] in x["first"])):
        return False, f"primer lugar distinto (texto: {named[:3]})"
    return a.says(*(_DOWN if e.direction == "down" else _UP)), "no dice la dirección del cambio"


def check_same_period(a: Answer, e, x) -> tuple[bool, str]:
    """Both sums (the year so far and the same months of the year before) are in the answer."""
    return a.has(x["year"]) and a.has(x["prev"]), "faltan las dos sumas del mismo periodo"


def check_series(a: Answer, e, x) -> tuple[bool, str]:
    """Every published month's count in the rows (by month)."""
    got = {str(r.get("fecha"))[:7]: r.get("conteo") for r in a.rows if r.get("publicado", True) and r.get("fecha")}
    bad = [m for m, v in x if _num(got.get(m)) != v]
    return not bad, f"meses distintos: {bad[:6]}"


def check_comparison(a: Answer, e, x) -> tuple[bool, str]:
    """Both windows' counts are in the answer."""
    return a.has(x["current"]) and a.has(x["base"]), "faltan los dos conteos"


def check_top(a: Answer, e, x) -> tuple[bool, str]:
    """The first k rows are the expected places in order (ties may swap)."""
    rows = [r for r in a.rows if str(r.get("entidad_id") or "").startswith("GTO.MUN")][: e.k]
    if len(rows) < e.k:
        return False, f"solo {len(rows)} filas"
    for i, r in enumerate(rows):
        tied = [c for c, v in x if abs(v - x[i][1]) <= 1e-6]
        if not any(key_matches(r, c) for c in tied):
            return False, f"lugar {i + 1}: {r.get('label')}, se esperaba {x[i][0]}"
    return True, ""


def check_share(a: Answer, e, x) -> tuple[bool, str]:
    """The place's share (±0.1) is in the answer."""
    return a.has(round(x, 4), SHARE_TOL), "falta el porcentaje"


def check_split_or_ask(a: Answer, e, x) -> tuple[bool, str]:
    """Asks, or states both figures and their sum."""
    if a.asks() and not a.envelopes:
        return True, ""
    ok = all(a.has(v, rows=False) for v in x["parts"].values()) and a.has(x["sum"], rows=False)
    return ok, "ni pregunta ni da las dos cifras con su suma"


def check_not_recognized(a: Answer, e, x) -> tuple[bool, str]:
    """No count; names the term or asks which place or crime."""
    if a.has_count():
        return False, "dio una cifra"
    return a.says(*_terms(e.term)) or a.asks(), "no dice qué no reconoció ni pregunta"


def check_not_loaded(a: Answer, e, x) -> tuple[bool, str]:
    """No count; says the data is not loaded."""
    if a.has_count():
        return False, "dio una cifra"
    return a.says(*_NOT_LOADED), "no dice que ese dato no está cargado"


def check_below_municipality(a: Answer, e, x) -> tuple[bool, str]:
    """No count; says the data stops at municipality."""
    if a.has_count():
        return False, "dio una cifra"
    return a.says("municipi"), "no dice que los datos llegan a nivel municipio"


def check_clarify(a: Answer, e, x) -> tuple[bool, str]:
    """Asks back, runs nothing; the promised options are offered."""
    if not a.asks() or a.envelopes:
        return False, "no pregunta"
    offered = fold(" | ".join(a.answer.get("clarifying_options") or []) + " " + a.text)
    missing = [o for o in e.options or [] if fold(o) not in offered]
    return not missing, f"no ofrece {missing}"


def check_menu(a: Answer, e, x) -> tuple[bool, str]:
    """At least two things it can answer, no count."""
    if a.has_count():
        return False, "dio una cifra"
    items = len(a.answer.get("clarifying_options") or [])
    items = max(
        items, len(re.findall(r"(?m)^\s*(?:[-•*]|\d+[.)])\s+\S", a.text)), len(re.findall(r"«[^»]{8,}»", a.text))
    )
    return items >= 2, "no ofrece al menos dos opciones"


def check_refuse(a: Answer, e, x) -> tuple[bool, str]:
    """Refused with a reason, runs nothing, no count."""
    ok = a.strategy == "defer_or_refuse" and not a.envelopes and len(a.text.strip()) >= 20 and not a.has_count()
    return ok, "no rechaza con una razón"


def check_social(a: Answer, e, x) -> tuple[bool, str]:
    """A direct answer without tools."""
    return a.strategy == "direct_answer" and not a.envelopes and bool(a.text.strip()), "no es respuesta directa"


def check_definition(a: Answer, e, x) -> tuple[bool, str]:
    """No database tool ran; every term is in the answer; the section, if given, is cited."""
    if a.envelopes:
        return False, "corrió una herramienta de datos"
    missing = [t for t in e.terms if not a.says(*_terms(t))]
    if missing:
        return False, f"no cubre {missing}"
    cited = " ".join(f"{s.get('ref')} {s.get('title')}" for s in a.answer.get("sources") or [])
    return not e.section or fold(e.section) in fold(cited), f"no cita {e.section}"


CHECKERS_V2 = {k[6:]: f for k, f in globals().items() if k.startswith("check_")} | NATIONAL_CHECKERS


def check_v2(turn: dict, expect, expected: Any) -> tuple[bool, Any, str]:
    """Check one turn against a validated expectation and the oracle's figures; an exception is a failure."""
    try:
        ok, why = CHECKERS_V2[expect.kind](Answer(turn), expect, expected)
        return bool(ok), ((turn.get("answer") or {}).get("text") or "")[:200], "" if ok else why
    except Exception as exc:  # noqa: BLE001 - a malformed turn is a failed check, not a crash
        return False, None, f"{exc.__class__.__name__}: {exc}"


__all__ = ["CHECKERS_V2", "Answer", "check_v2", "inegi_codes", "place_names", "places_in_order"]
