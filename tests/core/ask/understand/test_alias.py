"""Press and SESNSP vocabulary (catalogs/taxonomy/alias_prensa.json): abbreviations and colloquial names."""

from __future__ import annotations

import json

import pytest

from core.ask.understand.lexicon import ALIAS_FILE
from core.config import CATALOGS_DIR

# (question, crimes, methods, places) as the press, analysts and citizens write them. Written before the data file.
PHRASINGS = [
    ("hom. dolosos Celaya 2023", ["homicidio_doloso"], [], ["Celaya"]),
    ("Hom. dol. en León en 2022", ["homicidio_doloso"], [], ["León"]),
    ("hom. culposos en Irapuato", ["homicidio_culposo"], [], ["Irapuato"]),
    ("VF en León 2021", ["violencia_familiar"], [], ["León"]),
    ("casos de viol. fam. en Salamanca", ["violencia_familiar"], [], ["Salamanca"]),
    ("violencia intrafamiliar en Celaya en 2020", ["violencia_familiar"], [], ["Celaya"]),
    ("ejecutados en Celaya 2023", ["homicidio_doloso"], [], ["Celaya"]),
    ("¿cuántas ejecuciones hubo en Salamanca?", ["homicidio_doloso"], [], ["Salamanca"]),
    ("personas asesinadas en Irapuato en 2024", ["homicidio_doloso"], [], ["Irapuato"]),
    (
        "muertes en accidentes de tránsito en Irapuato 2023",
        ["homicidio_culposo"],
        ["en_accidente_de_transito"],
        ["Irapuato"],
    ),
    ("muertos en accidentes viales en León 2022", ["homicidio_culposo"], ["en_accidente_de_transito"], ["León"]),
    ("fallecidos en hechos de tránsito en Celaya", ["homicidio_culposo"], ["en_accidente_de_transito"], ["Celaya"]),
    ("homicidios dolosos en SMA en 2024", ["homicidio_doloso"], [], ["San Miguel de Allende"]),
    ("homicidios dolosos en Ira en 2023", ["homicidio_doloso"], [], ["Irapuato"]),
    ("feminicidios en Dolores en 2022", ["feminicidio"], [], ["Dolores Hidalgo Cuna de la Independencia Nacional"]),
    ("homicidios dolosos en León Gto 2023", ["homicidio_doloso"], [], ["León"]),
    ("homicidios dolosos en León, Gto., en 2023", ["homicidio_doloso"], [], ["León"]),
    ("hom. dolosos con AF en Celaya", ["homicidio_doloso"], ["con_arma_de_fuego"], ["Celaya"]),
    ("homicidios dolosos por arma de fuego en Salamanca", ["homicidio_doloso"], ["con_arma_de_fuego"], ["Salamanca"]),
    ("secuestros exprés en Gto", ["secuestro"], ["secuestro_expres"], ["Guanajuato"]),
    ("asaltos bancarios en León", ["robo_a_institucion_bancaria"], [], ["León"]),
    ("trata en Celaya en 2019", ["trata_de_personas"], [], ["Celaya"]),
    ("denuncias x golpes a la esposa en Salamanca en 2019", ["violencia_familiar"], [], ["Salamanca"]),
    ("asesinatos de mujeres por razones de género en León 2022", ["feminicidio"], [], ["León"]),
    (
        "¿Cuántas personas murieron en accidentes viales en León en 2023?",
        ["homicidio_culposo"],
        ["en_accidente_de_transito"],
        ["León"],
    ),
    (
        "gente que perdió la vida en accidentes de tránsito en Celaya",
        ["homicidio_culposo"],
        ["en_accidente_de_transito"],
        ["Celaya"],
    ),
    ("secuestros con calidad de rehén en Irapuato", ["secuestro"], ["secuestro_con_calidad_de_rehen"], ["Irapuato"]),
    ("secuestros para causar daño en el estado", ["secuestro"], ["secuestro_para_causar_dano"], ["Guanajuato"]),
]


@pytest.mark.parametrize("question,crimes,methods,places", PHRASINGS)
def test_press_vocabulary(ask, question, crimes, methods, places):
    u = ask(question)
    assert [c.delito for c in u.crimes] == crimes
    assert u.methods == methods
    assert [p.label for p in u.places] == places


NOT_SESNSP = [
    ("levantones en Celaya en 2023", "levanton"),
    ("¿cuántas desapariciones hubo en León?", "desaparicion"),
    ("muertes violentas en Irapuato", "muertes violentas"),
]


def test_a_tipo_with_subtypes_missing_is_not_answered_as_their_sum(ask):
    """«robos» is the municipal file's tipo-level Robo (decision 0012), never the loaded subtipos summed; a subtipo
    no municipal file publishes (robo a transeúnte, lesiones dolosas) is not in the data."""
    u = ask("¿cuántos robos hubo en Celaya en 2024?")
    assert [(c.delito, c.in_data) for c in u.crimes] == [("robo", True)]
    assert [(c.delito, c.in_data) for c in ask("lesiones dolosas en Celaya en 2024").crimes] == [
        ("lesiones_dolosas", False)
    ]
    assert [c.in_data for c in ask("robo a transeúnte en León en 2023").crimes] == [False]
    assert [c.in_data for c in ask("homicidios en León").crimes] == [True]


@pytest.mark.parametrize("question,term", NOT_SESNSP)
def test_not_a_sesnsp_category_is_said(ask, question, term):
    u = ask(question)
    assert len(u.crimes) == 1 and not u.crimes[0].in_data
    assert u.crimes[0].delito.startswith("no_sesnsp:")
    assert "categoría del SESNSP" in u.crimes[0].note
    assert "crime:not_sesnsp" in u.signals


def test_every_alias_has_a_source_and_a_known_target(catalog):
    data = json.loads((CATALOGS_DIR / ALIAS_FILE).read_text(encoding="utf-8"))
    crimes = {c["delito"] for c in catalog.crimes}
    methods = {m["metodo"] for m in catalog.methods}
    places = {e["entidad_id"] for e in catalog.entities}
    for entry in data["delitos"]:
        assert entry["fuente"] and entry["delito"] in crimes, entry
        assert all(m in methods for m in [*entry.get("metodos", ()), *filter(None, [entry.get("metodo")])]), entry
    for entry in data["modalidades"]:
        assert entry["fuente"] and entry["metodo"] in methods, entry
    for entry in data["lugares"]:
        assert entry["fuente"] and entry["entidad_id"] in places, entry
    for entry in data["no_sesnsp"]:
        assert entry["fuente"] and entry["nota"] and all(k in crimes for k in entry["cercanos"]), entry
