"""States and municipalities catalog: codes, ids and aliases against the bundled data."""

from __future__ import annotations

import csv
import shutil

import pytest

from core.config import CATALOGS_DIR, PROJECT_ROOT
from core.dataset.entities import (
    load_municipalities,
    load_states,
    municipality_by_code,
    pad_municipality_code,
    state_by_code,
    state_of_municipality_code,
)
from core.text import normalize_text

RAW = PROJECT_ROOT / "data" / "raw"


def _rows(path, encoding="utf-8"):
    with path.open(encoding=encoding, newline="") as fh:
        return list(csv.DictReader(fh))


def _name_index():
    """Normalized official name, short name or alias → code, as a parser would build it."""
    index = {}
    for m in load_municipalities():
        for name in (m.nombre, m.nombre_corto, *m.aliases):
            index[normalize_text(name)] = m.cve_municipio
    return index


def test_states_are_the_32_with_unique_abbreviations():
    states = load_states()
    assert len(states) == 32
    assert len({s.abreviatura for s in states}) == 32
    assert [s.cve_ent for s in states] == [f"{i:02d}" for i in range(1, 33)]
    assert state_by_code("11").abreviatura == "GTO"


@pytest.mark.parametrize(
    "code, abbr", [("11", "GTO"), (11, "GTO"), ("09", "CDMX"), (9, "CDMX"), ("9", "CDMX"), (32, "ZAC"), (1, "AGS")]
)
def test_state_by_code(code, abbr):
    assert state_by_code(code).abreviatura == abbr


@pytest.mark.parametrize("code", [0, 33, "abc", "", None, -11])
def test_state_by_code_unknown(code):
    assert state_by_code(code) is None


def test_municipality_names_match_the_raw_catalogue():
    raw = {r["cve_municipio"]: r["municipio"] for r in _rows(RAW / "municipios_gto.csv")}
    ours = {m.cve_municipio: m for m in load_municipalities()}
    assert len(ours) == 46
    assert {code: m.nombre for code, m in ours.items()} == raw
    assert all(m.cve_ent == "11" and m.entidad_id.startswith("GTO.MUN.") for m in ours.values())


def test_municipality_names_match_the_sesnsp_homicide_file():
    seen = {(r["Cve. Municipio"], r["Municipio"]) for r in _rows(RAW / "sesnsp" / "IDM_NM_gto_homicidio_2020-2025.csv")}
    for code, name in seen:
        assert municipality_by_code(code).nombre == name


@pytest.mark.parametrize(
    "code, entidad_id, corto",
    [
        ("11020", "GTO.MUN.LEON", "León"),
        ("11037", "GTO.MUN.SILAO_DE_LA_VICTORIA", "Silao"),
        ("11014", "GTO.MUN.DOLORES_HIDALGO_CUNA_DE_LA_INDEPENDENCIA_NACIONAL", "Dolores Hidalgo"),
        ("11035", "GTO.MUN.SANTA_CRUZ_DE_JUVENTINO_ROSAS", "Juventino Rosas"),
        ("11015", "GTO.MUN.GUANAJUATO", "Guanajuato"),
    ],
)
def test_municipality_ids(code, entidad_id, corto):
    m = municipality_by_code(code)
    assert (m.entidad_id, m.nombre_corto) == (entidad_id, corto)


def test_every_alias_names_exactly_one_municipality():
    munis = load_municipalities()
    owners = {}
    for m in munis:
        for alias in m.aliases:
            owners.setdefault(normalize_text(alias), set()).add(m.cve_municipio)
    assert all(len(codes) == 1 for codes in owners.values()), owners
    for m in munis:
        others = {normalize_text(n) for o in munis if o is not m for n in (o.nombre, o.nombre_corto)}
        assert not {normalize_text(a) for a in m.aliases} & others, m.nombre


def test_municipality_aliases_are_not_state_names():
    state_names = {normalize_text(n) for s in load_states() for n in (s.nombre, s.abreviatura, *s.aliases)}
    aliases = {normalize_text(a) for m in load_municipalities() for a in m.aliases}
    assert not aliases & state_names


@pytest.mark.parametrize(
    "typed, code",
    [
        ("Silao", "11037"),
        ("dolores", "11014"),
        ("Dolores Hidalgo", "11014"),
        ("SMA", "11003"),
        ("San Miguel", "11003"),
        ("leon de los aldama", "11020"),
        ("San Pancho", "11031"),
        ("Juventino Rosas", "11035"),
        ("Cd. Manuel Doblado", "11008"),
        ("Valle", "11042"),
        ("Guanajuato capital", "11015"),
        ("ciudad de Guanajuato", "11015"),
        ("León", "11020"),
    ],
)
def test_aliases_analysts_type(typed, code):
    assert _name_index()[normalize_text(typed)] == code


def test_every_name_in_the_yearly_total_file_resolves():
    # That file spells 11032 "San José de Iturbide"; the alias must catch it.
    index = _name_index()
    for row in _rows(RAW / "sesnsp" / "gto_total_delitos_anual_2015-2026.csv"):
        assert index[normalize_text(row["municipio_fuente"])] == row["cve_municipio"]


@pytest.mark.parametrize(
    "raw, padded",
    [
        (11020, "11020"),
        ("11020", "11020"),
        (" 11020 ", "11020"),
        ("11020.0", "11020"),
        (11020.0, "11020"),
        (9002, "09002"),
        ("9002", "09002"),
        ("09002", "09002"),
        ("11999", "11999"),
        (None, None),
        ("", None),
        ("abc", None),
        ("11020.5", None),
        (11020.5, None),
        (-11020, None),
        ("123", None),
        (123456, None),
        (True, None),
        ("1e4", None),
        ("00123", None),
    ],
)
def test_pad_municipality_code(raw, padded):
    assert pad_municipality_code(raw) == padded


@pytest.mark.parametrize("raw, state", [(11020, "11"), ("11020", "11"), (9002, "09"), ("01001", "01")])
def test_state_of_municipality_code(raw, state):
    assert state_of_municipality_code(raw) == state


def test_state_of_invalid_code_raises():
    with pytest.raises(ValueError):
        state_of_municipality_code("abc")


def test_loader_rejects_an_ambiguous_alias(tmp_path):
    catalogs = tmp_path / "catalogs"
    shutil.copytree(CATALOGS_DIR / "entities", catalogs / "entities")
    path = catalogs / "entities" / "municipios.csv"
    text = path.read_text(encoding="utf-8").replace("Dr. Mora|Dr Mora", "Dr. Mora|Celaya")
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ValueError, match="celaya"):
        load_municipalities(catalogs)


def test_loads_are_cached():
    assert load_municipalities() == load_municipalities()
    assert load_municipalities()[0] is load_municipalities(str(CATALOGS_DIR))[0]
