"""Chart specs chosen by an envelope's shape, and their Plotly figures.

``chart_spec`` returns plain JSON (the UI and the audit can store it); ``plotly_figure``
turns a spec into a Plotly figure. Unpublished months stay null so a line shows a gap,
never a fall to zero (docs/metodologia/cobertura_y_calidad.md § Mes no publicado no es cero).
"""

from __future__ import annotations

import re

from core.ask.wording import crime_labels, period_words
from core.engine.catalog import tool_spec
from core.engine.envelope import columns, records, tool_name

MEASURES = ("conteo", "tasa_per_100k", "porcentaje", "total_anomalias", "gravedad_promedio")
MEASURE_LABELS = {
    "conteo": "Delitos registrados",
    "tasa_per_100k": "Tasa por cada 100 mil habitantes",
    "porcentaje": "Porcentaje del total",
    "total_anomalias": "Meses atípicos",
    "gravedad_promedio": "Gravedad promedio",
    "score": "Puntaje",
    "conteo_base": "Periodo base",
}
MAP_MIN_ROWS = 5  # fewer municipalities make a map mostly empty; a bar says it better
# An envelope of a tool outside the catalog (an old audit record) is read by its columns.
_SHAPE_COLUMNS = (
    ("series", {"fecha", "publicado"}),
    ("comparison", {"conteo_base"}),
    ("anomalies", {"z_score"}),
    ("patterns", {"patron"}),
    ("annual", {"anio"}),
)


def declared_shape(envelope: dict) -> str | None:
    """The answer shape the envelope's ToolSpec declares (None for a tool outside the catalog)."""
    spec = tool_spec(tool_name(envelope))
    return spec.shape if spec else None


def shape_of(envelope: dict) -> str:
    """error | empty | filter | evidence | single | the shape the tool's spec declares (ranking, series, …)."""
    if envelope.get("status") != "ok":
        return "error"
    declared, cols = declared_shape(envelope), set(columns(envelope))
    if declared in ("filter", "evidence"):
        return declared
    rows = records(envelope)
    if not rows or envelope.get("meta", {}).get("empty_result"):
        return "empty"
    shape = declared or next((s for s, needs in _SHAPE_COLUMNS if needs <= cols), "ranking")
    if shape != "ranking":
        return shape
    if {"entidad_id", "label"} <= cols and cols & set(MEASURES):
        return "single" if len(rows) == 1 else "ranking"
    return "empty"


def ranking_measure(envelope: dict) -> str:
    """The measure a ranking is ordered by: the one its headline names, else the first the rows are sorted by."""
    cols, head, rows = columns(envelope), envelope.get("summary", {}).get("headline", ""), records(envelope)
    named = re.search(r"\((conteo|tasa_per_100k)\)|^Entidades por (\w+)", head)
    # a tool may exist to give one measure (each entity's share), but only if the rows follow it
    spec = tool_spec(tool_name(envelope))
    candidates = (
        [g for g in (named.groups() if named else ()) if g]
        + ([spec.measure] if spec and spec.measure else [])
        + list(MEASURES)
    )
    for m in (m for m in candidates if m in cols):
        values = [r[m] for r in rows]
        if None not in values and (values == sorted(values) or values == sorted(values, reverse=True)):
            return m
    return "conteo"


def _title(envelope: dict, lead: str) -> str:
    crimes = ", ".join(crime_labels(envelope)) or "Delitos"
    rng = envelope.get("meta", {}).get("date_range_effective") or {}
    period = period_words(rng["from"], rng["to"]) if rng.get("from") and rng.get("to") else ""
    return " — ".join(part for part in (f"{lead}: {crimes}" if lead else crimes, period) if part)


def _is_municipal(rows: list[dict]) -> bool:
    return all(str(r.get("entidad_id", "")).startswith("GTO.MUN.") for r in rows)


def _bar(envelope: dict, rows: list[dict], x: str, y: str, lead: str) -> dict:
    spec = {
        "type": "bar",
        "x": x,
        "y": y,
        "title": _title(envelope, lead),
        "y_label": MEASURE_LABELS.get(y, y),
        "data": rows,
    }
    if x == "label" and len(rows) >= MAP_MIN_ROWS and _is_municipal(rows):
        # rows carry entidad_id; the UI maps it to the GeoJSON's properties.cve_municipio
        spec["map"] = {"key": "entidad_id", "value": y}
    return spec


def _anomaly_markers(envelopes: list[dict], months: set[str] | None = None) -> list[dict]:
    out = []
    for env in envelopes:
        if shape_of(env) != "anomalies":
            continue
        for r in records(env):
            if months is None or r["fecha"] in months:
                out.append(
                    {
                        "fecha": r["fecha"],
                        "conteo": r["conteo"],
                        "label": r.get("label"),
                        "z_score": r.get("z_score"),
                        "direccion": r.get("direccion"),
                    }
                )
    return sorted(out, key=lambda m: (m["fecha"], str(m["label"])))


def chart_spec(envelope: dict, pipeline: list[dict] | None = None) -> dict | None:
    """A JSON chart spec for the envelope's shape; None when a sentence says it better."""
    shape, rows = shape_of(envelope), records(envelope)
    if shape == "ranking":
        y = ranking_measure(envelope)
        if not any(r.get(y) for r in rows):  # every bar at zero: the sentence says it, an empty chart does not
            return None
        return _bar(envelope, rows, "label", y, MEASURE_LABELS.get(y, y))
    if shape == "series":
        # unpublished months stay null: the line breaks instead of dropping to zero
        data = [
            {"fecha": r["fecha"], "conteo": r["conteo"] if r["publicado"] else None, "publicado": bool(r["publicado"])}
            for r in rows
        ]
        return {
            "type": "line",
            "x": "fecha",
            "y": "conteo",
            "title": _title(envelope, "Serie mensual"),
            "y_label": MEASURE_LABELS["conteo"],
            "data": data,
            "gaps": [r["fecha"] for r in data if not r["publicado"]],
            "markers": _anomaly_markers(pipeline or [], {r["fecha"] for r in data}),
        }
    if shape == "anomalies":
        return {
            "type": "scatter",
            "x": "fecha",
            "y": "conteo",
            "color": "label",
            "title": _title(envelope, "Meses atípicos"),
            "y_label": MEASURE_LABELS["conteo"],
            "data": rows,
            "markers": _anomaly_markers([envelope]),
        }
    if shape == "comparison":
        base = envelope.get("meta", {}).get("date_range_base_effective") or {}
        eff = envelope.get("meta", {}).get("date_range_effective") or {}
        names = {
            "conteo": period_words(eff["from"], eff["to"]) if eff else "Periodo",
            "conteo_base": period_words(base["from"], base["to"]) if base else "Periodo base",
        }
        return {
            "type": "bar",
            "barmode": "group",
            "x": "label",
            "y": ["conteo_base", "conteo"],
            "series_labels": names,
            "title": _title(envelope, "Comparación"),
            "data": rows,
        }
    if shape == "patterns":
        return {
            "type": "bar",
            "x": "patron",
            "y": "score",
            "title": "Patrones más fuertes",
            "y_label": MEASURE_LABELS["score"],
            "data": rows,
        }
    if shape == "annual":
        partial = sorted({r["anio"] for r in rows if r.get("parcial")})
        entities = list(dict.fromkeys(r["entidad_id"] for r in rows))
        years = list(dict.fromkeys(r["anio"] for r in rows))
        title = "Total anual de delitos del fuero común"
        if len(entities) == 1:
            return {
                "type": "bar",
                "x": "anio",
                "y": "conteo",
                "title": title,
                "data": rows,
                "partial": partial,
                "y_label": MEASURE_LABELS["conteo"],
            }
        if len(years) == 1:  # one row per municipality, summing every year of the window
            rng = envelope.get("meta", {}).get("date_range_effective") or {}
            first = int(rng.get("from", str(years[0]))[:4])
            span = f"{first}–{years[0]}" if first != years[0] else str(years[0])
            return {**_bar(envelope, rows, "label", "conteo", ""), "title": f"{title}, {span}", "partial": partial}
        return {
            "type": "line",
            "x": "anio",
            "y": "conteo",
            "color": "label",
            "title": title,
            "data": rows,
            "partial": partial,
            "markers": [],
        }
    spec = tool_spec(tool_name(envelope))
    if spec and spec.chart and shape == spec.shape:  # a shape of its own: the tool's spec names its chart
        return spec.hook("chart")(envelope, pipeline)
    return None  # single values, filters, evidence lists, empty results and errors


def plotly_figure(spec: dict):
    """A Plotly figure drawn from a chart spec (plotly express; the map is left to the UI)."""
    import pandas as pd
    import plotly.express as px
    import plotly.graph_objects as go

    frame = pd.DataFrame(spec.get("data", []))
    kind, x, y = spec["type"], spec["x"], spec["y"]
    labels = {x: "", **({y: spec["y_label"]} if isinstance(y, str) and spec.get("y_label") else {})}
    if kind == "bar" and isinstance(y, list):
        long = frame.melt(id_vars=[x], value_vars=y, var_name="periodo", value_name="valor")
        long["periodo"] = long["periodo"].map(spec.get("series_labels", {})).fillna(long["periodo"])
        fig = px.bar(
            long,
            x=x,
            y="valor",
            color="periodo",
            barmode=spec.get("barmode", "group"),
            title=spec.get("title"),
            labels={x: "", "valor": "Delitos registrados", "periodo": ""},
        )
    elif kind == "bar":
        fig = px.bar(frame, x=x, y=y, title=spec.get("title"), labels=labels)
    elif kind == "line":
        fig = px.line(frame, x=x, y=y, color=spec.get("color"), title=spec.get("title"), labels=labels)
        fig.update_traces(connectgaps=False)  # a null month is a gap, not a zero
    else:
        fig = px.scatter(frame, x=x, y=y, color=spec.get("color"), title=spec.get("title"), labels=labels)
    markers = spec.get("markers") or []
    if markers and kind == "line":
        fig.add_trace(
            go.Scatter(
                x=[m["fecha"] for m in markers],
                y=[m["conteo"] for m in markers],
                mode="markers",
                name="Mes atípico",
                marker={"size": 11, "symbol": "circle-open", "color": "red"},
            )
        )
    return fig
