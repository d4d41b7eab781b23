"""Every content word accounted for: matchers, shape cues, known filler, or recorded as not understood."""

from __future__ import annotations

import pytest

from core.ask.understand.accounting import filler_words, is_filler
from core.ask.understand.kind import cue_spans
from core.ask.understand.places import suggestions


@pytest.mark.parametrize(
    "question",
    [
        "¿Cuántos homicidios dolosos hubo en León en 2024?",
        "Dame por favor la tasa de robo de vehículo en Celaya durante 2023",
        "¿Me podrías decir cuántas carpetas de violencia familiar se abrieron en Irapuato el año pasado?",
        "top 5 municipios con más secuestros en 2022",
        "evolución mensual de lesiones dolosas en Salamanca en los últimos 12 meses",
        "quiero saber cuántos feminicidios se registraron en todo el estado en 2021",
        "homicidio doloso con arma de fuego en Silao en 2023",
    ],
)
def test_everyday_questions_leave_nothing_unknown(ask, question):
    """Questions in the words analysts use: every word is a slot, a cue or filler."""
    assert ask(question).unknown_terms == []


@pytest.mark.parametrize(
    ("question", "kind", "text"),
    [
        ("homicidios dolosos en la ciudad de Puebla en 2023", "place_foreign", "puebla"),
        ("homicidios dolosos en Guadalajara en 2023", "place_foreign", "guadalajara"),
        ("robos en Zapopan durante 2024", "place_foreign", "zapopan"),
        ("homicidios dolosos en Tlacotalpan en 2023", "place_foreign", "tlacotalpan"),
        ("lesiones en Villa Quetzal en 2023", "place_unknown", "villa quetzal"),
        ("robos en la colonia Obregón de León en 2023", "place_below", "obregon"),
        ("¿cuántos asaltos a tortillerías hubo en León en 2023?", "crime", "tortillerias"),  # «asalto» is robo
        ("delitos de montadeudas en Salamanca en 2023", "crime", "montadeudas"),
        ("robos de bicicletas en Irapuato en 2024", "crime", "bicicletas"),
        ("homicidios dolosos en Celaya en 2023 segun el periodico", "other", "periodico"),
    ],
)
def test_leftovers_are_classified(ask, question, kind, text):
    """What nobody understood is recorded with what it looks like."""
    terms = ask(question).unknown_terms
    assert (kind, text) in [(t.kind, t.text) for t in terms], terms


def test_an_unknown_place_gets_the_closest_names(ask, lexicon):
    """A capitalized name after «en» that is nowhere: the closest Guanajuato names are offered."""
    terms = ask("homicidios en Villa Quetzal en 2023").unknown_terms
    assert [t.kind for t in terms] == ["place_unknown"]
    assert "Salamanca" in suggestions(lexicon, "salamankita del rio")


def test_a_foreign_place_is_never_a_place_of_the_store(ask):
    """The state is never put in the place of a place it does not have."""
    u = ask("homicidios dolosos en Guadalajara en 2023")
    assert u.places == [] and not u.whole_state
    assert "unknown:place_foreign" in u.signals


@pytest.mark.parametrize("word", ["quiero", "favor", "informacion", "registraron", "cifras", "dime"])
def test_filler_vocabulary_is_data(word):
    """The filler list is a data file (catalogs/lexicon/relleno.txt), read once."""
    assert is_filler(word)
    assert len(filler_words()) > 100


def test_shape_cues_are_understood_words():
    """kind.cue_spans exposes the kind matcher's vocabulary: «top 5», «mes por mes» are understood."""
    text = "top 5 municipios mes por mes"
    spans = [text[a:b] for a, b in cue_spans(text)]
    assert any("top" in s for s in spans) and any("mes por mes" in s for s in spans)
