"""Drawing helpers that need no running app: the light GeoJSON, the choropleth, the tool
pipeline rows of the Plan de consulta and the table of an envelope."""

from __future__ import annotations

import json

from core.ask.charts import chart_spec
from core.ask.pipeline import Conversation
from ui import render

TOP10 = "¿Cuáles son los 10 municipios con más homicidios dolosos en 2024?"


def test_light_geojson_keeps_every_municipality_with_fewer_points():
    raw = json.loads(render.GEOJSON_FALLBACK.read_text(encoding="utf-8"))
    light = render.light_geojson(raw)
    assert [f["properties"]["cve_municipio"] for f in light["features"]] == [
        f["properties"]["cve_municipio"] for f in raw["features"]
    ]
    assert len(json.dumps(light)) < len(json.dumps(raw)) / 8  # ~100 m is plenty for a state map
    for feature in light["features"]:
        for ring in feature["geometry"]["coordinates"]:
            assert ring[0] == ring[-1] and len(ring) >= 4


def test_map_figure_is_a_choropleth_keyed_by_cve_municipio(engine):
    turn = engine.ask(TOP10, Conversation())
    spec = turn.answer.chart
    assert spec["type"] == "bar" and spec["map"] == {"key": "entidad_id", "value": "conteo"}
    geojson, cves = render.geo_for(engine)()
    fig = render.map_figure(spec, geojson, cves)
    trace = fig.data[0]
    assert trace.type == "choroplethmap" and trace.featureidkey == "properties.cve_municipio"
    assert "11020" in list(trace.locations)  # León
    assert len(trace.geojson["features"]) == 10  # only the shapes it fills; the outline layer has all 46
    assert len(fig.layout.map.layers[0].source["features"]) == 46
    assert fig.layout.map.style == "white-bg"  # no tiles to download


def test_pipeline_rows_and_frame_of_a_turn(engine, catalog):
    turn = engine.ask(TOP10, Conversation())
    rows = render.pipeline_rows(turn.plan, turn.envelopes, catalog)
    assert rows[0]["tool_id"] == 6 and rows[0]["herramienta"] == "rank_por_delito@1.1.0"
    assert json.loads(rows[0]["args"])["top_k"] == 10
    frame = render.frame_of(turn.result)
    assert list(frame.columns) == ["entidad_id", "label", "conteo", "tasa_per_100k"] and len(frame) == 10
    assert frame.iloc[0]["label"] == "León"
    assert chart_spec(turn.result) is not None


def test_md_escapes_dollars_and_turn_dict_accepts_dicts(engine):
    assert render.md("$5 y $6") == "\\$5 y \\$6"
    turn = engine.ask("hola", Conversation())
    assert render.turn_dict(turn)["question"] == "hola"
    assert render.turn_dict(turn.as_dict())["question"] == "hola"
