"""The map of an answer: the municipalities' GeoJSON (lightened once), the choropleth of a chart spec
with a ``map``, and the chart-and-map tabs of an answer.

Only drawing: ``core.ask.charts`` decides the chart and whether it has a map.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd
import streamlit as st

from core.ask.charts import plotly_figure
from ui import markup

GEOJSON_FALLBACK = Path(__file__).resolve().parents[1] / "data" / "raw" / "geo" / "gto_municipios.geojson"
GTO_CENTER = {"lat": 20.92, "lon": -101.05}


def simplify_ring(points: list, tolerance: float) -> list:
    """Ramer-Douglas-Peucker on one closed ring (ends kept, so it stays closed)."""
    if len(points) < 5:
        return points
    keep, stack = {0, len(points) - 1}, [(0, len(points) - 1)]
    while stack:
        a, b = stack.pop()
        (x1, y1), (x2, y2) = points[a][:2], points[b][:2]
        dx, dy = x2 - x1, y2 - y1
        norm = (dx * dx + dy * dy) ** 0.5
        best, index = 0.0, None
        for i in range(a + 1, b):
            x0, y0 = points[i][:2]
            d = abs(dy * x0 - dx * y0 + x2 * y1 - y2 * x1) / norm if norm else ((x0 - x1) ** 2 + (y0 - y1) ** 2) ** 0.5
            if d > best:
                best, index = d, i
        if index is not None and best > tolerance:
            keep.add(index)
            stack += [(a, index), (index, b)]
    out = [points[i] for i in sorted(keep)]
    return out if len(out) >= 4 else points


def light_geojson(geojson: dict, tolerance: float = 0.001, decimals: int = 4) -> dict:
    """Rings simplified to ~100 m and coordinates rounded: a state map a browser draws fast."""

    def ring(points: list) -> list:
        return [[round(p[0], decimals), round(p[1], decimals)] for p in simplify_ring(points, tolerance)]

    def geometry(g: dict) -> dict:
        if g["type"] == "Polygon":
            return {"type": "Polygon", "coordinates": [ring(r) for r in g["coordinates"]]}
        if g["type"] == "MultiPolygon":
            return {"type": "MultiPolygon", "coordinates": [[ring(r) for r in poly] for poly in g["coordinates"]]}
        return g

    return {
        "type": "FeatureCollection",
        "features": [
            {"type": "Feature", "properties": f.get("properties", {}), "geometry": geometry(f["geometry"])}
            for f in geojson.get("features", [])
        ],
    }


@st.cache_data(show_spinner=False, max_entries=4)
def load_geojson(path: str) -> dict:
    """The municipalities' GeoJSON (the dataset version's copy), lightened once per path."""
    return light_geojson(json.loads(Path(path).read_text(encoding="utf-8")))


def geo_for(engine: Any) -> Callable[[], tuple[dict, dict]]:
    """A loader of the map's inputs: the version's GeoJSON and entidad_id → INEGI code (``cve``)."""

    def load() -> tuple[dict, dict]:
        path = engine.store.geojson_path() or GEOJSON_FALLBACK
        return load_geojson(str(path)), {e["entidad_id"]: e["cve"] for e in engine.catalog.entities}

    return load


def map_figure(spec: dict, geojson: dict, cve_by_id: dict[str, str]):
    """A choropleth of Guanajuato's municipalities for a chart spec with a ``map`` (no map tiles needed)."""
    import plotly.express as px

    key, value = spec["map"]["key"], spec["map"]["value"]
    frame = pd.DataFrame(spec["data"])
    frame["cve_municipio"] = frame[key].map(cve_by_id)
    frame = frame.dropna(subset=["cve_municipio"])
    shown = set(frame["cve_municipio"])  # the filled trace carries only its own shapes; the outline layer all
    filled = {
        "type": "FeatureCollection",
        "features": [f for f in geojson["features"] if f["properties"].get("cve_municipio") in shown],
    }
    fig = px.choropleth_map(
        frame,
        geojson=filled,
        locations="cve_municipio",
        featureidkey="properties.cve_municipio",
        color=value,
        hover_name="label",
        color_continuous_scale="Reds",
        map_style="white-bg",
        center=GTO_CENTER,
        zoom=6.4,
        opacity=0.85,
        title=spec.get("title"),
        labels={value: spec.get("y_label", value)},
    )
    fig.update_layout(
        map_layers=[{"source": geojson, "type": "line", "color": "#9a9a9a", "line": {"width": 0.6}}],
        margin={"l": 0, "r": 0, "t": 40, "b": 0},
        height=460,
    )
    return fig


def render_chart(spec: dict | None, key: str, geo: Callable[[], tuple[dict, dict]] | None = None) -> None:
    """The chart of a spec (bar, line with anomaly markers, scatter) and, when it has a map, the map."""
    if not spec:
        return
    spec = markup.plot_safe(spec)  # Plotly draws <a href>, <b>… in titles, ticks and hovers: labels come from uploads
    if spec.get("map") and geo is not None:
        chart_tab, map_tab = st.tabs(["Gráfica", "Mapa"])
        with chart_tab:
            st.plotly_chart(plotly_figure(spec), key=f"{key}_chart")
        with map_tab:
            try:
                geojson, cves = geo()
                st.plotly_chart(map_figure(spec, geojson, cves), key=f"{key}_map")
            except (OSError, ValueError, KeyError):
                st.caption("No se pudo dibujar el mapa de esta respuesta.")
        return
    st.plotly_chart(plotly_figure(spec), key=f"{key}_chart")
