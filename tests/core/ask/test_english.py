"""English and English-Spanish questions read as the Spanish the understanding knows (core/ask/english.py)."""

import pytest

from core.ask.english import as_spanish, looks_english


@pytest.mark.parametrize(
    ("question", "spanish"),
    [
        ("how many homicides in Celaya in 2022?", "cuantos homicidios en Celaya en 2022?"),
        ("What's the intentional homicide rate per 100k in Leon for 2024?", "homicidios dolosos"),
        ("and in the whole state in 2022?", "y en todo el estado en 2022?"),
        ("and where does Guanajuato rank in that?", "en que lugar queda Guanajuato"),
        ("ok and Guanajuato, en que lugar quedo nationally that year?", "a nivel nacional ese año"),
        ("thank you so much!", "gracias"),
        # who is writing, and where, is no slot: «in Leon» of the consulate is not the place asked about
        ("Hi! I'm an intern at the US consulate in Leon, how many femicides did Jalisco report in 2023?", "Jalisco"),
    ],
)
def test_english_phrases_are_read_as_spanish(question, spanish):
    assert spanish in as_spanish(question)


@pytest.mark.parametrize(
    "question",
    [
        "¿cuántos robos a negocio hubo en León en 2023?",
        "ranking de estados en total de delitos",
        "homicidios dolosos en Celaya, tasa por 100 mil",
        "fraude y amenazas en Irapuato en el primer semestre de 2024",
    ],
)
def test_a_spanish_question_is_left_as_written(question):
    assert not looks_english(question)
    assert as_spanish(question) == question


def test_the_consulate_introduction_is_dropped():
    assert "Leon" not in as_spanish(
        "Hi! I'm an intern at the US consulate in Leon, how many homicides did Jalisco have?"
    )
