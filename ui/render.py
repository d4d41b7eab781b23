"""Streamlit drawing helpers shared by Consultar, Plan de consulta and the plan editor:
answer, table + CSV, evidence, provenance and envelopes (the plan panel is ``ui.plan_view``).

They only draw what the engine already decided (``core.ask.charts`` picks the chart, ``core.ask.compose``
writes the text); no business logic lives here. Every string a person, an upload or an LLM controls
(questions, labels, headlines, answers, warnings, rationales, plan arguments) goes through ``ui.markup``
before Streamlit draws it as Markdown, and every CSV through ``core.csv_export``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pandas as pd
import streamlit as st

from core import csv_export
from core.ask.charts import chart_spec, shape_of
from core.ask.wording import month_words
from core.engine.envelope import columns
from ui import chat, column_labels, markup, navigation, states
from ui.maps import render_chart

LIGHT_ROWS = 5  # rows of an earlier turn's small table


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


# --- plan editor hand-off -----------------------------------------------------------------------


def open_in_editor(plan: dict) -> None:
    """Hand a plan to the Editor de plan (``st.session_state["plan_to_edit"]``) and go there."""
    from streamlit.errors import StreamlitAPIException

    st.session_state["plan_to_edit"] = plan
    try:
        st.switch_page(navigation.page_path("editor"))
    except StreamlitAPIException:  # the page is not registered (a page run on its own)
        st.success("Plan listo en «Editor de plan».")


# --- table, evidence, provenance, envelopes ----------------------------------------------------


def render_table(envelope: dict, key: str) -> None:
    """The inline rows as a table plus a CSV download."""
    frame = frame_of(envelope)
    if frame.empty:
        return
    frame = column_labels.spanish_frame(frame)  # contract keys stay in the envelope; people read Spanish
    st.dataframe(frame, hide_index=True, key=f"{key}_table", column_order=column_labels.screen_order(frame))
    notice = envelope["data"]["inline"].get("limit_notice") or {}
    if notice.get("applied"):
        st.caption(f"Se muestran {len(frame)} de {notice.get('total_rows')} filas; el resto está en los artefactos.")
    else:
        st.caption(f"{len(frame)} fila{'s' if len(frame) != 1 else ''}")
    st.download_button(
        "Descargar CSV",
        frame_csv(frame),
        file_name=column_labels.download_name(envelope),
        mime="text/csv",
        key=f"{key}_csv",
        on_click="ignore",
    )


def render_small_table(envelope: dict | None, rows: int = LIGHT_ROWS) -> None:
    """The first rows of a result as a static table (an earlier turn's light drawing), with how many there are."""
    if envelope is None or envelope.get("status") != "ok":
        return
    frame = column_labels.spanish_frame(frame_of(envelope))
    if frame.empty:
        return
    head = frame.head(rows)[column_labels.screen_order(frame)].astype(object)
    # st.table draws each cell as Markdown: text cells (labels from uploads) are escaped
    st.table(head.map(lambda v: markup.text(v) if isinstance(v, str) else ("" if v is None else v)), hide_index=True)
    if len(frame) > rows:
        st.caption(f"Primeras {rows} de {len(frame)} filas.")


def render_provenance(provenance: dict | None, said: str = "") -> None:
    """«Datos hasta …» · dataset_version · query_hash, each only when the answer's text (``said``) does not say it."""
    p = provenance or {}
    parts = []
    # «los demás datos cargados, hasta noviembre de 2025» (a series past the store's month) says it too
    if p.get("data_available_until") and f"hasta {month_words(p['data_available_until'])}" not in said:
        parts.append(f"Datos hasta {month_words(p['data_available_until'])}")
    if p.get("dataset_version") and p["dataset_version"] not in said:
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
            render_evidence_rest(turn, f"{key}_evall", envelope, loader, store)


def render_evidence_rest(turn: Any, key: str, envelope: dict, loader: Callable[..., dict | None], store: dict) -> None:
    """When the evidence list stopped at its limit: say so («se muestran 200 de 217») and offer every row as CSV."""
    shown, total = chat.evidence_counts(envelope)
    if shown >= total:
        return
    st.caption(f"Se muestran {shown:,} de {total:,} filas de evidencia; el CSV completo las trae todas.")
    wanted = min(total, chat.evidence_max())
    full_key = f"{turn.job_id}:{wanted}"
    if full_key not in store:
        st.button(
            f"Preparar el CSV con las {wanted:,} filas",
            key=f"{key}_prepare",
            on_click=lambda: store.__setitem__(full_key, loader(turn, wanted)),
        )
    full = store.get(full_key)
    if full:
        st.download_button(
            f"Descargar CSV completo ({chat.evidence_counts(full)[0]:,} filas)",
            frame_csv(column_labels.spanish_frame(frame_of(full))),
            file_name=column_labels.download_name(full),
            mime="text/csv",
            key=f"{key}_csv",
            on_click="ignore",
        )


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
        render_chart(chart_spec(envelope, pipeline), key, geo, envelope=envelope)
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
    light: bool = False,
) -> None:
    """Answer text, clarifying options, chart, table + CSV, evidence and provenance of one turn.

    ``light``: an earlier turn of a conversation, drawn as its text and a small table only (no chart, map or
    evidence): redrawing every earlier chart on each turn made turn 20 take seconds (issue 15 §2)."""
    answer = turn.answer
    if answer is None:
        st.warning("La consulta no produjo una respuesta.")
        return
    st.markdown(markup.block(answer.text))  # labels from uploads sit in it; its «- » bullets stay bullets
    if answer.clarifying_options and on_option is not None:
        with st.container(horizontal=True):
            for i, option in enumerate(answer.clarifying_options):
                st.button(markup.text(option), key=f"{key}_opt{i}", on_click=on_option, args=(option,))
    if light:
        render_small_table(turn.result)
        render_provenance(answer.provenance, answer.text)
        return
    if not states.render_states(turn.result, key):  # rows of states: a bar per state (ui/states.py)
        render_chart(answer.chart, key, geo, plan=getattr(turn, "plan", None), envelope=turn.result)
    result = turn.result
    if result is not None and result.get("status") == "ok":
        render_table(result, key)
    if load_evidence is not None:
        render_evidence(turn, key, load_evidence)
    render_provenance(answer.provenance, answer.text)
