"""Chart specs chosen by the shape of real envelopes from the bundled store."""

from __future__ import annotations

import copy
import json
import math
import sys
from pathlib import Path

import plotly.graph_objects as go
import pytest

from core import api
from core.ask.charts import chart_note, chart_spec, month_ticks, plotly_figure, ranking_measure, shape_of
from core.ask.wording import crime_labels, place_label

YEAR_2024 = "from: 2024-01-01\nto: 2024-12-31\n"
PLANS = {
    "ranking": "[6]\nentidad_id: GTO\ndelito: homicidio_doloso\ntop_k: 5\n" + YEAR_2024,
    "ranking_rate": "[6]\nentidad_id: GTO\ndelito: homicidio_doloso\nmedida: tasa_per_100k\ntop_k: 10\n" + YEAR_2024,
    "ranking_short": "[6]\nentidad_id: GTO\ndelito: homicidio_doloso\ntop_k: 3\n" + YEAR_2024,
    "share": "[7]\nentidad_id: GTO\ndelito: homicidio_doloso\ntop_k: 5\n" + YEAR_2024,
    "grouping": "[11]\nentidad_id: GTO\ndelito: homicidio_doloso\naggregate_by: porcentaje\ntop_k: 5\n" + YEAR_2024,
    "single": "[6]\nentidad_id: GTO.MUN.LEON\nnivel: actual\ndelito: homicidio_doloso\n" + YEAR_2024,
    "series": "[12]\nentidad_id: GTO.MUN.LEON\ndelito: homicidio_doloso\nfrom: 2025-01-01\nto: 2025-12-31\n",
    "series_anomalies": "[12,10]\nentidad_id: GTO.MUN.LEON\ndelito: homicidio_doloso\nfrom: 2020-01-01\n"
    "to: 2025-11-30\n",
    "anomalies": "[10]\nentidad_id: GTO\ndelito: homicidio_doloso\nfrom: 2020-01-01\nto: 2025-11-30\n",
    "comparison": "[13]\nentidad_id: GTO\nnivel: actual\ndelito: homicidio_doloso\n"
    + YEAR_2024
    + "base_from: 2023-01-01\nbase_to: 2023-12-31\n",
    "comparison_municipal": "[13]\nentidad_id: GTO\ndelito: homicidio_doloso\ntop_k: 5\n"
    + YEAR_2024
    + "base_from: 2023-01-01\nbase_to: 2023-12-31\n",
    "comparison_rate": "[13]\nentidad_id: GTO\ndelito: homicidio_doloso\nmedida: tasa_per_100k\ntop_k: 5\n"
    + YEAR_2024
    + "base_from: 2023-01-01\nbase_to: 2023-12-31\n",
    "patterns": "[8]\nentidad_id: GTO\nfrom: 2015-01-01\nto: 2024-12-31\n",
    "seasonality": "[8]\nentidad_id: GTO\ntipo: estacionalidad\nfrom: 2015-01-01\nto: 2024-12-31\n",
    "annual": "[14]\nentidad_id: GTO\nnivel: actual\nfrom: 2015-01-01\nto: 2026-12-31\ntop_k: 20\n",
    "annual_municipal": "[14]\nentidad_id: GTO\ntop_k: 5\n" + YEAR_2024,
    "evidence": "[6,9]\nentidad_id: GTO\ndelito: homicidio_doloso\ntop_k: 5\n" + YEAR_2024,
    "error": "[6]\nentidad_id: GTO\ndelito: violencia_familiar\nfrom: 2025-06-01\nto: 2025-10-31\n",  # after its coverage
}


@pytest.fixture(scope="module")
def envelopes(bundled_settings) -> dict[str, list[dict]]:
    return {name: api.execution(plan, settings=bundled_settings).envelopes for name, plan in PLANS.items()}


@pytest.mark.parametrize(
    "name,shape",
    [
        ("ranking", "ranking"),
        ("ranking_rate", "ranking"),
        ("share", "ranking"),
        ("grouping", "ranking"),
        ("single", "single"),
        ("series", "series"),
        ("anomalies", "anomalies"),
        ("comparison", "comparison"),
        ("patterns", "patterns"),
        ("seasonality", "patterns"),
        ("annual", "annual"),
        ("error", "error"),
    ],
)
def test_shape_of_real_envelopes(envelopes, name, shape):
    assert shape_of(envelopes[name][-1]) == shape


def test_evidence_and_filter_shapes(envelopes):
    assert shape_of(envelopes["evidence"][1]) == "evidence"
    env = copy.deepcopy(envelopes["ranking"][0])
    env["data"]["inline"]["rows"] = []
    assert shape_of(env) == "empty" and chart_spec(env) is None


@pytest.mark.parametrize(
    "name,y,has_map",
    [
        ("ranking", "conteo", True),
        ("ranking_rate", "tasa_per_100k", True),
        ("share", "porcentaje", True),
        ("grouping", "porcentaje", True),
        ("ranking_short", "conteo", False),
        ("annual_municipal", "conteo", True),
    ],
)
def test_rankings_are_bars_with_a_map_for_five_municipalities(envelopes, name, y, has_map):
    env = envelopes[name][-1]
    spec = chart_spec(env)
    assert spec["type"] == "bar" and spec["x"] == "label" and spec["y"] == y
    assert [r["label"] for r in spec["data"]] == [row[1] for row in env["data"]["inline"]["rows"]]
    assert spec["title"]
    if has_map:
        assert {k: spec["map"][k] for k in ("key", "value")} == {"key": "entidad_id", "value": y}
        assert all(r["entidad_id"].startswith("GTO.MUN.") for r in spec["data"])
    else:
        assert "map" not in spec


def test_ranking_measure_follows_the_headline(envelopes):
    assert ranking_measure(envelopes["ranking"][0]) == "conteo"
    assert ranking_measure(envelopes["ranking_rate"][0]) == "tasa_per_100k"
    assert ranking_measure(envelopes["grouping"][0]) == "porcentaje"


def test_series_is_a_line_over_every_month(envelopes):
    env = envelopes["series"][0]
    spec = chart_spec(env)
    assert (spec["type"], spec["x"], spec["y"]) == ("line", "fecha", "conteo")
    assert [r["fecha"] for r in spec["data"]] == [r[0] for r in env["data"]["inline"]["rows"]]
    assert spec["gaps"] == [] and spec["markers"] == []
    assert "enero a noviembre de 2025" in spec["title"]


def test_unpublished_months_are_gaps_never_zero(envelopes):
    env = copy.deepcopy(envelopes["series"][0])
    rows = env["data"]["inline"]["rows"]
    rows[3][1], rows[3][2] = None, False  # the tool writes an unpublished month exactly like this
    rows[4][2] = False  # even if a count slipped in, an unpublished month must not be drawn
    spec = chart_spec(env)
    assert spec["data"][3]["conteo"] is None and spec["data"][4]["conteo"] is None
    assert spec["gaps"] == [rows[3][0], rows[4][0]]
    assert all(r["conteo"] is not None for i, r in enumerate(spec["data"]) if i not in (3, 4))
    fig = plotly_figure(spec)
    line = fig.data[0]
    assert line.connectgaps is False
    assert line.y[3] is None or (isinstance(line.y[3], float) and math.isnan(line.y[3]))


def test_series_with_anomalies_gets_markers(envelopes):
    series, anomalies = envelopes["series_anomalies"]
    spec = chart_spec(series, envelopes["series_anomalies"])
    expected = sorted(r[2] for r in anomalies["data"]["inline"]["rows"])
    assert [m["fecha"] for m in spec["markers"]] == expected and expected
    by_month = {r["fecha"]: r["conteo"] for r in spec["data"]}
    assert all(m["conteo"] == by_month[m["fecha"]] for m in spec["markers"])
    fig = plotly_figure(spec)
    assert len(fig.data) == 2 and fig.data[1].mode == "markers"


def test_anomalies_alone_are_a_scatter_with_markers(envelopes):
    env = envelopes["anomalies"][0]
    spec = chart_spec(env)
    assert spec["type"] == "scatter" and spec["x"] == "fecha" and spec["color"] == "label"
    assert len(spec["markers"]) == len(env["data"]["inline"]["rows"])
    assert isinstance(plotly_figure(spec), go.Figure)


@pytest.mark.parametrize("name", ["comparison", "comparison_municipal"])
def test_comparisons_are_grouped_bars(envelopes, name):
    spec = chart_spec(envelopes[name][0])
    assert spec["type"] == "bar" and spec["barmode"] == "group" and spec["y"] == ["conteo_base", "conteo"]
    assert spec["series_labels"] == {"conteo": "enero a diciembre de 2024", "conteo_base": "enero a diciembre de 2023"}
    fig = plotly_figure(spec)
    assert len(fig.data) == 2 and fig.layout.barmode == "group"


def test_a_comparison_asked_in_rates_draws_the_rates(envelopes):
    spec = chart_spec(envelopes["comparison_rate"][0])
    assert spec["y"] == ["tasa_per_100k_base", "tasa_per_100k"]
    assert spec["series_labels"] == {
        "tasa_per_100k": "enero a diciembre de 2024",
        "tasa_per_100k_base": "enero a diciembre de 2023",
    }
    fig = plotly_figure(spec)
    assert len(fig.data) == 2 and fig.layout.yaxis.title.text == "Tasa por cada 100 mil habitantes"


@pytest.mark.parametrize("name", ["patterns", "seasonality"])
def test_patterns_are_bars_of_score(envelopes, name):
    spec = chart_spec(envelopes[name][0])
    assert (spec["type"], spec["x"], spec["y"]) == ("bar", "patron", "score")
    scores = [r["score"] for r in spec["data"]]
    assert scores == sorted(scores, reverse=True)


def test_annual_total_marks_the_partial_year(envelopes):
    spec = chart_spec(envelopes["annual"][0])
    assert (spec["type"], spec["x"], spec["y"]) == ("bar", "anio", "conteo")
    assert spec["partial"] == [2026]


@pytest.mark.parametrize("name,index", [("single", 0), ("evidence", 1), ("error", 0)])
def test_no_chart_when_a_sentence_says_it(envelopes, name, index):
    assert chart_spec(envelopes[name][index]) is None


@pytest.mark.parametrize(
    "name",
    ["ranking", "ranking_rate", "share", "series", "anomalies", "comparison", "patterns", "annual", "annual_municipal"],
)
def test_specs_are_json_and_draw(envelopes, name):
    spec = chart_spec(envelopes[name][-1], envelopes[name])
    assert json.loads(json.dumps(spec)) == spec
    fig = plotly_figure(spec)
    assert isinstance(fig, go.Figure) and fig.data and fig.layout.title.text == spec["title"]


def test_chart_spec_is_deterministic(envelopes):
    for envs in envelopes.values():
        assert chart_spec(envs[-1], envs) == chart_spec(copy.deepcopy(envs[-1]), copy.deepcopy(envs))


def test_headline_readers(envelopes):
    assert crime_labels(envelopes["ranking"][0]) == ["Homicidio doloso"]
    assert crime_labels(envelopes["annual"][0]) == []
    assert place_label(envelopes["series"][0]) == "León"
    assert place_label(envelopes["ranking"][0]) == "municipios de Guanajuato"


def test_charts_do_not_import_streamlit():
    import core.ask.charts

    source = Path(core.ask.charts.__file__).read_text(encoding="utf-8")
    assert "streamlit" not in source
    assert "core.ask.charts" in sys.modules


def test_municipal_annual_sum_over_years_is_titled_with_the_span(bundled_settings):
    env = api.execution(
        "[14]\nentidad_id: GTO\ntop_k: 3\nfrom: 2024-01-01\nto: 2026-12-31\n", settings=bundled_settings
    ).envelopes[0]
    spec = chart_spec(env)
    assert spec["title"].endswith(", 2024–2026") and spec["partial"] == [2026]


@pytest.mark.parametrize(
    "delito,metodo,says",
    [
        (
            "robo",
            ["robo_de_coche_de_4_ruedas_con_violencia", "robo_de_coche_de_4_ruedas_sin_violencia"],
            "Robo (robo de coche de 4 ruedas con y sin violencia)",
        ),
        ("homicidio_doloso", ["con_arma_de_fuego"], "Homicidio doloso (con arma de fuego)"),
    ],
)
def test_a_chart_of_a_modalidad_names_it_in_its_title(bundled_settings, delito, metodo, says):
    args = {"entidad_id": "GTO", "nivel": "hijos", "top_k": 5, "delito": delito, "metodo": metodo}
    plan = {"plan": [{"tool_id": 6, "args": {**args, "from": "2024-01-01", "to": "2024-12-31"}}]}
    env = api.execution(plan, settings=bundled_settings).envelopes[0]
    assert f": {says} — " in chart_spec(env)["title"]  # «Robo» alone labelled a part of robo as all of it


def test_share_ranking_ordered_by_rate_follows_the_rows(bundled_settings):
    env = api.execution(
        "[7]\nentidad_id: GTO\ndelito: homicidio_doloso\nmedida: tasa_per_100k\ntop_k: 5\n" + YEAR_2024,
        settings=bundled_settings,
    ).envelopes[0]
    assert ranking_measure(env) == "tasa_per_100k" and chart_spec(env)["y"] == "tasa_per_100k"


# --- Spanish axes and the reason for no chart (issue 15, item 9) -----------------------------------

ENGLISH_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


@pytest.mark.parametrize(
    "months,ticks,labels",
    [
        (["2025-01-01", "2025-02-01", "2025-03-01"], ["2025-01-01", "2025-02-01", "2025-03-01"], None),
        ([f"2025-{m:02d}-01" for m in range(1, 13)], None, ["ene 2025", "mar 2025", "may 2025"]),
        ([f"{y}-{m:02d}-01" for y in range(2015, 2026) for m in range(1, 13)], None, ["2015", "2017", "2019"]),
        ([], [], []),
    ],
)
def test_month_ticks_are_spanish(months, ticks, labels):
    got_ticks, got_labels = month_ticks(months)
    assert len(got_ticks) <= 8 and len(got_ticks) == len(got_labels)
    if ticks is not None:
        assert got_ticks == ticks
    if labels is not None:
        assert got_labels[: len(labels)] == labels
    assert not any(m in label for label in got_labels for m in ENGLISH_MONTHS)


@pytest.mark.parametrize("name", ["series", "series_anomalies", "anomalies"])
def test_date_axes_and_hovers_speak_spanish(envelopes, name):
    env = envelopes[name][0]
    fig = plotly_figure(chart_spec(env, envelopes[name]))
    layout = fig.layout.xaxis
    assert layout.tickmode == "array" and layout.ticktext
    assert not any(m in t for t in layout.ticktext for m in ENGLISH_MONTHS)
    for trace in fig.data:
        assert "customdata[0]" in trace.hovertemplate
        assert all(" de 20" in c[0] for c in trace.customdata)  # «enero de 2025»


def test_a_one_year_chart_has_whole_year_ticks(envelopes):
    env = copy.deepcopy(envelopes["annual"][0])
    rows = env["data"]["inline"]["rows"]
    env["data"]["inline"]["rows"] = [r for r in rows if r[2] == 2024]  # one year: Plotly would tick 2,024.5
    spec = chart_spec(env)
    fig = plotly_figure(spec)
    assert list(fig.layout.xaxis.tickvals) == [2024] and list(fig.layout.xaxis.ticktext) == ["2024"]


def test_a_ranking_of_zeros_says_why_it_has_no_chart(envelopes):
    env = copy.deepcopy(envelopes["ranking"][0])
    for row in env["data"]["inline"]["rows"]:
        row[2], row[3] = 0, 0.0
    assert chart_spec(env) is None
    assert "registran 0" in chart_note(env)
    assert chart_note(envelopes["ranking"][0]) is None and chart_note(None) is None
