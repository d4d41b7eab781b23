"""Chart specs chosen by an envelope's shape, plus the envelope readers and the Spanish wording of
dates and numbers (Mexican format) that the answer composer shares.

``chart_spec`` returns plain JSON (the UI and the audit can store it); ``plotly_figure``
turns a spec into a Plotly figure. Unpublished months stay null so a line shows a gap,
never a fall to zero (docs/metodologia/cobertura_y_calidad.md § Mes no publicado no es cero).
"""
from __future__ import annotations

import re
from datetime import date

MONTHS = ("enero", "febrero", "marzo", "abril", "mayo", "junio", "julio", "agosto", "septiembre", "octubre",
          "noviembre", "diciembre")
FILTER_TOOLS = ("enfoque_entidad", "filtro_fecha", "filtro_tipo", "filtro_metodo", "filtro_frecuencia")
MEASURES = ("conteo", "tasa_per_100k", "porcentaje", "total_anomalias", "gravedad_promedio")
MEASURE_LABELS = {"conteo": "Delitos registrados", "tasa_per_100k": "Tasa por cada 100 mil habitantes",
                  "porcentaje": "Porcentaje del total", "total_anomalias": "Meses atípicos",
                  "gravedad_promedio": "Gravedad promedio", "score": "Puntaje", "conteo_base": "Periodo base"}
STATE_NAMES = {"GTO": "Guanajuato"}
_PLURALS = {"homicidio doloso": "homicidios dolosos", "homicidio culposo": "homicidios culposos",
            "homicidio": "homicidios", "feminicidio": "feminicidios", "secuestro": "secuestros"}
MAP_MIN_ROWS = 5  # fewer municipalities make a map mostly empty; a bar says it better
_CRIMES_IN_HEADLINE = (re.compile(r"^Top (.+) \((?:conteo|tasa_per_100k)\) — "),
                       re.compile(r"^(?:Serie mensual|Comparación|Anomalías) de (.+?) — "),
                       re.compile(r"^Entidades (?:con (?:más|menos) eventos|por \w+) \((.+?)\)[,]? "))
_ISO_RANGE = re.compile(r"(\d{4})-(\d{2})(?:-\d{2})?\.\.(\d{4})-(\d{2})(?:-\d{2})?")
_ISO_MONTH = re.compile(r"(?<![\d-])(\d{4})-(\d{2})(?:-(\d{2}))?(?![\d-])")


def tool_name(envelope: dict) -> str:
    """'rank_por_delito' from 'rank_por_delito@1.1.0'."""
    return str(envelope.get("tool", "")).split("@")[0]


def columns(envelope: dict) -> list[str]:
    """Column names of the inline table."""
    return [c["name"] for c in envelope.get("data", {}).get("inline", {}).get("columns", [])]


def records(envelope: dict) -> list[dict]:
    """Inline rows as dicts keyed by column name."""
    names = columns(envelope)
    # rows and columns come from the same tool output; a short row must not break the answer
    return [dict(zip(names, row, strict=False)) for row in envelope.get("data", {}).get("inline", {}).get("rows", [])]


def shape_of(envelope: dict) -> str:
    """error | empty | filter | evidence | series | comparison | anomalies | patterns | annual | ranking | single."""
    if envelope.get("status") != "ok":
        return "error"
    name, cols = tool_name(envelope), set(columns(envelope))
    if name in FILTER_TOOLS:
        return "filter"
    if name == "listar_evidencia":
        return "evidence"
    rows = records(envelope)
    if not rows or envelope.get("meta", {}).get("empty_result"):
        return "empty"
    if name == "serie_temporal" or {"fecha", "publicado"} <= cols:
        return "series"
    if name == "comparar_periodos" or "conteo_base" in cols:
        return "comparison"
    if name == "detectar_anomalias" or "z_score" in cols:
        return "anomalies"
    if name == "detectar_patrones" or "patron" in cols:
        return "patterns"
    if name == "total_anual" or "anio" in cols:
        return "annual"
    if {"entidad_id", "label"} <= cols and cols & set(MEASURES):
        return "single" if len(rows) == 1 else "ranking"
    return "empty"


def ranking_measure(envelope: dict) -> str:
    """The measure a ranking is ordered by: the one its headline names, else the first the rows are sorted by."""
    cols, head, rows = columns(envelope), envelope.get("summary", {}).get("headline", ""), records(envelope)
    named = re.search(r"\((conteo|tasa_per_100k)\)|^Entidades por (\w+)", head)
    # top_entidades_por_total exists to give each entity's share, but only if the rows follow it
    candidates = [g for g in (named.groups() if named else ()) if g] + \
        ["porcentaje"] * (tool_name(envelope) == "top_entidades_por_total") + list(MEASURES)
    for m in (m for m in candidates if m in cols):
        values = [r[m] for r in rows]
        if None not in values and (values == sorted(values) or values == sorted(values, reverse=True)):
            return m
    return "conteo"


def crime_labels(envelope: dict) -> list[str]:
    """Crime labels the tool wrote in its headline (['Homicidio doloso']); [] when none."""
    head = envelope.get("summary", {}).get("headline", "")
    for pattern in _CRIMES_IN_HEADLINE:
        found = pattern.search(head)
        if found and found.group(1) != "todos los delitos":
            return found.group(1).split(", ")
    return []


def state_name(entidad_id: str) -> str:
    """'Guanajuato' for any id under GTO."""
    prefix = str(entidad_id).split(".")[0]
    return STATE_NAMES.get(prefix, prefix)


def place_label(envelope: dict) -> str:
    """Who a headline speaks of ('León', 'municipios de Guanajuato'); '' when it says nothing."""
    found = re.search(r" — (.+?)(?:, (?:\d{4}-\d{2}|todo el periodo)|: )", envelope["summary"]["headline"])
    who = re.sub(r"^Hijos de \w+ \((.+?)\)$", r"municipios de \1", found.group(1) if found else "")
    return re.sub(r"\bde ([A-Z]{2,4})$", lambda m: f"de {state_name(m[1])}", who)


def _month(iso: str) -> tuple[int, int]:
    d = date.fromisoformat(iso[:10] if len(iso) >= 10 else iso + "-01")
    return d.year, d.month


def month_words(iso: str) -> str:
    """'noviembre de 2025' from '2025-11-30' or '2025-11'."""
    y, m = _month(iso)
    return f"{MONTHS[m - 1]} de {y}"


def period_words(start: str, end: str) -> str:
    """'enero a diciembre de 2024', 'diciembre de 2024 a noviembre de 2025' or 'marzo de 2024'."""
    (y1, m1), (y2, m2) = _month(start), _month(end)
    if (y1, m1) == (y2, m2):
        return f"{MONTHS[m1 - 1]} de {y1}"
    if y1 == y2:
        return f"{MONTHS[m1 - 1]} a {MONTHS[m2 - 1]} de {y1}"
    return f"{MONTHS[m1 - 1]} de {y1} a {MONTHS[m2 - 1]} de {y2}"


def join_y(items) -> str:
    """'a, b y c'."""
    items = list(items)
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " y " + items[-1] if items else ""


def between(start: str, end: str) -> str:
    """'entre enero y diciembre de 2024' or 'en marzo de 2024'."""
    words = period_words(start, end)
    if " a " not in words:
        return f"en {words}"
    first, last = words.split(" a ", 1)
    return f"entre {first} y {last}"


def fmt_int(value: float | None) -> str:
    """Mexican integer format: 1,234 ('sin dato' for a missing value, never 0)."""
    return "sin dato" if value is None else f"{int(round(value)):,}"


def fmt_num(value: float | None, decimals: int = 1) -> str:
    """Mexican decimal format: 1,234.5 ('sin dato' for a missing value, never 0)."""
    return "sin dato" if value is None else f"{value:,.{decimals}f}"


def fmt_pct(value: float, signed: bool = False) -> str:
    """A percentage with one decimal: '23.4 %' (or '+19.7 %')."""
    return f"{value:+.1f} %" if signed else f"{value:.1f} %"


def crime_noun(labels: list[str], count: float = 2, detail: str = "") -> str:
    """'homicidios dolosos', 'delito de aborto', 'delitos de abuso sexual y violación' (+ ' ' + detail)."""
    if detail:
        return f"{crime_noun(labels, count)} {detail}"
    low, one = [label.lower() for label in labels], count == 1
    if len(low) == 1 and low[0] in _PLURALS:
        return low[0] if one else _PLURALS[low[0]]
    if len(low) == 1 and low[0].startswith(("otros delitos", "delitos ")):
        return low[0]
    if low == ["electorales"]:
        return "delito electoral" if one else "delitos electorales"
    head = "delito" if one else "delitos"
    if len(low) == 1 and low[0].startswith("contra "):
        return f"{head} {low[0]}"
    return f"{head} de {join_y(low)}" if low else head


def humanize_dates(text: str) -> str:
    """ISO months and ranges in a tool's message ('2022-07..2022-12') written in Spanish words."""
    text = _ISO_RANGE.sub(lambda m: period_words(f"{m[1]}-{m[2]}", f"{m[3]}-{m[4]}")
                          if 1 <= int(m[2]) <= 12 and 1 <= int(m[4]) <= 12 else m[0], text)
    return _ISO_MONTH.sub(lambda m: (f"{int(m[3])} de " if m[3] else "") + month_words(f"{m[1]}-{m[2]}")
                          if 1 <= int(m[2]) <= 12 else m[0], text)


def _title(envelope: dict, lead: str) -> str:
    crimes = ", ".join(crime_labels(envelope)) or "Delitos"
    rng = envelope.get("meta", {}).get("date_range_effective") or {}
    period = period_words(rng["from"], rng["to"]) if rng.get("from") and rng.get("to") else ""
    return " — ".join(part for part in (f"{lead}: {crimes}" if lead else crimes, period) if part)


def _is_municipal(rows: list[dict]) -> bool:
    return all(str(r.get("entidad_id", "")).startswith("GTO.MUN.") for r in rows)


def _bar(envelope: dict, rows: list[dict], x: str, y: str, lead: str) -> dict:
    spec = {"type": "bar", "x": x, "y": y, "title": _title(envelope, lead), "y_label": MEASURE_LABELS.get(y, y),
            "data": rows}
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
                out.append({"fecha": r["fecha"], "conteo": r["conteo"], "label": r.get("label"),
                            "z_score": r.get("z_score"), "direccion": r.get("direccion")})
    return sorted(out, key=lambda m: (m["fecha"], str(m["label"])))


def chart_spec(envelope: dict, pipeline: list[dict] | None = None) -> dict | None:
    """A JSON chart spec for the envelope's shape; None when a sentence says it better."""
    shape, rows = shape_of(envelope), records(envelope)
    if shape == "ranking":
        y = ranking_measure(envelope)
        return _bar(envelope, rows, "label", y, MEASURE_LABELS.get(y, y))
    if shape == "series":
        # unpublished months stay null: the line breaks instead of dropping to zero
        data = [{"fecha": r["fecha"], "conteo": r["conteo"] if r["publicado"] else None,
                 "publicado": bool(r["publicado"])} for r in rows]
        return {"type": "line", "x": "fecha", "y": "conteo", "title": _title(envelope, "Serie mensual"),
                "y_label": MEASURE_LABELS["conteo"], "data": data,
                "gaps": [r["fecha"] for r in data if not r["publicado"]],
                "markers": _anomaly_markers(pipeline or [], {r["fecha"] for r in data})}
    if shape == "anomalies":
        return {"type": "scatter", "x": "fecha", "y": "conteo", "color": "label",
                "title": _title(envelope, "Meses atípicos"), "y_label": MEASURE_LABELS["conteo"], "data": rows,
                "markers": _anomaly_markers([envelope])}
    if shape == "comparison":
        base = envelope.get("meta", {}).get("date_range_base_effective") or {}
        eff = envelope.get("meta", {}).get("date_range_effective") or {}
        names = {"conteo": period_words(eff["from"], eff["to"]) if eff else "Periodo",
                 "conteo_base": period_words(base["from"], base["to"]) if base else "Periodo base"}
        return {"type": "bar", "barmode": "group", "x": "label", "y": ["conteo_base", "conteo"],
                "series_labels": names, "title": _title(envelope, "Comparación"), "data": rows}
    if shape == "patterns":
        return {"type": "bar", "x": "patron", "y": "score", "title": "Patrones más fuertes",
                "y_label": MEASURE_LABELS["score"], "data": rows}
    if shape == "annual":
        partial = sorted({r["anio"] for r in rows if r.get("parcial")})
        entities = list(dict.fromkeys(r["entidad_id"] for r in rows))
        years = list(dict.fromkeys(r["anio"] for r in rows))
        title = "Total anual de delitos del fuero común"
        if len(entities) == 1:
            return {"type": "bar", "x": "anio", "y": "conteo", "title": title, "data": rows, "partial": partial,
                    "y_label": MEASURE_LABELS["conteo"]}
        if len(years) == 1:  # one row per municipality, summing every year of the window
            rng = envelope.get("meta", {}).get("date_range_effective") or {}
            first = int(rng.get("from", str(years[0]))[:4])
            span = f"{first}–{years[0]}" if first != years[0] else str(years[0])
            return {**_bar(envelope, rows, "label", "conteo", ""), "title": f"{title}, {span}", "partial": partial}
        return {"type": "line", "x": "anio", "y": "conteo", "color": "label", "title": title, "data": rows,
                "partial": partial, "markers": []}
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
        fig = px.bar(long, x=x, y="valor", color="periodo", barmode=spec.get("barmode", "group"),
                     title=spec.get("title"), labels={x: "", "valor": "Delitos registrados", "periodo": ""})
    elif kind == "bar":
        fig = px.bar(frame, x=x, y=y, title=spec.get("title"), labels=labels)
    elif kind == "line":
        fig = px.line(frame, x=x, y=y, color=spec.get("color"), title=spec.get("title"), labels=labels)
        fig.update_traces(connectgaps=False)  # a null month is a gap, not a zero
    else:
        fig = px.scatter(frame, x=x, y=y, color=spec.get("color"), title=spec.get("title"), labels=labels)
    markers = spec.get("markers") or []
    if markers and kind == "line":
        fig.add_trace(go.Scatter(x=[m["fecha"] for m in markers], y=[m["conteo"] for m in markers], mode="markers",
                                 name="Mes atípico", marker={"size": 11, "symbol": "circle-open", "color": "red"}))
    return fig
