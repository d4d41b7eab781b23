"""Typos of place names: the measured scorer and thresholds (ADR 0009), and places outside the store."""

from __future__ import annotations

import pytest

from core.ask.understand.placenames import FUZZY_THRESHOLDS, fold, fuzzy_threshold
from tests.core.ask.understand.spelling_cases import cases, measure


@pytest.fixture(scope="module")
def measured(lexicon):
    """The measurement of ADR 0009 at the chosen per-length thresholds."""
    return measure(lexicon, fold, [fuzzy_threshold])[0]


@pytest.mark.slow
def test_the_chosen_thresholds_accept_no_near_miss(measured):
    """Zero wrong acceptances: no other state's municipality or Spanish word becomes a Guanajuato place."""
    assert measured["wrong"] == 0, measured["wrong_examples"]


@pytest.mark.slow
def test_the_chosen_thresholds_accept_most_misspellings(measured):
    """ADR 0009: 941 of 1,008 generated misspellings (93 %) land on the right place, 0 of 4,600 near-misses."""
    assert measured["misspellings"] >= 900 and measured["near_misses"] >= 4000
    assert measured["right"] / measured["misspellings"] >= 0.92


@pytest.mark.slow
def test_one_threshold_for_all_lengths_costs_correct_acceptances(lexicon, measured):
    """The single lowest zero-wrong threshold (92) accepts fewer misspellings than the per-length rule."""
    single = measure(lexicon, fold, [92.0, 90.0])
    assert single[0]["wrong"] == 0 and single[1]["wrong"] > 0  # 92 is the lowest single threshold with no wrong one
    assert single[0]["right"] < measured["right"]


@pytest.mark.slow
def test_cases_are_deterministic(lexicon):
    """The generated misspellings are the same on every run (a seed, no clock)."""
    assert cases(lexicon)[:50] == cases(lexicon)[:50]


@pytest.mark.parametrize(
    ("written", "folded"),
    [("Zelaya", "selaya"), ("Celaya", "selaya"), ("Irapuatto", "irapuato"), ("Guanajuato", "guanajuato")],
)
def test_fold_writes_names_as_they_sound(written, folded):
    """«Zelaya» and «Celaya» sound alike; doubled letters collapse."""
    assert fold(written) == folded


def test_short_names_need_a_higher_score():
    """One edit of a short name is another word («campo» / «Ocampo»): the shortest need the most."""
    assert fuzzy_threshold("leon") is None
    assert fuzzy_threshold("campo") == FUZZY_THRESHOLDS[0][1] > fuzzy_threshold("salamanca")


@pytest.mark.parametrize(
    ("question", "label"),
    [
        ("homicidios dolosos en Zelaya en 2023", "Celaya"),
        ("robos en Irapuatto en 2024", "Irapuato"),
        ("homicidios en Salamnca", "Salamanca"),
        ("violencia familiar en SMA", "San Miguel de Allende"),
        ("lesiones dolosas en San Migel de Ayende en 2022", "San Miguel de Allende"),
        ("homicidios dolosos en Silao de la Victorio en 2024", "Silao de la Victoria"),
        ("homicidios dolosos en Apaseo el Grnade en 2025", "Apaseo el Grande"),
    ],
)
def test_confident_typos_are_read_and_marked(ask, question, label):
    """A confident typo is applied, with a score under 100 so the answer says «Entendí: …»."""
    u = ask(question)
    assert [p.label for p in u.places] == [label]
    assert u.places[0].score < 100 or u.places[0].text != label.lower()


@pytest.mark.parametrize(
    ("question", "text", "detail"),
    [
        ("homicidios dolosos en la ciudad de Puebla en 2023", "puebla", "Puebla"),
        ("¿Cuántos homicidios dolosos hubo en Guadalajara en 2023?", "guadalajara", "Jalisco"),
        ("robos en Tacámbaro en 2023", "tacambaro", "Michoacán"),
        ("homicidios en la ciudad de Zacatecas en 2023", "zacatecas", "Zacatecas"),
        ("secuestros en Tepic el año pasado", "tepic", "Nayarit"),
    ],
)
def test_places_of_other_states_are_outside_never_guanajuato(ask, question, text, detail):
    """Another state or its municipality is reported as outside the store, and no place of the store is read."""
    u = ask(question)
    assert not u.places
    assert [(t.kind, t.text) for t in u.unknown_terms if t.kind.startswith("place")] == [("place_foreign", text)]
    assert detail in u.unknown_terms[0].detail


@pytest.mark.parametrize(
    "question", ["homicidios en Ocampo en 2023", "robos en Santa Catarina en 2024", "lesiones en Victoria en 2022"]
)
def test_names_shared_with_other_states_resolve_to_guanajuato(ask, question):
    """Ocampo, Santa Catarina and Victoria exist elsewhere too: the store's place wins."""
    u = ask(question)
    assert len(u.places) == 1 and u.places[0].entidad_id.startswith("GTO.MUN.")
    assert not [t for t in u.unknown_terms if t.kind.startswith("place")]
