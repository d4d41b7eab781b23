"""The states chart of an answer: a result whose rows are Mexico's states, drawn as a sorted bar chart with
Guanajuato highlighted (issue 14, item 7). No national map: no state geometry is bundled.

**The marker.** A result is state-level when its inline rows carry a place id column — ``lugar_id``
(``ranking_estados``) or ``clave`` (``fuero_federal`` by estado) — whose values include at least two state ids of
the national model (docs/decisions/0011-observations-and-precedence.md: the abbreviations of
``catalogs/entities/estados.csv``, ``GTO``, ``JAL``, ``CDMX``…), plus a ``label`` and a numeric measure. The
measure is the one the result was ordered by (metrics ``ordenado_por``) when it is a column, else the first of
``conteo``, ``victimas``, ``eventos``, ``tasa_per_100k``. Rows of other places (the country ``MX``,
``MX.EXTRANJERO``) stay in the table below the chart but are no bars: the country would dwarf every state; when the
measure is a rate, the country's rate is drawn as a line instead. Guanajuato and the state the question asked about
(metrics ``lugar_id``) are highlighted. A municipal result (``entidad_id``, ``GTO.MUN.LEON``) is never state-level.
"""

from __future__ import annotations

import functools

import pandas as pd
import plotly.express as px
import streamlit as st

from core.ask.wording import humanize_dates
from core.dataset.entities import load_states
from core.engine.envelope import columns
from ui import markup, spanish

ID_COLUMNS = ("lugar_id", "clave")
MEASURES = ("conteo", "victimas", "eventos", "tasa_per_100k")
MEASURE_LABELS = {
    "conteo": "Carpetas",
    "victimas": "Víctimas",
    "eventos": "Casos",
    "tasa_per_100k": "Tasa por 100 mil habitantes",
}
HOME, COUNTRY = "GTO", "MX"
HIGHLIGHT, OTHER = "Estado destacado", "Otros estados"
COLORS = {HIGHLIGHT: "#7a1f3d", OTHER: "#b9a28f"}


@functools.cache
def state_ids() -> frozenset[str]:
    """The ids of the 32 states in the national model (their abbreviations)."""
    return frozenset(s.abreviatura for s in load_states())


def _frame(envelope: dict) -> pd.DataFrame:
    inline = (envelope.get("data") or {}).get("inline") or {}
    return pd.DataFrame(inline.get("rows") or [], columns=columns(envelope))


def measure_of(envelope: dict, frame: pd.DataFrame) -> str | None:
    """The numeric column the bars show (see the module docstring)."""
    ordered = (envelope.get("metrics") or {}).get("ordenado_por")
    for name in (ordered, *MEASURES):
        if name in frame.columns and pd.api.types.is_numeric_dtype(frame[name].dropna().infer_objects()):
            return name
    return None


def states_frame(envelope: dict | None) -> tuple[pd.DataFrame, str, float | None] | None:
    """(state rows sorted by the measure, the measure, the country's value when it is a rate), or None when the
    result is not state-level."""
    if not envelope or envelope.get("status") != "ok":
        return None
    frame = _frame(envelope)
    id_col = next((c for c in ID_COLUMNS if c in frame.columns), None)
    if id_col is None or "label" not in frame.columns:
        return None
    is_state = frame[id_col].isin(state_ids())
    measure = measure_of(envelope, frame)
    if is_state.sum() < 2 or measure is None:
        return None
    country = frame.loc[frame[id_col].eq(COUNTRY), measure].dropna()
    line = float(country.iloc[0]) if measure == "tasa_per_100k" and len(country) else None
    metrics = envelope.get("metrics") or {}
    marked = {HOME, metrics.get("lugar_id")}
    states = frame.loc[is_state, [id_col, "label", measure]].rename(columns={id_col: "lugar_id"})
    states[measure] = pd.to_numeric(states[measure], errors="coerce")
    states["grupo"] = states["lugar_id"].isin(marked).map({True: HIGHLIGHT, False: OTHER})
    states["label"] = states["label"].map(markup.plot_text)  # Plotly draws <a href>, <b>… in tick labels
    states = states.sort_values([measure, "label"], ascending=[False, True], na_position="last", ignore_index=True)
    return states, measure, line


def states_figure(states: pd.DataFrame, measure: str, country_line: float | None = None, title: str | None = None):
    """A horizontal bar per state, largest on top, the highlighted states in the house colour."""
    fig = px.bar(
        states,
        x=measure,
        y="label",
        orientation="h",
        color="grupo",
        color_discrete_map=COLORS,
        category_orders={"label": list(states["label"]), "grupo": [HIGHLIGHT, OTHER]},
        labels={"label": "Estado", measure: MEASURE_LABELS.get(measure, measure), "grupo": ""},
        title=title,
    )
    if country_line is not None:
        fig.add_vline(x=country_line, line_dash="dash", line_color="#555", annotation_text="Tasa nacional")
    fig.update_yaxes(title=None)
    fig.update_layout(height=max(260, 22 * len(states) + 110), margin={"l": 0, "r": 0, "t": 40, "b": 0})
    return fig


def render_states(envelope: dict | None, key: str) -> bool:
    """Draw the states chart when the result is state-level and say so (True); draw nothing otherwise (False)."""
    found = states_frame(envelope)
    if found is None:
        return False
    states, measure, line = found
    # the tool's headline says its window in ISO months («2026-01..2026-01»): a chart title says it in words
    title = markup.plot_text(humanize_dates((envelope.get("summary") or {}).get("headline") or "")) or None
    st.plotly_chart(states_figure(states, measure, line, title), key=f"{key}_states", config=spanish.PLOTLY_CONFIG)
    return True
