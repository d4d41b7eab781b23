"""Evaluation harness: Spanish questions checked against independent SQL over ``data/raw`` (``core eval``)."""

from __future__ import annotations

import csv
import json
import re
import sys
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import duckdb

from core.config import CATALOGS_DIR, PROJECT_ROOT
from core.engine.envelope import records, tool_name
from core.text import MONTHS, MONTHS_TITLE, fold

DEFAULT_FILE = PROJECT_ROOT / "evals" / "questions.json"
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
_CVE = 'CAST(CAST("{}" AS INTEGER) AS VARCHAR) AS cve_municipio'  # '11020' from an int or zero-padded text


def _load(con: duckdb.DuckDBPyConnection, name: str, path: Path, **opts: bool) -> str:
    """Read a CSV once, as text, into a temp table that the views parse (keeps the checks fast)."""
    extra, literal = "".join(f", {k} = {str(v).lower()}" for k, v in opts.items()), path.as_posix().replace("'", "''")
    con.execute(
        f"CREATE OR REPLACE TEMP TABLE csv_{name} AS SELECT * FROM read_csv('{literal}', header = true, "
        f"all_varchar = true{extra})"
    )
    return f"csv_{name}"


def _wide(table: str, extra: str = "") -> str:
    """SELECT of a wide SESNSP file unpivoted to one row per published month (empty cells dropped)."""
    months, names = ", ".join(f'"{m}"' for m in MONTHS_TITLE), "[" + ", ".join(f"'{m}'" for m in MONTHS_TITLE) + "]"
    return f"""SELECT CAST("Año" AS INTEGER) AS anio, list_position({names}, mes_nombre) AS mes,
        {_CVE.format("Cve. Municipio")}, "Municipio" AS municipio, {extra} CAST(round(CAST(valor AS DOUBLE)) AS BIGINT) AS eventos
        FROM (UNPIVOT {table} ON {months} INTO NAME mes_nombre VALUE valor) WHERE trim(valor) <> ''"""


class RawViews:
    """Independent DuckDB views over the raw CSV files (its own SQL, not the ETL's)."""

    @staticmethod
    def create(con: duckdb.DuckDBPyConnection, raw_dir: str | Path) -> duckdb.DuckDBPyConnection:
        """Views hom, vf, abuso, violacion(_sub), largo, anual, pob, mun and inc (all crimes), macros tasa and meses."""
        raw, s = Path(raw_dir), Path(raw_dir) / "sesnsp"
        hom, keep = (
            _load(con, "hom", s / "IDM_NM_gto_homicidio_2020-2025.csv"),
            '"Subtipo de delito" AS subtipo, "Modalidad" AS modalidad,',
        )
        con.execute(f"CREATE OR REPLACE VIEW hom AS {_wide(hom, keep)}")
        con.execute(
            f"CREATE OR REPLACE VIEW vf AS {_wide(_load(con, 'vf', s / 'gto_violencia_familiar_2015-2022.csv'))}"
        )
        con.execute(
            f"CREATE OR REPLACE VIEW abuso AS {_wide(_load(con, 'abuso', s / 'gto_abuso_sexual_2015-2022.csv'))}"
        )
        vio = _load(con, "violacion", s / "gto_violacion_2015-2022.csv")  # simple + equiparada rows, summed
        con.execute(f"""CREATE OR REPLACE VIEW violacion AS SELECT anio, mes, cve_municipio, municipio, sum(eventos)
            AS eventos FROM ({_wide(vio)}) GROUP BY ALL; CREATE OR REPLACE VIEW violacion_sub AS SELECT CASE CAST(idx
            AS BIGINT) % 98 WHEN 35 THEN 'violacion_simple' WHEN 36 THEN 'violacion_equiparada' END AS delito, anio, mes,
            cve_municipio, municipio, eventos FROM ({_wide(vio, '"column00" AS idx,')})""")  # subtipos: 98-row block
        largo = _load(con, "largo", s / "gto_*_2015-2024.csv", filename=True, union_by_name=True)
        con.execute(f"""CREATE OR REPLACE VIEW largo AS SELECT CAST("Año" AS INTEGER) AS anio,
            CAST(split_part("Mes", '-', 1) AS INTEGER) AS mes, {_CVE.format("cve_municipio")}, "Municipio" AS municipio,
            regexp_extract(filename, 'gto_(.+)_2015-2024\\.csv$', 1) AS delito, "Modalidad" AS modalidad,
            CAST("Cantidad" AS BIGINT) AS eventos FROM {largo}""")
        con.execute(f"""CREATE OR REPLACE VIEW anual AS SELECT {_CVE.format("cve_municipio")}, municipio_fuente AS municipio,
            CAST(anio AS INTEGER) AS anio, CAST(total_delitos AS BIGINT) AS total_delitos
            FROM {_load(con, "anual", s / "gto_total_delitos_anual_2015-2026.csv")}""")
        con.execute(f"""CREATE OR REPLACE VIEW pob AS SELECT {_CVE.format("cve_municipio")}, municipio,
            CAST(anio AS INTEGER) AS anio, CAST(poblacion AS BIGINT) AS poblacion
            FROM {_load(con, "pob", raw / "poblacion_gto.csv")}""")
        con.execute(f"""CREATE OR REPLACE VIEW mun AS SELECT {_CVE.format("cve_municipio")}, municipio
            FROM {_load(con, "mun", raw / "municipios_gto.csv")}""")
        con.execute("""CREATE OR REPLACE VIEW inc AS SELECT lower(replace(subtipo, ' ', '_')) AS delito, anio, mes,
                cve_municipio, municipio, modalidad, eventos FROM hom
            UNION ALL SELECT 'violencia_familiar', anio, mes, cve_municipio, municipio, NULL, eventos FROM vf
            UNION ALL SELECT 'abuso_sexual', anio, mes, cve_municipio, municipio, NULL, eventos FROM abuso
            UNION ALL SELECT 'violacion', anio, mes, cve_municipio, municipio, NULL, eventos FROM violacion
            UNION ALL SELECT delito, anio, mes, cve_municipio, municipio, modalidad, eventos FROM largo""")
        con.execute("CREATE OR REPLACE MACRO tasa(n, p) AS round(CAST(n AS DOUBLE) / p * 100000, 2)")
        con.execute("""CREATE OR REPLACE MACRO meses(a, b) AS TABLE SELECT CAST(unnest(generate_series(
            CAST(a AS DATE), CAST(b AS DATE), INTERVAL 1 MONTH)) AS DATE) AS fecha""")
        return con


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
    if tool in ("total_anual", "serie_temporal") and measure == "conteo" and rows:
        return sum(r.get("conteo") or 0 for r in rows if r.get("publicado", True))
    return rows[0].get(measure) if len(rows) == 1 else None


def _answer(turn: dict) -> tuple[list[dict], str, dict, str | None]:
    """Envelopes, answer text, answer block and planner strategy of a turn."""
    a, strategy = turn.get("answer") or {}, (turn.get("planner_state") or {}).get("strategy")
    return turn.get("envelopes") or [], a.get("text") or "", a, strategy


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


@dataclass
class Check:
    """One checked turn."""

    conv_id: str
    category: str
    turn: int
    question: str
    kind: str
    passed: bool
    expected: Any = None
    got: Any = None
    reason: str = ""
    answer: str = ""  # the engine's answer text (first 400 characters)


@dataclass
class Report:
    """Every checked turn, with accuracy per category."""

    checks: list[Check] = field(default_factory=list)

    def by_category(self) -> dict[str, tuple[int, int]]:
        """category -> (passed, total)."""
        cats = sorted({c.category for c in self.checks})
        return {
            k: (sum(c.passed for c in self.checks if c.category == k), sum(c.category == k for c in self.checks))
            for k in cats
        }

    @property
    def failures(self) -> list[Check]:
        """The turns that failed."""
        return [c for c in self.checks if not c.passed]

    def below(self, minimum: float) -> list[str]:
        """Categories whose accuracy is under ``minimum``."""
        return [k for k, (p, n) in self.by_category().items() if p / n < minimum]

    def as_dict(self) -> dict:
        """JSON-ready report: per category passed/total/accuracy, then the failures."""
        return {
            "categories": {
                k: {"passed": p, "total": n, "accuracy": round(p / n, 4)} for k, (p, n) in self.by_category().items()
            },
            "failures": [asdict(c) for c in self.failures],
        }


def load_questions(path: str | Path = DEFAULT_FILE) -> list[dict]:
    """The conversations of the evaluation file (id, category, turns of {q, expect})."""
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    for conv in data:
        assert conv.get("id") and conv.get("category") and conv.get("turns"), f"conversación mal formada: {conv}"
        for t in conv["turns"]:
            assert t["expect"]["kind"] in KINDS, f"{conv['id']}: tipo desconocido {t['expect']['kind']}"
    return data


def evaluate(
    assistant_factory: Callable[[], Any], questions: list[dict], raw_dir: str | Path, planner: str = "rules"
) -> Report:
    """Ask every conversation in a fresh Conversation and check each turn."""
    from core.ask.pipeline import Conversation

    con, assistant, report = RawViews.create(duckdb.connect(), raw_dir), assistant_factory(), Report()
    for conv in questions:
        conversation = Conversation()
        for i, t in enumerate(conv["turns"]):
            expect = t["expect"]
            expected = expected_of(expect, con)  # from the raw files, before the engine answers
            try:
                turn = assistant.ask(t["q"], conversation, planner=planner).as_dict()
                ok, got, why = check_turn(turn, expect, expected)
            except Exception as exc:  # noqa: BLE001 - an engine crash fails the turn, not the run
                turn, ok, got, why = {}, False, None, f"excepción del motor: {exc.__class__.__name__}: {exc}"
            report.checks.append(
                Check(
                    conv["id"],
                    conv["category"],
                    i + 1,
                    t["q"],
                    expect["kind"],
                    bool(ok),
                    expected,
                    got,
                    why,
                    ((turn.get("answer") or {}).get("text") or "")[:400],
                )
            )
    con.close()
    return report


def format_report(report: Report) -> str:
    """A table of accuracy per category, then the failures."""
    lines = [f"{'categoría':<20} {'bien':>5} {'total':>6} {'exactitud':>10}"]
    lines += [f"{cat:<20} {p:>5} {n:>6} {100 * p / n:>9.1f}%" for cat, (p, n) in report.by_category().items()]
    total, passed = len(report.checks), sum(c.passed for c in report.checks)
    lines.append(f"{'TOTAL':<20} {passed:>5} {total:>6} {100 * passed / max(total, 1):>9.1f}%")
    lines += ["\nFallas:"] if report.failures else []
    dump = lambda v: json.dumps(v, ensure_ascii=False, default=str)[:300]
    lines += [
        f"- [{c.category}] {c.conv_id}#{c.turn} ({c.kind}) «{c.question}»\n    esperado: {dump(c.expected)}\n"
        f"    obtenido: {dump(c.got)}\n    motivo: {c.reason}\n    respuesta: {c.answer[:300]!r}"
        for c in report.failures
    ]
    return "\n".join(lines)


def _cli(args, settings) -> int:
    """Run the evaluation over the current store, print the report; 1 when a category is below the minimum."""
    from core.ask.context import Assistant

    raw = Path(args.raw_dir) if args.raw_dir else PROJECT_ROOT / "data" / "raw"
    report = evaluate(
        lambda: Assistant(settings=settings, user="eval", use_cache=False),
        load_questions(args.file),
        raw,
        planner=args.planner,
    )
    out = (
        json.dumps(report.as_dict(), ensure_ascii=False, indent=2, default=str) if args.json else format_report(report)
    )
    sys.stdout.write(out + "\n")
    return 1 if report.below(args.min_accuracy) else 0


def register_cli(subparsers) -> None:
    """Add ``eval [--file] [--planner] [--json] [--min-accuracy] [--raw-dir]`` to an argparse subparsers object."""
    p = subparsers.add_parser("eval", help="evaluar el motor con las preguntas de evals/questions.json")
    p.add_argument("--file", default=str(DEFAULT_FILE), help="archivo JSON de conversaciones")
    p.add_argument("--planner", choices=["auto", "rules", "llm"], default="rules")
    p.add_argument("--json", action="store_true", help="salida en JSON")
    p.add_argument("--min-accuracy", type=float, default=0.95, help="exactitud mínima por categoría")
    p.add_argument("--raw-dir", help="carpeta de archivos crudos (por omisión data/raw)")
    p.set_defaults(handler=_cli)
