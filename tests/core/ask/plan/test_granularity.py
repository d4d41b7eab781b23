"""Honest granularity (issue 14 §5, core/ask/plan/granularity.py): a question at a level the municipal data do not
publish gets what exists and says so before any number; a kind the data carry another way gets its exact figure.

Figures are the raw tipo × modalidad parquet's and the README's (checked by DuckDB over data/raw, never the store)."""

from __future__ import annotations

import pytest

from core.ask.context import Assistant
from core.ask.pipeline import Conversation
from core.text import normalize_text


@pytest.fixture(scope="module")
def assistant(bundled_settings):
    """The pipeline over the bundled store, without the same-day cache."""
    return Assistant(settings=bundled_settings, use_cache=False)


def answer(assistant, question: str):
    turn = assistant.ask(question, Conversation(), planner="rules")
    return turn, normalize_text(turn.answer.text)


# (question, the figure that must be said, words the answer must say, words it must not say)
CASES = [
    # the tipo the parquet publishes by municipality
    ("robos en León en 2024", "8,375", [], ["no se publica"]),
    ("¿cuántas extorsiones hubo en Celaya en 2024?", "208", [], []),
    ("violencia familiar en León 2024", "2,881", [], []),
    # a bare tipo whose subtipos the municipal data do not separate: the total, said to sum them (no question back)
    ("lesiones en Salamanca en 2022", "633", ["lesiones dolosas y lesiones culposas"], []),
    ("homicidios en Salamanca 2016", "203", ["en ese periodo", "homicidio doloso y homicidio culposo"], []),
    # a subtipo published later (2020): the mixed total for the municipality and the subtipo for the state
    ("homicidio doloso en Salamanca en 2016", "203", ["antes de 2020", "solo se publica por estado", "947"], []),
    # a subtipo no municipality publishes (Irapuato's own file aside): the state's figure and the tipo by modalidad
    ("robo a transportista en Silao en 2021", "1,471", ["no se publica por municipio", "sin desglose por subtipo"], []),
    ("robo a negocio en León 2024", "4,169", ["no se publica por municipio", "solo irapuato lo desglosa"], []),
    # Irapuato's own file publishes every subtipo (README: robo a negocio 2024 = 1,001; homicidio doloso 2017 = 70)
    ("robo a negocio en Irapuato 2024", "1,001", [], ["no se publica"]),
    ("homicidio doloso en Irapuato en 2017", "70", [], ["no se publica"]),
    # «robo a transeúnte» sums the SESNSP's two subtipos: Irapuato's own file has both (espacio abierto: 0)
    ("robo a transeúnte en Irapuato en 2024", "173", ["robo a transeunte"], ["no se publica", "via publica"]),
    ("asaltos a transeúntes en Silao en 2024", "442", ["no se publica por municipio"], []),
    # a subtipo named beside the sum that includes it («asaltos en la calle», vía pública) is that sum
    ("me asaltaron en la calle en celaya, cuantos asaltos a transeuntes hubo en 2023?", "378", ["por municipio"], []),
    # a subtipo the tipo rows carry whole as its own modalidades: exact (coche, moto, embarcaciones)
    ("robo de vehículos en León 2024", "648", ["modalidades que solo el tiene"], []),
    # «con violencia» is every robo kind with violence, vehicles included (README: Celaya 2024 = 1,271)
    ("¿Cuántos robos con violencia hubo en Celaya en 2024?", "1,271", ["vehiculos incluidos"], []),
    # … and the SESNSP's own «Con violencia» row beside the vehicles (README: both figures are cited)
    ("robo con violencia en Silao en 2021", "521", ["de ellos: con violencia 438", "con violencia 83"], []),
    ("robos con violencia en Guanajuato en 2024", "9,974", ["con violencia 8,332", "con violencia 1,642"], []),
    # the state asked before its municipalities separate the subtipo: the state file has it
    ("Homicidios culposos en Guanajuato en 2017", "2,282", ["antes de 2020", "archivo estatal"], []),
    # a municipality that shares its state's name is said to be the municipality (the capital)
    ("robo sin violencia en Guanajuato capital, 2023", "1,856", ["el municipio de guanajuato registro"], []),
    # victims are published by state only: a municipality's carpetas, said to be carpetas, never called victims
    ("víctimas de extorsión en Celaya en 2024", "208", ["victimas (por sexo y edad) solo por estado"], []),
    ("mujeres víctimas de feminicidio en Irapuato 2024", "1", ["solo por estado, no por municipio"], []),
    # a tipo of two subtipos both published there: the sum with its parts (README: León Jan 2025 = 49 + 5)
    ("homicidios totales en leon enero 2025", "54", ["homicidio doloso 49", "homicidio culposo 5"], []),
    ("violación en León 2021", "209", ["violacion simple 181", "violacion equiparada 28"], []),
    ("todos los homicidios en Guanajuato en 2023", "3,640", ["homicidio doloso 2,581", "homicidio culposo 1,059"], []),
    # no period asked (blind dev_o): each figure over its own series' last 12 published months, said; never a tool's
    # argument error
    ("robo a negocio en León", "8,284", ["no se publica por municipio", "sin periodo en la pregunta"], ["requiere"]),
    ("cuantos robos de autopartes hay en celaya", "3,443", ["no se publica por municipio"], ["requiere"]),
    # a subtipo with a modalidad (blind dev_m): the state's figure keeps the modalidad; the municipality's tipo says
    # it mixes both subtipos, and its own lead names no modalidad it was not filtered by
    (
        "lesiones dolosas con arma blanca en León 2023",
        "720",
        ["lesiones dolosas y lesiones culposas suman una sola cifra", "con arma blanca 183"],
        ["lesiones con arma blanca entre"],
    ),
]


@pytest.mark.parametrize(("question", "figure", "says", "never"), CASES, ids=[c[0] for c in CASES])
def test_what_exists_is_answered_and_said(assistant, question, figure, says, never):
    turn, text = answer(assistant, question)
    assert turn.planner_state.strategy == "retrieve_then_answer", turn.answer.text
    assert figure in turn.answer.text, turn.answer.text
    for words in says:
        assert normalize_text(words) in text, turn.answer.text
    for words in never:
        assert normalize_text(words) not in text, turn.answer.text


def test_the_granularity_sentence_comes_before_any_number(assistant):
    turn, _ = answer(assistant, "robo a transportista en Silao en 2021")
    first = turn.answer.text.split(". ")[0]
    assert "no se publica por municipio" in first and not any(ch.isdigit() for ch in first)


def test_a_place_outside_the_store_is_never_answered_with_guanajuato(assistant):
    """«robo a negocio en Guadalajara»: no state or municipal figure of Guanajuato in its place."""
    turn, _ = answer(assistant, "robo a negocio en Guadalajara 2024")
    assert turn.envelopes == [] and "4,169" not in turn.answer.text


@pytest.mark.parametrize(
    ("question", "words"),
    [
        ("¿Cuántos robos de celular hubo en León en 2024?", "celular"),
        ("me robaron el celular en irapuato, cuantos robos de celular ha habido en 2024", "celular"),
        ("robo de bicicletas en Celaya 2023", "bicicletas"),
    ],
)
def test_a_kind_sesnsp_does_not_publish_is_asked_back_without_a_number(assistant, question, words):
    """«robo de celular»: SESNSP counts no robbery by the object taken; all robo is offered, never passed off as it."""
    turn, text = answer(assistant, question)
    assert turn.status == "clarify" and turn.envelopes == [], turn.answer.text
    assert f"no publica robo desglosado por «{words}»" in text and not any(ch.isdigit() for ch in turn.answer.text)
    assert turn.answer.clarifying_options == ["Todo robo"]


@pytest.mark.parametrize("reply", ["sí", "Sí, por favor", "dale", "todo robo"])
def test_a_yes_takes_the_one_option_offered(assistant, reply):
    conversation = Conversation()
    assistant.ask("robo de celular en León 2023", conversation, planner="rules")
    second = assistant.ask(reply, conversation, planner="rules")
    assert "8,430" in second.answer.text, second.answer.text  # every robo in León, 2023 (README)


@pytest.mark.parametrize(
    "question", ["robo a negocio en Zapopan 2023", "robo a casa habitación en Guadalupe, NL, 2022"]
)
def test_a_municipality_of_another_state_is_said_before_the_crime(assistant, question):
    """The place is why there is no number: never «robo a negocio no está cargado» for Zapopan (Jalisco)."""
    turn, text = answer(assistant, question)
    assert turn.envelopes == [] and "no tengo datos de" in text, turn.answer.text
    assert "no incluyen" not in text, turn.answer.text
