"""AppTest of Consultar: the chat answers with text, chart, table, evidence and provenance, the
«Plan de consulta» beside it; follow-ups, clarifying buttons, refusals and the selectors work."""

from __future__ import annotations

import json

import pytest
from streamlit.testing.v1 import AppTest

from core.audit.log import AuditLog
from tests.markdown_check import unescape
from tests.pages.conftest import ask, texts

pytestmark = pytest.mark.slow  # AppTest runs of whole pages, a turn of the pipeline each

TOP5 = "¿Cuáles son los 5 municipios con más homicidios dolosos en 2024?"


@pytest.fixture
def app(consultar) -> AppTest:
    """The Consultar page over a copy of the bundled store, signed in as an analyst, with no LLM configured."""
    return consultar()


def test_a_question_renders_answer_chart_table_and_plan_panel(app):
    ask(app, TOP5)
    assert "León (596)" in texts(app.markdown)
    assert len(app.dataframe) == 1 and list(app.dataframe[0].value["Lugar"])[:2] == ["León", "Celaya"]
    assert app.download_button[0].proto.label == "Descargar CSV"
    charts = [json.loads(c.proto.spec) for c in app.get("plotly_chart")]
    shapes = [t for t in charts[0]["data"] if t.get("fill") == "toself"]  # the map tab first: every municipality
    assert len(shapes) == 46 and all(t["meta"]["valor"] is not None for t in shapes)
    assert len(charts) == 1  # the bar chart's tab is built when opened
    assert [e.label for e in app.expander] == ["Evidencia (126 filas de datos)", "Plan de consulta"]
    panel = app.expander[1]
    panel_text = unescape("\n".join(m.value for m in panel.markdown))
    assert "**Qué calculé**  \nConté las carpetas de homicidios dolosos en los municipios de Guanajuato" in panel_text
    panel.toggle[0].set_value(True).run()  # «Detalles técnicos»: the contracts, drawn when opened
    panel = app.expander[1]
    panel_text = unescape("\n".join(m.value for m in panel.markdown))
    assert (
        "Tipo de pregunta: ranking de municipios." in panel_text and "estrategia `retrieve_then_answer`" in panel_text
    )
    assert "`rank_por_delito@1.1.0`" in panel_text
    assert panel.success[0].value.startswith("Plan válido · query_hash `sha256:")
    provenance = [unescape(c.value) for c in app.caption if "query_hash" in c.value and "Plan válido" not in c.value]
    assert provenance and "query_hash `sha256:" in provenance[0]  # «Datos hasta … (versión …)» is in the text
    assert app.status[0].label.startswith("Listo en")  # the stages ran inside st.status
    assert "Planeando la consulta" in app.status[0].markdown[0].value
    app.session_state[f"{app.session_state['turns'][-1].job_id}_tabs"] = "Gráfica"  # open the chart's tab
    app.run()
    assert [json.loads(c.proto.spec)["data"][0]["type"] for c in app.get("plotly_chart")] == ["bar"]


def test_a_follow_up_answers_in_the_same_conversation(app):
    ask(app, TOP5)
    ask(app, "¿y en 2023?")
    assert "León (777)" in texts(app.markdown)
    turns = app.session_state["conversation"].turns
    assert len(turns) == 2 and turns[1].intake.is_follow_up
    assert app.session_state["turns"] is turns


def test_clarifying_options_are_buttons_that_answer(app):
    ask(app, "homicidios dolosos en mi ciudad en 2024")
    assert "¿A qué municipio te refieres" in texts(app.markdown) and not app.dataframe
    assert {"León", "Celaya", "Irapuato"} <= {b.label for b in app.button}
    next(b for b in app.button if b.label == "Celaya").click().run()
    assert not app.exception
    turns = app.session_state["turns"]
    assert [t.question for t in turns] == [
        "homicidios dolosos en mi ciudad en 2024",
        "homicidios dolosos en mi ciudad en 2024 (Celaya)",
    ]
    assert "Celaya registró 443 homicidios dolosos" in texts(app.markdown)


def test_a_refusal_renders_without_a_table(app):
    ask(app, "borra la base de datos")
    assert "No puedo modificar ni borrar datos" in texts(app.markdown)
    assert not app.dataframe and not app.get("plotly_chart") and not app.download_button
    assert "no consulté los datos" in "\n".join(m.value for m in app.expander[0].markdown)  # plain words first
    app.toggle[0].set_value(True).run()  # «Detalles técnicos»
    assert "estrategia `defer_or_refuse`" in "\n".join(m.value for m in app.expander[0].markdown)


def test_evidence_rows_on_demand(app):
    ask(app, TOP5)
    next(b for b in app.button if b.label == "Ver filas de evidencia").click().run()
    assert not app.exception
    rows = app.dataframe[1].value
    assert len(rows) == 126 and {"Fila (row_id)", "Archivo de origen", "Fila del archivo"} <= set(rows.columns)


def test_selectors_domain_hint_and_planner(app):
    assert app.selectbox(key="domain_hint").options[0] == "automático"
    assert app.radio(key="planner").options == ["Reglas (sin red)"]  # no LLM configured
    app.selectbox(key="domain_hint").set_value("tendencias").run()
    ask(app, TOP5)
    turn = app.session_state["turns"][-1]
    assert turn.query_plan.domain_hint == "tendencias" and turn.planner_used == "rules"


def test_each_turn_is_audited_as_the_signed_in_user(app, data_copy):
    ask(app, TOP5)
    turn = app.session_state["turns"][-1]
    record = next(r for r in AuditLog.for_settings(data_copy).list(kind="ask", limit=50) if r.job_id == turn.job_id)
    assert (record.user, record.role, record.query_hash) == (
        "ana@example.org",
        "analista",
        turn.validation["query_hash"],
    )


def test_a_new_conversation_starts_empty(app):
    ask(app, TOP5)
    app.button(key="new_conversation").click().run()
    assert app.session_state["turns"] == [] and not app.dataframe


def test_an_engine_failure_is_reported_and_the_chat_goes_on(app, monkeypatch):
    def broken(turn, ctx, conversation):
        raise RuntimeError("fallo simulado")

    from core.ask import pipeline

    stages = tuple((name, broken if name == "compose" else fn) for name, fn in pipeline.STAGES)
    monkeypatch.setattr(pipeline, "STAGES", stages)
    ask(app, TOP5)
    assert app.status[0].label == "No pude responder"
    assert "fallo simulado" in app.error[0].value and app.session_state["turns"] == []


def test_an_empty_store_says_so(empty_settings, make_app):
    at = make_app(empty_settings, roles=["analista"], script="pages/consultar.py").run()
    assert not at.exception and "No hay datos publicados" in at.warning[0].value


def test_a_question_runs_the_page_once_and_draws_its_answer_whole(app, monkeypatch):
    """The run that asks draws the answer: no second run of the whole page (issue 15 §2, a rerun redrew every turn)."""
    from ui import history

    runs, sync = [], history.sync
    monkeypatch.setattr(history, "sync", lambda *args: (runs.append(args), sync(*args))[1])
    ask(app, "homicidios dolosos en Celaya mes por mes en 2023")
    ask(app, TOP5)
    assert len(runs) == 2  # one run per question
    assert app.get("plotly_chart") and [e.label for e in app.expander].count("Plan de consulta") == 1
    assert [b.label for b in app.button].count("Ver gráfica y detalles") == 1  # the earlier turn drew light
    assert app.session_state["conversation_id"] == app.query_params["c"]  # the URL still names the conversation
