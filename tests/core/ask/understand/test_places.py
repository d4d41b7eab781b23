"""Places: names, aliases, typos, state vs municipality of Guanajuato, generic and ambiguous places."""

from __future__ import annotations

import pytest

from core.ask.understand.parse import understand
from tests.core.ask.understand.helpers import ANCHOR, MIN_DATE

PLACES = [
    ("¿Cuántos homicidios hubo en León en 2024?", ["GTO.MUN.LEON"]),
    ("homicidios en Leon", ["GTO.MUN.LEON"]),
    ("homicidios en leon gto", ["GTO.MUN.LEON"]),  # "gto" qualifies León: not a second place
    ("¿Cuántos homicidios hubo en León, Gto. en 2024?", ["GTO.MUN.LEON"]),
    ("homicidios en León, Guanajuato", ["GTO.MUN.LEON"]),
    ("robos en Celaya de Guanajuato", ["GTO.MUN.CELAYA"]),
    ("homicidios en León de los Aldama", ["GTO.MUN.LEON"]),
    ("robos en Irapuato", ["GTO.MUN.IRAPUATO"]),
    ("IRAPUATO homicidios", ["GTO.MUN.IRAPUATO"]),
    ("homicidios en Silao", ["GTO.MUN.SILAO_DE_LA_VICTORIA"]),
    ("homicidios en Silao de la Victoria", ["GTO.MUN.SILAO_DE_LA_VICTORIA"]),  # longest match beats "Victoria"
    ("homicidios en Victoria", ["GTO.MUN.VICTORIA"]),
    ("homicidios en Dolores", ["GTO.MUN.DOLORES_HIDALGO_CUNA_DE_LA_INDEPENDENCIA_NACIONAL"]),
    ("homicidios en Dolores Hidalgo", ["GTO.MUN.DOLORES_HIDALGO_CUNA_DE_LA_INDEPENDENCIA_NACIONAL"]),
    ("homicidios en San Miguel", ["GTO.MUN.SAN_MIGUEL_DE_ALLENDE"]),
    ("homicidios en San Miguel de Allende", ["GTO.MUN.SAN_MIGUEL_DE_ALLENDE"]),
    ("secuestros en SMA", ["GTO.MUN.SAN_MIGUEL_DE_ALLENDE"]),
    ("homicidios en Dr. Mora", ["GTO.MUN.DOCTOR_MORA"]),
    ("homicidios en San Pancho", ["GTO.MUN.SAN_FRANCISCO_DEL_RINCON"]),
    ("homicidios en Juventino Rosas", ["GTO.MUN.SANTA_CRUZ_DE_JUVENTINO_ROSAS"]),
    ("homicidios en Pénjamo", ["GTO.MUN.PENJAMO"]),
    ("homicidios en penjamo", ["GTO.MUN.PENJAMO"]),
    ("homicidios en Acambaro", ["GTO.MUN.ACAMBARO"]),
    ("homicidios en Valle de Santiago", ["GTO.MUN.VALLE_DE_SANTIAGO"]),
    ("homicidios en Valle", ["GTO.MUN.VALLE_DE_SANTIAGO"]),
    ("homicidios en Tierra Blanca con arma blanca", ["GTO.MUN.TIERRA_BLANCA"]),
    ("homicidios en Maravatío", ["GTO.MUN.SANTIAGO_MARAVATIO"]),  # a distinctive part of the name
    ("¿Cuántos homisidios hubo en Celayaa?", ["GTO.MUN.CELAYA"]),
    ("feminicidios en Salamnca", ["GTO.MUN.SALAMANCA"]),
    ("robos en Irapuatoo", ["GTO.MUN.IRAPUATO"]),
    ("homicidios en Moroleon y Uriangato", ["GTO.MUN.MOROLEON", "GTO.MUN.URIANGATO"]),
    ("homicidios en León y Celaya en 2024", ["GTO.MUN.LEON", "GTO.MUN.CELAYA"]),
    (
        "homicidios en León, Celaya, Valle e Irapuato",
        ["GTO.MUN.LEON", "GTO.MUN.CELAYA", "GTO.MUN.VALLE_DE_SANTIAGO", "GTO.MUN.IRAPUATO"],
    ),
    ("¿Cuántos homicidios hubo en el municipio de Guanajuato en 2024?", ["GTO.MUN.GUANAJUATO"]),
    ("homicidios en Guanajuato capital", ["GTO.MUN.GUANAJUATO"]),
    ("homicidios en la ciudad de Guanajuato", ["GTO.MUN.GUANAJUATO"]),
]


@pytest.mark.parametrize("question,expected", PLACES)
def test_places(ask, question, expected):
    u = ask(question)
    assert [p.entidad_id for p in u.places] == expected
    assert not u.whole_state and not u.ambiguous_places and u.generic_place is None


def test_place_match_keeps_text_and_score(ask):
    exact, fuzzy = ask("homicidios en León").places[0], ask("homicidios en Salamnca").places[0]
    assert (exact.text, exact.score, exact.nivel, exact.label) == ("leon", 100.0, "municipio", "León")
    assert fuzzy.text == "salamnca" and 84 <= fuzzy.score < 100
    assert "place:fuzzy" in ask("homicidios en Salamnca").signals


STATE = [
    "¿Cuántos homicidios hubo en Guanajuato en 2024?",
    "homicidios en todo el estado en 2024",
    "homicidios en el estado",
    "homicidios en el estado de Guanajuato",
    "incidencia a nivel estatal",
    "homicidios en toda la entidad",
    "homicidios en Gto",
    "secuestros en el edo. de Guanajuato",
    "¿En qué municipio de Guanajuato hubo más homicidios?",  # B4: the state is the scope, not a filter
    "¿Cuál es el municipio de Guanajuato con más robos?",
]


@pytest.mark.parametrize("question", STATE)
def test_whole_state(ask, question):
    u = ask(question)
    assert u.whole_state is True
    assert [p.entidad_id for p in u.places] == ["GTO"]
    assert u.places[0].nivel == "estado"


def test_state_and_municipality_together(ask):
    u = ask("¿Qué porcentaje de los homicidios del estado ocurrieron en León?")
    assert {p.entidad_id for p in u.places} == {"GTO", "GTO.MUN.LEON"} and u.whole_state


GENERIC = [
    ("¿Cuántos homicidios hubo en mi municipio?", "en mi municipio"),
    ("robos en mi ciudad", "en mi ciudad"),
    ("robos por donde vivo", "por donde vivo"),
    ("¿cuántos robos hay donde vivo?", "donde vivo"),
    ("asaltos en mi colonia", "en mi colonia"),
    ("¿hay muchos homicidios aquí?", "aqui"),
    ("¿cómo está la seguridad en mi zona?", "en mi zona"),
    ("homicidios en mi provincia", "en mi provincia"),
]


@pytest.mark.parametrize("question,generic", GENERIC)
def test_generic_place(ask, question, generic):
    u = ask(question)
    assert u.generic_place == generic
    assert not u.places and "place:generic" in u.signals


AMBIGUOUS = [
    ("homicidios en Santiago", {"GTO.MUN.SANTIAGO_MARAVATIO", "GTO.MUN.VALLE_DE_SANTIAGO"}),
    ("homicidios en Apaseo", {"GTO.MUN.APASEO_EL_ALTO", "GTO.MUN.APASEO_EL_GRANDE"}),
    ("homicidios en el Rincón", {"GTO.MUN.PURISIMA_DEL_RINCON", "GTO.MUN.SAN_FRANCISCO_DEL_RINCON"}),
]


@pytest.mark.parametrize("question,options", AMBIGUOUS)
def test_ambiguous_place(ask, question, options):
    u = ask(question)
    assert not u.places
    assert {p.entidad_id for p in u.ambiguous_places[0]} == options
    assert "place:ambiguous" in u.signals


NO_PLACE = [
    "¿Cuántos homicidios hubo en 2024?",
    "la victoria de la selección",  # a weak name without a place cue
    "homicidios en el valle de la muerte",
    "robo a casa habitación",
    "¿qué municipios tienen más robos?",
    "homicidios con arma blanca",
    "modalidad no especificada",
]


@pytest.mark.parametrize("question", NO_PLACE)
def test_no_place(ask, question):
    u = ask(question)
    assert not u.places and not u.whole_state


def test_state_not_in_store_is_reported(ask):
    u = ask("homicidios en Jalisco")  # a state alone is the national tables' place (issue 14), never Guanajuato's
    assert not u.places and "national:place:JAL" in u.signals
    u = ask("homicidios en Nuevo León")  # longest match: the state, not León
    assert not u.places and "national:place:NL" in u.signals


def test_unknown_capitalized_place_is_reported(ask):
    """Tepic is another state's municipality: reported as outside the store (ADR 0009), never Guanajuato."""
    u = ask("homicidios en Tepic en 2024")
    assert "place:other_state" in u.signals and not u.places
    assert [(t.kind, t.text) for t in u.unknown_terms] == [("place_foreign", "tepic")]


OTHER_STATE_SHORT_FORMS = [
    # a short everyday form of another state's municipality counts written as a name or after a cue
    ("homicidios dolosos en tlaquepaque en 2023", ["tlaquepaque"]),
    ("Tlaquepaque: homicidios dolosos 2023", ["tlaquepaque"]),
    # … never as an ordinary word of the sentence («nombre» is the short form of Nombre de Dios, Durango)
    ("dame el nombre del delito con más casos en León en 2024", []),
    ("homicidios dolosos en Celaya, dame el nombre y la fecha", []),
]


@pytest.mark.parametrize("question,foreign", OTHER_STATE_SHORT_FORMS)
def test_short_forms_of_other_states_need_a_name_or_a_cue(ask, question, foreign):
    u = ask(question)
    assert [t.text for t in u.unknown_terms if t.kind == "place_foreign"] == foreign


JALISCO = [
    ("homicidios en Guadalajara en 2024", ["JAL.MUN.GUADALAJARA"], False),
    ("homicidios en Zapopan", ["JAL.MUN.ZAPOPAN"], False),
    ("homicidios en Guadalajra", ["JAL.MUN.GUADALAJARA"], False),
    ("homicidios en Jalisco", ["JAL"], True),
    ("homicidios en el estado", ["JAL"], True),
    ("homicidios en Guanajuato", [], False),
]


@pytest.mark.parametrize("question,expected,whole", JALISCO)
def test_jalisco_store(jalisco_lexicon, question, expected, whole):
    u = understand(question, jalisco_lexicon, ANCHOR, MIN_DATE)
    assert [p.entidad_id for p in u.places] == expected
    assert u.whole_state is whole
