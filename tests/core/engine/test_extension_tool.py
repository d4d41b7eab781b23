"""A new tool is its ToolSpec plus its module: the toy in tests/fixtures/toy_tool joins with no other edit.

``CASANDRA_TOOL_DIRS`` adds its folder to the catalog; from there the engine reads everything from the
spec: the tool appears in the CatalogSpec, validates (with its own contextual check), runs, composes a
Spanish answer and charts. The Catálogo and editor pages are proved in tests/pages.
"""

from __future__ import annotations

import sys

import pytest

from core import api
from core.ask.charts import chart_spec, plotly_figure, shape_of
from core.ask.compose import compose
from core.dataset.store import get_store
from core.engine.catalog import build_catalog, tool_spec
from core.engine.validate import validate_plan
from core.errors import ErrorGroup
from tests.conftest import FIXTURES

TOY = FIXTURES / "toy_tool"
PLAN = {
    "plan": [
        {
            "tool_id": 99,
            "args": {
                "entidad_id": "GTO.MUN.LEON",
                "delito": "homicidio_doloso",
                "from": "2024-01-01",
                "to": "2024-12-31",
            },
        }
    ]
}


@pytest.fixture
def toy(monkeypatch):
    """The toy folder joins the catalog for one test; its module is forgotten afterwards."""
    monkeypatch.setenv("CASANDRA_TOOL_DIRS", str(TOY))
    yield tool_spec("total_juguete")
    sys.modules.pop("toy_tool", None)


def test_the_toy_is_unknown_without_its_folder():
    assert tool_spec("total_juguete") is None


def test_it_appears_in_the_catalog_with_the_shared_definitions(toy, bundled_settings, monkeypatch):
    catalog = api.catalog(bundled_settings)
    tool = next(t for t in catalog["tools"] if t["name"] == "total_juguete")
    props = tool["args_schema"]["properties"]
    assert "GTO.MUN.LEON" in props["entidad_id"]["enum"] and "homicidio_doloso" in props["delito"]["oneOf"][0]["enum"]
    assert props["from"]["pattern"] == "^[0-9]{4}-[0-9]{2}-[0-9]{2}$"  # x-def, from catalogs/tools/_defs.json
    assert not {"shape", "checks", "lead", "chart"} & set(tool)  # engine hints stay out of the contract
    monkeypatch.delenv("CASANDRA_TOOL_DIRS")
    without = api.catalog(bundled_settings)
    assert [t["name"] for t in without["tools"]] == [t["name"] for t in catalog["tools"] if t["tool_id"] != 99]
    assert without["checksum"] != catalog["checksum"]


def test_it_validates_with_its_own_check(toy, bundled_settings):
    store = get_store(bundled_settings)
    catalog, metadata = build_catalog(store), store.metadata()
    vp = validate_plan(PLAN, catalog, metadata)
    assert vp.steps[0].spec is toy and vp.steps[0].args["max_meses"] == 120  # its default, from its schema
    long = {"plan": [{"tool_id": 99, "args": {**PLAN["plan"][0]["args"], "from": "2015-01-01", "max_meses": 24}}]}
    with pytest.raises(ErrorGroup) as err:
        validate_plan(long, catalog, metadata)
    assert [(p.code, p.path) for p in err.value.problems] == [("INVALID_DATE_RANGE", "plan[0].args")]
    assert "total_juguete: la ventana pasa de 24 meses" in err.value.problems[0].details


def test_it_runs_composes_and_charts(toy, bundled_settings):
    result = api.execution(PLAN, settings=bundled_settings)
    env = result.last
    assert result.status == "ok" and env["tool"] == "total_juguete@1.0.0"
    assert env["data"]["inline"]["rows"] == [["GTO.MUN.LEON", "León", 596, 12]]
    assert env["evidence"][0]["total"] > 0
    assert shape_of(env) == "total"
    answer = compose(
        "¿Cuántos homicidios dolosos hubo en León en 2024?", result.envelopes, metadata=api.metadata(bundled_settings)
    )
    assert answer.text.startswith(
        "León sumó 596 delitos entre enero y diciembre de 2024, en 12 meses (total de prueba)."
    )
    assert "Periodo: enero a diciembre de 2024." in answer.text and not answer.blocked
    assert answer.chart == {
        "type": "bar",
        "x": "label",
        "y": "conteo",
        "title": "Total de prueba",
        "y_label": "Delitos registrados",
        "data": [{"entidad_id": "GTO.MUN.LEON", "label": "León", "conteo": 596, "meses": 12}],
    }
    assert chart_spec(env) == answer.chart and plotly_figure(answer.chart).data


def test_the_evidence_tool_follows_it(toy, bundled_settings):
    plan = {"plan": [*PLAN["plan"], {"tool_id": 9, "args": {"limit": 5}}]}
    envelopes = api.execution(plan, settings=bundled_settings).envelopes
    assert [e["status"] for e in envelopes] == ["ok", "ok"]
    assert envelopes[1]["metrics"]["eventos"] == 596
