"""Tables and the coverage chart of the Datos page, built from ``core.api.dataset_info()``."""

from __future__ import annotations

import pandas as pd
import plotly.express as px
import streamlit as st

from core import api
from core.dataset.availability import Availability
from ui import markup

ROW_COUNT_LABELS = {
    "incidents": "Celdas mensuales (municipio × delito × mes)",
    "annual": "Totales anuales",
    "population": "Población",
    "entities": "Entidades",
    "crimes": "Delitos",
    "methods": "Modalidades",
    "coverage": "Tramos de cobertura",
    "quarantine": "Filas en cuarentena",
}
GRANULARITY = {"month": "mensual", "year": "anual"}


def coverage_frame(coverage: dict) -> pd.DataFrame:
    """One row per crime: key, name, granularity, first and last day covered."""
    rows = [
        {
            "delito": key,
            "nombre": item.get("label", key),
            "granularidad": GRANULARITY.get(item.get("granularity"), item.get("granularity")),
            "desde": item["desde"],
            "hasta": item["hasta"],
        }
        for key, item in coverage.items()
    ]
    return pd.DataFrame(rows, columns=["delito", "nombre", "granularidad", "desde", "hasta"])


def coverage_figure(coverage: dict):
    """A Gantt-like bar per crime from ``desde`` to ``hasta`` (one bar per covered run)."""
    rows = []
    for key, item in coverage.items():
        runs = [run for runs in item.get("estados", {}).values() for run in runs] or [item]
        for run in runs:
            rows.append(
                {
                    "delito": markup.plot_text(item.get("label", key)),  # Plotly draws <a href> in tick labels
                    "desde": run["desde"],
                    "hasta": run["hasta"],
                    "granularidad": GRANULARITY.get(item.get("granularity"), item.get("granularity")),
                }
            )
    frame = pd.DataFrame(rows, columns=["delito", "desde", "hasta", "granularidad"])
    fig = px.timeline(
        frame,
        x_start="desde",
        x_end="hasta",
        y="delito",
        color="granularidad",
        color_discrete_map={"mensual": "#7a1f3d", "anual": "#b9a28f"},
        labels={"delito": "Delito", "granularidad": "Granularidad"},
    )
    fig.update_yaxes(autorange="reversed", title=None)
    fig.update_layout(
        height=max(260, 26 * frame["delito"].nunique() + 90),
        margin={"l": 0, "r": 0, "t": 10, "b": 0},
        legend_title_text="Granularidad",
    )
    return fig


def row_counts_frame(counts: dict) -> pd.DataFrame:
    """Row counts per table with Spanish names."""
    return pd.DataFrame(
        [{"tabla": ROW_COUNT_LABELS.get(k, k), "filas": int(v)} for k, v in counts.items()], columns=["tabla", "filas"]
    )


def annual_frame(annual_series: dict) -> tuple[pd.DataFrame, list[str]]:
    """The yearly total series (year, methodology, partial, months) and one note per partial year."""
    info = annual_series.get("total_delitos", {})
    rows, notes = [], []
    for year, item in sorted(info.get("years", {}).items()):
        partial = bool(item.get("parcial"))
        rows.append(
            {
                "año": int(year),
                "metodología": item.get("metodologia"),
                "parcial": "sí" if partial else "no",
                "meses": item.get("meses"),
            }
        )
        if partial:
            notes.append(
                f"{year} ({item.get('metodologia')}) es parcial: {item.get('meses')} de 12 meses; "
                "no se compara con años completos."
            )
    return pd.DataFrame(rows, columns=["año", "metodología", "parcial", "meses"]), notes


def sources_frame(sources: list[dict]) -> pd.DataFrame:
    """The loaded files with provenance and sha256."""
    cols = ["archivo", "formato", "codificacion", "filas", "cargado_en", "procedencia", "sha256"]
    frame = pd.DataFrame(sources)
    for col in cols:
        if col not in frame:
            frame[col] = None
    return frame[cols]


@st.cache_data(max_entries=4, show_spinner="Revisando qué datos hay…")
def availability(_settings, data_dir: str, dataset_version: str) -> Availability:
    """The availability matrix of a version (read once per data folder and version: two grouped queries)."""
    return api.availability(_settings)
