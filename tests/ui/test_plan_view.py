"""The «Plan de consulta» panel (ui/plan_view.py): the tool rows of a turn and hostile strings drawn as text."""

from __future__ import annotations

import json

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
    texts = [m.value for m in at.markdown]
    assert f"rationale: {markup.code(RATIONALE)}" in texts[-1]
    assert markup.text(f"Tipo de pregunta: conteo.\nDelito: {SUBTIPO}.") in texts[1]
    assert at.table[0].value["args"][0] == markup.text(json.dumps({"delito": f"robo ![p]({BEACON}/p.png)"}))
