"""Crimes and methods: labels, synonyms, plurals, typos, tipo-level keys, keys not in the store."""

from __future__ import annotations

import pytest

CRIMES = [
    ("¿Cuántos homicidios dolosos hubo en León?", ["homicidio_doloso"]),
    ("homicidio doloso en Celaya", ["homicidio_doloso"]),
    ("asesinatos en León", ["homicidio_doloso"]),
    ("ejecuciones en Celaya", ["homicidio_doloso"]),
    ("homicidios intencionales", ["homicidio_doloso"]),
    ("homicidios en León", ["homicidio"]),  # tipo level: doloso + culposo
    ("homicidios culposos", ["homicidio_culposo"]),
    ("homisidios dolosos en Irapuato", ["homicidio_doloso"]),
    ("homisidios en Irapuato", ["homicidio"]),
    ("feminicidios en 2024", ["feminicidio"]),
    ("feminisidios en Salamanca", ["feminicidio"]),
    ("femicidios", ["feminicidio"]),
    ("violencia familiar en Irapuato", ["violencia_familiar"]),
    ("violencia familar en Irapuato", ["violencia_familiar"]),
    ("violencia intrafamiliar", ["violencia_familiar"]),
    ("violencia domestica en León", ["violencia_familiar"]),
    ("secuestros en Celaya", ["secuestro"]),
    ("plagios", ["secuestro"]),
    ("robos en León", ["robo"]),
    ("robo de vehículos en León", ["robo_de_vehiculo_automotor"]),
    ("robos de autos", ["robo_de_vehiculo_automotor"]),
    ("robo a casa habitación", ["robo_a_casa_habitacion"]),
    ("robos a bancos", ["robo_a_institucion_bancaria"]),
    ("lesiones dolosas", ["lesiones_dolosas"]),
    ("violaciones en León", ["violacion"]),
    ("abuso sexual en Celaya", ["abuso_sexual"]),
    ("trata de personas", ["trata_de_personas"]),
    ("narcomenudeo en León", ["narcomenudeo"]),
    ("extorsión y fraude en León", ["extorsion", "fraude"]),
    ("cobro de piso", ["extorsion"]),
    ("feminicidios y homicidios dolosos en León", ["feminicidio", "homicidio_doloso"]),
    ("total de delitos en León", ["total_delitos"]),
    ("todos los delitos en 2024", ["total_delitos"]),
    ("incidencia total del estado", ["total_delitos"]),
    ("¿Cuántos delitos hubo en León?", ["total_delitos"]),  # no crime named: the yearly total
    ("¿Qué municipio tuvo más delitos en total en 2024?", ["total_delitos"]),
    ("Los 5 municipios con más delitos del fuero común en 2022", ["total_delitos"]),
    ("¿Qué delitos ocurren juntos en León?", []),
    ("¿Cuántos casos hubo en Celaya?", []),
    ("homicidio dolozo en penjamo en 2023", ["homicidio_doloso"]),  # exact "homicidio" + a misspelled qualifier
    ("homicidios dolosos y culposos en León", ["homicidio_doloso", "homicidio_culposo"]),
    ("¿Cuántos homicidios, dolosos y culposos juntos, hubo en Salamanca?", ["homicidio"]),
    ("lesiones dolosas y culposas", ["lesiones_dolosas", "lesiones_culposas"]),
    ("¿cuántos homicidios hubo en Celaya en los últimos 12 meses?", ["homicidio"]),
    # a qualifier alone names the loaded crime it agrees with; after a comma it heads its own phrase
    ("León, dolosos, 2023", ["homicidio_doloso"]),
    ("Irapuato, culposos: 2022", ["homicidio_culposo"]),
    ("dolosos león 2023", ["homicidio_doloso"]),
    ("Irapuato, h. culposos, 2022", ["homicidio_culposo"]),  # the tables' «h.» for homicidio
    ("Salamanca: h. dolosos en 2021", ["homicidio_doloso"]),
    ("posesión simple en León 2024", ["narcomenudeo_posesion_simple"]),  # «simple» qualifies the word before it
    # a 2026 subtipo «A y B de C» is also «A de C» and «B de C»
    ("suplantación de identidad en Guanajuato 2026", ["suplantacion_y_usurpacion_de_identidad"]),
    ("usurpación de identidad en Jalisco en 2026", ["suplantacion_y_usurpacion_de_identidad"]),
]


@pytest.mark.parametrize("question,expected", CRIMES)
def test_crimes(ask, question, expected):
    assert [c.delito for c in ask(question).crimes] == expected


# a list of kinds after one crime, its name elided (session 20): each kind is a crime, no word left unread
COORDINATED = [
    (
        "robos a negocio, casa y transeúnte en Celaya 2024, cada uno",
        ["robo_a_negocio", "robo_a_casa_habitacion", "robo_a_transeunte"],
    ),
    ("robo a negocio y casa habitación en Irapuato 2024", ["robo_a_negocio", "robo_a_casa_habitacion"]),
    (
        "robos a casa, negocio y transeúnte en Irapuato 2024",
        ["robo_a_casa_habitacion", "robo_a_negocio", "robo_a_transeunte"],
    ),
    ("robos a casa habitación y negocios en Irapuato 2024", ["robo_a_casa_habitacion", "robo_a_negocio"]),
]


@pytest.mark.parametrize("question,expected", COORDINATED)
def test_kinds_listed_after_a_crime_are_its_siblings(ask, question, expected):
    u = ask(question)
    assert [c.delito for c in u.crimes] == expected
    assert not u.unknown_terms, u.unknown_terms


# a bare tipo asked «de cada tipo» / «por tipo» (session 20): its dolosos and culposos, each, never «¿cuál quieres?»;
# «por modalidad» still asks which (a modalidad split of the mixed tipo is another question)
KINDS_OF_A_BARE_TIPO = [
    ("homicidios por tipo en León 2024", ["homicidio_doloso", "homicidio_culposo"]),
    ("¿cuántos homicidios de cada tipo hubo en Celaya en 2023?", ["homicidio_doloso", "homicidio_culposo"]),
    ("lesiones de cada clase en Irapuato en 2024", ["lesiones_dolosas", "lesiones_culposas"]),
]


@pytest.mark.parametrize("question,expected", KINDS_OF_A_BARE_TIPO)
def test_the_kinds_of_a_bare_tipo_are_its_subtipos(ask, question, expected):
    u = ask(question)
    assert [c.delito for c in u.crimes] == expected
    assert not [s for s in u.signals if s.startswith("crime:unqualified:")], u.signals


IN_DATA = [
    ("homicidios dolosos", True),
    ("homicidios", True),  # a tipo is answerable when every subtype it sums is in the store
    ("robos", True),  # the municipal tipo × modalidad file carries Robo whole (decision 0012)
    ("robo de vehículos", False),
    ("robo a casa habitación", False),
    ("narcomenudeo", True),
    ("robo a negocio", False),  # a robo subtipo no municipal file publishes (the parquet has robo by modalidad)
    ("lesiones dolosas", False),  # lesiones is published at tipo level only
    ("feminicidios", True),
    ("total de delitos", True),
]


@pytest.mark.parametrize("question,in_data", IN_DATA)
def test_in_data(ask, question, in_data):
    u = ask(question)
    assert u.crimes[0].in_data is in_data
    assert ("crime:not_in_data" in u.signals) is (not in_data)


def test_crime_match_keeps_text_and_score(ask):
    c = ask("¿Cuántos homisidios dolosos hubo?").crimes[0]
    assert c.text == "homisidios dolosos" and 84 <= c.score < 100 and c.label == "Homicidio doloso"
    c = ask("asesinatos").crimes[0]
    assert (c.text, c.score) == ("asesinatos", 100.0)


METHODS = [
    ("homicidios con arma de fuego en León", ["con_arma_de_fuego"], None),
    ("homicidios a balazos en Celaya", ["con_arma_de_fuego"], None),
    ("homicidios con armas de fuego", ["con_arma_de_fuego"], None),
    ("homicidios con arma blanca", ["con_arma_blanca"], None),
    ("homicidios a puñaladas", ["con_arma_blanca"], None),
    ("robos con violencia en Celaya", ["con_violencia"], "con"),
    ("robos sin violencia en León", ["sin_violencia"], "sin"),
    ("robos violentos", ["con_violencia"], "con"),
    ("homicidios culposos en accidentes de tránsito", ["en_accidente_de_transito"], None),
    ("robo de auto con violencia", ["robo_de_coche_de_4_ruedas_con_violencia"], "con"),
    ("secuestro extorsivo", ["secuestro_extorsivo"], None),
    ("homicidios en León", [], None),
    ("¿Cuáles son los municipios más violentos?", [], None),  # a ranking, not a "con violencia" filter
]


@pytest.mark.parametrize("question,methods,violencia", METHODS)
def test_methods(ask, question, methods, violencia):
    u = ask(question)
    assert u.methods == methods
    assert u.violencia == violencia


def test_method_and_crime_from_one_phrase(ask):
    u = ask("robo de auto con violencia en León")
    assert [c.delito for c in u.crimes] == ["robo_de_vehiculo_automotor"]
    assert u.violencia == "con"


@pytest.mark.parametrize(
    "question,bare",
    [
        ("homicidios en Celaya en 2023", True),
        ("¿cuántos homicidios hubo en León?", True),
        ("top 5 municipios con más homicidio", True),
        ("homicidios dolosos en Celaya", False),
        ("homicidios culposos en León", False),
        ("todos los homicidios en Celaya", False),
        ("homicidios totales en Irapuato", False),
        ("¿Cuántos homicidios, dolosos y culposos juntos, hubo en Salamanca?", False),
        ("homicidios dolosos y culposos en Celaya", False),
        ("violaciones en León en 2020", False),  # simple + equiparada: one crime, not a question of intent
        ("feminicidios en León", False),
    ],
)
def test_bare_homicide_is_marked_to_ask(ask, question, bare):
    """docs/decisions/0010: «homicidios» alone is asked, never summed silently."""
    assert any(s.startswith("crime:unqualified:") for s in ask(question).signals) is bare
