"""AppTest of «Plan de consulta»: any turn of the session shows its plan in plain words, then its QueryPlan,
AnalystPlan, PlannerState, tools, validation, query_hash and timings, and hands its plan to the editor."""

from __future__ import annotations

import copy
import shutil

import pytest
from streamlit.testing.v1 import AppTest

from core.ask.context import Assistant
from core.ask.pipeline import Conversation
from core.config import load_settings
from tests.markdown_check import unescape

pytestmark = pytest.mark.slow  # AppTest runs of whole pages, a turn of the pipeline each

TOP5 = "¿Cuáles son los 5 municipios con más homicidios dolosos en 2024?"


@pytest.fixture(scope="module")
def turns(bundled_settings, tmp_path_factory) -> list:
    """Two turns of one conversation (a ranking and a clarifying question), asked over a copy."""
    target = tmp_path_factory.mktemp("plan") / "data"
    shutil.copytree(bundled_settings.data_dir, target)
    engine, conversation = Assistant(settings=load_settings(target)), Conversation()
    return [
        engine.ask(TOP5, conversation, planner="rules"),
        engine.ask("homicidios dolosos en mi ciudad en 2024", conversation, planner="rules"),
    ]


@pytest.fixture
def page(data_copy, make_app):
    def open_with(session_turns: list) -> AppTest:
        at = make_app(data_copy, roles=["analista"], script="pages/plan.py")
        at.session_state["turns"] = session_turns
        return at.run()

    return open_with


def all_text(at: AppTest) -> str:
    return unescape(
        "\n".join([m.value for m in at.markdown] + [c.value for c in at.caption] + [s.value for s in at.success])
    )


def test_the_latest_turn_is_shown_by_default(page, turns):
    at = page(turns)
    assert not at.exception
    assert at.selectbox(key="plan_turn").value == 1
    text = all_text(at)
    assert "¿A qué municipio te refieres" in text and "estrategia `clarify_then_retrieve`" in text
    assert "Pregunta aclaratoria (generic_place)" in text
    assert "Sin plan de herramientas" in text


def test_a_chosen_turn_shows_every_contract(page, turns):
    at = page(turns)
    at.selectbox(key="plan_turn").set_value(0).run()
    assert not at.exception
    text = all_text(at)
    for expected in (
        "**Modo** `fast`",
        "**Dominios** `incidencia`",
        "**Confianza** alta",  # QueryPlan
        "Tipo de pregunta: ranking de municipios.",
        "Laboratorio (herramientas experimentales): no usado",  # an access decision, not an error
        "intención `query_ranking`",
        "tipo `STATUS_LIST`",
        "vía `FAST`",  # AnalystPlan
        "estrategia `retrieve_then_answer`",
        "Aceptación: fuentes independientes ≥ 1",  # PlannerState
        "Parada: rondas ≤ 1",
        "Seguridad: public",
        "`kind:ranking`",
        f"Plan válido · query_hash `{turns[0].validation['query_hash']}`",
    ):
        assert expected in text, expected
    assert "1. `rank_por_delito@1.1.0` (herramienta 6)\n- `entidad_id`: GTO" in text  # arguments as a list
    assert "**Qué calculé**  \nConté las carpetas de homicidios dolosos en los municipios de Guanajuato" in text
    stages = list(at.table[0].value["etapa"])
    assert stages[:3] == ["intake", "route", "govern"] and "total" in stages
    assert at.get("arrow_vega_lite_chart") or at.get("vega_lite_chart")  # timings bar chart
    assert len(at.json) == 7  # raw contracts in the JSON tab: intake … validation (no LLM)


def test_edit_this_plan_hands_it_to_the_editor(page, turns):
    at = page(turns)
    at.selectbox(key="plan_turn").set_value(0).run()
    at.button(key="plan_edit").click().run()
    assert not at.exception
    assert at.session_state["plan_to_edit"] == turns[0].plan


def test_without_turns_the_page_says_where_to_start(page):
    at = page([])
    assert not at.exception and "Aún no hay consultas" in at.info[0].value


def test_llm_details_are_shown_when_the_llm_planned(page, turns):
    llm_turn = copy.copy(turns[0])
    llm_turn.planner_used = "llm"
    llm_turn.llm = {
        "model": "modelo-prueba",
        "mode_used": "json_schema",
        "latency_ms": 812.5,
        "fallback_reason": None,
        "attempts": [{"attempt": 1, "ok": True}],
    }
    at = page([llm_turn])
    text = all_text(at)
    assert "**Planificador** LLM" in text and "model: `modelo-prueba`" in text and "latency_ms: `812.5`" in text
    assert any(j.value and "attempt" in str(j.value) for j in at.json)
