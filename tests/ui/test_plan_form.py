"""The editor's pure logic: form fields from resolved schemas, values ↔ args, steps,
validation that lists every problem, text form and diff, and the editor state machine."""

from __future__ import annotations

from datetime import date

import pytest

from tests.core.engine.hostile import OBJECT_CASES, TEXT_CASES
from ui import plan_form as pf

RANK = 6
VALID = "[6]\nentidad_id: GTO\ndelito: homicidio_doloso\ntop_k: 5\nfrom: 2024-01-01\nto: 2024-12-31"
INVALID = "[6]\nentidad_id: GTO\ndelito: homicidio_doloso\ntop_k: 0\nfrom: 2024-12-31\nto: 2024-01-01"


def by_name(fields):
    return {f.name: f for f in fields}


def test_fields_for_rank_por_delito_follow_the_resolved_schema(catalog):
    fields = by_name(pf.fields_for(catalog.resolved_schemas[RANK]))
    assert fields["entidad_id"].kind == "enum" and "GTO.MUN.LEON" in fields["entidad_id"].options
    assert fields["delito"].kind == "multi" and fields["delito"].scalar_ok
    assert "homicidio_doloso" in fields["delito"].options
    assert fields["metodo"].kind == "multi"
    assert (fields["top_k"].kind, fields["top_k"].minimum, fields["top_k"].maximum, fields["top_k"].default) == (
        "integer",
        1,
        100,
        10,
    )
    assert fields["from"].kind == fields["to"].kind == "date"
    assert fields["medida"].options == ("conteo", "tasa_per_100k") and fields["medida"].default == "conteo"


def test_fields_for_other_tools(catalog):
    compare = by_name(pf.fields_for(catalog.resolved_schemas[13]))
    assert (
        compare["base_from"].kind == "date"
        and compare["base_from"].required
        and compare["base_from"].label == "base_from *"
    )
    evidence = by_name(pf.fields_for(catalog.resolved_schemas[9]))
    assert (evidence["limit"].kind, evidence["limit"].minimum, evidence["limit"].maximum) == ("integer", 1, 5000)
    anomalies = by_name(pf.fields_for(catalog.resolved_schemas[10]))
    assert anomalies["z_threshold"].kind == "number" and anomalies["z_threshold"].default == 3.0
    assert (
        by_name(pf.fields_for({"type": "object", "properties": {"ok": {"type": "boolean"}, "s": {"type": "string"}}}))[
            "ok"
        ].kind
        == "boolean"
    )


def test_widget_values_round_trip_to_the_same_args(catalog):
    fields = pf.fields_for(catalog.resolved_schemas[RANK])
    args = {
        "entidad_id": "GTO",
        "delito": "homicidio_doloso",
        "top_k": 5,
        "from": "2024-01-01",
        "to": "2024-12-31",
        "medida": "conteo",
        "nivel": "hijos",
        "orden": "desc",
    }
    values = {f.name: pf.initial_value(f, args) for f in fields}
    assert values["from"] == date(2024, 1, 1) and values["delito"] == ["homicidio_doloso"] and values["metodo"] == []
    assert pf.args_from_values(fields, values) == args


def test_args_from_values_lists_dates_and_unset_values(catalog):
    fields = pf.fields_for(catalog.resolved_schemas[RANK])
    args = pf.args_from_values(
        fields,
        {
            "delito": ["robo", "homicidio_doloso"],
            "to": date(2023, 6, 30),
            "entidad_id": None,
            "metodo": [],
            "top_k": 7.0,
        },
    )
    assert args == {"delito": ["robo", "homicidio_doloso"], "to": "2023-06-30", "top_k": 7}


def test_form_problems_say_what_a_form_cannot_show(catalog):
    fields = pf.fields_for(catalog.resolved_schemas[RANK])
    assert pf.form_problems(fields, {"top_k": 5, "entidad_id": "GTO"}) == []
    problems = pf.form_problems(fields, {"top_k": 0, "medida": "x", "foo": 1, "from": "2024-13-01"})
    assert any("top_k" in p for p in problems) and any("medida" in p for p in problems)
    assert any("foo" in p for p in problems) and any("from" in p for p in problems)
    assert pf.plan_form_problems({"plan": [{"tool_id": 99, "args": {}}]}, catalog) == [
        "paso 1: herramienta desconocida"
    ]


def test_steps_move_remove_and_keep_their_uids():
    steps = pf.steps_from_plan({"plan": [{"tool_id": 2, "args": {}}, {"tool_id": 6, "args": {"top_k": 3}}]})
    assert len({s["uid"] for s in steps}) == 2
    moved = pf.move_step(steps, 1, -1)
    assert [s["tool_id"] for s in moved] == [6, 2] and moved[0]["uid"] == steps[1]["uid"]
    assert pf.move_step(steps, 0, -1) == steps  # out of range: unchanged
    assert [s["tool_id"] for s in pf.remove_step(steps, 0)] == [6]
    assert pf.plan_from_steps(steps, {"strict_time": True}) == {
        "plan": [{"tool_id": 2, "args": {}}, {"tool_id": 6, "args": {"top_k": 3}}],
        "meta": {"strict_time": True},
    }


def test_check_plan_lists_every_problem_with_code_and_path(catalog, metadata):
    check = pf.check_plan(INVALID, catalog, metadata)
    assert not check.ok and check.query_hash is None
    # a schema problem stops validation before the contextual checks (the reversed window)
    assert [(p["code"], p["path"]) for p in check.problems] == [("INVALID_PAYLOAD", "plan[0].args.top_k")]
    assert check.canonical["plan"][0]["args"]["top_k"] == 0  # still readable: the diff can show it
    fixed = pf.check_plan(INVALID.replace("top_k: 0", "top_k: 5"), catalog, metadata)
    assert [(p["code"], p["path"]) for p in fixed.problems] == [("INVALID_DATE_RANGE", "plan[0].args")]
    unreadable = pf.check_plan("{bad", catalog, metadata)
    assert not unreadable.ok and unreadable.problems[0]["code"] == "INVALID_PAYLOAD" and unreadable.canonical is None


def test_check_plan_of_a_valid_plan_gives_the_engines_query_hash(catalog, metadata):
    from core.engine.validate import validate_plan

    check = pf.check_plan(VALID, catalog, metadata)
    assert check.ok and check.problems == []
    assert check.query_hash == validate_plan(VALID, catalog, metadata).query_hash
    assert check.canonical["plan"][0]["args"]["nivel"] == "hijos"  # normalized: defaults filled


def test_text_form_and_diff(catalog, metadata):
    plan = pf.parse_any(VALID, catalog)
    text = pf.plan_as_text(plan, catalog)
    assert text.startswith("[6]") and "top_k: 5" in text
    two_tools = {"plan": [{"tool_id": 6, "args": {"top_k": 3}}, {"tool_id": 8, "args": {"top_k": 9}}]}
    assert pf.plan_as_text(two_tools, catalog).lstrip().startswith("{")  # text form would merge top_k: JSON
    original = pf.check_plan(VALID, catalog, metadata).canonical
    edited = pf.check_plan(VALID.replace("top_k: 5", "top_k: 10"), catalog, metadata).canonical
    diff = pf.plan_diff(original, edited)
    assert '-        "top_k": 5' in diff and '+        "top_k": 10' in diff
    assert pf.plan_diff(original, original) == ""


def test_load_into_and_switch_mode(catalog, metadata):
    state: dict = {}
    pf.load_into(state, VALID, catalog, metadata, "prueba")
    assert state["editor_mode"] == "form" and state["editor_text"] == VALID
    assert state["editor_original_hash"] == pf.check_plan(VALID, catalog, metadata).query_hash
    assert [s["tool_id"] for s in state["editor_steps"]] == [6]
    state["editor_mode"] = "text"
    pf.switch_mode(state, catalog)
    assert "top_k: 5" in state["editor_text"]
    state["editor_text"], state["editor_mode"] = "{bad", "form"
    pf.switch_mode(state, catalog)  # unreadable text stays text, with a notice
    assert state["editor_mode"] == "text" and "no es un plan legible" in state["editor_notice"]
    pf.load_into(state, INVALID, catalog, metadata, "prueba")
    assert state["editor_mode"] == "text" and "top_k fuera de rango" in state["editor_notice"]
    assert state["editor_original_hash"] is None
    pf.load_into(state, None, catalog, metadata, "cero")
    assert state["editor_steps"] == [] and state["editor_original"] is None and state["editor_mode"] == "form"


def test_option_labels_and_last_plan(catalog):
    labels = pf.option_labels(catalog)
    assert labels["GTO.MUN.LEON"] == "León (GTO.MUN.LEON)"
    assert labels["homicidio_doloso"].endswith("(homicidio_doloso)")

    class T:
        def __init__(self, plan):
            self.plan = plan

    assert pf.last_plan([T({"plan": [1]}), T(None)]) == {"plan": [1]}
    assert pf.last_plan([]) is None


HOSTILE_TEXTS = sorted(TEXT_CASES)
HOSTILE_OBJECTS = sorted(OBJECT_CASES)


def spanish_problems(problems: list[dict]) -> None:
    assert problems and all(p["code"] in ("INVALID_PAYLOAD", "RESOURCE_LIMIT") for p in problems), problems
    text = str(problems)
    assert not any(leak in text for leak in ("Traceback", "Input should", "Field required", "Expecting "))


@pytest.mark.parametrize("name", HOSTILE_TEXTS)
def test_hostile_text_is_checked_never_raised(catalog, metadata, name):
    check = pf.check_plan(TEXT_CASES[name], catalog, metadata)
    assert not check.ok
    spanish_problems(check.problems)


@pytest.mark.parametrize("name", HOSTILE_OBJECTS)
def test_hostile_plans_load_into_the_editor_as_text_with_their_problems(catalog, metadata, name):
    state: dict = {}
    pf.load_into(state, OBJECT_CASES[name](), catalog, metadata, "plan elegido")
    assert state["editor_mode"] == "text" and state["editor_notice"]
    assert len(state["editor_text"]) <= 64 * 1024  # never a 10 MB or endlessly nested dump in the text box
    spanish_problems(pf.check_plan(OBJECT_CASES[name](), catalog, metadata).problems)


@pytest.mark.parametrize("name", HOSTILE_TEXTS)
def test_switching_hostile_text_to_the_form_stays_in_text_with_a_notice(catalog, name):
    state = {"editor_mode": "form", "editor_text": TEXT_CASES[name], "editor_steps": [], "editor_meta": {}}
    pf.switch_mode(state, catalog)
    assert state["editor_mode"] == "text" and state["editor_notice"].startswith(("El texto", "El formulario"))


def test_an_unexpected_failure_is_a_spanish_problem(catalog, metadata, monkeypatch):
    def boom(*args, **kwargs):
        raise RecursionError("secret")

    monkeypatch.setattr(pf, "validate_plan", boom)
    check = pf.check_plan(VALID, catalog, metadata)
    assert not check.ok and check.problems[0]["code"] == "COMPUTE_ERROR"
    assert check.problems[0]["details"] == "Error interno al revisar el plan." and "secret" not in str(check)
    monkeypatch.setattr(pf, "parse_plan", boom)
    state = {"editor_mode": "form", "editor_text": VALID, "editor_steps": [], "editor_meta": {}}
    pf.switch_mode(state, catalog)
    assert state["editor_mode"] == "text" and "Error interno" in state["editor_notice"]


def test_a_huge_text_plan_is_not_put_in_the_text_box(catalog, metadata):
    state: dict = {}
    pf.load_into(state, TEXT_CASES["texto_10_mb"], catalog, metadata, "plan elegido")
    assert state["editor_mode"] == "text" and state["editor_text"] == ""
    assert "no se pudo leer: El plan ocupa más de 64 KiB" in state["editor_notice"]
