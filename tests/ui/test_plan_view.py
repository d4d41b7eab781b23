"""The «Plan de consulta» panel (ui/plan_view.py): the tool rows of a turn and hostile strings drawn as text."""

from __future__ import annotations

import json

import pytest
from streamlit.testing.v1 import AppTest

from core.ask.pipeline import Conversation
from tests.markdown_check import assert_inert
from ui import markup, plan_view

TOP10 = "¿Cuáles son los 10 municipios con más homicidios dolosos en 2024?"
BEACON = "http://127.0.0.1:9"
SUBTIPO = f"Robo ![p]({BEACON}/p.png) <a href='{BEACON}/plot'>ver</a>"
RATIONALE = f"Plan ` ![r]({BEACON}/r.png) `"
QUESTION = f"Resumen ![a]({BEACON}/x.png) [Verificar cadena]({BEACON}/phish)"


def test_pipeline_rows_of_a_turn(engine, catalog):
    turn = engine.ask(TOP10, Conversation())
    rows = plan_view.pipeline_rows(turn.plan, turn.envelopes, catalog)
    assert rows[0]["tool_id"] == 6 and rows[0]["herramienta"] == "rank_por_delito@1.1.0"
    assert json.loads(rows[0]["args"])["top_k"] == 10


def draw_plan_details(turn) -> None:
    from ui import plan_view

    plan_view.render_plan_details(turn)


def test_the_plan_panel_draws_an_llm_rationale_and_plan_arguments_as_text():
    turn = {
        "question": QUESTION,
        "query_plan": {
            "mode": "fast",
            "domains_selected": ["incidencia`"],
            "confidence": "high",
            "flags": [RATIONALE],
            "rationale": f"Tipo de pregunta: conteo.\nDelito: {SUBTIPO}.",
            "lab_policy": {"status": "denied", "rationale": QUESTION},
        },
        "analyst_plan": {
            "intent": RATIONALE,
            "request_type": "x",
            "track": "y",
            "required_sources": [],
            "expected_output_schema": "z",
        },
        "route_reason": QUESTION,
        "plan": {"plan": [{"tool_id": 6, "args": {"delito": f"robo ![p]({BEACON}/p.png)"}}]},
        "envelopes": [{"tool": "rank_por_delito"}],
        "validation": {"ok": True, "query_hash": RATIONALE, "warnings": [QUESTION]},
        "llm": {"model": "stub", "rationale": RATIONALE, "attempts": []},
        "planner": "llm",
    }
    at = AppTest.from_function(draw_plan_details, args=(turn,)).run()
    assert not at.exception
    assert_inert(at)
    texts = [m.value for m in at.expander[0].markdown]
    assert f"rationale: {markup.code(RATIONALE)}" in texts[-1]
    assert markup.text(f"Tipo de pregunta: conteo.\nDelito: {SUBTIPO}.") in texts[1]
    assert f"- {markup.code('delito')}: {markup.text(f'robo ![p]({BEACON}/p.png)')}" in "\n".join(texts)


# --- the plan in plain words first; the contracts collapsed (issue 15) -----------------------------------------

ENGINEER = ("STATUS_LIST", "status_list_v1_json", "Aceptación", "Parada", "Etiquetas", "query_hash", "denegado")
HEADINGS = ["Qué entendí", "Qué calculé", "Con qué datos", "Periodo efectivo", "Advertencias"]


def draw_real_plan(turn_dict: dict, catalog) -> None:
    from ui import plan_view

    plan_view.render_plan_details(turn_dict, catalog)


def _outside_technical(at) -> list[str]:
    """Texts drawn outside the «Detalles técnicos» expander."""
    inside = {e.value for kind in ("markdown", "caption", "success") for e in getattr(at.expander[0], kind)}
    everything = [e.value for kind in ("markdown", "caption", "success", "info") for e in getattr(at, kind)]
    return [t for t in everything if t not in inside]


@pytest.fixture(scope="module")
def ranking_turn(engine) -> dict:
    """A real turn: a ranking of municipalities (the analyst plan's request type is STATUS_LIST)."""
    return engine.ask(TOP10, Conversation()).as_dict()


def test_the_plan_speaks_plain_words_before_the_contracts(ranking_turn, catalog):
    assert ranking_turn["analyst_plan"]["request_type"] == "STATUS_LIST"
    at = AppTest.from_function(draw_real_plan, args=(ranking_turn, catalog)).run()
    assert not at.exception
    plain = _outside_technical(at)
    said = "\n".join(plain)
    assert [h for h in HEADINGS if f"**{h}**" in said] == HEADINGS
    assert [line.split("**")[1] for line in plain if line.startswith("**")][:5] == HEADINGS  # in this order
    assert "Conté las carpetas de homicidios dolosos en los municipios de Guanajuato" in said
    assert not [w for w in ENGINEER if w in said], "engineer words outside «Detalles técnicos»"
    assert at.expander[0].label == "Detalles técnicos" and not at.expander[0].proto.expanded
    inside = "\n".join(m.value for m in at.expander[0].markdown)
    assert "STATUS\\_LIST" in inside or "STATUS_LIST" in inside  # the contracts are still there, collapsed


def test_the_lab_reads_as_an_access_decision(ranking_turn, catalog):
    at = AppTest.from_function(draw_real_plan, args=(ranking_turn, catalog)).run()
    captions = [c.value for c in at.caption]
    assert any(c.startswith(markup.text("Laboratorio (herramientas experimentales): no usado")) for c in captions)
    assert not any("denegado" in c for c in captions)


def test_tool_arguments_are_a_list_that_wraps(ranking_turn, catalog):
    at = AppTest.from_function(draw_real_plan, args=(ranking_turn, catalog)).run()
    assert not [t for t in at.table if "args" in t.value.columns], "arguments in a table are cut off in a column"
    tools = next(m.value for m in at.expander[0].markdown if "rank_por_delito@" in m.value)
    for name in ranking_turn["plan"]["plan"][0]["args"]:
        assert f"- {markup.code(name)}: " in tools


def draw_nested(turn_dict: dict, catalog) -> None:
    import streamlit as st

    from ui import plan_view

    with st.expander("Plan de consulta", expanded=True):
        plan_view.render_plan_details(turn_dict, catalog, beside_answer=True)


def test_inside_an_expander_the_details_open_with_a_toggle(ranking_turn, catalog):
    at = AppTest.from_function(draw_nested, args=(ranking_turn, catalog)).run()
    assert not at.exception
    assert not [m for m in at.markdown if "Herramientas y argumentos" in m.value]  # drawn only when opened
    at.toggle[0].set_value(True).run()
    assert not at.exception
    assert [m for m in at.markdown if "Herramientas y argumentos" in m.value]


def draw_answer_and_plan(turn, catalog) -> None:
    import streamlit as st

    from ui import plan_view, render

    left, right = st.columns([3, 2])  # as Consultar draws a turn
    with left:
        render.render_answer(turn, "t")
    with right, st.expander("Plan de consulta", expanded=True):
        plan_view.render_plan_details(turn, catalog, beside_answer=True)


def test_provenance_and_the_version_appear_once_per_answer(engine, catalog):
    turn = engine.ask(TOP10, Conversation())
    at = AppTest.from_function(draw_answer_and_plan, args=(turn, catalog)).run()
    assert not at.exception
    drawn = "\n".join(e.value for kind in ("markdown", "caption", "success", "info") for e in getattr(at, kind))
    version, query_hash = turn.answer.provenance["dataset_version"], turn.answer.provenance["query_hash"]
    assert drawn.count(markup.text(version)) + drawn.count(markup.code(version)) == 1
    assert drawn.count(query_hash) == 1
    assert drawn.count("Datos hasta noviembre de 2025") == 1
