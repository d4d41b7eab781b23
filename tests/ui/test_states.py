"""The states chart of an answer (ui/states.py, issue 14 item 7): a result whose rows are states is a sorted bar per
state with Guanajuato highlighted; any other result keeps its own chart."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from streamlit.testing.v1 import AppTest

from core import api
from ui import states

STATES = [("JAL", "Jalisco", 1449, 17.0), ("GTO", "Guanajuato", 2581, 40.2), ("BC", "Baja California", 2116, 56.1)]
STATES += [("MEX", "México", 2254, 12.7), ("CHIH", "Chihuahua", 1759, 45.3)]


def envelope(cols: list[str], rows: list[list], metrics: dict | None = None, tool: str = "ranking_estados") -> dict:
    """An ok envelope with these inline rows (what a tool returns)."""
    return {
        "tool": tool,
        "status": "ok",
        "summary": {"headline": "Homicidio doloso por estado, 2023"},
        "metrics": metrics or {},
        "data": {"inline": {"columns": [{"name": c} for c in cols], "rows": rows}},
    }


def ranking(metrics: dict | None = None) -> dict:
    """A ranking of five states with the country's row last, as ranking_estados gives it."""
    rows = [[i + 1, sid, label, n, rate] for i, (sid, label, n, rate) in enumerate(STATES)]
    rows.append([None, "MX", "México (nacional)", 25290, 19.5])
    return envelope(["posicion", "lugar_id", "label", "conteo", "tasa_per_100k"], rows, metrics)


@pytest.mark.parametrize(
    "env,measure",
    [
        (ranking(), "conteo"),
        (ranking({"ordenado_por": "tasa_per_100k"}), "tasa_per_100k"),
        (envelope(["clave", "label", "ley", "conteo"], [["GTO", "Guanajuato", None, 10], ["JAL", "Jalisco", None, 12],
                   ["MX.EXTRANJERO", "Extranjero", None, 3]], tool="fuero_federal"), "conteo"),
    ],
)  # fmt: skip
def test_a_result_whose_rows_are_states_is_detected_with_its_measure(env, measure):
    frame, got, _ = states.states_frame(env)
    assert got == measure
    assert set(frame["lugar_id"]) <= states.state_ids() and "MX" not in set(frame["lugar_id"])
    assert list(frame[measure]) == sorted(frame[measure], reverse=True)


@pytest.mark.parametrize(
    "env",
    [
        envelope(["entidad_id", "label", "conteo"], [["GTO.MUN.LEON", "León", 596], ["GTO.MUN.CELAYA", "Celaya", 300]]),
        envelope(["clave", "label", "ley", "conteo"], [["federal_contra_la_salud", "Contra la salud", "CPF", 8]]),
        envelope(["lugar_id", "label", "conteo"], [["GTO", "Guanajuato", 2553], ["MX", "México (nacional)", 25290]]),
        envelope(["sexo", "rango_edad", "victimas"], [["Mujer", "Adultos (18 y más)", 253]], tool="victimas"),
        {**ranking(), "status": "error"},
        None,
    ],
)
def test_other_results_are_not_state_level(env):
    assert states.states_frame(env) is None


def test_the_figure_is_sorted_with_guanajuato_and_the_asked_state_highlighted():
    frame, measure, line = states.states_frame(ranking({"ordenado_por": "tasa_per_100k", "lugar_id": "JAL"}))
    fig = states.states_figure(frame, measure, line)
    bars = {trace.name: list(trace.y) for trace in fig.data}
    assert set(bars[states.HIGHLIGHT]) == {"Guanajuato", "Jalisco"}
    assert fig.data[0].marker.color == states.COLORS[states.HIGHLIGHT]
    assert fig.layout.yaxis.categoryarray[-1] == "Baja California"  # the highest rate on top (listed bottom-up)
    assert line == 19.5 and fig.layout.shapes[0].x0 == 19.5  # the national rate as a line, not a bar
    count_frame, _, count_line = states.states_frame(ranking())
    assert count_line is None and count_frame.loc[0, "label"] == "Guanajuato"


def test_hostile_state_labels_are_escaped_for_plotly():
    env = ranking()
    env["data"]["inline"]["rows"][0][2] = "<a href='http://127.0.0.1:9/x'>Jalisco</a>"
    frame, _, _ = states.states_frame(env)
    assert not frame["label"].str.contains("<a", regex=False).any()


def draw_answer(turn) -> None:
    from ui import render

    render.render_answer(turn, "t")


def test_an_answer_at_state_level_draws_the_states_chart_instead_of_its_own():
    answer = SimpleNamespace(
        text="Guanajuato ocupa el 1.er lugar.",
        clarifying_options=[],
        chart={"type": "bar", "x": "label", "y": "conteo", "data": [{"label": "México (nacional)", "conteo": 25290}]},
        evidence_ids=[],
        provenance={},
    )
    at = AppTest.from_function(draw_answer, args=(SimpleNamespace(answer=answer, result=ranking(), job_id="j"),)).run()
    assert not at.exception
    charts = at.get("plotly_chart")
    assert len(charts) == 1
    assert "Guanajuato" in charts[0].proto.spec and "México (nacional)" not in charts[0].proto.spec
    # the table keeps the country (its columns carry Spanish labels: ui/column_labels.py)
    assert len(at.dataframe) == 1 and "MX" in set(at.dataframe[0].value["Clave de lugar"])


def test_the_states_chart_title_says_its_months_in_words():
    env = ranking()
    env["summary"]["headline"] = "Ranking de estados — Extorsión, 2024-01..2024-11 (carpetas de investigación)"
    answer = SimpleNamespace(text="…", clarifying_options=[], chart=None, evidence_ids=[], provenance={})
    at = AppTest.from_function(draw_answer, args=(SimpleNamespace(answer=answer, result=env, job_id="j"),)).run()
    spec = at.get("plotly_chart")[0].proto.spec
    assert "enero a noviembre de 2024" in spec and "2024-01..2024-11" not in spec


@pytest.mark.slow
def test_the_real_state_ranking_is_drawn_as_states(bundled_settings):
    plan = {"plan": [{"tool_id": 21, "args": {"clave_delito": "homicidio_doloso", "desde": "2023-01-01",
                                               "hasta": "2023-12-31"}}]}  # fmt: skip
    result = api.execution(plan, settings=bundled_settings).last
    frame, measure, _ = states.states_frame(result)
    assert measure == "conteo" and len(frame) == 32
    assert list(frame["lugar_id"][:3]) == ["GTO", "MEX", "BC"]  # README: Guanajuato first, 2,581
    assert frame.loc[0, "conteo"] == 2581 and frame.loc[0, "grupo"] == states.HIGHLIGHT
