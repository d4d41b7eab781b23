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
    ("robo a casa habitación y robo a negocio en Silao", "3,205", ["sin periodo en la pregunta"], ["requiere"]),
    # a modalidad that only one of the crimes asked publishes filters that crime only (helper 53 found homicidio = 0)
    ("robo con violencia y homicidios dolosos en Celaya en 2024", "443", ["1,271"], ["homicidio doloso 0", "de ellos"]),
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


# another state's municipality after a question about Guanajuato: the state's figure is offered, and a yes leads
# with that state (Jalisco homicidio doloso Jan-Nov 2024: 1,333, 6th), never Guanajuato's figure or rank first
OTHER_STATE_FOLLOW_UPS = [
    ("¿En qué lugar está Guanajuato en homicidios dolosos en 2024?", "¿y en Guadalajara?", "sí"),
    ("¿En qué lugar está Guanajuato en homicidios dolosos en 2024?", "¿y Zapopan?", "va"),
    ("¿En qué lugar está Guanajuato en homicidios dolosos en 2024?", "¿y Zapopan?", "ok, dale"),
    ("homicidios dolosos en León en 2024", "¿y en Guadalajara?", "sí"),
    ("homicidios dolosos en León en 2024", "¿y en Zapopan?", "dale"),
]


@pytest.mark.parametrize(("first", "follow", "yes"), OTHER_STATE_FOLLOW_UPS)
def test_an_accepted_offer_leads_with_its_state(assistant, first, follow, yes):
    conversation = Conversation()
    assistant.ask(first, conversation, planner="rules")
    offer = assistant.ask(follow, conversation, planner="rules")
    assert offer.status == "clarify" and "De Jalisco sí tengo la cifra estatal" in offer.answer.text, offer.answer.text
    turn = assistant.ask(yes, conversation, planner="rules")
    assert turn.answer.text.startswith("Jalisco"), turn.answer.text
    assert "1,333" in turn.answer.text and "2,324" not in turn.answer.text, turn.answer.text


@pytest.mark.parametrize(
    "question", ["robo a negocio en Zapopan 2023", "robo a casa habitación en Guadalupe, NL, 2022"]
)
def test_a_municipality_of_another_state_is_said_before_the_crime(assistant, question):
    """The place is why there is no number: never «robo a negocio no está cargado» for Zapopan (Jalisco)."""
    turn, text = answer(assistant, question)
    assert turn.envelopes == [] and "no tengo datos de" in text, turn.answer.text
    assert "no incluyen" not in text, turn.answer.text


# Figures of Irapuato's own file (sesnsp/irapuato_idm_nm_2015-2025.json, summed by DuckDB over data/raw) and of the
# README (state file, tipo × modalidad parquet).
OWN_SERIES = [
    # Irapuato's own file runs to 2025-12, after the store's 2025-11: the whole year, and the footer says so
    ("robo a casa habitación en Irapuato en 2025", "266", ["datos de esta serie hasta diciembre de 2025"]),
    ("¿cuántos robos a casa habitación hubo en Irapuato en diciembre de 2025?", "22", ["diciembre de 2025"]),
    ("asaltos a negocios en Irapuato durante 2025", "986", ["datos de esta serie hasta diciembre de 2025"]),
    # no period said: the last 12 months of Irapuato's own series, not the store's
    ("robo a casa habitación en Irapuato", "266", ["enero a diciembre de 2025"]),
    # the tipo × modalidad parquet ends in 2025-05: its own end is said, not only the store's
    ("robos en León en 2025", "3,527", ["esta serie, hasta mayo de 2025"]),
]


@pytest.mark.parametrize(("question", "figure", "says"), OWN_SERIES, ids=[c[0] for c in OWN_SERIES])
def test_a_window_ends_where_its_own_series_does(assistant, question, figure, says):
    """A series that runs past the store is not cut at the store's last month; one that ends before says where."""
    turn, text = answer(assistant, question)
    assert figure in turn.answer.text, turn.answer.text
    for words in says:
        assert normalize_text(words) in text, turn.answer.text


# Relative periods count from the asked series' own last month, later (Irapuato's file, 2025-12) or earlier (the
# tipo × modalidad parquet 2025-05, victims 2025-06, federal 2025-07, the state file 2024-11) than the store's
# (2025-11), and say so; never a window past the series' end. Figures: Irapuato's JSON and the national files
# (the same figures asked with explicit months).
RELATIVE_FROM_SERIES_END = [
    ("¿cuántos robos a casa habitación hubo en Irapuato en lo que va del año?", "266", "diciembre de 2025"),
    ("robos a casa habitación en Irapuato en el último año", "266", "diciembre de 2025"),
    ("robos a casa habitación en Irapuato en los últimos 12 meses", "266", "diciembre de 2025"),
    ("robos a casa habitación en Irapuato el mes pasado", "22", "diciembre de 2025"),
    ("¿cuántos robos a casa habitación hubo en Irapuato el último mes?", "22", "diciembre de 2025"),
    ("robos en Celaya el mes pasado", "292", "mayo de 2025"),
    ("robos en Celaya en lo que va del año", "1,451", "mayo de 2025"),
    ("homicidios dolosos en Jalisco en lo que va del año", "1,333", "noviembre de 2024"),
    ("homicidios dolosos en Jalisco el mes pasado", "106", "noviembre de 2024"),
    ("homicidios dolosos en Jalisco en los últimos 12 meses", "1,454", "noviembre de 2024"),
    ("¿En qué lugar está Guanajuato en homicidios dolosos en lo que va del año?", "2,324", "noviembre de 2024"),
    ("delitos federales en Guanajuato el mes pasado", "497", "julio de 2025"),
    ("delitos federales en Guanajuato en los últimos 12 meses", "4,892", "julio de 2025"),
    ("% de mujeres víctimas de homicidio doloso en Guanajuato en lo que va del año", "1,606", "junio de 2025"),
]


@pytest.mark.parametrize(
    ("question", "figure", "end"), RELATIVE_FROM_SERIES_END, ids=[c[0] for c in RELATIVE_FROM_SERIES_END]
)
def test_a_relative_period_counts_from_its_series_end(assistant, question, figure, end):
    """«lo que va del año», «el mes pasado», «los últimos 12 meses» from the series' own end, said as such."""
    turn, text = answer(assistant, question)
    assert figure in turn.answer.text, turn.answer.text
    assert f"hasta {end}: el periodo relativo se conto desde ese mes" in text, turn.answer.text
    assert "periodo ajustado" not in text, turn.answer.text  # never a window past the series' end


@pytest.mark.parametrize(
    ("first", "follow", "figure", "end"),
    [
        ("homicidios dolosos en Jalisco en 2023", "¿y en lo que va del año?", "1,333", "noviembre de 2024"),
        ("robos a casa habitación en Irapuato en 2024", "¿y el mes pasado?", "22", "diciembre de 2025"),
        ("delitos federales en Guanajuato en 2023", "¿y en los últimos 12 meses?", "4,892", "julio de 2025"),
    ],
)
def test_a_follow_up_relative_period_counts_from_its_series_end(assistant, first, follow, figure, end):
    """The relative period of a follow-up («¿y en lo que va del año?») counts from the merged question's series."""
    conversation = Conversation()
    assistant.ask(first, conversation, planner="rules")
    turn = assistant.ask(follow, conversation, planner="rules")
    assert figure in turn.answer.text, turn.answer.text
    assert f"hasta {end}: el periodo relativo se conto desde ese mes" in normalize_text(turn.answer.text)


def test_the_same_period_of_irapuato_homicides_keeps_the_common_end(assistant):
    """«en lo que va del año … comparado con el mismo periodo del año pasado» in Irapuato: homicidio doloso is in the
    common homicide file, so it counts to the state's month like every municipality (January–November: 206 against
    235), without «no cubre toda la ventana»; «¿y en todo el estado?» is the same months (1,916 / 2,324). A crime
    only Irapuato's own file publishes counts to that file's end (robo a casa habitación: test above)."""
    conversation = Conversation()
    q = "en lo que va del año cuantos homicidios dolosos lleva irapuato, comparado con el mismo periodo del año pasado"
    turn = assistant.ask(q, conversation, planner="rules")
    assert "206" in turn.answer.text and "235" in turn.answer.text, turn.answer.text
    assert "no cubre" not in turn.answer.text, turn.answer.text
    turn = assistant.ask("y en todo el estado?", conversation, planner="rules")
    assert "1,916" in turn.answer.text and "2,324" in turn.answer.text, turn.answer.text


def test_a_follow_up_year_reaches_the_end_of_irapuatos_own_series(assistant):
    """dev_l l-delito_municipal_nuevo-02: «¿y en 2025?» is the whole 2025 of Irapuato's file (266), not Jan–Nov (244)."""
    conversation = Conversation()
    for q in ("asaltos a negocios en Irapuato 2023", "y robo a casa habitación?", "¿y en 2025?"):
        turn = assistant.ask(q, conversation, planner="rules")
    assert "266" in turn.answer.text and "244" not in turn.answer.text, turn.answer.text


IRAPUATO_SPLIT = [
    # the tipo rows sum dolosas and culposas; Irapuato's own file separates them (no «no se separa» there)
    ("lesiones dolosas en Irapuato en 2024", "1,961", ["no separa"]),
    ("cuántas lesiones culposas hubo en Irapuato el año pasado", "2", ["no separa"]),
    ("todas las lesiones en Irapuato en 2024", "1,963", ["no separa"]),
    ("homicidios totales en Irapuato en 2017", "274", ["no separa"]),
]


@pytest.mark.parametrize(("question", "figure", "never"), IRAPUATO_SPLIT, ids=[c[0] for c in IRAPUATO_SPLIT])
def test_irapuatos_own_file_separates_what_the_tipo_rows_sum(assistant, question, figure, never):
    """Lesiones and homicidio by subtipo in Irapuato: its own file, never the caveat of the other municipalities."""
    turn, text = answer(assistant, question)
    assert turn.planner_state.strategy == "retrieve_then_answer", turn.answer.text
    assert figure in turn.answer.text, turn.answer.text
    for words in never:
        assert words not in text, turn.answer.text


@pytest.mark.parametrize(
    ("question", "parts"),
    [
        ("todas las lesiones en Irapuato en 2024", ["lesiones dolosas 1,961", "lesiones culposas 2"]),
        ("homicidios totales en Irapuato en 2017", ["homicidio doloso 70", "homicidio culposo 204"]),
    ],
)
def test_a_tipo_in_irapuato_comes_with_its_parts(assistant, question, parts):
    """The sum of a tipo whose subtipos Irapuato publishes is given with each part (desglose_delito)."""
    _, text = answer(assistant, question)
    for words in parts:
        assert words in text, text


@pytest.mark.parametrize("question", ["lesiones en Irapuato en 2024", "homicidios en Irapuato en 2017"])
def test_a_bare_tipo_in_irapuato_asks_which_subtipo(assistant, question):
    """Where the split exists (Irapuato's own file), a bare tipo asks doloso or culposo (docs/decisions/0010)."""
    turn, text = answer(assistant, question)
    assert turn.status == "clarify" and "no separa" not in text, turn.answer.text


MIXED = [
    # two subtipos no file publishes for Silao: each one's state figure and Silao's robo by modalidad, said first
    (
        "robo a casa habitación y robo a negocio en Silao en 2023",
        ["3,573", "3,772", "1,511"],
        ["robo a casa habitacion y robo a negocio no se publican por municipio", "silao de la victoria"],
    ),
    (
        "¿cuántos robos a negocio y robos a casa habitación hubo en Silao durante 2023?",
        ["3,573", "3,772", "1,511"],
        ["no se publican por municipio"],
    ),
    # the second kind said without its noun («… y a casa habitación») is another robbery
    (
        "¿cuántos robos a negocio y a casa habitación hubo en Silao durante 2023?",
        ["3,573", "3,772", "1,511"],
        ["no se publican por municipio"],
    ),
    # one subtipo in two municipalities that lack it: said once for both, each one's robo by modalidad
    (
        "robo a negocio en León y en Celaya en 2024",
        ["4,169", "8,375", "3,441"],
        ["para leon y celaya, robo por modalidad"],
    ),
    # Irapuato's own file has both: each figure and their sum
    (
        "robo a casa habitación y robo a negocio en Irapuato en 2023",
        ["838", "507", "331"],
        ["sumados"],
    ),
    # one crime, two municipalities, one with the level and one without (dev_n n-granularidad-10)
    (
        "asaltos a negocios en Irapuato y en Silao en 2024: ¿cuántos en Silao?",
        ["1,001", "4,169", "1,406"],
        ["robo a negocio no se publica por municipio", "para silao de la victoria"],
    ),
    (
        "robo a negocio en Silao e Irapuato en 2024",
        ["1,001", "4,169", "1,406"],
        ["no se publica por municipio"],
    ),
]


@pytest.mark.parametrize(("question", "figures", "says"), MIXED, ids=[c[0] for c in MIXED])
def test_several_cells_at_uneven_levels_each_get_what_exists(assistant, question, figures, says):
    """Two crimes, or two places, one at a level the data lack: every figure that exists, never «no está cargado»."""
    turn, text = answer(assistant, question)
    assert turn.planner_state.strategy == "retrieve_then_answer", turn.answer.text
    assert "no incluyen" not in text and "sin datos" not in text, turn.answer.text
    for figure in figures:
        assert figure in turn.answer.text, turn.answer.text
    for words in says:
        assert normalize_text(words) in text, turn.answer.text


def test_no_sentence_gives_silao_a_figure_of_a_subtipo_it_lacks(assistant):
    """The granularity note's rule (evals/v2/FORMAT.md): a sentence naming robo a negocio and Silao has no count."""
    import re

    _, text = answer(assistant, "asaltos a negocios en Irapuato y en Silao en 2024: ¿cuántos en Silao?")
    for sentence in re.split(r"(?<=[.;!?])\s+|\n", text):
        if "robo a negocio" in sentence and "silao" in sentence and "no se publica" not in sentence:
            assert not re.search(r"\d", sentence), sentence
