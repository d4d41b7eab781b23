"""Questions over the national tables (issue 14): which national signal a question gets, and which it never gets
(core/ask/understand/national.py)."""

from __future__ import annotations

import pytest

from core.ask.understand.national import is_national

CASES = [
    # question, national signals expected (subset), absent
    ("¿En qué lugar está Guanajuato a nivel nacional en homicidios dolosos en 2023?", {"national:rank"}, set()),
    ("¿qué lugar ocupa Gto entre los estados en feminicidio?", {"national:rank"}, set()),
    ("ranking de estados por homicidio doloso en 2024", {"national:rank"}, set()),
    ("guanajuato es el primero en extorsion? 2023", {"national:rank"}, set()),
    ("¿Gto sigue siendo el primero a nivel nacional en homicidios?", {"national:rank"}, set()),
    ("¿qué estado tuvo más secuestros en 2022?", {"national:rank"}, set()),
    ("homicidios dolosos a nivel nacional en 2023", {"national:country", "national:place:MX"}, set()),
    ("feminicidios en todo el país en 2021", {"national:country", "national:place:MX"}, set()),
    (
        "¿la tasa de homicidio doloso de Guanajuato supera la tasa nacional?",
        {"national:rank", "national:vs_country"},
        set(),
    ),
    ("Guanajuato vs Jalisco en homicidios dolosos 2023", {"national:rank", "national:place:JAL"}, set()),
    ("Guanajuato contra Edomex y CDMX en feminicidio 2022", {"national:place:MEX", "national:place:CDMX"}, set()),
    ("¿cuántas víctimas de homicidio doloso hubo en Guanajuato en 2024?", {"national:victims"}, set()),
    ("víctimas de feminicidio por edad en el estado en 2023", {"national:victims"}, set()),
    ("delitos federales en Guanajuato en 2024", {"national:federal"}, set()),
    ("carpetas del fuero federal en el país en 2023", {"national:federal", "national:place:MX"}, set()),
    ("¿Guanajuato es primer lugar en narcomenudeo? año 2023", {"national:rank"}, set()),
    ("¿Dónde queda Chihuahua en homicidios dolosos en 2023?", {"national:rank", "national:place:CHIH"}, set()),
    ("Sonora: posición en homicidio doloso 2022", {"national:rank", "national:place:SON"}, set()),
    ("homicidios dolosos en Guanajuato en enero de 2026", {"national:rank", "national:rnid"}, set()),
    # the state file asked by name: its figure and place
    ("Guanajuato homicidios dolosos en 2024 según el archivo estatal", {"national:rank"}, set()),
    ("robos en el estado en 2023 con las cifras estatales del SESNSP", {"national:rank"}, set()),
]
NOT_NATIONAL = [
    "cual fue el primer mes con más homicidios dolosos en León en 2024",
    "¿León es el primero en homicidios dolosos del estado en 2024?",
    "homicidios dolosos en León en 2024",
    "homicidios dolosos en Dolores Hidalgo Cuna de la Independencia Nacional en 2023",  # «Nacional» is its name
    "¿en qué municipio hubo más homicidios dolosos en 2024?",
    "¿cuántas víctimas de homicidio doloso hubo en León en 2024?",  # victims are published by state only
    "homicidios dolosos en la ciudad de Puebla en 2023",  # a capital city is no state (its state alone is national)
    "¿en qué lugar hubo más feminicidios en 2022?",  # «lugar» is a place here, not a position
    "¿cuántos homicidios dolosos habrá en León en 2026?",  # a forecast, and a municipality
    # names the common jurisdiction shares: federal only with «federal» said
    "homicidios dolosos con armas de fuego en León 2024",
    "contra el medio ambiente en Celaya 2023",
]
# the publisher's name says «Nacional»: neither the country nor a place (Santiago Pinotepa Nacional)
PUBLISHER = [
    "homicidios dolosos en Celaya en 2023 según el Secretariado Ejecutivo del Sistema Nacional de Seguridad Pública",
    "robos en Guanajuato en 2023 según el Sistema Nacional de Seguridad Pública",
]


@pytest.mark.parametrize(("question", "expected", "absent"), CASES, ids=[c[0][:40] for c in CASES])
def test_national_signals(ask, question, expected, absent):
    u = ask(question)
    assert is_national(u), u.signals
    assert expected <= set(u.signals), u.signals
    assert not absent & set(u.signals)
    assert not [t for t in u.unknown_terms if t.kind.startswith("place")], u.unknown_terms


@pytest.mark.parametrize("question", NOT_NATIONAL)
def test_not_national(ask, question):
    assert not is_national(ask(question)), ask(question).signals


@pytest.mark.parametrize("question", PUBLISHER)
def test_the_publisher_named_is_no_country_and_no_place(ask, question):
    u = ask(question)
    assert not is_national(u), u.signals
    assert not u.unknown_terms, u.unknown_terms


@pytest.mark.parametrize(
    ("first", "follow", "national", "window"),
    [
        # Guanajuato's 2026 question is national only for its 2026 window: 2025 is the municipal sums again
        (
            "homicidios dolosos en Guanajuato en el primer trimestre de 2026",
            "¿y en el mismo periodo de 2025?",
            False,
            2025,
        ),
        ("narcomenudeo en Guanajuato de enero a marzo de 2026", "¿y en el mismo trimestre de 2024?", False, 2024),
        # another state stays national, in the series to 2025
        ("narcomenudeo en Jalisco en enero de 2026", "¿y en enero de 2024?", True, 2024),
    ],
)
def test_a_follow_up_before_2026_leaves_the_2026_methodology(ask, lexicon, first, follow, national, window):
    from core.ask.understand.followup import merge_follow_up

    merged = merge_follow_up(ask(follow), ask(first), lexicon)
    assert "national:rnid" not in merged.signals
    assert is_national(merged) is national, merged.signals
    assert merged.window[0].year == window and merged.compare_window is None


@pytest.mark.parametrize(
    ("first", "follow", "measure"),
    [
        ("delitos federales en Guanajuato 2023", "¿y en todo el país?", "national:federal"),
        ("víctimas mujeres de homicidio doloso en Guanajuato 2023", "¿y en todo el país?", "national:victims"),
        (
            "homicidios dolosos en Jalisco en marzo de 2026",
            "¿y en todo el país en el primer trimestre?",
            "national:rnid",
        ),
    ],
)
def test_a_follow_up_that_only_moves_to_the_country_keeps_what_is_counted(ask, lexicon, first, follow, measure):
    """«¿y en todo el país?» after federal crimes, victims or a 2026 month: the same measure, for the country."""
    from core.ask.understand.followup import merge_follow_up

    merged = merge_follow_up(ask(follow), ask(first), lexicon)
    assert measure in merged.signals and "national:place:MX" in merged.signals, merged.signals
    assert not merged.places and not merged.whole_state
