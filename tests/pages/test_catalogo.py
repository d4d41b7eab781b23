"""AppTest: the Catálogo page lists every tool with its contract, and the search filters all tabs."""

from __future__ import annotations

import json
from typing import get_args

from core import api
from core.ask.contracts import DomainKey
from core.dataset.store import get_store
from core.engine.catalog import build_catalog
from core.engine.validate import validate_plan
from tests.conftest import FIXTURES
from tests.pages.conftest import texts
from ui.catalog_view import DOMAINS, example_plan


def _open(make_app, settings):
    at = make_app(settings, roles=["steward"]).run()
    return at.switch_page("pages/catalogo.py").run()


def test_catalogo_lists_every_tool_with_contract_and_example(bundled_settings, make_app):
    at = _open(make_app, bundled_settings)
    assert not at.exception
    catalog = api.catalog(bundled_settings)
    assert catalog["catalog_version"] in at.caption[0].value and catalog["checksum"] in at.caption[0].value
    labels = [e.label for e in at.expander]
    assert len(labels) == len(catalog["tools"])
    assert any("rank_por_delito @1.1.0" in label for label in labels)
    assert f"Herramientas ({len(catalog['tools'])})" == at.tabs[0].label
    assert at.tabs[4].label == f"Dominios ({len(DOMAINS)})"
    assert set(at.dataframe[3].value["dominio"]) == set(get_args(DomainKey))  # every domain of the contract
    crimes = at.dataframe[1].value
    assert "en_datos" in crimes.columns and crimes["en_datos"].any()
    plans = [json.loads(c.value) for c in at.code]
    assert len(plans) == len(catalog["tools"]) and all(p["plan"] for p in plans)
    assert "Requiere:" in texts(at.markdown)


def test_the_search_filters_tools_entities_and_crimes(bundled_settings, make_app):
    at = _open(make_app, bundled_settings)
    at.text_input(key="catalogo_buscar").input("rank").run()
    # Names and summaries are searched: listar_evidencia's summary names ranking_estados.
    found = [e.label.split(" · ")[1].split(" @")[0] for e in at.expander]
    assert found == ["rank_por_delito", "listar_evidencia", "ranking_estados"]
    at.text_input(key="catalogo_buscar").input("leon").run()  # accents ignored: León
    assert not at.expander and "Ninguna herramienta" in texts(at.info)
    assert list(at.dataframe[0].value["entidad_id"]) == ["GTO.MUN.LEON", "GTO.MUN.MOROLEON"]
    at.text_input(key="catalogo_buscar").input("homicidio").run()
    assert set(at.dataframe[1].value["delito"]) >= {"homicidio_doloso"}
    assert all("homicidio" in d for d in at.dataframe[1].value["delito"])


def test_every_example_plan_validates(bundled_settings):
    catalog = api.catalog(bundled_settings)
    cat = build_catalog(get_store(bundled_settings))
    meta = get_store(bundled_settings).metadata()
    for tool in catalog["tools"]:
        plan = example_plan(tool, catalog["tools"], meta["max_date"])
        assert tool["tool_id"] in [s["tool_id"] for s in plan["plan"]]
        validate_plan(plan, cat, meta)  # raises ErrorGroup with the problems otherwise


def test_catalogo_on_an_empty_store_still_lists_tools(empty_settings, make_app):
    at = _open(make_app, empty_settings)
    assert not at.exception
    assert "No hay datos publicados" in texts(at.info)
    assert any("rank_por_delito" in e.label for e in at.expander)


def test_a_tool_added_by_its_folder_shows_with_its_example(bundled_settings, make_app, monkeypatch):
    monkeypatch.setenv(
        "CASANDRA_TOOL_DIRS", str(FIXTURES / "toy_tool")
    )  # the toy tool: its spec and module, nothing else
    at = _open(make_app, bundled_settings)
    assert not at.exception
    assert any(e.label == "99 · total_juguete @1.0.0 — estable" for e in at.expander)
    assert "Herramienta de prueba" in texts(at.markdown)
    plan = json.loads(at.code[-1].value)
    assert [s["tool_id"] for s in plan["plan"]] == [99]
    cat = build_catalog(get_store(bundled_settings))
    validate_plan(plan, cat, get_store(bundled_settings).metadata())
