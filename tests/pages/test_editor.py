"""AppTest of «Editor de plan»: load a plan, edit it as a form or as text, see every validation
problem as you type, diff against the original, run it and find the run audited with both hashes."""

from __future__ import annotations

import json

import pytest
from streamlit.testing.v1 import AppTest

from core.ask.context import Assistant
from core.ask.pipeline import Conversation
from core.audit.log import AuditLog
from core.dataset.store import get_store
from core.engine.catalog import build_catalog
from core.engine.validate import validate_plan
from tests.conftest import FIXTURES
from tests.core.engine.hostile import OBJECT_CASES, TEXT_CASES
from tests.markdown_check import unescape

pytestmark = pytest.mark.slow  # AppTest runs of whole pages, a turn of the pipeline each

VALID = "[6]\nentidad_id: GTO\ndelito: homicidio_doloso\ntop_k: 5\nfrom: 2024-01-01\nto: 2024-12-31"
INVALID = "[6]\nentidad_id: GTO\ndelito: homicidio_doloso\ntop_k: 0\nfrom: 2024-12-31\nto: 2024-01-01"


@pytest.fixture
def editor(data_copy, make_app):
    def open_with(**state) -> AppTest:
        at = make_app(data_copy, roles=["analista"], script="pages/editor.py")
        for key, value in state.items():
            at.session_state[key] = value
        at.run()
        assert not at.exception, at.exception
        return at

    return open_with


def query_hash(settings, raw) -> str:
    store = get_store(settings)
    return validate_plan(raw, build_catalog(store), store.metadata()).query_hash


def field(at: AppTest, name: str):
    """The form widget of the first step's argument ``name``."""
    return next(
        w
        for w in at.main
        if getattr(w, "key", None)
        and str(w.key).endswith(f"_{name}")
        and str(w.key).startswith("ed_")
        and w.label.split(" ")[0] == name
    )


def problems(at: AppTest) -> list[str]:
    return [unescape(e.value) for e in at.error]


def test_loads_a_fixed_plan_text_into_the_form(editor, data_copy):
    at = editor(plan_to_edit=VALID)
    assert at.radio(key="editor_mode").value == "form"
    assert at.selectbox[0].label == "Paso 1" and at.selectbox[0].value == 6
    assert field(at, "top_k").value == 5 and str(field(at, "from").value) == "2024-01-01"
    assert field(at, "entidad_id").value == "GTO" and field(at, "delito").value == ["homicidio_doloso"]
    assert at.success[0].value == f"Plan válido · query_hash `{query_hash(data_copy, VALID)}`"
    assert "Origen: plan elegido" in at.caption[0].value
    assert at.code[0].value == "Sin cambios."


def test_every_problem_of_an_invalid_plan_is_listed_with_its_code(editor):
    at = editor(plan_to_edit=INVALID)
    assert at.radio(key="editor_mode").value == "text"  # top_k 0 does not fit the form's bounds
    assert "top_k fuera de rango" in unescape(at.info[0].value)
    found = problems(at)  # the schema problem stops validation before the reversed window is looked at
    assert len(found) == 1
    assert found[0].startswith("**INVALID_PAYLOAD** — `plan[0].args.top_k`")
    assert "**1 problema de validación**" in "\n".join(m.value for m in at.markdown)
    assert at.button(key="ed_run").disabled
    at.text_area(key="editor_text").input(INVALID.replace("top_k: 0", "top_k: 5")).run()
    found = problems(at)
    assert len(found) == 1 and found[0].startswith("**INVALID_DATE_RANGE** — `plan[0].args`")
    assert "posterior a to" in found[0]


def test_validation_as_you_type_in_the_text_form(editor):
    at = editor(plan_to_edit=VALID)
    at.radio(key="editor_mode").set_value("text").run()
    assert "top_k: 5" in at.text_area(key="editor_text").value
    at.text_area(key="editor_text").input(INVALID).run()
    assert [p.split("**")[1] for p in problems(at)] == ["INVALID_PAYLOAD"]  # the schema problem stops validation
    at.text_area(key="editor_text").input(VALID.replace("top_k: 5", "top_k: 7")).run()
    assert not problems(at) and at.success[0].value.startswith("Plan válido")
    at.radio(key="editor_mode").set_value("form").run()  # back to the form with the typed value
    assert field(at, "top_k").value == 7


def test_edit_run_and_audit_with_both_hashes(editor, data_copy):
    at = editor(plan_to_edit=VALID)
    field(at, "top_k").set_value(10).run()
    edited = VALID.replace("top_k: 5", "top_k: 10")
    assert at.success[0].value == f"Plan válido · query_hash `{query_hash(data_copy, edited)}`"
    diff = at.code[0].value
    assert '-        "top_k": 5' in diff and '+        "top_k": 10' in diff
    at.button(key="ed_run").click().run()
    assert not at.exception
    table = at.dataframe[0].value
    assert len(table) == 10 and table.iloc[0]["Lugar"] == "León" and table.iloc[0]["Delitos registrados"] == 596
    assert "rank_por_delito@1.1.0" in unescape("\n".join(m.value for m in at.markdown))
    record = AuditLog.for_settings(data_copy).list(kind="plan_edit", limit=1)[0]
    assert (record.user, record.role, record.status) == ("ana@example.org", "analista", "ok")
    assert record.payload["original_query_hash"] == query_hash(data_copy, VALID)
    assert record.payload["edited_query_hash"] == record.query_hash == query_hash(data_copy, edited)
    assert record.payload["original_plan"]["plan"][0]["args"]["top_k"] == 5  # what was edited
    assert record.payload["plan"]["plan"][0]["args"]["top_k"] == 10


def test_steps_can_be_added_reordered_and_removed(editor):
    at = editor(plan_to_edit=VALID)
    at.selectbox(key="ed_new_tool").set_value(9).run()
    at.button(key="ed_add").click().run()
    assert [s.value for s in at.selectbox if s.label.startswith("Paso")] == [6, 9]
    assert at.success[0].value.startswith("Plan válido")
    up = next(b for b in at.button if b.key.endswith("_up") and not b.disabled)
    up.click().run()  # listar_evidencia first: the validator objects
    assert [s.value for s in at.selectbox if s.label.startswith("Paso")] == [9, 6]
    assert any("listar_evidencia necesita antes una herramienta de análisis" in p for p in problems(at))
    next(b for b in at.button if b.key.endswith("_del")).click().run()
    assert [s.value for s in at.selectbox if s.label.startswith("Paso")] == [6]
    assert at.success[0].value.startswith("Plan válido")


def test_starts_from_the_last_answer_or_from_scratch(editor, data_copy):
    turn = Assistant(settings=data_copy).ask(
        "¿Cuáles son los 5 municipios con más homicidios dolosos en 2024?", Conversation(), planner="rules"
    )
    at = editor(turns=[turn])
    assert "Origen: última respuesta" in at.caption[0].value
    assert at.success[0].value == f"Plan válido · query_hash `{turn.validation['query_hash']}`"
    at.button(key="ed_scratch").click().run()
    assert not [s for s in at.selectbox if s.label.startswith("Paso")]
    assert problems(at)  # an empty plan is not valid
    at.button(key="ed_load_last").click().run()
    assert field(at, "top_k").value == 5


def test_edit_this_plan_in_consultar_opens_the_editor_with_it(data_copy, make_app):
    at = make_app(data_copy, roles=["analista"]).run()  # app.py: the analyst lands on Consultar
    at.chat_input(key="chat").set_value("¿Cuáles son los 5 municipios con más homicidios dolosos en 2024?").run()
    turn = at.session_state["turns"][-1]
    at.button(key=f"{turn.job_id}_edit").click().run()
    assert not at.exception, at.exception
    assert at.title[0].value == "Editor de plan" and "plan_to_edit" not in at.session_state
    assert "Origen: plan elegido" in at.caption[0].value
    assert at.success[0].value == f"Plan válido · query_hash `{turn.validation['query_hash']}`"
    assert field(at, "top_k").value == 5


def test_a_series_with_anomalies_draws_a_line_with_anomaly_markers(editor):
    plan = (
        "[12,10]\nentidad_id: GTO.MUN.CELAYA\ndelito: homicidio_doloso\nnivel: actual\nfrom: 2020-01-01\nto: 2024-12-31"
    )
    at = editor(plan_to_edit=plan)
    at.button(key="ed_run").click().run()
    assert not at.exception
    charts = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    line = charts[0]["data"]
    assert line[0]["type"] == "scatter" and line[0]["mode"] == "lines"
    markers = next(t for t in line if t.get("name") == "Mes atípico")
    assert markers["mode"] == "markers" and len(markers["x"]) == 5
    assert len(at.dataframe) == 2  # the series and the anomalies, each with its table


def test_a_tool_added_by_its_folder_is_edited_validated_and_run(editor, monkeypatch):
    monkeypatch.setenv(
        "CASANDRA_TOOL_DIRS", str(FIXTURES / "toy_tool")
    )  # the toy tool: its spec and module, nothing else
    at = editor(
        plan_to_edit="[99]\nentidad_id: GTO.MUN.LEON\ndelito: homicidio_doloso\nfrom: 2024-01-01\nto: 2024-12-31"
    )
    assert at.selectbox[0].value == 99 and "99 · total_juguete@1.0.0" in at.selectbox(key="ed_new_tool").options
    assert field(at, "max_meses").value == 120 and field(at, "delito").value == ["homicidio_doloso"]
    assert at.success[0].value.startswith("Plan válido")
    field(at, "max_meses").set_value(6).run()
    assert any("total_juguete: la ventana pasa de 6 meses" in p for p in problems(at))
    field(at, "max_meses").set_value(12).run()
    at.button(key="ed_run").click().run()
    assert not at.exception
    assert at.dataframe[0].value.iloc[0]["Delitos registrados"] == 596
    assert "**Total de prueba**" in [m.value for m in at.markdown]  # the chart's title, as text above it


HOSTILE_TEXT = [
    "json_delito_objeto",
    "json_window_texto",
    "json_nan",
    "json_profundo",
    "json_4300_cifras",
    "texto_profundo",
    "texto_10_mb",
]


def test_hostile_text_gets_spanish_problems_never_a_traceback(editor):
    at = editor(plan_to_edit=VALID)
    at.radio(key="editor_mode").set_value("text").run()
    for name in HOSTILE_TEXT:
        at.text_area(key="editor_text").input(TEXT_CASES[name]).run()
        assert not at.exception, (name, at.exception)
        found = problems(at)
        assert found and found[0].startswith(("**INVALID_PAYLOAD**", "**RESOURCE_LIMIT**")), (name, found)
        assert not any(leak in p for p in found for leak in ("Traceback", "Input should", "Expecting ")), found
        assert at.button(key="ed_run").disabled
        at.radio(key="editor_mode").set_value("form").run()  # the form refuses it with a notice, still no traceback
        assert not at.exception and at.radio(key="editor_mode").value == "text", name
        assert at.info and at.info[0].value.startswith(("El texto", "El formulario")), name


@pytest.mark.parametrize("name", ["z_threshold_nan", "anidado_profundo", "entidad_10_mb", "tool_id_4300_cifras"])
def test_a_hostile_plan_handed_to_the_editor_opens_as_text_with_its_problems(editor, name):
    at = editor(plan_to_edit=OBJECT_CASES[name]())
    assert at.radio(key="editor_mode").value == "text"
    found = problems(at)
    assert found and found[0].startswith(("**INVALID_PAYLOAD**", "**RESOURCE_LIMIT**")), found


def test_a_failure_while_running_is_a_spanish_message(editor, monkeypatch):
    """The engine answers plans with envelopes; if the store or the audit fails, the page still shows no traceback."""
    import core.api

    def boom(*args, **kwargs):
        raise OSError("disk full at /secret/path")

    at = editor(plan_to_edit=VALID)
    monkeypatch.setattr(core.api, "execution", boom)
    at.button(key="ed_run").click().run()
    assert not at.exception
    assert at.error[-1].value.startswith("No se pudo ejecutar el plan por un error interno.")
    assert "secret" not in "\n".join(e.value for e in at.error)
