"""AppTest of Consultar's lasting conversations (issue 15 §2 and §3): earlier turns draw light, the URL
names the conversation so a reload restores it, the sidebar lists the user's history, and a permalink
re-runs the saved plan (audited) with a note on the data version."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from core.audit.log import AuditLog
from tests.markdown_check import unescape
from tests.pages.conftest import ask, texts

pytestmark = pytest.mark.slow  # AppTest runs of the page, a pipeline turn each

ANA = "ana@example.org"
QUESTIONS = (  # the last one draws a chart
    "¿Cuántos secuestros hubo en León en 2022?",
    "homicidios dolosos en Celaya mes por mes en 2023",
    "¿Cuáles son los 5 municipios con más robos en 2024?",
)


def questions_shown(at: AppTest) -> list[str]:
    return [t.question for t in at.session_state["turns"]]


def test_earlier_turns_draw_light_and_open_on_demand(consultar):
    at = consultar()
    for q in QUESTIONS:
        ask(at, q)
    latest_charts = len(at.get("plotly_chart"))
    assert latest_charts >= 1  # the latest answer keeps its chart (and map)
    assert [e.label for e in at.expander].count("Plan de consulta") == 1
    assert len(at.table) >= 2  # each earlier turn: a small static table…
    assert "entidad_id" not in at.table[0].value.columns  # in Spanish, like the whole table
    opens = [b for b in at.button if b.label == "Ver gráfica y detalles"]
    assert len(opens) == 2  # …and a button that opens the rest
    opens[1].click().run()  # the monthly series: its line chart comes back
    assert len(at.get("plotly_chart")) > latest_charts
    assert [e.label for e in at.expander].count("Plan de consulta") == 2


def test_a_reload_restores_the_conversation_and_follow_ups_continue_it(consultar):
    first = consultar()
    ask(first, QUESTIONS[0])
    conversation_id = first.query_params["c"]
    reloaded = consultar(params={"c": conversation_id})  # a reload: a new session with the same URL
    assert questions_shown(reloaded) == [QUESTIONS[0]]
    assert "secuestro" in texts(reloaded.markdown).lower()
    ask(reloaded, "¿y en Celaya?")
    follow = reloaded.session_state["turns"][-1]
    assert follow.validation and follow.validation["ok"]
    assert follow.plan["plan"][0]["args"]["entidad_id"] == "GTO.MUN.CELAYA"
    assert reloaded.query_params["c"] == conversation_id


def test_the_sidebar_lists_past_conversations_and_opens_one(consultar):
    at = consultar()
    ask(at, QUESTIONS[0])
    first_id = at.query_params["c"]
    at.sidebar.button(key="new_conversation").click().run()
    assert at.session_state["turns"] == [] and at.query_params["c"] != first_id
    ask(at, QUESTIONS[2])
    labels = [unescape(b.label) for b in at.sidebar.button]
    assert QUESTIONS[0] in labels and QUESTIONS[2] in labels
    next(b for b in at.sidebar.button if unescape(b.label) == QUESTIONS[0]).click().run()
    assert questions_shown(at) == [QUESTIONS[0]] and at.query_params["c"] == first_id


def test_someone_elses_conversation_is_not_opened(consultar):
    at = consultar()
    ask(at, QUESTIONS[2])
    other = consultar(email="beto@example.org", params={"c": at.query_params["c"]})
    assert questions_shown(other) == []
    assert other.warning and "otra persona" in other.warning[0].value
    assert other.query_params["c"] != at.query_params["c"]
    assert not [b for b in other.sidebar.button if unescape(b.label) == QUESTIONS[2]]


def test_a_permalink_reruns_the_plan_audited_and_says_the_data_did_not_change(consultar):
    at = consultar()
    ask(at, QUESTIONS[2])
    turn = at.session_state["turns"][-1]
    query_hash = turn.validation["query_hash"]
    assert f"[Enlace permanente](?plan={query_hash})" in "\n".join(m.value for m in at.markdown)
    shared = consultar(email="beto@example.org", params={"plan": query_hash})
    assert "Respuesta guardada" in [h.value for h in shared.subheader]
    assert shared.info and "no han cambiado" in shared.info[0].value
    assert shared.dataframe[0].value.equals(at.dataframe[0].value)  # the same rows as first answered
    records = AuditLog.for_settings(consultar.settings).list(kind="permalink")
    assert [(r.user, r.payload["permalink"]) for r in records] == [("beto@example.org", query_hash)]
    shared.button(key="close_permalink").click().run()
    assert "plan" not in shared.query_params and not shared.subheader


def test_an_unknown_permalink_says_so(consultar):
    shared = consultar(params={"plan": "sha256:" + "e" * 64})
    assert shared.warning and "No encontré" in shared.warning[0].value
