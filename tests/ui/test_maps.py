"""The map of an answer (issue 15, item 10): every municipality on a continuous scale, names and values on
hover, the first tab when the answer is per municipality, fitted to its frame at any width."""

from __future__ import annotations

import json

import pytest
from streamlit.testing.v1 import AppTest

from core.ask.charts import map_plan
from core.ask.pipeline import Conversation
from tests.markdown_check import unescape
from ui import maps

TOP10 = "¿Cuáles son los 10 municipios con más homicidios dolosos en 2024?"
MUNICIPALITIES = 46


def test_light_geojson_keeps_every_municipality_with_fewer_points():
    raw = json.loads(maps.GEOJSON_FALLBACK.read_text(encoding="utf-8"))
    light = maps.light_geojson(raw)
    assert [f["properties"]["cve_municipio"] for f in light["features"]] == [
        f["properties"]["cve_municipio"] for f in raw["features"]
    ]
    assert len(json.dumps(light)) < len(json.dumps(raw)) / 8  # ~100 m is plenty for a state map
    for feature in light["features"]:
        for ring in feature["geometry"]["coordinates"]:
            assert ring[0] == ring[-1] and len(ring) >= 4


@pytest.fixture(scope="module")
def top10(engine):
    return engine.ask(TOP10, Conversation())


class Rows:
    """A map source that runs plans without Streamlit's session (the page's MapSource caches them)."""

    def __init__(self, engine):
        self.source = maps.MapSource(engine)
        self.plans: list[dict] = []

    def __call__(self):
        return self.source()

    def rows(self, plan):
        from core.api import execution
        from core.engine.envelope import records

        self.plans.append(plan)
        return records(execution(plan, settings=self.source.engine.settings).envelopes[-1])


def test_a_top10_map_colours_every_municipality(engine, top10):
    spec = top10.answer.chart
    assert spec["map"]["entities"] == MUNICIPALITIES and len(spec["data"]) == 10
    wanted = map_plan(top10.plan, spec)
    assert wanted["plan"][0]["args"]["top_k"] == MUNICIPALITIES
    assert {k: v for k, v in wanted["plan"][0]["args"].items() if k != "top_k"} == {
        k: v for k, v in top10.plan["plan"][0]["args"].items() if k != "top_k"
    }
    geo = Rows(engine)
    rows = maps.map_rows(spec, top10.plan, geo)
    assert len(rows) == MUNICIPALITIES and geo.plans == [wanted]
    geojson, cves = geo()
    fig = maps.map_figure({**spec, "data": rows}, geojson, cves)
    shapes = municipalities(fig)
    assert len(shapes) == MUNICIPALITIES and len({t.meta["cve_municipio"] for t in shapes}) == MUNICIPALITIES
    assert all(t.meta["valor"] is not None and t.fillcolor != maps.NO_VALUE for t in shapes)  # every one coloured
    leon = next(t for t in shapes if t.meta["cve_municipio"] == "11020")
    assert leon.meta["valor"] == 596 and leon.name.startswith("León: 596") and "Delitos registrados" in leon.name
    assert leon.hoveron == "fills" and fig.layout.hoverlabel.namelength == -1  # the whole name and value on hover
    scale = fig.data[-1].marker
    assert scale.showscale and scale.cmin == 0 and scale.cmax == 596  # one continuous scale from zero
    assert fig.layout.yaxis.scaleanchor == "x" and fig.layout.xaxis.visible is False  # fits any width, no tiles


def municipalities(fig) -> list:
    """The traces that draw a municipality (the last one only carries the colour bar)."""
    return [t for t in fig.data if t.fill == "toself"]


def test_a_map_without_every_value_greys_the_rest_and_says_so(engine, top10):
    geojson, cves = maps.geo_for(engine)()
    fig = maps.map_figure(top10.answer.chart, geojson, cves)  # the top 10 only (no plan to ask for the rest)
    shapes = municipalities(fig)
    grey = [t for t in shapes if t.fillcolor == maps.NO_VALUE]
    assert len(shapes) == MUNICIPALITIES and len(grey) == MUNICIPALITIES - 10
    assert all("sin dato" in t.name and t.meta["valor"] is None for t in grey)


def test_a_complete_ranking_asks_for_nothing_more(engine, top10):
    spec = {**top10.answer.chart, "map": {"key": "entidad_id", "value": "conteo"}}
    assert map_plan(top10.plan, spec) is None
    assert map_plan(None, top10.answer.chart) is None


def draw_chart(spec, plan) -> None:
    import json

    from ui import maps

    class Geo:
        def __call__(self):
            return maps.light_geojson(json.loads(maps.GEOJSON_FALLBACK.read_text(encoding="utf-8"))), {
                r["entidad_id"]: "11020" for r in spec["data"][:1]
            }

    maps.render_chart(spec, "k", Geo(), plan=plan)


def test_the_map_is_the_first_tab_and_has_no_toolbar(top10):
    at = AppTest.from_function(draw_chart, args=(top10.answer.chart, None)).run(timeout=60)
    assert not at.exception
    assert [t.label for t in at.tabs] == ["Mapa", "Gráfica"]
    charts = at.get("plotly_chart")
    first = json.loads(charts[0].proto.spec)
    assert first["data"][0]["fill"] == "toself"  # the map, drawn first
    assert json.loads(charts[0].proto.config)["displayModeBar"] is False  # nothing over the map on a phone
    assert "title" not in first["layout"] or not first["layout"]["title"].get("text")
    assert at.markdown[0].value.startswith("**Delitos registrados")  # the title wraps as text above


def test_only_the_open_tab_is_built_and_sent(top10):
    """The hidden «Gráfica» tab costs nothing until opened (a ranking's turn drew both figures; issue 15 §2)."""
    at = AppTest.from_function(draw_chart, args=(top10.answer.chart, None)).run(timeout=60)
    assert [json.loads(c.proto.spec)["data"][0].get("fill") for c in at.get("plotly_chart")] == ["toself"]
    at.session_state["k_tabs"] = "Gráfica"  # the person opens the chart's tab (the page runs again)
    at.run(timeout=60)
    assert not at.exception, at.exception
    assert [json.loads(c.proto.spec)["data"][0]["type"] for c in at.get("plotly_chart")] == ["bar"]


def draw_nothing_but_why(envelope) -> None:
    from ui import maps

    maps.render_chart(None, "k", envelope=envelope)


def test_a_ranking_of_zeros_says_why_there_is_no_chart():
    rows = [[f"GTO.MUN.M{i}", f"Municipio {i}", 0, 0.0] for i in range(10)]
    envelope = {
        "tool": "rank_por_delito@1.1.0",
        "status": "ok",
        "summary": {"headline": "Top 10 municipios por secuestro (conteo)"},
        "meta": {"warnings": []},
        "data": {
            "inline": {
                "columns": [{"name": n} for n in ("entidad_id", "label", "conteo", "tasa_per_100k")],
                "rows": rows,
            }
        },
    }
    at = AppTest.from_function(draw_nothing_but_why, args=(envelope,)).run(timeout=60)
    assert not at.exception
    assert [c.value for c in at.caption] == [
        "Sin gráfica: todas las entidades mostradas registran 0; la tabla las lista."
    ]


def draw_plain_chart(spec):
    from ui import maps

    maps.render_chart(spec, "k")


def test_a_series_title_is_text_above_its_chart_so_it_wraps_on_a_phone():
    """A Plotly title never wraps (cut at 390 px): every chart's title is drawn as text above the figure."""
    spec = {
        "type": "line",
        "x": "periodo",
        "y": "conteo",
        "title": "Serie mensual: Homicidio doloso — enero a diciembre de 2024",
        "data": [{"periodo": "2024-01-01", "conteo": 57}, {"periodo": "2024-02-01", "conteo": 43}],
    }
    at = AppTest.from_function(draw_plain_chart, args=(spec,)).run(timeout=60)
    assert not at.exception, at.exception
    figure = json.loads(at.get("plotly_chart")[0].proto.spec)
    assert not (figure["layout"].get("title") or {}).get("text")
    assert figure["layout"]["margin"]["t"] == maps.UNTITLED_TOP  # no empty band where the title was
    assert unescape(at.markdown[0].value) == "**Serie mensual: Homicidio doloso — enero a diciembre de 2024**"
