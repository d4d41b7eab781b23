"""Catálogo helpers: accent-insensitive search, Spanish labels, domains and example plans."""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any, get_args

import pandas as pd

from core.ask.contracts import DomainKey
from core.engine.catalog import tool_spec
from core.text import fold, month_end, shift_months

DOMAIN_TEXT = {
    "incidencia": "Conteos, tasas por 100 mil y rankings de un periodo.",
    "tendencias": "Series mensuales y su evolución en el tiempo.",
    "comparacion": "Comparación entre dos periodos o entre entidades.",
    "patrones": "Coocurrencias y patrones entre delitos, lugares y modalidades.",
    "anomalias": "Meses atípicos frente a su propia historia (z robusto).",
    "evidencia": "Las filas de datos que respaldan un resultado.",
    "metodologia": "Definiciones, fuentes y cómo se calcula cada cifra.",
    "lab": "Herramientas experimentales: solo con aprobación de supervisión.",
}
DOMAINS = tuple(get_args(DomainKey))
STATUS = {"stable": "estable", "experimental": "experimental"}
REQUIRES = {
    "dataset": "datos publicados",
    "entity": "entidad",
    "date_range": "rango de fechas",
    "evidence_capable": "puede dar evidencia",
}
PREFERRED = {"entidad_id": "GTO", "delito": "homicidio_doloso", "metodo": "con_arma_de_fuego"}


def matches(query: str, *fields: Any) -> bool:
    """Whether every word of the query appears in some field (accent- and case-insensitive)."""
    words = fold(query).split()
    haystack = " ".join(fold(f) for f in fields)
    return all(w in haystack for w in words)


def filter_tools(tools: list[dict], query: str) -> list[dict]:
    """The tools whose id, name, summary, kind or status match the search."""
    return [t for t in tools if matches(query, t["tool_id"], t["name"], t["summary"], t["kind"], t["status"])]


def entities_frame(entities: list[dict], query: str) -> pd.DataFrame:
    """The entities matching the search, as the Entidades table."""
    rows = [
        e
        for e in entities
        if matches(query, e["entidad_id"], e["label"], e.get("nombre_corto"), e.get("aliases"), e.get("cve"))
    ]
    return pd.DataFrame(rows).reindex(columns=["entidad_id", "nivel", "label", "cve", "parent_id", "aliases"])


def crimes_frame(crimes: list[dict], query: str) -> pd.DataFrame:
    """The crimes matching the search, as the Delitos table."""
    rows = [
        c
        for c in crimes
        if matches(query, c["delito"], c["subtipo"], c["tipo"], c.get("sinonimos"), c.get("bien_juridico"))
    ]
    cols = ["delito", "subtipo", "tipo", "nivel", "granularity", "en_datos", "bien_juridico", "sinonimos"]
    frame = pd.DataFrame(rows).reindex(columns=cols)
    return frame.rename(columns={"granularity": "granularidad"})


def methods_frame(methods: list[dict], query: str) -> pd.DataFrame:
    """The methods matching the search, as the Modalidades table."""
    rows = [m for m in methods if matches(query, m["metodo"], m["modalidad"], m.get("sinonimos"))]
    return pd.DataFrame(rows).reindex(columns=["metodo", "modalidad", "violencia", "en_datos", "sinonimos"])


def domains_frame(query: str) -> pd.DataFrame:
    """The analysis domains matching the search, with their description."""
    rows = [
        {"dominio": d, "descripción": DOMAIN_TEXT.get(d, "")} for d in DOMAINS if matches(query, d, DOMAIN_TEXT.get(d))
    ]
    return pd.DataFrame(rows, columns=["dominio", "descripción"])


def requires_text(requires: dict) -> str:
    """'entidad, rango de fechas' (what the tool needs)."""
    return ", ".join(REQUIRES.get(k, k) for k, v in requires.items() if v) or "nada"


def _enum(schema: dict) -> list:
    if "enum" in schema:
        return list(schema["enum"])
    for branch in schema.get("oneOf", []):
        if "enum" in branch:
            return list(branch["enum"])
    return []


def _window(max_date: str | None) -> tuple[str, str, str, str]:
    """The last 12 full months up to max_date and the 12 before them (ISO dates)."""
    end = date.fromisoformat(max_date) if max_date else date(2024, 12, 31)
    start = shift_months(end, -11)
    return (
        start.isoformat(),
        month_end(end.year, end.month).isoformat(),
        shift_months(end, -23).isoformat(),
        (start - timedelta(days=1)).isoformat(),
    )


def _example_args(tool: dict, max_date: str | None) -> dict:
    props = tool["args_schema"].get("properties", {})
    required = set(tool["args_schema"].get("required", []))
    start, stop, base_start, base_stop = _window(max_date)
    dates = {"from": start, "to": stop, "base_from": base_start, "base_to": base_stop}
    args: dict[str, Any] = {}
    for name, schema in props.items():
        if name in dates and (name in required or tool["requires"].get("date_range")):
            args[name] = dates[name]
        elif name in PREFERRED and (name in required or name in ("entidad_id", "delito") or tool["kind"] == "filter"):
            options = _enum(schema)
            args[name] = PREFERRED[name] if not options or PREFERRED[name] in options else options[0]
        elif name in required:
            options = _enum(schema)
            args[name] = schema.get("default", options[0] if options else None)
    spec = tool_spec(tool["name"])
    if spec is not None and spec.calendar == "years":  # whole years: the three before the last month's year
        year = int(stop[:4]) - 1
        args.update({"from": f"{year - 2}-01-01", "to": f"{year}-12-31"})
    return {k: v for k, v in args.items() if v is not None}


def example_plan(tool: dict, tools: list[dict], max_date: str | None) -> dict:
    """A plan that uses the tool; one that does not answer alone goes with the tool its spec's ``example`` names
    (a filter before it, the evidence after it)."""
    steps = [{"tool_id": tool["tool_id"], "args": _example_args(tool, max_date)}]
    example = getattr(tool_spec(tool["name"]), "example", None)
    partner_name = example and (example.then or example.after)
    partner = next((t for t in tools if t["name"] == partner_name), None)
    if partner:
        given = set(steps[0]["args"]) if example.then else set()
        follow = {
            "tool_id": partner["tool_id"],
            "args": {k: v for k, v in _example_args(partner, max_date).items() if k not in given},
        }
        steps = [follow, *steps] if example.after else [*steps, follow]
    return {"plan": steps}
