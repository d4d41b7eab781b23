"""Spanish everywhere (issue 15, item 9), as AppTest sees it: every page of the menu, the chat's first screen and
an answer, the question box's refusals and the editor's validation problems have no English UI words.

What AppTest cannot see (Streamlit's own widget texts: the uploader, «Press Enter to apply») is read in the
browser by tests/browser/test_spanish.py.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.markdown_check import unescape
from tests.spanish_scan import app_texts, english_in
from ui.navigation import PAGES

pytestmark = pytest.mark.slow  # AppTest runs of whole pages

EVERY_ROLE = ["analista", "supervisor", "steward"]


@pytest.fixture
def app(data_copy, make_app, monkeypatch, tmp_path):
    """``app(script)``: a page over a copy of the bundled store, signed in with every role, no LLM configured."""
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "CASANDRA_LLM_MODEL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr("core.config.SECRETS_FILE", tmp_path / "no-secrets.toml")

    def open_page(script: str, **state):
        at = make_app(data_copy, roles=EVERY_ROLE, script=script)
        at.default_timeout = 120
        for name, value in state.items():
            at.session_state[name] = value
        return at.run()

    return open_page


@pytest.mark.parametrize("page", [p.path for p in PAGES], ids=[p.url_path for p in PAGES])
def test_every_page_speaks_spanish(app, page):
    at = app(page)
    assert not at.exception, at.exception
    assert not english_in(app_texts(at))


def test_the_chat_first_screen_offers_examples_and_the_coverage(app):
    at = app("pages/consultar.py")
    assert any(c.value.startswith("Datos de ") and "municipios" in c.value for c in at.caption)
    examples = [b for b in at.button if b.key and b.key.startswith("example_")]
    assert len(examples) == 4
    examples[0].click().run()  # an example is a question that answers
    assert not at.exception
    texts = app_texts(at)
    assert any("Los 10 municipios con más" in t for t in texts)
    assert not english_in(texts)
    assert not [b for b in at.button if b.key and b.key.startswith("example_")]  # the first screen is gone


@pytest.mark.parametrize("typed", ["   \n  ", "\t"])
def test_the_question_box_refuses_an_empty_question_and_says_why(app, typed):
    at = app("pages/consultar.py")
    at.chat_input(key="chat").set_value(typed).run()
    assert not at.exception
    assert any("La pregunta está vacía" in w.value for w in at.warning)
    assert not at.chat_message  # nothing was sent


def test_the_question_box_states_its_limit(app):
    box = app("pages/consultar.py").chat_input(key="chat")
    assert box.proto.max_chars == 2000  # the browser refuses more and counts near the end
    assert "hasta 2,000 caracteres" in box.proto.placeholder


@pytest.mark.parametrize(
    "plan",
    [
        '{"plan": []}',
        '{"plan": [{"tool_id": 6, "args": {"delito": [], "top_k": "diez"}}]}',
        "[6]\ntop_k: 0\norden: arriba",
    ],
)
def test_the_editor_states_problems_in_spanish(app, plan):
    at = app("pages/editor.py")
    at.radio(key="editor_mode").set_value("text").run()
    at.text_area(key="editor_text").input(plan).run()
    assert not at.exception
    assert at.error, "the plan should be invalid"
    assert not english_in(app_texts(at))


def test_the_editor_form_describes_each_argument_as_text(app):
    plan = {"plan": [{"tool_id": 6, "args": {"entidad_id": "GTO", "delito": "robo"}}]}
    at = app("pages/editor.py", plan_to_edit=plan)
    assert not at.exception
    widgets = [*at.number_input, *at.selectbox, *at.multiselect, *at.text_input, *at.date_input]
    assert widgets and not [w.label for w in widgets if w.help]  # Streamlit names a help icon «Help for top_k»
    assert "Cuántas filas devolver." in [unescape(c.value) for c in at.caption]  # top_k's description, shown as text


def chart_calls_without_config() -> list[str]:
    """Every ``st.plotly_chart(...)`` / ``x.plotly_chart(...)`` in pages/ and ui/ that passes no ``config=``."""
    root = Path(__file__).resolve().parents[2]
    missing = []
    for path in sorted([*root.glob("pages/*.py"), *root.glob("ui/*.py")]):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            call = isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            if call and node.func.attr == "plotly_chart" and "config" not in {k.arg for k in node.keywords}:
                missing.append(f"{path.relative_to(root)}:{node.lineno}")
    return missing


def test_every_chart_draws_with_plotlys_spanish_words():
    """Plotly's toolbar and dates are English unless a chart gets ``ui.spanish.PLOTLY_CONFIG`` (or one built on it)."""
    assert chart_calls_without_config() == []


LABELLED = {  # widgets whose help= draws an icon Streamlit names «Help for <label>» to a screen reader
    "text_input",
    "text_area",
    "number_input",
    "selectbox",
    "multiselect",
    "radio",
    "checkbox",
    "toggle",
    "slider",
    "select_slider",
    "date_input",
    "time_input",
    "file_uploader",
    "color_picker",
    "pills",
    "segmented_control",
    "metric",
}


def widgets_with_help() -> list[str]:
    """Every labelled widget in pages/ and ui/ given a ``help=`` other than None."""
    root = Path(__file__).resolve().parents[2]
    found = []
    for path in sorted([*root.glob("pages/*.py"), *root.glob("ui/*.py")]):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in LABELLED:
                helps = [k.value for k in node.keywords if k.arg == "help"]
                if helps and not (isinstance(helps[0], ast.Constant) and helps[0].value is None):
                    found.append(f"{path.relative_to(root)}:{node.lineno} {node.func.attr}")
    return found


def test_no_widget_has_a_help_icon_named_in_english():
    """A widget's explanation is a caption (read by everyone, on a phone too), never help=: its icon says «Help for»."""
    assert widgets_with_help() == []
