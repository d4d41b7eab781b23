"""Reading an answer: numbers written in its text, result rows, places named (shared by the checkers)."""

from __future__ import annotations

import csv
import re
from functools import cache
from typing import Any

from core.config import CATALOGS_DIR
from core.engine.envelope import records, tool_name
from core.text import MONTHS, fold


@cache
def inegi_codes() -> dict[str, str]:
    """entidad_id → INEGI code ('GTO.MUN.LEON' → '11020'), read on first use, not at import."""
    with open(CATALOGS_DIR / "entities" / "municipios.csv", encoding="utf-8") as f:
        return {"GTO": "11", **{r["entidad_id"]: str(int(r["cve_municipio"])) for r in csv.DictReader(f)}}


def key_matches(row: dict, key: Any) -> bool:
    """Whether a result row is about ``key`` (an INEGI code, an entidad_id or a name)."""
    k, eid = str(key).strip(), str(row.get("entidad_id") or "")
    if k.isdigit():
        return inegi_codes().get(eid) == str(int(k))
    return bool(k) and (eid == k or fold(row.get("label")) == fold(k))


def _num(x: Any) -> float | None:
    """A float, or None for None, booleans and text."""
    try:
        return None if x is None or isinstance(x, bool) else float(x)
    except (TypeError, ValueError):
        return None


def same(a: Any, b: Any, tol: float = 0.0) -> bool:
    """Numbers equal within ``tol`` (None equals only None)."""
    fa, fb = _num(a), _num(b)
    return a is None and b is None if fa is None or fb is None else abs(fa - fb) <= tol + 1e-9


_NUMBER = re.compile(r"(?<![\d.,])\d{1,3}(?:,\d{3})+(?:\.\d+)?(?![\d,]*\d)|(?<![\d.,])\d+(?:\.\d+)?(?![\d,]*\d)")
_MONTH = "(?:" + "|".join(MONTHS) + ")"
_NOT_COUNTS = re.compile(
    rf"\b\d{{4}}-\d{{2}}(?:-\d{{2}})?\b|\b\d{{1,2}}/(?:\d{{1,2}}/)?\d{{4}}\b|\b(?:19|20)\d{{2}}\b"
    rf"|\b\d{{1,2}}\s+(?:meses|mes|de\s+{_MONTH})\b|\b{_MONTH}\s+\d{{1,2}}\b"
    rf"|\b\d{{1,2}}\s*(?:%|por ciento)"
)
_MIXED = re.compile(r"(?i)[\w.-]*(?:[a-z][\w.-]*\d|\d[\w.-]*[a-z])[\w.-]*")  # versions, hashes: not numbers


def numbers_in(text: str, drop_dates: bool = False) -> list[float]:
    """Every number written in the text (``1,234.5`` style); optionally without dates, years and month spans."""
    text = _MIXED.sub(" ", _NOT_COUNTS.sub(" ", fold(text)) if drop_dates else text or "")
    return [float(m.replace(",", "")) for m in _NUMBER.findall(text)]


def number_in_text(value: Any, text: str, tol: float = 0.0) -> bool:
    """Whole numbers must appear as ``1,234``; decimals as any number within ``tol``."""
    v = _num(value)
    if v is not None and tol == 0 and v.is_integer():
        return re.search(rf"(?<![\d.,]){re.escape(f'{int(v):,}')}(?![\d]|,\d)", _MIXED.sub(" ", text or "")) is not None
    return v is not None and any(abs(n - v) <= tol + 1e-9 for n in numbers_in(text))


def contains(text: str, expect: dict) -> str | None:
    """None when ``contains`` (any) and ``contains_all`` (every; an item may list alternatives) are in the text."""
    t, anyof = fold(text), expect.get("contains") or []
    if anyof and not any(fold(p) in t for p in anyof):
        return f"la respuesta no menciona ninguna de {anyof}"
    missing = [
        p for p in expect.get("contains_all") or [] if not any(fold(x) in t for x in ([p], p)[isinstance(p, list)])
    ]
    return f"la respuesta no menciona {missing}" if missing else None


def main_value(env: dict | None, measure: str = "conteo") -> Any:
    """The one number an envelope answers with (single row, or the sum over years/months)."""
    rows, tool = records(env), tool_name(env)
    # a breakdown by crime answers with its sum (the lead says «sumados: …»)
    if tool in ("total_anual", "serie_temporal", "desglose_delito") and measure == "conteo" and rows:
        return sum(r.get("conteo") or 0 for r in rows if r.get("publicado", True))
    return rows[0].get(measure) if len(rows) == 1 else None


def _answer(turn: dict) -> tuple[list[dict], str, dict, str | None]:
    """Envelopes, answer text, answer block and planner strategy of a turn."""
    a, strategy = turn.get("answer") or {}, (turn.get("planner_state") or {}).get("strategy")
    return turn.get("envelopes") or [], a.get("text") or "", a, strategy
