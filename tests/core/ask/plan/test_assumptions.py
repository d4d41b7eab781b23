"""What was not understood or assumed reaches the person: a question with no figure, or notes in the answer."""

from __future__ import annotations

import pytest

from core.ask.context import Assistant
from core.ask.pipeline import Conversation, Turn, run_turn
from core.text import normalize_text


@pytest.fixture(scope="module")
def assistant(bundled_settings):
    """The pipeline over the bundled store, without the same-day cache."""
    return Assistant(settings=bundled_settings, use_cache=False)


def _turn(assistant, question: str) -> Turn:
    return run_turn(Turn(question=question, planner_requested="rules"), assistant, Conversation(), upto="compose")


@pytest.mark.parametrize(
    ("question", "says"),
    [
        # another state's capital city: its municipalities are not loaded, its state figures are offered (issue 14)
        (
            "homicidios dolosos en la ciudad de Puebla en 2023",
            ["no tengo datos por municipio de puebla", "ranking de estados"],
        ),
        ("¿Cuántos homicidios dolosos hubo en Guadalajara en 2023?", ["guadalajara, municipio de jalisco"]),
        ("feminicidios en Tlaquepaque durante 2022", ["tlaquepaque", "jalisco"]),
        ("secuestros en Villa Quetzal en 2024", ["no reconoci el lugar «villa quetzal»"]),
        ("feminicidios en xqtlzz en 2021", ["no reconoci el lugar «xqtlzz»"]),
        ("homicidios dolosos en silau en 2023", ["¿te refieres a silao de la victoria"]),
        ("homicidios dolosos en Celaya durante la cuaresma", ["no entendi el periodo «cuaresma»"]),
        ("¿cuántos atracos exprés hubo en León en 2023?", ["no reconoci «atracos"]),
        ("¿Cuántos feminicidios hubo ahí en 2021?", ["¿de que municipio hablas con «ahi»?"]),
        ("¿Cuántos homicidios dolosos hubo en 2024 en el municipio?", ["«el municipio»"]),
    ],
)
def test_what_is_not_understood_is_asked_without_a_figure(assistant, question, says):
    """Another state, an unknown name, an unparsed period or crime: said, asked, and no figure."""
    turn = _turn(assistant, question)
    text = normalize_text(turn.answer.text)
    assert turn.status == "clarify" and not turn.envelopes
    for fragment in says:
        assert fragment in text, turn.answer.text


@pytest.mark.parametrize(
    ("question", "note", "tag"),
    [
        (
            "homicidios dolosos en Zelaya en 2023",
            "Entendí: Celaya (escribiste «zelaya»).",
            "assumed:place:GTO.MUN.CELAYA",
        ),
        ("feminicidios en Irapuatto en 2022", "Entendí: Irapuato", "assumed:place:GTO.MUN.IRAPUATO"),
        (
            "secuestros en 2023",
            "Sin lugar en la pregunta: la cifra es de todo el estado de Guanajuato.",
            "assumed:state",
        ),
        (
            "homicidios dolosos en Celaya en 2023 según el periódico",
            "No tomé en cuenta: «periódico».",
            "not_understood",
        ),
    ],
)
def test_what_is_assumed_is_said_and_tagged(assistant, question, note, tag):
    """A typo read as a name, the whole state by default, ignored words: in the answer and the plan's tags."""
    turn = _turn(assistant, question)
    assert turn.status == "ok"
    assert note in turn.answer.text
    assert any(t.startswith(tag) for t in turn.planner_state.planner_meta.rationale_tags)


def test_a_pointed_place_in_a_follow_up_is_the_previous_one(assistant):
    """«¿y cuántos hubo ahí en 2022?» after Celaya: Celaya, not a question."""
    conv = Conversation()
    for q in ("homicidios dolosos en Celaya en 2023", "¿y cuántos hubo ahí en 2022?"):
        turn = run_turn(Turn(question=q, planner_requested="rules"), assistant, conv, upto="compose")
    assert turn.status == "ok" and turn.answer.text.startswith("Celaya")


def test_a_store_name_beats_a_shorter_name_elsewhere(assistant):
    """«San José Iturbide» is Guanajuato's, never «San José» of another state."""
    turn = _turn(assistant, "homicidios dolosos en San José Iturbide en 2023")
    assert turn.status == "ok" and turn.answer.text.startswith("San José Iturbide")


@pytest.mark.parametrize(
    "question",
    [
        "¿Cuántos homicidios dolosos hubo en León en 2024?",
        "violencia familiar en Celaya durante 2022",
        "¿me podrías decir cuántos feminicidios se registraron en Irapuato en 2021?",
    ],
)
def test_everyday_questions_carry_no_notes(assistant, question):
    """Nothing assumed, nothing ignored: the answer has no «Entendí» nor «No tomé en cuenta»."""
    text = _turn(assistant, question).answer.text
    assert "Entendí" not in text and "No tomé en cuenta" not in text and "Sin lugar" not in text


def test_a_long_list_of_places_elsewhere_fits_the_question_limit():
    """Many places of other states named at once: the question is cut to the contract's 300 characters, never an error."""
    from core.ask.plan.assumptions import _fit

    parts = ["No tengo datos de " + ", ".join(f"Lugar {n}" for n in range(60)) + ".", "No doy una cifra.", "¿Cuál?"]
    text = _fit(parts)
    assert len(text) <= 300
    assert text.endswith(("¿Cuál?", "…"))


@pytest.mark.parametrize(
    ("question", "figure"),
    [("homicidios dolosos en Puebla en 2023", "852"), ("homicidios dolosos en CDMX en 2023", "Ciudad de México")],
)
def test_another_state_named_alone_gets_its_state_figure(assistant, question, figure):
    """Issue 14: the state file answers a state named alone (README: Puebla homicidio doloso 2023 = 852)."""
    turn = _turn(assistant, question)
    assert turn.planner_state.strategy == "retrieve_then_answer" and figure in turn.answer.text


@pytest.mark.parametrize(
    ("question", "says", "option"),
    [
        (
            "robo a negocio en Zapopan en 2024",
            ["zapopan, municipio de jalisco", "solo estan cargados los de guanajuato", "cifra estatal"],
            "¿Cuántos robos a negocio hubo en Jalisco en 2024?",
        ),
        (
            "homicidios dolosos en Monterrey 2023",
            ["monterrey, municipio de nuevo leon", "de nuevo leon si tengo la cifra estatal"],
            "¿Cuántos homicidios dolosos hubo en Nuevo León en 2023?",
        ),
        (
            "¿Cuántas lesiones dolosas hubo en Tlaquepaque durante 2022?",
            ["tlaquepaque", "de jalisco si tengo la cifra estatal"],
            "¿Cuántas lesiones dolosas hubo en Jalisco en 2022?",
        ),
        # the state named beside a name several states share settles which
        (
            "robo a casa habitación en Guadalupe, NL, 2022",
            ["no tengo datos de guadalupe, municipio de nuevo leon:", "de nuevo leon si tengo la cifra estatal"],
            "¿Cuántos robos a casa habitación hubo en Nuevo León en 2022?",
        ),
    ],
)
def test_another_states_municipality_offers_its_states_figure(assistant, question, says, option):
    """The municipal data cover Guanajuato only (said, no figure); the state file's figure of its state is offered."""
    turn = _turn(assistant, question)
    text = normalize_text(turn.answer.text)
    assert turn.status == "clarify" and not turn.envelopes, turn.answer.text
    assert not any(ch.isdigit() for ch in turn.answer.text.replace("2022", "").replace("2023", "").replace("2024", ""))
    for fragment in says:
        assert fragment in text, turn.answer.text
    assert turn.answer.clarifying_options == [option]


@pytest.mark.parametrize(
    ("question", "states"),
    [
        ("robo a casa habitación en Guadalupe en 2022", ["Nuevo León", "Zacatecas", "Chihuahua"]),
        ("homicidios dolosos en Juárez en 2023", ["Chihuahua", "Nuevo León"]),
    ],
)
def test_a_name_several_states_share_asks_which_state(assistant, question, states):
    """«Guadalupe», «Juárez»: never guessed; one option per state, each its state's question."""
    turn = _turn(assistant, question)
    assert turn.status == "clarify" and not turn.envelopes, turn.answer.text
    assert "¿de cual de esos estados" in normalize_text(turn.answer.text), turn.answer.text
    options = " | ".join(turn.answer.clarifying_options)
    for state in states:
        assert f"en {state} en" in options, options


def test_a_yes_to_the_offer_gives_the_states_figure(assistant):
    """«sí» after the offer: Jalisco's state figure (README/state file: robo a negocio Jan–Nov 2024 = 3,684)."""
    conversation = Conversation()
    assistant.ask("robo a negocio en Zapopan en 2024", conversation, planner="rules")
    turn = assistant.ask("sí", conversation, planner="rules")
    assert "Jalisco" in turn.answer.text and "3,684" in turn.answer.text, turn.answer.text
