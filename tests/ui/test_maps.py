"""The map of an answer (issue 15, item 10): every municipality on a continuous scale, names and values on
hover, the first tab when the answer is per municipality, fitted to its frame at any width."""

from __future__ import annotations

import json

import pytest
from streamlit.testing.v1 import AppTest

from core.ask.charts import map_plan
from core.ask.pipeline import Conversation
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
    assert len(fig.data) == 1  # no grey layer: every municipality has its value
    trace = fig.data[0]
    assert trace.type == "choropleth" and trace.featureidkey == "properties.cve_municipio"
    assert len(trace.locations) == MUNICIPALITIES and len(set(trace.locations)) == MUNICIPALITIES
    assert min(trace.z) >= 0 and trace.zmin == 0  # a continuous scale from zero
    leon = list(trace.locations).index("11020")
    assert trace.z[leon] == 596 and trace.customdata[leon][0] == "León"
    assert "%{customdata[0]}" in trace.hovertemplate and "Delitos registrados" in trace.hovertemplate
    assert fig.layout.geo.fitbounds == "locations" and fig.layout.geo.visible is False  # fits 390 px, no tiles


def test_a_map_without_every_value_greys_the_rest_and_says_so(engine, top10):
    geojson, cves = maps.geo_for(engine)()
    fig = maps.map_figure(top10.answer.chart, geojson, cves)  # the top 10 only (no plan to ask for the rest)
    grey, coloured = fig.data
    assert len(grey.locations) == MUNICIPALITIES - 10 and len(coloured.locations) == 10
    assert "Sin dato" in grey.hovertemplate and grey.showscale is False
    assert not set(grey.locations) & set(coloured.locations)


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
    assert first["data"][-1]["type"] == "choropleth"
    assert json.loads(charts[0].proto.config)["displayModeBar"] is False  # nothing over the map on a phone
    assert "title" not in first["layout"] or not first["layout"]["title"].get("text")
    assert at.markdown[0].value.startswith("**Delitos registrados")  # the title wraps as text above
