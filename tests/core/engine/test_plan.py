"""Plans in both forms of docs/contracts/001_casandra_v0.md §4.3, normalized to one canonical form and query_hash."""

from __future__ import annotations

import pytest

from core.dataset.store import Store
from core.engine.catalog import build_catalog
from core.engine.plan import canonical_plan, parse_plan, plan_to_text, query_hash
from core.errors import ErrorGroup

TEXT = """[6,9]
entidad_id: GTO
delito: homicidio_doloso
nivel: hijos
medida: tasa_per_100k
top_k: 10
from: 2025-07-15
to:   2025-08-13
"""
JSON = {
    "plan": [
        {
            "tool_id": 6,
            "tool_version": "1.1.0",
            "args": {
                "entidad_id": "GTO",
                "delito": "homicidio_doloso",
                "nivel": "hijos",
                "medida": "tasa_per_100k",
                "top_k": 10,
                "from": "2025-07-15",
                "to": "2025-08-13",
            },
        },
        {"tool_id": 9, "tool_version": "1.0.0", "args": {}},
    ],
    "meta": {"catalog_version": "2025.08.19", "dataset_version": "gx-2025.08.15", "strict_time": False},
}


@pytest.fixture(scope="module")
def catalog(bundled_settings):
    return build_catalog(Store(bundled_settings))


def test_text_form_distributes_keys_to_the_tools_that_accept_them(catalog):
    plan = parse_plan(TEXT, catalog)
    assert [s.tool_id for s in plan.plan] == [6, 9]
    assert plan.plan[0].args == JSON["plan"][0]["args"]
    assert plan.plan[1].args == {}


def test_both_forms_give_the_same_query_hash(catalog):
    a = parse_plan(TEXT, catalog)
    b = parse_plan(JSON, catalog)
    b_json_text = parse_plan(__import__("json").dumps(JSON), catalog)
    assert canonical_plan(b) == canonical_plan(b_json_text)
    assert a.plan[0].args == b.plan[0].args


def test_query_hash_depends_on_plan_catalog_and_dataset(catalog):
    plan = parse_plan(JSON, catalog)
    h = query_hash(plan, "c1", "d1")
    assert h == query_hash(parse_plan(JSON, catalog), "c1", "d1")
    assert h != query_hash(plan, "c2", "d1") != query_hash(plan, "c1", "d2")
    other = parse_plan({"plan": [{"tool_id": 6, "args": {**JSON["plan"][0]["args"], "top_k": 5}}]}, catalog)
    assert query_hash(other, "c1", "d1") != h


@pytest.mark.parametrize(
    "raw,needle",
    [
        ("", "vacío"),
        ("hola\nentidad_id: GTO", "primera línea"),
        ("[6]\nesto no es clave valor", "clave: valor"),
        ("[6]\ntop_k: 1\ntop_k: 2", "dos veces"),
        ("[6]\ncolor: rojo", "Ninguna herramienta"),
        ("{not json", "JSON inválido"),
        ({"plan": []}, "plan"),
        ({"plan": [{"tool_id": 6, "args": {}, "evil": 1}]}, "no permitido"),
        ([1, 2], "objeto JSON"),
    ],
)
def test_syntax_problems_are_reported_in_spanish(catalog, raw, needle):
    with pytest.raises(ErrorGroup) as info:
        parse_plan(raw, catalog)
    assert any(needle in p.details or needle in p.path for p in info.value.problems)
    assert info.value.code == "INVALID_PAYLOAD"


def test_several_syntax_problems_are_collected(catalog):
    with pytest.raises(ErrorGroup) as info:
        parse_plan("[6]\nmala linea\ncolor: rojo\nsabor: dulce", catalog)
    assert len(info.value.problems) == 3


def test_text_round_trip(catalog):
    plan = parse_plan(JSON, catalog)
    again = parse_plan(plan_to_text(plan), catalog)
    assert again.plan[0].args == plan.plan[0].args


@pytest.mark.parametrize(
    "raw,code,needle",
    [
        ({"plan": [{"tool_id": 6}] * 13}, "RESOURCE_LIMIT", "13 pasos"),
        ("[" + ",".join(["6"] * 13) + "]", "RESOURCE_LIMIT", "13 pasos"),
        ({"plan": [{"tool_id": "seis"}]}, "INVALID_PAYLOAD", "se esperaba un número entero"),
        ({"plan": [{"tool_id": 0}]}, "INVALID_PAYLOAD", "mínimo 1"),
        ({"plan": [{"tool_id": 6, "tool_version": "1" * 30}]}, "INVALID_PAYLOAD", "máximo 20 caracteres"),
        ({"plan": [{"tool_id": 6, "args": []}]}, "INVALID_PAYLOAD", "se esperaba un objeto"),
        ({"plan": [{"args": {}}]}, "INVALID_PAYLOAD", "Falta el campo obligatorio plan[0].tool_id"),
        ('{"plan": [}', "INVALID_PAYLOAD", "se esperaba un valor (línea 1, columna 11)"),
        ('{"plan": [{"tool_id": 6, "args": {"top_k": NaN}}]}', "INVALID_PAYLOAD", "NaN"),
        ("[6]\ntop_k: " + "9" * 5000, "RESOURCE_LIMIT", "mide 5.000 caracteres"),
        ("[" + "9" * 5000 + "]", "INVALID_PAYLOAD", "tool_id fuera de rango"),
        ("x" * 70_000, "RESOURCE_LIMIT", "64 KiB"),
        (b"\xff" * 70_000, "RESOURCE_LIMIT", "64 KiB"),
    ],
)
def test_structural_problems_and_limits_in_spanish(catalog, raw, code, needle):
    """Pydantic's and json's English never reaches a person; limits come before any parsing."""
    with pytest.raises(ErrorGroup) as info:
        parse_plan(raw, catalog)
    assert info.value.code == code
    texts = [p.details for p in info.value.problems]
    assert any(needle in t for t in texts), texts
    assert not any(english in t for t in texts for english in ("Input should", "Field required", "Expecting"))


def test_a_plan_object_is_held_to_the_same_limits(catalog):
    plan = parse_plan(JSON, catalog)
    plan.plan[0].args["z_threshold"] = float("nan")
    with pytest.raises(ErrorGroup, match="NaN"):
        parse_plan(plan, catalog)
