"""Courtesy that asks for no figure: greetings, thanks, self-introductions and complaints (core/ask/courtesy.py)."""

from types import SimpleNamespace

import pytest

from core.ask.courtesy import complains_only, introduces_only, thanks_only
from core.text import normalize_text

NOTHING = SimpleNamespace(crimes=[], places=[], window=None, signals=[])
A_CRIME = SimpleNamespace(crimes=["homicidio_doloso"], places=[], window=None, signals=[])


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        ("hola buen dia, soy nueva en el area de prevencion del municipio de cortazar", True),
        ("buenas tardes, soy el nuevo enlace de la direccion de seguridad publica de Salamanca", True),
        ("hola, me llamo Ana y trabajo en la fiscalia de Celaya", True),
        ("hola, soy periodista, cuantos homicidios hubo en Celaya en 2023", False),  # a question follows
        ("soy investigadora, ¿qué municipio tuvo más robos?", False),
        ("hola", False),  # a greeting without an introduction is classified elsewhere
    ],
)
def test_a_self_introduction_with_nothing_asked_is_courtesy(message, expected):
    assert introduces_only(normalize_text(message), NOTHING) is expected


@pytest.mark.parametrize(
    ("message", "u", "expected"),
    [
        ("pinche programa no sirves para nada", NOTHING, True),
        ("eres bien lenta eh", NOTHING, True),
        ("no sirves, ¿cuántos homicidios hubo?", NOTHING, False),
        ("no sirve el filtro de homicidios", A_CRIME, False),
    ],
)
def test_a_complaint_about_casandra_is_courtesy(message, u, expected):
    assert complains_only(normalize_text(message), u) is expected


def test_thanks_naming_no_slot_is_courtesy():
    assert thanks_only(normalize_text("muchas gracias x la ayuda"), NOTHING)


A_DAY = SimpleNamespace(crimes=[], places=[], window=("2025-11-25", "2025-11-25"), signals=[])


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        ("grasias!!", True),
        ("bueno ya, bye", True),
        ("Muy amables, es todo por hoy.", True),  # «hoy» is no period asked
        ("eso seria todo por hoy", True),
        ("ya estuvo, hasta mañana", True),
        ("¿es todo el año?", False),  # a question
        ("y eso es todo lo que hay", False),
    ],
)
def test_a_sign_off_as_people_type_it_is_courtesy(message, expected):
    assert thanks_only(normalize_text(message), A_DAY) is expected
