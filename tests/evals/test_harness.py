"""Evaluation suite: Spanish questions answered by the engine, checked against independent SQL over data/raw.

The expected values come from ``evals.harness.RawViews`` (DuckDB views over the raw CSV
files), never from the engine's store. The checkers themselves are tested with fake turns.
"""

from __future__ import annotations

import argparse
from collections import Counter

import duckdb
import pytest

from core.config import DEFAULT_DATA_DIR
from evals.harness import (
    CHECKERS,
    DEFAULT_FILE,
    KINDS,
    Check,
    RawViews,
    Report,
    check_turn,
    evaluate,
    expected_of,
    format_report,
    load_questions,
    number_in_text,
    numbers_in,
    register_cli,
)

RAW = DEFAULT_DATA_DIR / "raw"
QUESTIONS = DEFAULT_FILE
MIN_ACCURACY = 0.95
FOLLOW_UP_CATEGORIES = {"seguimiento"}


@pytest.fixture(scope="module")
def con():
    """The independent views over data/raw."""
    c = RawViews.create(duckdb.connect(), RAW)
    yield c
    c.close()


# ---------------------------------------------------------------- the independent views


def test_views_reproduce_the_readme_check_figures(con):
    """The views agree with the figures published in data/raw/README.md."""
    one = lambda sql: con.execute(sql).fetchone()[0]
    assert (
        one(
            "SELECT sum(eventos) FROM hom WHERE cve_municipio = '11020' AND subtipo = 'Homicidio doloso' "
            "AND anio = 2024"
        )
        == 596
    )
    assert one("SELECT sum(eventos) FROM vf WHERE anio = 2019") == 11142
    assert one("SELECT sum(eventos) FROM largo WHERE delito = 'feminicidio' AND anio = 2021") == 30
    assert one("SELECT sum(total_delitos) FROM anual WHERE anio = 2024") == 154108
    per_year = dict(
        con.execute("SELECT anio, sum(eventos) FROM hom WHERE subtipo = 'Homicidio doloso' GROUP BY 1").fetchall()
    )
    assert per_year == {2020: 3359, 2021: 2823, 2022: 2634, 2023: 2581, 2024: 2553, 2025: 1916}
    assert [
        r[0]
        for r in con.execute(
            "SELECT sum(eventos) FROM hom WHERE cve_municipio = '11020' AND subtipo = "
            "'Homicidio doloso' AND anio = 2024 GROUP BY mes ORDER BY mes"
        ).fetchall()
    ] == [57, 43, 42, 61, 46, 57, 63, 45, 51, 49, 41, 41]
    assert one("SELECT sum(eventos) FROM violacion WHERE anio = 2021") == 896
    assert one("SELECT sum(eventos) FROM abuso WHERE anio = 2022") == 759
    assert one("SELECT sum(poblacion) FROM pob WHERE anio = 2020") == 6265796


def test_unpublished_months_are_dropped_not_zero(con):
    """Empty cells (December 2025, July-December 2022) are not rows."""
    assert con.execute("SELECT count(*) FROM hom WHERE anio = 2025 AND mes = 12").fetchone()[0] == 0
    assert con.execute("SELECT max(mes) FROM abuso WHERE anio = 2022").fetchone()[0] == 6
    assert con.execute("SELECT max(mes) FROM violacion WHERE anio = 2022").fetchone()[0] == 6
    assert con.execute("SELECT count(DISTINCT delito) FROM largo").fetchone()[0] == 12


# ---------------------------------------------------------------- the question file


def test_question_file_is_large_and_balanced():
    """At least 150 turns, every category with 8 or more, follow-ups with 2-3 turns, unique ids."""
    convs = load_questions(QUESTIONS)
    per_cat = Counter()
    for c in convs:
        per_cat[c["category"]] += len(c["turns"])
        if c["category"] in FOLLOW_UP_CATEGORIES:
            assert 2 <= len(c["turns"]) <= 3, c["id"]
    assert len({c["id"] for c in convs}) == len(convs)
    assert sum(per_cat.values()) >= 150
    assert len(per_cat) >= 16
    assert all(n >= 8 for n in per_cat.values()), per_cat
    questions = [t["q"] for c in convs for t in c["turns"] if c["category"] not in FOLLOW_UP_CATEGORIES]
    assert len(set(questions)) == len(questions), "preguntas repetidas"


@pytest.mark.slow  # every expected value of the question set, computed from the raw CSVs
def test_every_expected_value_computes(con):
    """Each expect.sql runs over the raw views and gives a usable value."""
    for c in load_questions(QUESTIONS):
        for t in c["turns"]:
            e = t["expect"]
            if "sql" not in e:
                continue
            got = expected_of(e, con)
            assert got is not None and got != [], (c["id"], t["q"])
            if e["kind"] == "top":
                assert len(got) >= e["k"], c["id"]
            if e["kind"] == "series":
                assert any(v is not None for _, v in got), c["id"]


# ---------------------------------------------------------------- the checkers, on fake turns


def env(tool: str, columns: list[str], rows: list[list], metrics: dict | None = None) -> dict:
    """A minimal ok envelope."""
    return {
        "status": "ok",
        "tool": f"{tool}@1.0.0",
        "metrics": metrics or {},
        "data": {"inline": {"columns": [{"name": c, "type": "x"} for c in columns], "rows": rows}},
    }


def turn(
    result: dict | None = None,
    text: str = "",
    strategy: str = "retrieve_then_answer",
    tools=(),
    category: str = "relevant",
    sources=(),
    options=(),
) -> dict:
    """A minimal Turn.as_dict()."""
    return {
        "intake": {"category": category},
        "planner_state": {"strategy": strategy, "clarifying_questions": []},
        "plan": {"plan": [{"tool_id": t, "args": {}} for t in tools]} if tools else None,
        "envelopes": [result] if result else [],
        "result": result,
        "answer": {"text": text, "sources": list(sources), "clarifying_options": list(options)},
    }


RANK = ["entidad_id", "label", "conteo", "tasa_per_100k"]
LEON = ["GTO.MUN.LEON", "León", 596, 32.19]
ERR = {"status": "error", "tool": "rank_por_delito@1.1.0", "error": {"code": "DATA_QUALITY_ISSUE"}}
TOP = [["11020", 596], ["11007", 443], ["11017", 261]]
TOP_ROWS = [
    ["GTO.MUN.LEON", "León", 596, 1.0],
    ["GTO.MUN.CELAYA", "Celaya", 443, 1.0],
    ["GTO.MUN.IRAPUATO", "Irapuato", 261, 1.0],
]
SERIE = env(
    "serie_temporal",
    ["fecha", "conteo", "publicado"],
    [["2022-05-01", 3, True], ["2022-06-01", 4, True], ["2022-07-01", None, False]],
)
SHARE = env(
    "agrupar_por_entidad",
    ["entidad_id", "label", "conteo", "porcentaje"],
    [["GTO.MUN.CELAYA", "Celaya", 6, 20.0], ["GTO.MUN.LEON", "León", 2, 6.67]],
)
ANOM = env(
    "detectar_anomalias", ["entidad_id", "label", "fecha", "conteo"], [["GTO.MUN.LEON", "León", "2024-07-01", 63]]
)
DOC = {"kind": "doc", "title": "Conceptos y definiciones — Doloso y culposo", "ref": "docs/metodologia/conceptos.md"}

CASES = {  # kind: (expect, expected, passing turn, failing turn)
    "number": (
        {"kind": "number"},
        596,
        turn(env("rank_por_delito", RANK, [LEON]), "En León hubo 596 homicidios."),
        turn(env("rank_por_delito", RANK, [LEON]), "En León hubo 595 homicidios."),
    ),
    "top": (
        {"kind": "top", "k": 3},
        TOP,
        turn(env("rank_por_delito", RANK, TOP_ROWS)),
        turn(env("rank_por_delito", RANK, [TOP_ROWS[1], TOP_ROWS[0], TOP_ROWS[2]])),
    ),
    "series": (
        {"kind": "series"},
        [["2022-05-01", 3], ["2022-06-01", 4], ["2022-07-01", None]],
        turn(SERIE),
        turn({**SERIE, "tool": "rank_por_delito@1.1.0"}),
    ),
    "comparison": (
        {"kind": "comparison"},
        [443, 370],
        turn(env("comparar_periodos", [], [], {"conteo": 443, "conteo_base": 370})),
        turn(env("comparar_periodos", [], [], {"conteo": 370, "conteo_base": 443})),
    ),
    "share": (
        {"kind": "share"},
        [["11007", 20.0], ["11017", 20.0], ["11015", 10.0]],
        turn(SHARE),
        turn(
            {
                **SHARE,
                "data": {
                    "inline": {
                        "columns": SHARE["data"]["inline"]["columns"],
                        "rows": [["GTO.MUN.LEON", "León", 2, 20.0]],
                    }
                },
            }
        ),
    ),
    "nonempty_tool": (
        {"kind": "nonempty_tool", "tool": 10, "columns": ["entidad_id", "fecha", "conteo"]},
        [["11020", "2024-07-01", 63]],
        turn(ANOM, tools=[1, 10]),
        turn(
            {
                **ANOM,
                "data": {
                    "inline": {
                        "columns": ANOM["data"]["inline"]["columns"],
                        "rows": [["GTO.MUN.LEON", "León", "2024-07-01", 64]],
                    }
                },
            },
            tools=[1, 10],
        ),
    ),
    "no_number": (
        {"kind": "no_number", "contains": ["no hay datos"], "contains_all": ["2022"]},
        None,
        turn(ERR, "No hay datos de violencia familiar para 2024: la cobertura es 2015-01..2022-12."),
        turn(env("rank_por_delito", RANK, [LEON]), "Hubo 0 casos de violencia familiar en 2024."),
    ),
    "clarify": (
        {"kind": "clarify"},
        None,
        turn(strategy="clarify_then_retrieve", options=["León", "Celaya"]),
        turn(env("rank_por_delito", RANK, [LEON]), strategy="clarify_then_retrieve", options=["León"]),
    ),
    "refuse": (
        {"kind": "refuse", "contains": ["homicidio"]},
        None,
        turn(strategy="defer_or_refuse", text="No hay datos de robo de vehículo; hay homicidio doloso."),
        turn(strategy="defer_or_refuse", text="No puedo ayudar con eso."),
    ),
    "social": (
        {"kind": "social"},
        None,
        turn(strategy="direct_answer", text="¡Hola!"),
        turn(env("rank_por_delito", RANK, [LEON]), strategy="direct_answer", text="¡Hola!"),
    ),
    "definition": (
        {"kind": "definition", "doc": ["conceptos"]},
        None,
        turn(category="definition", strategy="retrieve_then_answer", text="El homicidio doloso es…", sources=[DOC]),
        turn(
            category="definition",
            text="El homicidio doloso es…",
            sources=[{**DOC, "ref": "docs/metodologia/fuentes.md", "title": "Fuentes"}],
        ),
    ),
}


def test_every_kind_has_a_unit_case():
    """The fake-turn cases cover every expectation kind."""
    assert set(CASES) == set(KINDS) == set(CHECKERS)


@pytest.mark.parametrize("kind", sorted(CASES))
def test_checker_passes_good_turn_and_fails_bad_one(kind):
    """Each checker accepts a right turn and rejects a wrong one."""
    expect, expected, good, bad = CASES[kind]
    ok, got, why = check_turn(good, expect, expected)
    assert ok, (kind, got, why)
    ok, got, why = check_turn(bad, expect, expected)
    assert not ok, (kind, got)
    assert why


def test_number_checks_rates_with_tolerance_and_counts_with_separators():
    """Counts must be written 1,234; rates may differ by 0.05."""
    assert number_in_text(1916, "Van 1,916 homicidios dolosos.")
    assert not number_in_text(1916, "Van 1916 homicidios dolosos.")
    assert not number_in_text(596, "Hubo 1,596 casos.")
    assert number_in_text(32.19, "La tasa fue de 32.2 por cada 100 mil.", tol=0.05)
    rate = turn(env("rank_por_delito", RANK, [LEON]), "Tasa: 32.2 por cada 100 mil habitantes.")
    assert check_turn(rate, {"kind": "number", "measure": "tasa_per_100k"}, 32.19)[0]
    assert not check_turn(rate, {"kind": "number", "measure": "tasa_per_100k"}, 31.0)[0]
    annual = env(
        "total_anual",
        ["entidad_id", "label", "anio", "conteo"],
        [["GTO", "Guanajuato", 2020, 100], ["GTO", "Guanajuato", 2021, 1100]],
    )
    assert check_turn(turn(annual, "En total, 1,200 delitos."), {"kind": "number"}, 1200)[0]
    assert not check_turn(turn(None, "1,200"), {"kind": "number"}, 1200)[0]


def test_count_detection_ignores_dates_and_years():
    """Dates, years and month spans are not counts; any other number is."""
    has_count = lambda text: bool(numbers_in(text, drop_dates=True))
    assert not has_count("Los datos llegan a diciembre de 2022 (cobertura 2015-01..2022-12, 96 meses).")
    assert not has_count("Datos hasta el 30 de noviembre de 2025 (versión gx-2026.01.15-197e37ba).")
    assert has_count("Hubo 12 casos en 2024.")
    assert has_count("Se registraron 1,024 delitos.")
    assert numbers_in("1,234.5 y 7") == [1234.5, 7.0]


def test_series_may_mark_or_leave_out_unpublished_months():
    """An unpublished month is a null in the series or outside the effective window, never a zero."""
    expected = [["2022-05-01", 3], ["2022-06-01", 4], ["2022-07-01", None]]
    clamped = env(
        "serie_temporal", ["fecha", "conteo", "publicado"], [["2022-05-01", 3, True], ["2022-06-01", 4, True]]
    )
    assert check_turn(turn(clamped), {"kind": "series"}, expected)[0]
    zero = env(
        "serie_temporal",
        ["fecha", "conteo", "publicado"],
        [["2022-05-01", 3, True], ["2022-06-01", 4, True], ["2022-07-01", 0, True]],
    )
    assert not check_turn(turn(zero), {"kind": "series"}, expected)[0]
    assert not check_turn(
        turn(env("serie_temporal", ["fecha", "conteo", "publicado"], [["2022-05-01", 3, True]])),
        {"kind": "series"},
        expected,
    )[0]


def test_top_accepts_tied_entities_in_either_order():
    """Entities tied on the measure may swap places."""
    expected = [["11006", 0], ["11034", 0], ["11043", 0], ["11008", 1]]
    rows = [
        ["GTO.MUN.VICTORIA", "Victoria", 0, 0.0],
        ["GTO.MUN.ATARJEA", "Atarjea", 0, 0.0],
        ["GTO.MUN.SANTA_CATARINA", "Santa Catarina", 0, 0.0],
    ]
    assert check_turn(turn(env("rank_por_delito", RANK, rows)), {"kind": "top", "k": 3}, expected)[0]
    rows[2] = ["GTO.MUN.MANUEL_DOBLADO", "Manuel Doblado", 1, 0.0]
    assert not check_turn(turn(env("rank_por_delito", RANK, rows)), {"kind": "top", "k": 3}, expected)[0]


def test_report_and_cli_registration():
    """The report table lists every category; the CLI adds ``eval`` with its options."""
    report = Report(
        [
            Check("a-1", "ranking", 1, "q", "top", True),
            Check("b-1", "social", 1, "hola", "social", False, reason="no es respuesta directa"),
        ]
    )
    assert report.by_category() == {"ranking": (1, 1), "social": (0, 1)}
    assert report.below(0.95) == ["social"]
    text = format_report(report)
    assert "ranking" in text and "social" in text and "hola" in text
    parser = argparse.ArgumentParser()
    register_cli(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["eval", "--json", "--min-accuracy", "0.9"])
    assert args.json and args.min_accuracy == 0.9 and args.planner == "rules" and callable(args.handler)
    assert args.file.endswith("questions.json")


# ---------------------------------------------------------------- the engine


@pytest.mark.slow  # the whole evaluation set through the pipeline
def test_engine_accuracy_per_category(bundled_settings):
    """The rules planner answers at least 95% of every category right."""
    from core.ask.context import Assistant

    report = evaluate(
        lambda: Assistant(settings=bundled_settings, user="eval", use_cache=False),
        load_questions(QUESTIONS),
        RAW,
        planner="rules",
    )
    print(format_report(report))
    assert len(report.checks) >= 150
    assert not report.below(MIN_ACCURACY), format_report(report)
