"""Chart specs chosen by an envelope's shape, and their Plotly figures.

``chart_spec`` returns plain JSON (the UI and the audit can store it); ``plotly_figure``
turns a spec into a Plotly figure. Unpublished months stay null so a line shows a gap,
never a fall to zero (docs/metodologia/cobertura_y_calidad.md § Mes no publicado no es cero).
"""

from __future__ import annotations

import re

from core.ask.wording import crime_labels, methods_phrase, month_words, period_words
from core.dataset.taxonomy import load_methods
from core.engine.catalog import load_tool_specs, tool_spec
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
MONTH_ABBR = ("ene", "feb", "mar", "abr", "may", "jun", "jul", "ago", "sep", "oct", "nov", "dic")
MAX_TICKS = 8
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


def _methods(envelope: dict) -> str:
    """' (robo de motocicleta con y sin violencia)' when the tool filtered by modalidad: «Robo» alone would label
    a part of robo as all of it."""
    keys = (envelope.get("meta", {}).get("filters_applied") or {}).get("metodo") or []
    keys = [keys] if isinstance(keys, str) else list(keys)
    if not keys:
        return ""
    names = {m.metodo: m.modalidad.lower() for m in load_methods()}
    return f" ({methods_phrase(names.get(k, k.replace('_', ' ')) for k in keys)})"


def _title(envelope: dict, lead: str) -> str:
    crimes = (", ".join(crime_labels(envelope)) or "Delitos") + _methods(envelope)
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
        entities = (envelope.get("metrics") or {}).get("entidades")
        if isinstance(entities, int) and entities > len(rows):
            spec["map"]["entities"] = entities  # a top-k of these: the map asks for the rest (``map_plan``)
    return spec


def map_plan(plan: dict | None, spec: dict | None) -> dict | None:
    """The plan that gives a map every municipality: the plan's last step with a ``top_k`` raised to the
    number of entities the ranking ranked (None when the chart already has them all or no step can say more).

    A map of the top 10 leaves 36 municipalities blank, and blank reads as zero (issue 15, item 10).
    """
    wanted = ((spec or {}).get("map") or {}).get("entities")
    if not wanted or not plan:
        return None
    specs = {s.tool_id: s for s in load_tool_specs()}
    for step in reversed(plan.get("plan") or []):
        args, tool = step.get("args") or {}, specs.get(step.get("tool_id"))
        top = ((tool.args_schema.get("properties") or {}).get("top_k") or {}) if tool else {}
        if "top_k" in args and top:
            step = {**step, "args": {**args, "top_k": min(wanted, top.get("maximum", wanted))}}
            return {"plan": [step], "meta": {"strict_time": bool((plan.get("meta") or {}).get("strict_time"))}}
    return None


def chart_note(envelope: dict | None) -> str | None:
    """Why an answer with rows draws no chart, when a reader would expect one (a ranking of zeros)."""
    if not envelope or shape_of(envelope) != "ranking":
        return None
    if not any(r.get(ranking_measure(envelope)) for r in records(envelope)):
        return "Sin gráfica: todas las entidades mostradas registran 0; la tabla las lista."
    return None


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
        # asked in rates (and every row has both): the bars are the rates, each period with its population year
        rated = (envelope.get("metrics") or {}).get("medida") == "tasa_per_100k" and all(
            r.get("tasa_per_100k") is not None and r.get("tasa_per_100k_base") is not None for r in rows
        )
        now, before = ("tasa_per_100k", "tasa_per_100k_base") if rated else ("conteo", "conteo_base")
        names = {
            now: period_words(eff["from"], eff["to"]) if eff else "Periodo",
            before: period_words(base["from"], base["to"]) if base else "Periodo base",
        }
        return {
            "type": "bar",
            "barmode": "group",
            "x": "label",
            "y": [before, now],
            "series_labels": names,
            "title": _title(envelope, "Comparación"),
            "data": rows,
            **({"y_label": MEASURE_LABELS["tasa_per_100k"]} if rated else {}),
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
            labels={x: "", "valor": spec.get("y_label") or "Delitos registrados", "periodo": ""},
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
    value_label = spec.get("y_label") or ("Delitos registrados" if isinstance(y, list) else y)
    if x == "fecha":
        _spanish_months(fig, [str(v) for v in frame[x]] if x in frame else [], value_label)
    elif x == "anio" and x in frame:
        years = sorted({int(v) for v in frame[x].dropna()})  # a year is a year: never «2,024.5» between two
        fig.update_xaxes(tickmode="array", tickvals=years, ticktext=[str(v) for v in years])
        fig.update_traces(hovertemplate=f"%{{x}}<br>{value_label}: %{{y:,}}<extra>%{{fullData.name}}</extra>")
    elif kind == "bar":
        fig.update_traces(hovertemplate=f"%{{x}}<br>{value_label}: %{{y:,}}<extra>%{{fullData.name}}</extra>")
    return fig


def month_ticks(months: list[str]) -> tuple[list[str], list[str]]:
    """Tick positions and Spanish labels for a monthly axis: every January as «2021» over long spans,
    else every n-th month as «mar 2021» (Plotly's own date labels are English: «Mar 2021»)."""
    months = sorted(set(months))
    if not months:
        return [], []
    if len(months) > 24:
        januaries = [m for m in months if m[5:7] == "01"] or months[:1]
        step = -(-len(januaries) // MAX_TICKS)
        ticks = januaries[::step]
        return ticks, [t[:4] for t in ticks]
    step = -(-len(months) // MAX_TICKS)
    ticks = months[::step]
    return ticks, [f"{MONTH_ABBR[int(t[5:7]) - 1]} {t[:4]}" for t in ticks]


def _spanish_months(fig, months: list[str], value_label: str) -> None:
    """Spanish month ticks and hovers on a date axis (every trace, the anomaly markers too)."""
    ticks, labels = month_ticks(months)
    fig.update_xaxes(tickmode="array", tickvals=ticks, ticktext=labels)
    for trace in fig.data:
        dates = [str(v)[:10] for v in (trace.x if trace.x is not None else ())]
        trace.customdata = [[month_words(d)] for d in dates]
        trace.hovertemplate = f"%{{customdata[0]}}<br>{value_label}: %{{y:,}}<extra>%{{fullData.name}}</extra>"
