"""Catalog consistency: every tool has a summary, a schema, an implementation and a test."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from core.config import CATALOGS_DIR
from core.dataset.store import Store
from core.engine.catalog import Catalog, build_catalog, load_tool_specs

TESTS = Path(__file__).resolve().parents[2]
SPECS = load_tool_specs()
EXPECTED_IDS = {
    1: "enfoque_entidad",
    2: "filtro_fecha",
    3: "filtro_tipo",
    4: "filtro_metodo",
    5: "filtro_frecuencia",
    6: "rank_por_delito",
    7: "top_entidades_por_total",
    8: "detectar_patrones",
    9: "listar_evidencia",
    10: "detectar_anomalias",
    11: "agrupar_por_entidad",
    12: "serie_temporal",
    13: "comparar_periodos",
}


def test_tool_ids_follow_the_document():
    by_id = {s.tool_id: s.name for s in SPECS}
    assert {k: by_id.get(k) for k in EXPECTED_IDS} == EXPECTED_IDS
    assert next(s for s in SPECS if s.name == "rank_por_delito").version == "1.1.0"


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.name)
def test_every_tool_is_complete(spec):
    assert len(spec.summary) > 30 and spec.summary[0].isupper()
    Draft202012Validator.check_schema(spec.args_schema)
    assert spec.args_schema["additionalProperties"] is False
    for name, prop in spec.args_schema["properties"].items():
        assert prop.get("description") or prop.get("enum") or prop.get("oneOf"), (
            f"{spec.name}.{name} lacks a description"
        )
    assert callable(spec.load_implementation())
    assert spec.output_contract["columns"] and spec.output_contract["envelope_schema_version"] == "1.0.0"
    mentioned = any(
        re.search(rf"\b{spec.name}\b|\"tool_id\": {spec.tool_id}\b", p.read_text(encoding="utf-8"))
        for p in TESTS.rglob("test_*.py")
        if p.name != "test_catalog.py"
    )
    assert mentioned, f"no test exercises {spec.name}"


def test_catalog_spec_has_version_checksum_and_closed_enums(bundled_settings):
    cat = build_catalog(Store(bundled_settings))
    spec = cat.as_dict()
    assert spec["catalog_version"].startswith("cat-") and spec["checksum"].startswith("sha256:")
    assert spec["schema_version"] == "1.0.0" and spec["generated_at"].endswith("Z")
    rank = next(t for t in spec["tools"] if t["name"] == "rank_por_delito")
    assert "GTO.MUN.LEON" in rank["args_schema"]["properties"]["entidad_id"]["enum"]
    assert "homicidio_doloso" in rank["args_schema"]["properties"]["delito"]["oneOf"][0]["enum"]
    assert "total_delitos" not in rank["args_schema"]["properties"]["delito"]["oneOf"][0]["enum"]
    assert {e["entidad_id"] for e in spec["entities"]} >= {"GTO", "GTO.MUN.LEON"}
    assert {"delitos", "metodos"} <= set(spec["taxonomy"])


def test_checksum_changes_with_any_change(bundled_settings):
    cat = build_catalog(Store(bundled_settings))
    same = Catalog(cat.specs, cat.entities, cat.crimes, cat.methods, "2030-01-01T00:00:00Z", cat.dataset_version)
    assert same.checksum == cat.checksum  # generation time is not content
    fewer = Catalog(cat.specs[:-1], cat.entities, cat.crimes, cat.methods, cat.generated_at, cat.dataset_version)
    assert fewer.checksum != cat.checksum and fewer.catalog_version != cat.catalog_version


def test_tool_identity_is_name_version_and_hash():
    rank = next(s for s in SPECS if s.tool_id == 6)
    assert rank.identity == "rank_por_delito@1.1.0"
    assert rank.spec_hash.startswith("sha256:") and len(rank.spec_hash) == 71


DEFS = json.loads((CATALOGS_DIR / "tools" / "_defs.json").read_text(encoding="utf-8"))["$defs"]


@pytest.mark.parametrize("path", sorted((CATALOGS_DIR / "tools").glob("[0-9]*.json")), ids=lambda p: p.stem)
def test_shared_argument_schemas_live_only_in_the_defs_file(path):
    raw = path.read_text(encoding="utf-8")
    assert (
        '"pattern"' not in raw and '"x-enum-source": "delitos"' not in raw and '"x-enum-source": "entidades"' not in raw
    )


@pytest.mark.parametrize(
    "arg,name",
    [("entidad_id", "entidad"), ("from", "fecha"), ("to", "fecha"), ("delito", "delito"), ("metodo", "metodo")],
)
def test_x_def_is_inlined_at_load(arg, name):
    rank = next(s for s in SPECS if s.name == "rank_por_delito")
    assert rank.args_schema["properties"][arg] == DEFS[name]
    assert "x-def" not in json.dumps([s.args_schema for s in SPECS])


def test_x_def_keys_beside_it_override_the_definition():
    patterns = next(s for s in SPECS if s.name == "detectar_patrones").args_schema["properties"]["delito"]
    assert patterns["oneOf"] == DEFS["delito"]["oneOf"] and patterns["description"] != DEFS["delito"]["description"]
    assert list(patterns) == list(DEFS["delito"])  # the definition's key order: the CatalogSpec prints it


def test_an_unknown_x_def_fails_the_load(tmp_path):
    folder = tmp_path / "tools"
    folder.mkdir()
    spec = json.loads((CATALOGS_DIR / "tools" / "09_listar_evidencia.json").read_text(encoding="utf-8"))
    spec["args_schema"]["properties"]["limit"] = {"x-def": "nada"}
    (folder / "09_listar_evidencia.json").write_text(json.dumps(spec), encoding="utf-8")
    with pytest.raises(ValueError, match="x-def 'nada'"):
        load_tool_specs(tmp_path)


BUILT_IN_SHAPES = {"filter", "evidence", "ranking", "series", "comparison", "anomalies", "patterns", "annual"}


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.name)
def test_every_spec_says_how_the_engine_treats_it(spec):
    assert spec.shape in BUILT_IN_SHAPES or (spec.lead and spec.chart), f"{spec.name}: shape {spec.shape!r}"
    assert (spec.shape in ("filter", "evidence")) == (spec.kind in ("filter", "evidence"))
    for hook in ("checks", "lead", "chart"):
        assert getattr(spec, hook) is None or callable(spec.hook(hook))
    names = {s.name for s in SPECS}
    if spec.example is not None:
        assert (spec.example.then or spec.example.after) in names
    if spec.history is not None:
        assert spec.history in spec.arg_names


def test_engine_hints_stay_out_of_the_contract():
    annual = next(s for s in SPECS if s.name == "total_anual")
    assert annual.calendar == "years" and annual.shape == "annual"
    dumped = annual.model_dump()
    assert not {"shape", "measure", "calendar", "history", "checks", "lead", "chart", "example"} & set(dumped)
    assert annual.spec_hash == annual.model_copy(update={"shape": "otra", "calendar": "months"}).spec_hash


def test_tools_are_found_by_name():
    from core.engine.catalog import tool_id, tool_spec

    assert tool_spec("rank_por_delito@1.1.0").tool_id == tool_id("rank_por_delito") == 6
    assert tool_spec("plan") is None
    with pytest.raises(KeyError):
        tool_id("no_existe")
