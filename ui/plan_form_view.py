"""The plan editor's form drawn with Streamlit: one bordered block per step (tool, ↑ ↓ ✕, one widget per
argument, its description as text under it). What to draw comes from ``ui.plan_form``'s pure functions."""

from __future__ import annotations

from datetime import date
from typing import Any

import streamlit as st

from ui import markup
from ui.plan_form import (
    FieldSpec,
    args_from_values,
    fields_for,
    initial_value,
    move_step,
    new_step,
    plan_from_steps,
    remove_step,
)


def _draw_field(spec: FieldSpec, key: str, args: dict, labels: dict) -> Any:
    """One argument's widget with its description under it as text: a ``help=`` tooltip is hover-only (no use on
    a phone) and Streamlit names its icon in English («Help for top_k»)."""
    value = _widget(spec, key, args, labels)
    if spec.help:
        st.caption(markup.text(spec.help))
    return value


def _widget(spec: FieldSpec, key: str, args: dict, labels: dict) -> Any:
    state = st.session_state
    if key not in state:
        state[key] = initial_value(spec, args)
    common = {"label": spec.label, "key": key}
    if spec.kind == "date":
        return st.date_input(min_value=date(2000, 1, 1), max_value=date(2035, 12, 31), format="YYYY-MM-DD", **common)
    if spec.kind == "multi":
        return st.multiselect(
            options=list(spec.options),
            format_func=lambda v: labels.get(v, v),
            placeholder="Elige una o varias opciones",
            **common,
        )
    if spec.kind == "enum":
        options = list(spec.options) if spec.required or spec.default is not None else [None, *spec.options]
        return st.selectbox(options=options, format_func=lambda v: "—" if v is None else labels.get(v, v), **common)
    if spec.kind in ("integer", "number"):
        integer = spec.kind == "integer"
        step = 1 if integer else (0.01 if (spec.maximum or 100) <= 1 else 0.1)
        cast = int if integer else float
        return st.number_input(
            min_value=None if spec.minimum is None else cast(spec.minimum),
            max_value=None if spec.maximum is None else cast(spec.maximum),
            step=step,
            **common,
        )
    if spec.kind == "boolean":
        return st.checkbox(**common)
    return st.text_input(**common)


def draw_form(state, catalog, labels: dict) -> dict:
    """One bordered block per step (tool, ↑ ↓ ✕, one widget per argument); returns the plan it describes."""
    names = {s.tool_id: f"{s.tool_id} · {s.name}@{s.version}" for s in catalog.specs}
    steps = state["editor_steps"]

    def move(i: int, offset: int) -> None:
        state["editor_steps"] = move_step(state["editor_steps"], i, offset)

    def remove(i: int) -> None:
        state["editor_steps"] = remove_step(state["editor_steps"], i)

    def add() -> None:
        state["editor_steps"] = [*state["editor_steps"], new_step(state["ed_new_tool"])]

    for i, step in enumerate(steps):
        uid = step["uid"]
        with st.container(border=True):
            head = st.columns([8, 1, 1, 1], vertical_alignment="bottom")
            state.setdefault(f"ed_{uid}_tool", step["tool_id"] if step["tool_id"] in names else next(iter(names)))
            step["tool_id"] = head[0].selectbox(
                f"Paso {i + 1}", list(names), format_func=names.get, key=f"ed_{uid}_tool"
            )
            head[1].button("↑", key=f"ed_{uid}_up", on_click=move, args=(i, -1), disabled=i == 0, help="Subir")
            head[2].button(
                "↓", key=f"ed_{uid}_down", on_click=move, args=(i, 1), disabled=i == len(steps) - 1, help="Bajar"
            )
            head[3].button("✕", key=f"ed_{uid}_del", on_click=remove, args=(i,), help="Quitar el paso")
            fields = fields_for(catalog.resolved_schemas[step["tool_id"]])
            cols = st.columns(3)
            values = {}
            for j, spec in enumerate(fields):
                with cols[j % 3]:
                    values[spec.name] = _draw_field(
                        spec, f"ed_{uid}_{step['tool_id']}_{spec.name}", step["args"], labels
                    )
            step["args"] = args_from_values(fields, values)
    add_col, button_col = st.columns([8, 3], vertical_alignment="bottom")
    add_col.selectbox("Nueva herramienta", list(names), format_func=names.get, key="ed_new_tool")
    button_col.button("Añadir paso", key="ed_add", on_click=add)
    state.setdefault("ed_strict", bool(state["editor_meta"].get("strict_time")))
    state["editor_meta"]["strict_time"] = st.checkbox(
        "strict_time (no recortar la ventana a los datos)", key="ed_strict"
    )
    return plan_from_steps(steps, state["editor_meta"])
