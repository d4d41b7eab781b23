"""Crime and modality taxonomy against the labels of the bundled SESNSP files."""

from __future__ import annotations

import csv
import json
import shutil

import pytest

from core.config import CATALOGS_DIR, PROJECT_ROOT
from core.dataset.taxonomy import (
    crime_by_key,
    crime_for_labels,
    load_crimes,
    load_groups,
    load_methods,
    load_series,
    method_for_label,
    methodology_for_year,
)
from core.text import normalize_text

SESNSP = PROJECT_ROOT / "data" / "raw" / "sesnsp"
BIENES = {
    "La vida y la Integridad corporal",
    "Libertad personal",
    "La libertad y la seguridad sexual",
    "El patrimonio",
    "La familia",
    "La sociedad",
    "Otros bienes jurídicos afectados (del fuero común)",
}


def _data_labels():
    """(bien, tipo, subtipo, modalidad) of every crime file; missing columns are None."""
    labels = set()
    for path in sorted(SESNSP.glob("*.csv")):
        if "latin1" in path.name or "total_delitos" in path.name:
            continue  # same rows as the UTF-8 file / no crime labels at all
        with path.open(encoding="utf-8", newline="") as fh:
            for row in csv.DictReader(fh):
                labels.add(
                    (
                        row.get("Bien jurídico afectado"),
                        row["Tipo de delito"],
                        row.get("Subtipo de delito"),
                        row.get("Modalidad"),
                    )
                )
    return labels


DATA_LABELS = _data_labels()


def test_catalog_covers_the_whole_municipal_catalogue():
    subtipos = [c for c in load_crimes() if c.nivel == "subtipo"]
    assert len(subtipos) == 55
    assert {c.bien_juridico for c in subtipos} == BIENES
    assert len([c for c in subtipos if c.tipo == "Robo"]) == 14
    # IDM_NM has 59 distinct Modalidad labels; "Violación" is ours, for the reduced file.
    assert len([m for m in load_methods() if m.metodo != "violacion"]) == 59


@pytest.mark.parametrize("labels", sorted(DATA_LABELS, key=str))
def test_every_data_label_resolves_to_the_catalog(labels):
    bien, tipo, subtipo, modalidad = labels
    crime = crime_for_labels(bien, tipo, subtipo)
    assert crime in load_crimes()
    if bien is not None:
        assert crime.bien_juridico == bien  # exact spelling, capital I included
    assert method_for_label(modalidad, subtipo or tipo) in load_methods()


@pytest.mark.parametrize(
    "bien, tipo, subtipo, key",
    [
        (None, "Violación", None, "violacion"),
        (None, "Violencia familiar", None, "violencia_familiar"),
        ("La vida y la Integridad corporal", "Homicidio", "Homicidio doloso", "homicidio_doloso"),
        (None, "homicidio", "HOMICIDIO CULPOSO", "homicidio_culposo"),
        ("El patrimonio", "Robo", "Robo a institución bancaria", "robo_a_institucion_bancaria"),
        (None, "Robo", "robo a institucion bancaria", "robo_a_institucion_bancaria"),
        (None, "Secuestro", "Secuestro", "secuestro"),
        (None, "Homicidio", None, "homicidio"),
        (None, "Violación simple", "Violación simple", "violacion_simple"),
        (None, "Otros delitos del Fuero Común", "Otros delitos del Fuero Común", "otros_delitos_del_fuero_comun"),
    ],
)
def test_crime_for_labels(bien, tipo, subtipo, key):
    assert crime_for_labels(bien, tipo, subtipo).delito == key


def test_unknown_crime_extends_the_catalog():
    crime = crime_for_labels(None, "Robo", "Robo de bicicleta")
    assert (crime.delito, crime.tipo_key, crime.bien_juridico) == ("robo_de_bicicleta", "robo", "El patrimonio")
    assert crime.sinonimos == () and crime not in load_crimes()


def test_tipo_level_entries_name_what_they_sum():
    assert set(crime_by_key("violacion").incluye) == {"violacion_simple", "violacion_equiparada"}
    assert set(crime_by_key("homicidio").incluye) == {"homicidio_doloso", "homicidio_culposo"}
    assert len(crime_by_key("robo").incluye) == 14
    assert crime_by_key("no_existe") is None


@pytest.mark.parametrize(
    "modalidad, subtipo, key, violencia",
    [
        # violencia is only "con"/"sin" where SESNSP's label says so; weapons describe the means.
        ("Con arma de fuego", "Homicidio doloso", "con_arma_de_fuego", None),
        ("En accidente de tránsito", "Homicidio culposo", "en_accidente_de_transito", None),
        ("Con violencia", "Robo a institución bancaria", "con_violencia", "con"),
        ("sin violencia", "Robo a negocio", "sin_violencia", "sin"),
        (
            "Robo de coche de 4 ruedas Con violencia",
            "Robo de vehículo automotor",
            "robo_de_coche_de_4_ruedas_con_violencia",
            "con",
        ),
        ("Secuestro exprés", "Secuestro", "secuestro_expres", None),
        (None, "Violencia familiar", "violencia_familiar", None),
        ("", "Abuso sexual", "abuso_sexual", None),
        ("Robo de bicicleta Con violencia", "Otros robos", "robo_de_bicicleta_con_violencia", "con"),
    ],
)
def test_method_for_label(modalidad, subtipo, key, violencia):
    method = method_for_label(modalidad, subtipo)
    assert (method.metodo, method.violencia) == (key, violencia)


def test_synonyms_are_unique_across_crimes_series_and_methods():
    owners = {}
    entries = (
        [(c.delito, c.sinonimos) for c in load_crimes()]
        + [(s.delito, s.sinonimos) for s in load_series()]
        + [("metodo:" + m.metodo, m.sinonimos) for m in load_methods()]
    )
    for key, synonyms in entries:
        for syn in synonyms:
            assert syn == syn.lower(), syn
            owners.setdefault(normalize_text(syn), set()).add(key)
    assert {s: k for s, k in owners.items() if len(k) > 1} == {}


def test_documentation():
    in_data = {crime_for_labels(b, t, s).delito for b, t, s, _ in DATA_LABELS}
    for crime in load_crimes():
        assert crime.descripcion.strip() and crime.bien_juridico, crime.delito
        if crime.delito in in_data:
            assert crime.sinonimos, crime.delito
    assert all(m.modalidad.strip() for m in load_methods())
    assert all(s.descripcion.strip() and s.sinonimos for s in load_series())


@pytest.mark.parametrize("year, metodologia", [(2015, "IDFC"), (2025, "IDFC"), (2026, "RNID"), (2030, "RNID")])
def test_methodology_for_year(year, metodologia):
    assert methodology_for_year("total_delitos", year) == metodologia


def test_methodology_outside_the_series():
    with pytest.raises(ValueError):
        methodology_for_year("total_delitos", 2014)
    with pytest.raises(KeyError):
        methodology_for_year("no_existe", 2020)


def test_loader_rejects_a_synonym_clash(tmp_path):
    catalogs = tmp_path / "catalogs"
    shutil.copytree(CATALOGS_DIR / "taxonomy", catalogs / "taxonomy")
    path = catalogs / "taxonomy" / "delitos.json"
    doc = json.loads(path.read_text(encoding="utf-8"))
    doc["delitos"][1]["sinonimos"].append("asesinatos")  # homicidio_culposo steals doloso's word
    path.write_text(json.dumps(doc, ensure_ascii=False), encoding="utf-8")
    with pytest.raises(ValueError, match="homicidio_doloso"):
        load_crimes(catalogs)


def test_groups_are_named_sums_of_subtipos_of_one_tipo():
    groups = {g.delito: g for g in load_groups()}
    assert set(groups["robo_a_transeunte"].incluye) == {
        "robo_a_transeunte_en_via_publica",
        "robo_a_transeunte_en_espacio_abierto_al_publico",
    }
    by_key = {c.delito: c for c in load_crimes()}
    for g in groups.values():
        assert g.nivel == "grupo" and g.descripcion and g.sinonimos and g.delito not in by_key
        assert all(by_key[k].nivel == "subtipo" and by_key[k].tipo_key == g.tipo_key for k in g.incluye)


def test_a_group_with_a_member_of_another_tipo_is_refused(tmp_path):
    (tmp_path / "taxonomy").mkdir()
    for name in ("delitos.json", "metodos.json"):
        (tmp_path / "taxonomy" / name).write_text(
            (CATALOGS_DIR / "taxonomy" / name).read_text(encoding="utf-8"), encoding="utf-8"
        )
    bad = {
        "grupos": [
            {
                "delito": "robo_raro",
                "subtipo": "Robo raro",
                "tipo": "Robo",
                "tipo_key": "robo",
                "incluye": ["robo_a_negocio", "homicidio_doloso"],
                "sinonimos": [],
                "descripcion": "x",
            }
        ]
    }
    (tmp_path / "taxonomy" / "grupos.json").write_text(json.dumps(bad), encoding="utf-8")
    with pytest.raises(ValueError, match="no es un subtipo"):
        load_groups(tmp_path)
