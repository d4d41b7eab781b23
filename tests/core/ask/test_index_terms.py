"""The index terms of methodology text (core.ask.index_terms): accent-free, stopword-filtered, stemmed."""

from __future__ import annotations

import pytest

from core.ask.index_terms import defined_terms, stem, tokenize


@pytest.mark.parametrize(
    "text,expected",
    [
        ("¿Cómo calculan la TASA?", ["calcul", "tas"]),
        ("Homicidios dolosos", ["homicidi", "dol"]),
        ("publicado, publicación, publica", ["public", "public", "public"]),
        ("de la en el y los", []),
        ("León Acámbaro", ["leon", "acambar"]),
    ],
)
def test_tokenize_is_accent_free_stopword_filtered_and_stemmed(text, expected):
    assert tokenize(text) == expected


def test_stem_keeps_short_words_and_numbers():
    assert stem("mes") == "mes" and stem("2024") == "2024" and stem("tasas") == stem("tasa") == "tas"


@pytest.mark.parametrize(
    "text,expected",
    [
        ("El feminicidio es el homicidio de una mujer por razones de género.", ["feminicidio"]),
        (
            "Las carpetas de investigación son los expedientes que abre el ministerio público.",
            ["carpetas de investigación"],
        ),
        ("La relación entre las víctimas y los imputados de cada carpeta es variable.", []),
        ("No hay definición aquí.", []),
    ],
)
def test_defined_terms_are_short_subjects_of_defining_sentences(text, expected):
    assert defined_terms(text) == expected


@pytest.mark.parametrize("text", ["¿Qué significa la tasa?", "¿Me puedes decir qué es?"])
def test_queries_also_drop_question_words(text):
    assert set(tokenize(text, query=True)) <= set(tokenize(text)) and "signific" not in tokenize(text, query=True)
