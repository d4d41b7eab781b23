"""The map of an answer: the municipalities' GeoJSON (lightened once), the choropleth of a chart spec
with a ``map`` (every municipality on a continuous scale), and the map-then-chart tabs of an answer.

Only drawing: ``core.ask.charts`` decides the chart and whether it has a map.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd
import streamlit as st

from core.ask.charts import chart_note, map_plan, plotly_figure
from core.engine.envelope import records
from ui import markup, spanish

GEOJSON_FALLBACK = Path(__file__).resolve().parents[1] / "data" / "raw" / "geo" / "gto_municipios.geojson"
SCALE = "Reds"
LATITUDE_STRETCH = 1.07  # 1 / cos(21°): a degree of longitude is shorter than one of latitude at Guanajuato
NO_VALUE = "#eeeeee"  # a municipality the answer has no value for: grey, never the colour of zero
MAP_HEIGHT = 420
MAP_CACHE = 16
UNTITLED_TOP = 24  # px above a figure whose title is text above it (Plotly keeps 100 for a title)
MAP_CONFIG = {**spanish.PLOTLY_CONFIG, "displayModeBar": False, "scrollZoom": False}  # no toolbar on a phone


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


class MapSource:
    """A page's map inputs: the version's GeoJSON, entidad_id → INEGI code (``cve``) and, for a top-k answer,
    every municipality's value (its plan re-run for all of them, audited as ``map``, kept per session)."""

    def __init__(self, engine: Any):
        self.engine = engine

    def __call__(self) -> tuple[dict, dict]:
        """The lightened GeoJSON and the ``entidad_id`` → ``cve`` table."""
        path = self.engine.store.geojson_path() or GEOJSON_FALLBACK
        return load_geojson(str(path)), {e["entidad_id"]: e["cve"] for e in self.engine.catalog.entities}

    def rows(self, plan: dict) -> list[dict] | None:
        """The result rows of ``plan`` (None when it fails), run once per session and plan."""
        cache = st.session_state.setdefault("map_rows", {})
        key = json.dumps(plan, sort_keys=True, ensure_ascii=False)
        if key not in cache:
            from core.api import execution

            result = execution(
                plan, settings=self.engine.settings, user=self.engine.user, role=self.engine.role, kind="map"
            )
            envelope = result.envelopes[-1] if result.envelopes else {}
            cache[key] = records(envelope) if envelope.get("status") == "ok" else None
            while len(cache) > MAP_CACHE:  # the oldest maps go first: a long conversation stays light
                cache.pop(next(iter(cache)))
        return cache[key]


def geo_for(engine: Any) -> MapSource:
    """The map inputs of a page (a callable: ``geo()`` → GeoJSON and the cve table)."""
    return MapSource(engine)


def map_rows(spec: dict, plan: dict | None, geo: Any) -> list[dict]:
    """The rows the map colours: every municipality when the answer is a top-k and its plan can say more."""
    wanted = map_plan(plan, spec)
    if wanted is None or not hasattr(geo, "rows"):
        return spec["data"]
    rows = geo.rows(wanted)
    key, value = spec["map"]["key"], spec["map"]["value"]
    if not rows or any(key not in r or value not in r for r in rows[:1]):
        return spec["data"]
    return markup.plot_safe({"data": rows})["data"]  # labels come from uploads: Plotly draws tags in hovers


def _outline(geometry: dict) -> tuple[list, list]:
    """x and y of every ring of a (Multi)Polygon, rings apart by a gap (None)."""
    polygons = geometry["coordinates"] if geometry["type"] == "MultiPolygon" else [geometry["coordinates"]]
    xs: list = []
    ys: list = []
    for polygon in polygons:
        for ring in polygon:
            xs += [p[0] for p in ring] + [None]
            ys += [p[1] for p in ring] + [None]
    return xs, ys


def map_figure(spec: dict, geojson: dict, cve_by_id: dict[str, str]):
    """Guanajuato's municipalities filled on a continuous scale, drawn as plain shapes on hidden axes: it fits its
    frame at any width and needs nothing from the network (a Plotly geo map fetches a world outline from a CDN, a
    tile map sets its zoom in pixels). A municipality without a value in the rows is grey and says so on hover."""
    import plotly.graph_objects as go
    from plotly.colors import sample_colorscale

    key, value = spec["map"]["key"], spec["map"]["value"]
    label = spec.get("y_label") or value
    frame = pd.DataFrame(spec["data"])
    frame["cve_municipio"] = frame[key].map(cve_by_id)
    frame = frame.dropna(subset=["cve_municipio"])
    frame[value] = pd.to_numeric(frame[value], errors="coerce")
    values = dict(zip(frame["cve_municipio"], frame[value], strict=True))
    names = dict(zip(frame["cve_municipio"], frame["label"], strict=True))
    top = max([v for v in values.values() if pd.notna(v)] or [0]) or 1
    traces = []  # one Figure of every trace: adding them one by one re-validates the list (~70 ms of 170)
    for feature in geojson["features"]:
        cve = feature["properties"].get("cve_municipio")
        name = names.get(cve) or markup.plot_text(feature["properties"].get("NOMGEO") or cve)  # Plotly draws tags
        amount = values.get(cve)
        known = amount is not None and pd.notna(amount)
        xs, ys = _outline(feature["geometry"])
        fill = sample_colorscale(SCALE, [amount / top])[0] if known else NO_VALUE
        said = f"{name}: {amount:,.4g} ({label})" if known else f"{name}: sin dato en esta respuesta"
        traces.append(
            go.Scatter(
                x=xs,
                y=ys,
                mode="lines",
                fill="toself",
                fillcolor=fill,
                line={"color": "#9a9a9a", "width": 0.6},
                name=said,
                hoveron="fills",
                hoverinfo="name",
                showlegend=False,
                meta={"cve_municipio": cve, "valor": float(amount) if known else None},
            )
        )
    traces.append(  # the colour scale's bar: one invisible point carries it
        go.Scatter(
            x=[None],
            y=[None],
            mode="markers",
            showlegend=False,
            hoverinfo="skip",
            marker={
                "colorscale": SCALE,
                "cmin": 0,
                "cmax": top,
                "color": [0],
                "showscale": True,
                "colorbar": {"orientation": "h", "thickness": 12, "len": 0.9, "y": -0.02, "yanchor": "top"},
            },
        )
    )
    fig = go.Figure(data=traces)
    fig.update_xaxes(visible=False, fixedrange=True)
    fig.update_yaxes(visible=False, fixedrange=True, scaleanchor="x", scaleratio=LATITUDE_STRETCH)
    fig.update_layout(
        margin={"l": 0, "r": 0, "t": 0, "b": 0},
        height=MAP_HEIGHT,
        dragmode=False,
        hoverlabel={"namelength": -1},
        plot_bgcolor="rgba(0,0,0,0)",
    )
    return fig


def untitled_figure(spec: dict):
    """A spec's figure without its title (drawn as text above it) and without the room Plotly keeps for one."""
    return plotly_figure({**spec, "title": None}).update_layout(margin={"t": UNTITLED_TOP})


def render_chart(
    spec: dict | None,
    key: str,
    geo: Callable[[], tuple[dict, dict]] | None = None,
    *,
    plan: dict | None = None,
    envelope: dict | None = None,
) -> None:
    """The chart of a spec (bar, line with anomaly markers, scatter); with a map, the map first and the chart in
    the second tab. No spec: the reason when a reader would expect a chart (``envelope``)."""
    if not spec:
        note = chart_note(envelope)
        if note:
            st.caption(note)
        return
    if spec.get("title"):  # above the figure, as text: it wraps at 390 px, where a Plotly title is cut
        st.markdown(f"**{markup.text(spec['title'])}**")
    spec = markup.plot_safe(spec)  # Plotly draws <a href>, <b>… in titles, ticks and hovers: labels come from uploads
    if spec.get("map") and geo is not None:
        # only the open tab is built and sent (a tab change runs the page again): an answer drew its hidden bar
        # chart too, the slowest part of a ranking's turn after the map (issue 15 §2)
        map_tab, chart_tab = st.tabs(["Mapa", "Gráfica"], key=f"{key}_tabs", on_change="rerun")
        if map_tab.open:
            with map_tab:
                try:
                    geojson, cves = geo()
                    rows = map_rows(spec, plan, geo)
                    figure = map_figure({**spec, "data": rows}, geojson, cves)
                    st.plotly_chart(figure, key=f"{key}_map", config=MAP_CONFIG)
                except (OSError, ValueError, KeyError):
                    st.caption("No se pudo dibujar el mapa de esta respuesta.")
        if chart_tab.open:
            with chart_tab:
                st.plotly_chart(untitled_figure(spec), key=f"{key}_chart", config=spanish.PLOTLY_CONFIG)
        return
    st.plotly_chart(untitled_figure(spec), key=f"{key}_chart", config=spanish.PLOTLY_CONFIG)
