"""AppTest: what a person, an upload or an LLM wrote is drawn as text on every page, and every CSV a page
offers has its formula cells neutralized (issue 12, points 2 and 3; the browser run with a beacon is
tests/browser/test_injection.py)."""

from __future__ import annotations

import csv
import io
import json

import pytest

from core import api
from core.ask.context import Assistant
from core.ask.pipeline import Conversation
from core.audit.log import AuditLog
from core.etl import SourceSpec
from tests.conftest import FIXTURES
from tests.markdown_check import active_markup, assert_inert, page_markdown
from ui import markup

pytestmark = pytest.mark.slow  # AppTest runs of whole pages, a turn of the pipeline each

HOSTILE_FILE = FIXTURES / "etl" / "hostile_labels.csv"
BEACON = "http://127.0.0.1:9"
QUESTION = f"Resumen ![a]({BEACON}/x.png) [Verificar cadena]({BEACON}/phish)"
SUBTIPO = f"Robo ![p]({BEACON}/p.png) <a href='{BEACON}/plot'>ver</a>"
FORMULAS = {f'=HYPERLINK("{BEACON}/q","x")', "@SUM(A1:A9)", "+cmd|' /C calc'!A0"}
UPLOAD_NAME = "robo ![f](f.png) <img src=f.png>.csv"  # a file name cannot hold a URL's slashes, an image still loads


@pytest.fixture
def downloads(monkeypatch) -> list[bytes]:
    """The data of every download button a page draws, in st. or in a column (the button still draws)."""
    import streamlit
    from streamlit.delta_generator import DeltaGenerator

    seen, original = [], DeltaGenerator.download_button

    def capture(self, label, data, *args, **kwargs):
        seen.append(data() if callable(data) else data)  # a file built on click (Auditoría's exports) is built here
        return original(self, label, data, *args, **kwargs)

    monkeypatch.setattr(DeltaGenerator, "download_button", capture)
    monkeypatch.setattr(streamlit, "download_button", lambda *a, **k: capture(streamlit._main, *a, **k))
    return seen


@pytest.fixture
def hostile(data_copy):
    """The store copy with the hostile subtipo published (and its three formula counts in quarantine)."""
    api.load_files([SourceSpec(HOSTILE_FILE)], settings=data_copy, user="luis@example.org", role="steward")
    return data_copy


def read_csv(data: bytes) -> list[list[str]]:
    return list(csv.reader(io.StringIO(data.decode("utf-8-sig"))))


def test_the_fixture_would_inject_without_escaping():
    assert active_markup(QUESTION) and active_markup(SUBTIPO)  # links and images when drawn as they are


def test_consultar_draws_a_hostile_question_as_text(hostile, make_app, monkeypatch, tmp_path):
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "CASANDRA_LLM_MODEL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr("core.config.SECRETS_FILE", tmp_path / "no-secrets.toml")
    at = make_app(hostile, roles=["analista"], script="pages/consultar.py")
    at.default_timeout = 120
    at.run().chat_input(key="chat").set_value(QUESTION).run()
    assert not at.exception
    assert at.chat_message[0].markdown[0].value == markup.text(QUESTION)
    assert_inert(at)


def test_plan_de_consulta_draws_a_hostile_question_and_answer_as_text(hostile, make_app):
    turn = Assistant(settings=hostile).ask(QUESTION, Conversation(), planner="rules")
    at = make_app(hostile, roles=["analista"], script="pages/plan.py")
    at.session_state["turns"] = [turn]
    at.run()
    assert not at.exception
    assert f"**Pregunta:** {markup.text(QUESTION)}" in [m.value for m in at.markdown]
    assert_inert(at)


def test_auditoria_quotes_a_hostile_question_as_text_and_exports_formulas_neutralized(hostile, make_app, downloads):
    Assistant(settings=hostile, user="ana@example.org", role="analista").ask(QUESTION, Conversation())
    with AuditLog.for_settings(hostile) as log:
        log.append(
            kind="ask", user="ana@example.org", role="analista", status="ok", question="=1+1", payload={"x": "@y"}
        )
        log.append(kind="ask", user="ana@example.org", role="analista", status="ok", question=QUESTION, payload={})
    at = make_app(hostile, roles=["supervisor"], email="sofia@example.org").run()
    at = at.switch_page("pages/auditoria.py").run()
    assert not at.exception
    assert f"> {markup.text(QUESTION)}" in [m.value for m in at.markdown]  # the newest record's detail
    assert_inert(at)
    exported = read_csv(downloads[0])
    questions = [row[exported[0].index("question")] for row in exported[1:]]
    assert "'=1+1" in questions and QUESTION in questions
    assert not [cell for row in exported for cell in row if cell[:1] in ("=", "+", "@", "\t", "\r")]


def test_carga_previews_a_hostile_upload_as_text_and_neutralizes_its_quarantine(data_copy, make_app, downloads):
    at = make_app(data_copy, roles=["steward"], email="luis@example.org").run()
    at = at.switch_page("pages/carga.py").run()
    at.file_uploader(key="carga_archivos").set_value([(UPLOAD_NAME, HOSTILE_FILE.read_bytes(), "text/csv")]).run()
    next(b for b in at.button if b.label == "Vista previa").click().run()
    assert not at.exception
    assert f"Opciones de {markup.text(UPLOAD_NAME)}" in [e.label for e in at.expander]
    warnings = [w.value for w in at.warning if "Modo local" not in w.value]
    assert warnings and all(w.startswith(markup.text(UPLOAD_NAME)) for w in warnings)
    assert_inert(at)
    next(b for b in at.button if b.label == "Publicar").click().run()
    assert not at.exception
    assert_inert(at)
    quarantine = read_csv(downloads[-1])
    assert quarantine[0] == ["load_id", "archivo", "linea", "motivo", "valores", "cargado_en"]
    assert {row[4] for row in quarantine[1:]} == {f"'{value}" for value in FORMULAS}
    assert {row[1] for row in quarantine[1:]} == {UPLOAD_NAME}


def test_datos_draws_a_hostile_crime_label_as_text_in_the_coverage_chart(hostile, make_app):
    at = make_app(hostile, roles=["analista"]).run()
    at = at.switch_page("pages/datos.py").run()
    assert not at.exception
    assert_inert(at)
    figure = json.loads(at.get("plotly_chart")[0].proto.spec)
    labels = {y for trace in figure["data"] for y in trace.get("y", [])}
    assert markup.plot_text(SUBTIPO) in labels and SUBTIPO not in labels
    assert not [m for m in page_markdown(at) if "<a href" in m]
