"""Follow-ups: detection, merging with the previous turn, and the rewritten standalone question."""

from __future__ import annotations

from datetime import date

import pytest

from core.ask.understand.followup import (
    crime_phrase,
    describe,
    is_follow_up,
    merge_follow_up,
)
from tests.core.ask.understand.helpers import ANCHOR, MIN_DATE


def resolve_turn(ask, lexicon, question: str, previous):
    """What the intake stage does with a turn after ``previous``: (understanding, rewritten question, follow-up?)."""
    current = ask(question)
    if not is_follow_up(question):
        return current, question, False
    merged = merge_follow_up(current, previous)
    return merged, describe(merged, lexicon), True


FOLLOW_UPS = [
    ("¿y en Celaya?", True),
    ("¿y en 2022?", True),
    ("¿y con arma blanca?", True),
    ("¿y la tasa?", True),
    ("¿y los últimos 12 meses?", True),
    ("¿y feminicidios?", True),
    ("¿y el año pasado?", True),
    ("y en Irapuato", True),
    ("¿e Irapuato?", True),
    ("ahora en Silao", True),
    ("lo mismo para León", True),
    ("lo mismo en 2023 pero con tasa por 100 mil habitantes y solo para los robos", True),
    ("¿en Celaya?", True),
    ("¿Cuántos homicidios hubo en León en 2024?", False),
    ("Top 5 municipios con más homicidios", False),
    ("y dime por favor cuántos homicidios dolosos hubo en todo el estado durante el año pasado", False),
    ("", False),
    ("¿?", False),
]


@pytest.mark.parametrize("question,expected", FOLLOW_UPS)
def test_is_follow_up(question, expected):
    assert is_follow_up(question) is expected


PREVIOUS = "¿Cuántos homicidios dolosos hubo en León en 2024?"

MERGES = [
    ("¿y en Celaya?", "¿Cuántos homicidios dolosos hubo en Celaya entre 2024-01-01 y 2024-12-31?"),
    ("¿y en 2022?", "¿Cuántos homicidios dolosos hubo en León entre 2022-01-01 y 2022-12-31?"),
    ("¿y con arma blanca?", "¿Cuántos homicidios dolosos con arma blanca hubo en León entre 2024-01-01 y 2024-12-31?"),
    (
        "¿y la tasa?",
        "¿Cuál fue la tasa de homicidios dolosos por 100 mil habitantes en León entre 2024-01-01 y 2024-12-31?",
    ),
    ("¿y los últimos 12 meses?", "¿Cuántos homicidios dolosos hubo en León entre 2024-12-01 y 2025-11-30?"),
    ("¿y feminicidios?", "¿Cuántos feminicidios hubo en León entre 2024-01-01 y 2024-12-31?"),
    # «el año pasado» from the data's end (2025) is 2024, the year just asked: a follow-up asks the one before
    ("¿y el año pasado?", "¿Cuántos homicidios dolosos hubo en León entre 2023-01-01 y 2023-12-31?"),
    ("lo mismo para Irapuato", "¿Cuántos homicidios dolosos hubo en Irapuato entre 2024-01-01 y 2024-12-31?"),
    (
        "¿y en todo el estado?",
        "¿Cuántos homicidios dolosos hubo en todo el estado de Guanajuato entre 2024-01-01 y 2024-12-31?",
    ),
    (
        "¿y mes por mes?",
        "¿Cómo evolucionaron mes por mes los homicidios dolosos en León entre 2024-01-01 y 2024-12-31?",
    ),
]


@pytest.mark.parametrize("question,rewritten", MERGES)
def test_follow_up_rewrite(ask, lexicon, question, rewritten):
    merged, text, follow = resolve_turn(ask, lexicon, question, ask(PREVIOUS))
    assert follow is True
    assert text == rewritten
    assert "followup:merged" in merged.signals


def test_merge_keeps_and_replaces_slots(ask):
    prev = ask("homicidios dolosos con arma de fuego en León en 2024")
    merged = merge_follow_up(ask("¿y en Celaya?"), prev)
    assert [p.entidad_id for p in merged.places] == ["GTO.MUN.CELAYA"]
    assert [c.delito for c in merged.crimes] == ["homicidio_doloso"]
    assert merged.methods == ["con_arma_de_fuego"]
    assert merged.window == (date(2024, 1, 1), date(2024, 12, 31))
    assert {"followup:kept:crime", "followup:kept:window", "followup:kept:method"} <= set(merged.signals)
    merged = merge_follow_up(ask("¿y con arma blanca?"), prev)
    assert merged.methods == ["con_arma_blanca"]
    merged = merge_follow_up(ask("¿y robos con violencia?"), prev)
    assert merged.methods == ["con_violencia"] and merged.violencia == "con"


def test_merge_keeps_ranking_and_switches_to_value_for_a_municipality(ask):
    prev = ask("Top 5 municipios con más homicidios en 2024")
    merged = merge_follow_up(ask("¿y en 2023?"), prev)
    assert merged.kind == "ranking" and merged.top_k == 5 and merged.group_by_municipio
    assert merged.window == (date(2023, 1, 1), date(2023, 12, 31))
    merged = merge_follow_up(ask("¿y en Celaya?"), prev)
    assert merged.kind == "single_value" and not merged.group_by_municipio


def test_merge_rate_and_comparison(ask):
    prev = ask("homicidios en León 2024 vs 2023")
    merged = merge_follow_up(ask("¿y la tasa?"), prev)
    assert merged.kind == "comparison" and merged.medida == "tasa_per_100k"
    assert merged.compare_window == (date(2023, 1, 1), date(2023, 12, 31))
    back = merge_follow_up(ask("¿y en números absolutos?"), merged)
    assert back.medida == "conteo"


def test_merge_without_previous_is_identity(ask):
    u = ask("¿y en Celaya?")
    assert merge_follow_up(u, None) is u


def test_not_a_follow_up_is_left_alone(ask, lexicon):
    u, text, follow = resolve_turn(ask, lexicon, "¿Cuántos robos hubo en Celaya?", ask(PREVIOUS))
    assert follow is False and text == "¿Cuántos robos hubo en Celaya?" and [c.delito for c in u.crimes] == ["robo"]


DESCRIBE = [
    (
        "Top 5 municipios con más homicidios en 2024",
        "¿Cuáles son los 5 municipios con más homicidios de Guanajuato entre 2024-01-01 y 2024-12-31?",
    ),
    ("el municipio con menos feminicidios", "¿Cuál es el municipio con menos feminicidios de Guanajuato?"),
    (
        "homicidios en León 2024 vs 2023",
        "¿Cómo cambiaron los homicidios en León entre 2024-01-01 y 2024-12-31 comparado con el periodo 2023-01-01 a 2023-12-31?",
    ),
    (
        "¿Qué porcentaje de los homicidios del estado ocurrieron en León en 2024?",
        "¿Qué porcentaje de los homicidios de Guanajuato ocurrió en León entre 2024-01-01 y 2024-12-31?",
    ),
    ("lesiones dolosas en Celaya", "¿Cuántas lesiones dolosas hubo en Celaya?"),
    (
        "violencia familiar en León en 2023",
        "¿Cuántos casos de violencia familiar hubo en León entre 2023-01-01 y 2023-12-31?",
    ),
    ("total de delitos en León", "¿Cuál fue el total anual de delitos del fuero común en León?"),
    (
        "Los 5 municipios con más delitos del fuero común en 2022",
        (
            "¿Cuáles son los 5 municipios con más delitos del fuero común (total anual) de Guanajuato entre 2022-01-01 y "
            "2022-12-31?"
        ),
    ),
    ("anomalías de robos en Irapuato", "¿Hubo meses atípicos o picos de robos en Irapuato?"),
    ("robos con violencia en Celaya", "¿Cuántos robos con violencia hubo en Celaya?"),
]


@pytest.mark.parametrize("question,text", DESCRIBE)
def test_describe(ask, lexicon, question, text):
    assert describe(ask(question), lexicon) == text


@pytest.mark.parametrize(
    "label,phrase",
    [
        ("Homicidio doloso", "homicidios dolosos"),
        ("Feminicidio", "feminicidios"),
        ("Extorsión", "extorsiones"),
        ("Robo a casa habitación", "robos a casa habitación"),
        ("Abuso sexual", "abusos sexuales"),
        ("Trata de personas", "casos de trata de personas"),
    ],
)
def test_crime_phrase(label, phrase):
    assert crime_phrase(label) == phrase


@pytest.mark.parametrize(
    "first,follow,expected",
    [
        ("¿Cuántos homicidios culposos hubo en Celaya en 2022?", "¿y dolosos?", ["homicidio_doloso"]),
        ("¿Cuántos homicidios hubo en Celaya en 2022?", "¿y los dolosos?", ["homicidio_doloso"]),
        ("lesiones dolosas en León", "¿y culposas?", ["lesiones_culposas"]),
    ],
)
def test_follow_up_qualifier_switches_the_subtype(ask, first, follow, expected):
    merged = merge_follow_up(ask(follow), ask(first))  # no lexicon passed: found by the signal's version
    assert [c.delito for c in merged.crimes] == expected
    assert merged.places == ask(first).places


@pytest.mark.parametrize(
    "first,follow",
    [
        ("homicidios dolosos en León mes por mes en 2024", "¿y la tasa?"),
        ("¿Cómo evolucionó mes por mes la tasa de homicidios dolosos en León en 2024?", None),
    ],
)
def test_a_rate_asked_of_a_monthly_series_is_the_rate_of_the_window(lexicon, ask, first, follow):
    from core.ask.plan.rules import build

    u = ask(first)
    if follow:
        u, _, _ = resolve_turn(ask, lexicon, follow, u)
    plan = build(u, {"max_date": ANCHOR.isoformat(), "min_date": MIN_DATE.isoformat(), "coverage": {}}, {})
    assert plan.kind == "single_value"
    assert [(s["tool_id"], s["args"]["nivel"], s["args"]["medida"]) for s in plan.plan["plan"]] == [
        (6, "actual", "tasa_per_100k")
    ]
    assert any("se da en conteos" in n for n in plan.notes)


@pytest.mark.parametrize(
    "first,follow,expected",
    [
        ("robo en Silao en 2021", "¿y cuántos de esos fueron a transportista?", "robo_a_transportista"),
        ("robo en Querétaro en 2023", "¿y cuántos de esos fueron a casa habitación?", "robo_a_casa_habitacion"),
        ("robos en Guanajuato en 2024", "¿cuántos fueron a negocio?", "robo_a_negocio"),
        ("robo en Irapuato 2023", "¿y a transeúnte?", "robo_a_transeunte"),
        ("robos en León en 2024", "¿y de vehículo?", "robo_de_vehiculo"),
    ],
)
def test_follow_up_names_a_kind_of_the_previous_crime(ask, lexicon, first, follow, expected):
    """«¿y cuántos de esos fueron a transportista?»: the previous crime's own kind, never its total with a word
    left unread."""
    merged = merge_follow_up(ask(follow), ask(first), lexicon)
    assert [c.delito[: len(expected)] for c in merged.crimes] == [expected], merged.crimes
    assert not [t for t in merged.unknown_terms if t.kind in ("other", "crime")], merged.unknown_terms
    assert "followup:narrowed_crime" in merged.signals


@pytest.mark.parametrize(
    "first,follow,expected",
    [
        ("robo en León en 2024", "¿y de celulares?", ["robo"]),  # no kind of robo: the word stays unread, said
        ("homicidios dolosos en León en 2024", "¿y en Celaya?", ["homicidio_doloso"]),
        ("extorsiones en Celaya 2023", "¿y a negocio?", ["extorsion"]),  # not a kind of extorsión
    ],
)
def test_follow_up_words_that_name_no_kind_keep_the_crime(ask, lexicon, first, follow, expected):
    merged = merge_follow_up(ask(follow), ask(first), lexicon)
    assert [c.delito for c in merged.crimes] == expected
    assert "followup:narrowed_crime" not in merged.signals
