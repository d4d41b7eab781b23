"""Spanish wording: months and periods, Mexican numbers, crime nouns, lists and the canned replies."""

from __future__ import annotations

import pytest

from core.ask.wording import (
    REFUSALS,
    between,
    crime_noun,
    fmt_int,
    fmt_num,
    fmt_pct,
    humanize_dates,
    join_y,
    methods_phrase,
    month_words,
    period_words,
    social_reply,
    state_name,
)


@pytest.mark.parametrize(
    "iso,words",
    [("2025-11-30", "noviembre de 2025"), ("2025-11", "noviembre de 2025"), ("2015-01-01", "enero de 2015")],
)
def test_month_words_read_a_day_or_a_month(iso, words):
    assert month_words(iso) == words


@pytest.mark.parametrize(
    "start,end,words,phrase",
    [
        ("2024-01-01", "2024-12-31", "enero a diciembre de 2024", "entre enero y diciembre de 2024"),
        (
            "2024-12-01",
            "2025-11-30",
            "diciembre de 2024 a noviembre de 2025",
            "entre diciembre de 2024 y noviembre de 2025",
        ),
        ("2024-03-01", "2024-03-31", "marzo de 2024", "en marzo de 2024"),
    ],
)
def test_period_words(start, end, words, phrase):
    assert period_words(start, end) == words and between(start, end) == phrase


def test_humanize_dates():
    assert (
        humanize_dates("no publicado en 2022-07..2022-12; cobertura 2015-01..2022-12; mes 2025-02")
        == "no publicado en julio a diciembre de 2022; cobertura enero de 2015 a diciembre de 2022; mes febrero de 2025"
    )
    assert humanize_dates("gx-2026.11.22-197e37ba y 2015–2025") == "gx-2026.11.22-197e37ba y 2015–2025"


@pytest.mark.parametrize(
    "value,expected",
    [
        (fmt_int(1234567), "1,234,567"),
        (fmt_int(596), "596"),
        (fmt_num(1851.376), "1,851.4"),
        (fmt_num(32.19), "32.2"),
        (fmt_pct(23.35), "23.4 %"),
        (fmt_pct(-1.08, signed=True), "-1.1 %"),
        (fmt_pct(19.73, signed=True), "+19.7 %"),
    ],
)
def test_mexican_number_format(value, expected):
    assert value == expected


@pytest.mark.parametrize(
    "labels,count,expected",
    [
        (["Homicidio doloso"], 596, "homicidios dolosos"),
        (["Homicidio doloso"], 1, "homicidio doloso"),
        (["Feminicidio"], 2, "feminicidios"),
        (["Aborto"], 3, "delitos de aborto"),
        (["Aborto"], 1, "delito de aborto"),
        (["Electorales"], 5, "delitos electorales"),
        (["Contra el medio ambiente"], 8, "delitos contra el medio ambiente"),
        (["Abuso sexual", "Violación"], 9, "delitos de abuso sexual y violación"),
        ([], 4, "delitos"),
    ],
)
def test_crime_nouns(labels, count, expected):
    assert crime_noun(labels, count) == expected


@pytest.mark.parametrize("items,text", [([], ""), (["a"], "a"), (["a", "b"], "a y b"), (["a", "b", "c"], "a, b y c")])
def test_join_y(items, text):
    assert join_y(items) == text


_VEHICLES = [f"robo de {k} {v} violencia" for k in ("coche de 4 ruedas", "motocicleta") for v in ("con", "sin")]


@pytest.mark.parametrize(
    "labels,text",
    [
        (_VEHICLES, "robo de coche de 4 ruedas y de motocicleta, con y sin violencia"),
        (_VEHICLES[2:], "robo de motocicleta con y sin violencia"),
        (_VEHICLES[::2], "robo de coche de 4 ruedas y de motocicleta, con violencia"),
        (
            _VEHICLES[:3],
            "robo de coche de 4 ruedas con violencia, robo de coche de 4 ruedas sin violencia y robo de "
            "motocicleta con violencia",
        ),  # uneven violences: listed as they are
        (["con arma de fuego", "con arma blanca"], "con arma de fuego y con arma blanca"),
        (["con violencia", "sin violencia"], "con violencia y sin violencia"),
        (
            ["coche de 4 ruedas con violencia", "motocicleta con violencia"],
            "coche de 4 ruedas y motocicleta, con violencia",
        ),
    ],
)
def test_methods_phrase_says_each_kind_and_the_violences_once(labels, text):
    assert methods_phrase(labels) == text


def test_state_names_and_canned_replies():
    assert state_name("GTO.MUN.LEON") == "Guanajuato" and state_name("JAL") == "JAL"
    assert social_reply("muchas gracias").startswith("¡Con gusto!") and "pii" in REFUSALS


@pytest.mark.parametrize(
    ("message", "opens"),
    [
        ("bueno ya, bye", "¡Hasta luego!"),
        ("chao", "¡Hasta luego!"),
        ("muy amables, es todo por hoy", "¡Hasta luego!"),
        ("grasias!!", "¡Con gusto!"),
        ("ok", "¡Con gusto!"),  # an acknowledgment is not a greeting
        ("ola buenas", "¡Hola!"),
    ],
)
def test_a_social_reply_answers_the_sign_off_the_thanks_or_the_greeting(message, opens):
    assert social_reply(message).startswith(opens)


@pytest.mark.parametrize(
    ("entidad_id", "shares"),
    [("GTO.MUN.GUANAJUATO", True), ("GTO.MUN.LEON", False), ("GTO", False), ("GTO.MUN.SILAO_DE_LA_VICTORIA", False)],
)
def test_a_municipality_named_as_its_state(entidad_id, shares):
    from core.ask.wording import shares_state_name

    assert shares_state_name(entidad_id) is shares
