"""Checkers of the first evaluation set (``evals/questions.json``): each expectation carries its own SQL."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import duckdb

from core.engine.envelope import records, tool_name
from core.text import fold
from evals.answer_text import (
    _answer,
    _num,
    contains,
    inegi_codes,
    key_matches,
    main_value,
    number_in_text,
    numbers_in,
    same,
)

KINDS = (
    "number",
    "top",
    "series",
    "comparison",
    "share",
    "nonempty_tool",
    "no_number",
    "clarify",
    "refuse",
    "social",
    "definition",
)
DATA_KINDS = KINDS[:6]  # these need an ok result envelope
NO_DATA_CODES = ("DATA_QUALITY_ISSUE", "INVALID_DATE_RANGE")
RATE_TOL, SHARE_TOL = 0.05, 0.1


def check_number(res, turn, expect, expected):
    """The main value of the result equals the expected one, and the answer text says it."""
    measure = expect.get("measure", "conteo")
    tol = RATE_TOL if measure == "tasa_per_100k" else 0.0
    got, text = main_value(res, measure), _answer(turn)[1]
    if not same(got, expected, tol):
        return False, {"tool": tool_name(res), "value": got}, "valor distinto"
    if not number_in_text(expected, text, tol):
        return False, {"value": got, "text": text[:300]}, "el texto no dice el número"
    return True, got, ""


def check_top(res, turn, expect, expected):
    """The first k rows are the expected entities (with [key, value] rows, ties may swap places)."""
    k, measure, rows = int(expect.get("k", len(expected))), expect.get("measure", "conteo"), records(res)
    tol, got = RATE_TOL if measure == "tasa_per_100k" else 0.0, [r.get("label") for r in rows[:k]]
    if len(rows) < k:
        return False, got, f"solo {len(rows)} filas"
    exp = [e if isinstance(e, (list, tuple)) else [e] for e in expected]
    for i, row in enumerate(rows[:k]):
        mine = [e for e in exp if key_matches(row, e[0])]
        ok = bool(mine) and (
            mine[0] is exp[i]
            if len(exp[i]) == 1
            else same(mine[0][1], exp[i][1], tol) and same(row.get(measure), exp[i][1], tol)
        )
        if not ok:
            return False, got, f"lugar {i + 1}: {row.get('label')} ({row.get(measure)}), se esperaba {exp[i]}"
    return True, got, ""


def check_series(res, turn, expect, expected):
    """Every month's value; an unpublished month has no number (marked, or left out of the effective window)."""
    got = {str(r.get("fecha"))[:7]: r.get("conteo") if r.get("publicado", True) else None for r in records(res)}
    want = {str(f)[:7]: v for f, v in expected}
    bad = sorted(m for m in set(got) | set(want) if not same(got.get(m), want.get(m)))
    ok = tool_name(res) == "serie_temporal" and not bad
    return ok, list(got.values()), "" if ok else f"meses distintos: {bad[:6]} ({tool_name(res)})"


def check_comparison(res, turn, expect, expected):
    """The two windows' counts (conteo, conteo_base)."""
    m, rows = res.get("metrics") or {}, records(res)
    got = [m.get("conteo"), m.get("conteo_base")]
    if got[0] is None and len(rows) == 1:
        got = [rows[0].get("conteo"), rows[0].get("conteo_base")]
    ok = tool_name(res) == "comparar_periodos" and all(same(a, b) for a, b in zip(got, expected))
    return ok, got, "" if ok else "conteos distintos"


def check_share(res, turn, expect, expected):
    """The expected entity (first row unless ``first`` is false) and its share in % within 0.1 (ties allowed)."""
    target = expected[0]
    keys = [e[0] for e in expected if same(e[1], target[1], 0.001)]
    rows = [r for r in records(res) if "porcentaje" in r]
    pick = rows[:1] if expect.get("first", True) else [r for r in rows if key_matches(r, target[0])][:1]
    if not pick:
        return False, tool_name(res), "el resultado no tiene la fila con porcentaje"
    got = [pick[0].get("label"), pick[0].get("porcentaje")]
    ok = any(key_matches(pick[0], k) for k in keys) and same(pick[0]["porcentaje"], target[1], SHARE_TOL)
    return ok, got, "" if ok else "entidad o porcentaje distinto"


def check_nonempty_tool(res, turn, expect, expected):
    """The plan uses the tool, the result is not empty; with ``columns``, its rows exist in the raw data."""
    ids = [s.get("tool_id") for s in ((turn.get("plan") or {}).get("plan") or [])]
    rows, cols = records(res), expect.get("columns")
    if int(expect["tool"]) not in ids:
        return False, ids, f"el plan no usa la herramienta {expect['tool']}"
    if len(rows) < int(expect.get("min_rows", 1)):
        return False, len(rows), "resultado vacío"
    plain = lambda v: str(int(_num(v))) if _num(v) is not None and _num(v).is_integer() else str(v)[:10]
    allowed = {tuple(plain(v) for v in r) for r in expected or []}
    for r in rows if cols and expected is not None else []:
        t = tuple(plain(inegi_codes().get(r.get(c), r.get(c)) if c == "entidad_id" else r.get(c)) for c in cols)
        if t not in allowed:
            return False, t, "fila que no está en los datos crudos"
    return True, [tool_name(res), len(rows)], ""


def check_no_number(turn, expect, expected):
    """Outside coverage: no result or a no-data error, no count in the text, and the promised phrases."""
    res, text = turn.get("result"), _answer(turn)[1]
    code = ((res or {}).get("error") or {}).get("code")
    if res is not None and code not in NO_DATA_CODES:
        return False, {"status": res.get("status"), "code": code, "value": main_value(res)}, "hubo un resultado"
    if numbers_in(text, drop_dates=True):
        return False, text[:300], "el texto da una cifra"
    why = contains(text, expect)
    return why is None, text[:300], why or ""


def check_clarify(turn, expect, expected):
    """Asks back with options and runs no tool."""
    envs, _, answer, strategy = _answer(turn)
    qs = (turn.get("planner_state") or {}).get("clarifying_questions") or []
    options = answer.get("clarifying_options") or [o for q in qs for o in q.get("options") or []]
    ok = strategy == "clarify_then_retrieve" and not envs and bool(options)
    return ok, {"strategy": strategy, "envelopes": len(envs), "options": options[:5]}, "" if ok else "no aclara"


def check_refuse(turn, expect, expected):
    """Refuses (defer_or_refuse), runs nothing and says the promised phrases."""
    envs, text, _, strategy = _answer(turn)
    if strategy != "defer_or_refuse" or envs:
        return False, {"strategy": strategy, "envelopes": len(envs), "text": text[:200]}, "no rechaza"
    why = contains(text, expect)
    return why is None, text[:300], why or ""


def check_social(turn, expect, expected):
    """A direct answer without tools."""
    envs, text, _, strategy = _answer(turn)
    ok = strategy == "direct_answer" and not envs and bool(text.strip())
    return ok, {"strategy": strategy, "envelopes": len(envs)}, "" if ok else "no es respuesta directa"


def check_definition(turn, expect, expected):
    """A definition answered from the methodology documents (``doc``: one name or a list), without tools."""
    envs, text, answer, _ = _answer(turn)
    cat = (turn.get("intake") or {}).get("category")
    docs = [f"{s.get('ref')} {s.get('title')}" for s in answer.get("sources") or [] if s.get("kind", "doc") == "doc"]
    if cat != "definition" or envs:
        return False, {"category": cat, "envelopes": len(envs)}, "no se trató como definición"
    wanted = expect.get("doc") or []
    if not any(fold(w) in fold(d) for w in ([wanted] if isinstance(wanted, str) else wanted) for d in docs):
        return False, docs, f"no cita el documento {wanted}"
    why = contains(text, expect)
    return why is None, docs, why or ""


CHECKERS: dict[str, Callable] = {k: globals()[f"check_{k}"] for k in KINDS}


def check_turn(turn: dict, expect: dict, expected: Any) -> tuple[bool, Any, str]:
    """Check one turn's JSON (``Turn.as_dict()``) against its expectation; any exception is a failure."""
    try:
        if (kind := expect["kind"]) not in DATA_KINDS:
            return CHECKERS[kind](turn, expect, expected)
        res = turn.get("result")
        if not res or res.get("status") != "ok":
            why = f"resultado con error {(res.get('error') or {}).get('code')}" if res else "sin sobre de resultado"
            return False, why, why
        return CHECKERS[kind](res, turn, expect, expected)
    except Exception as exc:  # noqa: BLE001 - a malformed turn is a failed check, not a crash
        return False, None, f"{exc.__class__.__name__}: {exc}"


def expected_of(expect: dict, con: duckdb.DuckDBPyConnection) -> Any:
    """The expected value from ``expect.sql``: a scalar, a pair, a list or rows, by kind (else ``expect.value``)."""
    if "sql" not in expect:
        return expect.get("value")
    rows, kind = con.execute(expect["sql"]).fetchall(), expect["kind"]
    if kind in ("number", "comparison"):
        return None if not rows else rows[0][0] if kind == "number" else list(rows[0])
    return [list(r) if len(r) > 1 or kind != "top" else r[0] for r in rows]
