"""The «Plan de consulta» panel of a turn, shared by Consultar and the Plan de consulta page.

First the plan in plain words (``core.ask.explain``): «Qué entendí · Qué calculé · Con qué datos · Periodo
efectivo · Advertencias» and the lab decision; then, collapsed under «Detalles técnicos», the contracts
(QueryPlan, AnalystPlan, PlannerState), the tools with their arguments as a list, the validation, hashes,
timings and LLM. Every string a person, an upload or an LLM controls goes through ``ui.markup``.
"""

from __future__ import annotations

import json
from typing import Any

import pandas as pd
import streamlit as st

from core.ask.explain import PlanWords, explain_turn, source_files
from ui import markup
from ui.render import render_problems, turn_dict

CONFIDENCE = {"high": "alta", "medium": "media", "low": "baja"}
STRATEGIES = {
    "retrieve_then_answer": "consultar y responder",
    "clarify_then_retrieve": "preguntar antes de consultar",
    "defer_or_refuse": "declinar",
    "direct_answer": "responder directamente",
}
PLANNER_NAMES = {"rules": "reglas (determinista)", "llm": "LLM"}
SECTIONS = (
    ("understood", "Qué entendí"),
    ("computed", "Qué calculé"),
    ("data", "Con qué datos"),
    ("period", "Periodo efectivo"),
    ("warnings", "Advertencias"),
)
TECHNICAL = "Detalles técnicos"


def _yes(value: Any) -> str:
    return "sí" if value else "no"


def _items(values: list | None) -> str:
    return markup.codes(values)


def pipeline_rows(plan: dict | None, envelopes: list[dict], catalog: Any) -> list[dict]:
    """tool_id, name@version and args of every step of a plan."""
    rows = []
    for i, step in enumerate((plan or {}).get("plan", [])):
        spec = catalog.spec_for(step["tool_id"]) if catalog is not None else None
        version = step.get("tool_version") or (spec.version if spec else "?")
        name = f"{spec.name}@{version}" if spec else (envelopes[i]["tool"] if i < len(envelopes) else "?")
        rows.append(
            {
                "tool_id": step["tool_id"],
                "herramienta": name,
                "args": json.dumps(step.get("args", {}), ensure_ascii=False, sort_keys=True),
            }
        )
    return rows


def args_lines(args: dict | None) -> list[str]:
    """One Markdown list item per argument («- `delito`: homicidio_doloso»): a long value wraps, never cut."""
    out = []
    for name, value in (args or {}).items():
        shown = ", ".join(map(str, value)) if isinstance(value, list) else value
        shown = json.dumps(shown, ensure_ascii=False) if isinstance(shown, (dict, bool)) or shown is None else shown
        out.append(f"- {markup.code(name)}: {markup.text(shown)}")
    return out


def files_of(store: Any, turn: Any) -> list[str]:
    """The source files of a turn's evidence rows, looked up once per turn (``st.session_state["plan_files"]``)."""
    d = turn_dict(turn)
    found = st.session_state.setdefault("plan_files", {})
    if d.get("job_id") not in found:
        found[d.get("job_id")] = source_files(store, d.get("envelopes") or []) if store is not None else []
    return found[d.get("job_id")]


def render_plain(words: PlanWords) -> None:
    """The plan in plain words: each section's heading and its sentences, then the lab decision."""
    for field, title in SECTIONS:
        lines = getattr(words, field)
        st.markdown(f"**{title}**  \n" + "  \n".join(markup.text(line) for line in lines))
    st.caption(markup.text(words.access))


def render_plan_details(
    turn: Any, catalog: Any = None, *, files: list[str] | None = None, beside_answer: bool = False, key: str = ""
) -> None:
    """The plan in plain words, then the contracts under «Detalles técnicos».

    ``beside_answer``: the panel sits in an expander beside the answer (Consultar). Streamlit cannot nest
    expanders, so a toggle opens the technical details, drawn only when opened; and the data version and
    query_hash, which the answer already shows, are not said again.
    """
    d = turn_dict(turn)
    render_plain(explain_turn(d, catalog, files, with_version=not beside_answer))
    if beside_answer:
        if st.toggle(TECHNICAL, key=f"{key or d.get('job_id', 'plan')}_technical"):
            _technical(d, catalog)
        return
    with st.expander(TECHNICAL, expanded=False):
        _technical(d, catalog)


def _technical(d: dict, catalog: Any) -> None:
    """QueryPlan, AnalystPlan, PlannerState, tools and arguments, validation, query_hash, timings and LLM."""
    qp, ap, ps = d.get("query_plan") or {}, d.get("analyst_plan") or {}, d.get("planner_state") or {}
    if qp:
        lab = qp.get("lab_policy") or {}
        st.markdown(
            f"**Modo** {markup.code(qp.get('mode'))} · **Dominios** {_items(qp.get('domains_selected'))} · "
            f"**Confianza** {markup.text(CONFIDENCE.get(qp.get('confidence'), qp.get('confidence')))} · "
            f"**Señales** {_items(qp.get('flags'))}"
        )
        st.markdown("**Por qué:**  \n" + markup.text(qp.get("rationale", "")))
        st.caption(f"Política del laboratorio: {markup.text(lab.get('rationale', ''))}")
    if ap:
        st.markdown(
            f"**Analista** · intención {markup.code(ap.get('intent'))} · tipo {markup.code(ap.get('request_type'))} · "
            f"vía {markup.code(ap.get('track'))} · fuentes {_items(ap.get('required_sources'))} · "
            f"salida {markup.code(ap.get('expected_output_schema'))}"
            + (f"  \nRuta: {markup.text(d['route_reason'])}" if d.get("route_reason") else "")
        )
    if ps:
        _planner_state(ps, d.get("planner"))
    rows = pipeline_rows(d.get("plan"), d.get("envelopes") or [], catalog)
    steps = ((d.get("plan") or {}).get("plan")) or []
    if rows:
        st.markdown("**Herramientas y argumentos**")  # a list, not a table: a narrow column wraps it, never cuts it
        for i, (row, step) in enumerate(zip(rows, steps, strict=False)):
            head = f"{i + 1}. {markup.code(row['herramienta'])} (herramienta {row['tool_id']})"
            st.markdown("\n".join([head, *args_lines(step.get("args"))]))
    _validation(d.get("validation"))
    timings = d.get("timings_ms") or {}
    if timings:
        st.markdown("**Tiempos por etapa (ms)**")
        st.table(pd.DataFrame([{"etapa": k, "ms": f"{v:,.1f}"} for k, v in timings.items()]), hide_index=True)
    if d.get("llm"):
        st.markdown(
            "**LLM** · "
            + " · ".join(f"{markup.text(k)}: {markup.code(v)}" for k, v in d["llm"].items() if k != "attempts")
        )
        st.json(d["llm"].get("attempts") or [], expanded=False)


def _planner_state(ps: dict, planner: str | None) -> None:
    acc, stop, safety = ps.get("acceptance_criteria") or {}, ps.get("stop_conditions") or {}, ps.get("safety") or {}
    lines = [
        (
            f"**Planificador** {markup.text(PLANNER_NAMES.get(planner, planner))} · estrategia "
            f"{markup.code(ps.get('strategy'))} ({markup.text(STRATEGIES.get(ps.get('strategy'), ''))})"
        ),
        (
            f"Aceptación: fuentes independientes ≥ {acc.get('min_independent_sources')}, fuente oficial "
            f"{_yes(acc.get('require_authoritative_source'))}, entidades {_items(acc.get('must_cover_entities'))}"
        ),
        (
            f"Parada: rondas ≤ {stop.get('max_rounds')}, documentos ≤ {stop.get('max_total_docs')}, "
            f"sin información nueva ≤ {stop.get('no_new_information_rounds')}"
        ),
        f"Seguridad: {markup.text(safety.get('sensitivity'))}, datos personales {_yes(safety.get('pii_allowed'))}",
        f"Etiquetas: {_items((ps.get('planner_meta') or {}).get('rationale_tags'))}",
    ]
    for q in ps.get("clarifying_questions") or []:
        lines.append(f"Pregunta aclaratoria ({markup.text(q.get('reason'))}): {markup.text(q.get('question'))}")
    for r in ps.get("retrieval_rounds") or []:
        modes = ", ".join(f"{m['type']} k={m['k']}" for m in r.get("retrieval_modes", []))
        lines.append(
            f"Ronda {markup.text(r.get('round_id'))} ({markup.text(r.get('purpose'))}): {markup.text(modes)}; "
            f"hasta {markup.text(r['output']['max_docs'])} documentos"
        )
    st.markdown("  \n".join(lines))


def _validation(validation: dict | None) -> None:
    if not validation:
        st.caption("Sin plan de herramientas: la respuesta no consultó la base de datos.")
        return
    if validation.get("ok"):
        st.success(f"Plan válido · query_hash {markup.code(validation.get('query_hash'))}")
        for warning in validation.get("warnings") or []:
            st.caption(markup.text(warning))
    else:
        render_problems(validation.get("problems") or [])
