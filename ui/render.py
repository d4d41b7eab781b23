"""Streamlit drawing helpers shared by Consultar, Plan de consulta and the plan editor:
answer, chart, map, table + CSV, evidence, provenance and envelopes (the plan panel is ``ui.plan_view``).

They only draw what the engine already decided (``core.ask.charts`` picks the chart, ``core.ask.compose``
writes the text); no business logic lives here. Every string a person, an upload or an LLM controls
(questions, labels, headlines, answers, warnings, rationales, plan arguments) goes through ``ui.markup``
before Streamlit draws it as Markdown, and every CSV through ``core.csv_export``.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd
import streamlit as st

from core import csv_export
from core.ask.charts import chart_spec, plotly_figure, shape_of
from core.ask.wording import month_words
from core.engine.envelope import columns, tool_name
from ui import markup, navigation, states

GEOJSON_FALLBACK = Path(__file__).resolve().parents[1] / "data" / "raw" / "geo" / "gto_municipios.geojson"
GTO_CENTER = {"lat": 20.92, "lon": -101.05}


def _dump(model: Any) -> Any:
    return model.model_dump(mode="json", by_alias=True) if hasattr(model, "model_dump") else model


def turn_dict(turn: Any) -> dict:
    """A Turn (or its ``as_dict()``) as the ``core ask --json`` dict."""
    return turn.as_dict() if hasattr(turn, "as_dict") else dict(turn)


def frame_of(envelope: dict) -> pd.DataFrame:
    """The envelope's inline rows as a DataFrame (column names from the envelope)."""
    inline = (envelope.get("data") or {}).get("inline") or {}
    return pd.DataFrame(inline.get("rows") or [], columns=columns(envelope))


def frame_csv(frame: pd.DataFrame) -> bytes:
    """A table as the «Descargar CSV» file: UTF-8 with BOM, formula-leading text cells neutralized."""
    values = frame.astype(object).where(frame.notna(), None)
    return csv_export.to_csv_bytes(list(frame.columns), values.itertuples(index=False, name=None))


# --- chart and map -----------------------------------------------------------------------------


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


def open_in_editor(plan: dict) -> None:
    """Hand a plan to the Editor de plan (``st.session_state["plan_to_edit"]``) and go there."""
    from streamlit.errors import StreamlitAPIException

    st.session_state["plan_to_edit"] = plan
    try:
        st.switch_page(navigation.page_path("editor"))
    except StreamlitAPIException:  # the page is not registered (a page run on its own)
        st.success("Plan listo en «Editor de plan».")


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


# --- table, evidence, provenance, envelopes ----------------------------------------------------


def render_table(envelope: dict, key: str) -> None:
    """The inline rows as a table plus a CSV download."""
    frame = frame_of(envelope)
    if frame.empty:
        return
    st.dataframe(frame, hide_index=True, key=f"{key}_table")
    notice = envelope["data"]["inline"].get("limit_notice") or {}
    if notice.get("applied"):
        st.caption(f"Se muestran {len(frame)} de {notice.get('total_rows')} filas; el resto está en los artefactos.")
    else:
        st.caption(f"{len(frame)} fila{'s' if len(frame) != 1 else ''}")
    name = tool_name(envelope) or "resultado"
    st.download_button(
        "Descargar CSV",
        frame_csv(frame),
        file_name=f"{name}.csv",
        mime="text/csv",
        key=f"{key}_csv",
        on_click="ignore",
    )


def render_provenance(provenance: dict | None) -> None:
    """«Datos hasta …» · dataset_version · query_hash."""
    p = provenance or {}
    parts = []
    if p.get("data_available_until"):
        parts.append(f"Datos hasta {month_words(p['data_available_until'])}")
    if p.get("dataset_version"):
        parts.append(f"versión {markup.code(p['dataset_version'])}")
    if p.get("query_hash"):
        parts.append(f"query_hash {markup.code(p['query_hash'])}")
    if parts:
        st.caption(" · ".join(parts))


def render_evidence(turn: Any, key: str, loader: Callable[[Any], dict | None]) -> None:
    """Evidence ids of the answer and, on demand, the ``listar_evidencia`` rows behind it."""
    ids = list(turn.answer.evidence_ids) if turn.answer else []
    if not ids:
        return
    store = st.session_state.setdefault("evidence_rows", {})
    with st.expander(f"Evidencia ({len(ids)} filas de datos)"):
        st.caption("Identificadores de las filas curadas (row_id) que sostienen la respuesta:")
        st.code(", ".join(map(str, ids[:60])) + (" …" if len(ids) > 60 else ""), language=None)
        if turn.job_id not in store:
            st.button(
                "Ver filas de evidencia", key=f"{key}_ev", on_click=lambda: store.__setitem__(turn.job_id, loader(turn))
            )
        envelope = store.get(turn.job_id)
        if envelope:
            st.caption(markup.text(envelope.get("summary", {}).get("headline", "")))
            render_table(envelope, f"{key}_evrows")


def render_problems(problems: list[dict]) -> None:
    """Every validation problem with its code and path."""
    for p in problems:
        where = f" — {markup.code(p['path'])}" if p.get("path") else ""
        hints = "".join(f"\n- {markup.text(h)}" for h in p.get("hints") or [])
        st.error(f"**{markup.text(p['code'])}**{where}: {markup.text(p['details'])}{hints}")


def render_envelope(
    envelope: dict, key: str, pipeline: list[dict] | None = None, geo: Callable[[], tuple[dict, dict]] | None = None
) -> None:
    """One envelope: headline, error with every problem, or chart + table."""
    tool = envelope.get("tool", "")
    st.markdown(f"**{markup.text(tool)}** — {markup.text(envelope.get('summary', {}).get('headline', ''))}")
    if envelope.get("status") != "ok":
        error = envelope.get("error") or {}
        render_problems(
            error.get("problems")
            or [
                {
                    "code": error.get("code", "ERROR"),
                    "details": error.get("details", ""),
                    "hints": error.get("hints", []),
                }
            ]
        )
        return
    for warning in envelope.get("meta", {}).get("warnings") or []:
        st.warning(markup.text(warning))
    if shape_of(envelope) not in ("filter", "evidence") and not states.render_states(envelope, key):
        render_chart(chart_spec(envelope, pipeline), key, geo)
    render_table(envelope, key)


def render_envelopes(envelopes: list[dict], key: str, geo: Callable[[], tuple[dict, dict]] | None = None) -> None:
    """Every envelope of a run, in order."""
    for i, envelope in enumerate(envelopes):
        with st.container(border=True):
            render_envelope(envelope, f"{key}_{i}", envelopes, geo)


# --- the answer of a turn ----------------------------------------------------------------------


def render_answer(
    turn: Any,
    key: str,
    *,
    on_option: Callable[[str], None] | None = None,
    load_evidence: Callable[[Any], dict | None] | None = None,
    geo: Callable[[], tuple[dict, dict]] | None = None,
) -> None:
    """Answer text, clarifying options, chart, table + CSV, evidence and provenance of one turn."""
    answer = turn.answer
    if answer is None:
        st.warning("La consulta no produjo una respuesta.")
        return
    st.markdown(markup.block(answer.text))  # labels from uploads sit in it; its «- » bullets stay bullets
    if answer.clarifying_options and on_option is not None:
        with st.container(horizontal=True):
            for i, option in enumerate(answer.clarifying_options):
                st.button(markup.text(option), key=f"{key}_opt{i}", on_click=on_option, args=(option,))
    if not states.render_states(turn.result, key):  # rows of states: a bar per state (ui/states.py)
        render_chart(answer.chart, key, geo)
    result = turn.result
    if result is not None and result.get("status") == "ok":
        render_table(result, key)
    if load_evidence is not None:
        render_evidence(turn, key, load_evidence)
    render_provenance(answer.provenance)
