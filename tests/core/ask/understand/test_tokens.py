"""Tokens: Spanish numbers written in words become digits, so every matcher reads one form."""

from __future__ import annotations

import pytest

from core.ask.understand.tokens import spanish_number, tokenize

NUMBERS = [
    ("dos mil veintitres", 2023),
    ("dos mil quince", 2015),
    ("dos mil veinte", 2020),
    ("dos mil veinticinco", 2025),
    ("dos mil diecinueve", 2019),
    ("cinco", 5),
    ("doce", 12),
    ("dieciocho", 18),
    ("veintiuno", 21),
    ("treinta y seis", 36),
    ("cuarenta y ocho", 48),
    ("ciento veinte", 120),
    ("doscientos", 200),
    ("mil novecientos noventa y nueve", 1999),
]


@pytest.mark.parametrize("words,value", NUMBERS)
def test_spanish_number(words, value):
    assert spanish_number(words.split()) == (value, len(words.split()))


REWRITES = [
    ("homicidios en dos mil veintitrés", "homicidios en 2023"),
    ("los cinco municipios con más robos", "los 5 municipios con mas robos"),
    ("los últimos doce meses", "los ultimos 12 meses"),
    ("los últimos treinta y seis meses", "los ultimos 36 meses"),
    ("del dos mil veinte al dos mil veintidós", "del 2020 al 2022"),
    # not numbers: a lone «un/una», a rate «por cada cien mil habitantes», «y» with no number after it
    ("un año antes", "un ano antes"),
    ("por cada cien mil habitantes", "por cada cien mil habitantes"),
    ("dos y tres", "2 y 3"),
    ("veinte y", "20 y"),
]


@pytest.mark.parametrize("text,expected", REWRITES)
def test_number_words_become_digits(text, expected):
    assert tokenize(text).text == expected


def test_offsets_follow_rewritten_words():
    toks = tokenize("en dos mil veintitrés en Celaya")
    assert toks.words == ("en", "2023", "en", "celaya")
    assert toks.span_of(3, 7) == (1, 2)


@pytest.mark.parametrize(
    "text,words",
    [
        ("en q municipio hubo mas", "en que municipio hubo mas"),
        ("hom dolosos x 100 mil hab", "hom dolosos por 100 mil habitantes"),
        ("feminicidios en el edo", "feminicidios en el estado"),
        ("Sn Fco del Rincón", "san francisco del rincon"),
        ("xq subieron tmb", "porque subieron tambien"),
    ],
)
def test_chat_and_press_shorthand_is_read_as_words(text, words):
    assert tokenize(text).text == words


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("robos en Irapuat0 en 2023", ("robos", "en", "irapuato", "en", "2023")),
        ("h0micidios en le0n", ("homicidios", "en", "leon")),
        ("top 10 de 2020", ("top", "10", "de", "2020")),  # numbers stay numbers
        ("1o de enero", ("1o", "de", "enero")),  # an ordinal is no word with a zero typo
        ("covid19 q40 100k", ("covid19", "q40", "100k")),  # other digits: left as written
    ],
)
def test_a_zero_typed_for_the_letter_o_inside_a_word(text, words):
    assert tokenize(text).words == words


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("cuantas motos se robaron en leon", "cuantas robo de motocicletas en leon"),
        ("cuantos carros robados en leon en 2023", "cuantos robo de carros en leon en 2023"),
        ("me robaron el celular en irapuato", "robo de celular en irapuato"),
        ("en León se robaron muchos autos", "en leon robo de autos"),
        ("cuántos autos se han robado en Salamanca", "cuantos robo de autos en salamanca"),
        ("robaron 3 camionetas", "robo de camionetas"),
        ("en Celaya robaron en 2024", "en celaya robo en 2024"),  # nothing taken said: the noun alone
        ("robo de vehículos en León", "robo de vehiculos en leon"),  # the noun stays as written
    ],
)
def test_robbery_said_with_the_verb_is_read_as_the_noun(text, words):
    assert tokenize(text).text == words


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("cuantas mujeres secuestradas hubo", "cuantas mujeres victimas de secuestro hubo"),
        ("personas extorsionadas en Jalisco", "personas victimas de extorsion en jalisco"),
        ("los secuestrados", "los secuestrados"),  # no people named: left as written
    ],
)
def test_people_a_crime_was_done_to_are_its_victims(text, words):
    assert tokenize(text).text == words


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("robos a negocio y a casa habitacion en Silao", "robos a negocio y robo a casa habitacion en silao"),
        ("robo de autopartes o de vehiculo", "robo de autopartes o robo de vehiculo"),
        ("robo a negocio en León y a Celaya", "robo a negocio en leon y a celaya"),  # after the place: no robbery
        ("robo a negocio y homicidios", "robo a negocio y homicidios"),  # another crime named whole
    ],
)
def test_a_robbery_kind_said_without_its_noun_is_another_robbery(text, words):
    """«robos a negocio y a casa habitación»: the second kind shares the first's noun."""
    assert tokenize(text).text == words
