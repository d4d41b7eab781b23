"""The explorer's selection and its URL form: every field survives the round trip; a bad value is a note."""

from __future__ import annotations

import pytest

from core.explore.selection import KEYS, Selection, from_params, to_params

ROUND_TRIPS = [
    Selection(delitos=("homicidio_doloso",), desde="2024-01", hasta="2024-12"),
    Selection(
        delitos=("robo", "extorsion"), lugares=("GTO.MUN.LEON", "GTO.MUN.CELAYA"), desde="2023-03", hasta="2023-03"
    ),
    Selection(delitos=("robo",), desde="2020-01", hasta="2025-11", forma="ranking", orden="asc", top_k=46),
    Selection(
        delitos=("secuestro",),
        lugares=("GTO",),
        desde="2024-01",
        hasta="2024-06",
        forma="comparacion",
        base="anio_anterior",
    ),
    Selection(delitos=("homicidio_doloso",), desde="2024-01", hasta="2024-12", medida="victimas"),
    Selection(delitos=("homicidio_doloso",), desde="2024-01", hasta="2024-12", medida="tasa", forma="ranking"),
]


@pytest.mark.parametrize("selection", ROUND_TRIPS)
def test_a_selection_survives_its_url(selection):
    params = to_params(selection)
    assert list(params) == [k for k in KEYS if k in params]  # the link reads the same every time
    back, notes = from_params(params)
    assert back == selection and notes == []


class QueryParams(dict):
    """What ``st.query_params`` looks like: ``[]`` gives the last value, ``get_all`` every value."""

    def get_all(self, key):
        value = dict.get(self, key, [])
        return value if isinstance(value, list) else [value]


def test_repeated_keys_are_read_like_streamlit_gives_them():
    params = QueryParams(delito=["robo", "extorsion", "robo"], lugar="GTO.MUN.LEON", forma="lugares")
    selection, notes = from_params(params)
    assert selection.delitos == ("robo", "extorsion") and selection.lugares == ("GTO.MUN.LEON",)
    assert selection.forma == "lugares" and notes == []


@pytest.mark.parametrize(
    ("params", "field", "default", "said"),
    [
        ({"desde": "2024-13"}, "desde", None, "mes que no se entiende"),
        ({"hasta": "ayer"}, "hasta", None, "mes que no se entiende"),
        ({"forma": "pastel"}, "forma", "total", "«forma»"),
        ({"medida": "dinero"}, "medida", "conteo", "«medida»"),
        ({"orden": "random"}, "orden", "desc", "«orden»"),
        ({"base": "siglo"}, "base", "anterior", "«base»"),
        ({"top": "0"}, "top_k", 10, "de 1 a 46"),
        ({"top": "999"}, "top_k", 10, "de 1 a 46"),
        ({"top": "diez"}, "top_k", 10, "de 1 a 46"),
    ],
)
def test_a_value_a_link_cannot_carry_is_left_at_its_default_and_said(params, field, default, said):
    selection, notes = from_params(params)
    assert getattr(selection, field) == default
    assert len(notes) == 1 and said in notes[0]


def test_an_empty_url_is_the_empty_selection():
    assert from_params({}) == (Selection(), [])
