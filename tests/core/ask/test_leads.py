"""The lead sentences (core/ask/leads.py): one writer per answer shape, every number read from the envelope."""

from __future__ import annotations

import pytest

from core.ask.context import Assistant
from core.ask.leads import lead
from core.ask.pipeline import Conversation


def _envelope(headline: str, columns: list[str], rows: list[list], metrics: dict | None = None) -> dict:
    """A hand-built ok envelope of a tool outside the catalog, for the year 2024."""
    return {
        "status": "ok",
        "tool": "toy_tool@1.0.0",
        "summary": {"headline": headline},
        "data": {"inline": {"columns": [{"name": c} for c in columns], "rows": rows}},
        "metrics": metrics or {},
        "meta": {"date_range_effective": {"from": "2024-01-01", "to": "2024-12-31"}},
    }


SINGLE = _envelope(
    "Top Homicidio doloso (conteo) — León, 2024-01..2024-12",
    ["entidad_id", "label", "conteo", "tasa_per_100k"],
    [["GTO.MUN.LEON", "León", 596, 32.2]],
)
RANKING = _envelope(
    "Top Homicidio doloso (conteo) — GTO, 2024-01..2024-12",
    ["entidad_id", "label", "conteo"],
    [["GTO.MUN.LEON", "León", 596], ["GTO.MUN.CELAYA", "Celaya", 443]],
    {"total_conteo": 2553},
)
SERIES_ZERO = _envelope(
    "Serie mensual de Homicidio doloso — León, 2024-01..2024-12",
    ["fecha", "conteo"],
    [["2024-01-01", 0]],
    {"total": 0, "meses_publicados": 12},
)


def _comparison(metrics: dict, rows: list[list] | None = None) -> dict:
    """comparar_periodos 1.1.0's envelope: Celaya's homicidios dolosos, 2024 against 2023."""
    env = _envelope(
        "Comparación de Homicidio doloso — Celaya: 2024-01..2024-12 frente a 2023-01..2023-12",
        ["entidad_id", "label", "conteo", "conteo_base", "cambio", "cambio_pct", "tasa_per_100k", "tasa_per_100k_base"],
        rows or [["GTO.MUN.CELAYA", "Celaya", 443, 370, 73, 19.73, 80.3, 67.81]],
        {"conteo": 443, "conteo_base": 370, "cambio": 73, "cambio_pct": 19.73, **metrics},
    )
    env["meta"]["date_range_base_effective"] = {"from": "2023-01-01", "to": "2023-12-31"}
    return env


RATES = {"tasa_per_100k": 80.3, "tasa_per_100k_base": 67.81, "cambio_tasa": 12.5, "cambio_tasa_pct": 18.43}
COUNT_LEAD = (
    "Celaya registró 443 homicidios dolosos entre enero y diciembre de 2024, frente a 370 entre enero y diciembre "
    "de 2023: la cifra aumentó en 73 (+19.7 %)."
)
RATE_LEAD = (
    "Celaya tuvo una tasa de 80.3 homicidios dolosos por cada 100 mil habitantes entre enero y diciembre de 2024, "
    "frente a 67.8 entre enero y diciembre de 2023: la tasa aumentó 12.5 puntos (+18.4 %)."
)
EMPTY = _envelope("Top Homicidio doloso (conteo) — León, 2024-01..2024-12", ["entidad_id", "conteo"], [])

# (envelope, shape, method detail, the sentences the lead writes)
CASES = [
    (
        SINGLE,
        "single",
        "",
        ["León registró 596 homicidios dolosos entre enero y diciembre de 2024 (32.2 por cada 100 mil habitantes)."],
    ),
    (
        RANKING,
        "ranking",
        "",
        [
            "Los 2 municipios con más homicidios dolosos entre enero y diciembre de 2024: León (596) y Celaya (443).",
            "En todo Guanajuato se registraron 2,553.",
        ],
    ),
    (
        SERIES_ZERO,
        "series",
        "con arma de fuego",
        [
            "León no registró ningún homicidio doloso con arma de fuego entre enero y diciembre de 2024 "
            "(12 meses publicados, todos en cero)."
        ],
    ),
    (EMPTY, "empty", "", ["La consulta no devolvió resultados de homicidios dolosos entre enero y diciembre de 2024."]),
    # counts stay the default: the rates the tool always gives are said only when the rate was asked
    (_comparison({"medida": "conteo", **RATES}), "comparison", "", [COUNT_LEAD]),
    (_comparison({"medida": "tasa_per_100k", **RATES}), "comparison", "", [RATE_LEAD, "En número: 443 frente a 370."]),
    (
        _comparison({"medida": "tasa_per_100k", **RATES, "tasa_per_100k_base": None, "cambio_tasa": None}),
        "comparison",
        "",
        [COUNT_LEAD, "No hay población CONAPO de ambos años para dar la tasa por 100 mil habitantes."],
    ),
]


@pytest.mark.parametrize(("envelope", "shape", "detail", "sentences"), CASES)
def test_each_shape_has_its_lead(envelope, shape, detail, sentences):
    assert lead(envelope, shape, detail) == sentences


@pytest.fixture(scope="module")
def assistant(bundled_settings):
    return Assistant(settings=bundled_settings, use_cache=False)


@pytest.mark.parametrize(
    "questions",
    [
        ["homicidio doloso en celaya en tasa, 2024 contra 2023"],
        ["homicidios dolosos en Celaya 2024 contra 2023", "¿y en tasa?"],
    ],
    ids=["asked-in-rates", "rates-after-counts"],
)
def test_a_comparison_asked_in_rates_leads_with_the_rates(assistant, questions):
    conversation = Conversation()
    turns = [assistant.ask(q, conversation, planner="rules") for q in questions]
    text = turns[-1].answer.text
    assert text.startswith(RATE_LEAD + " En número: 443 frente a 370."), text
    assert not any(
        w.startswith("Cifras que no aparecen") for w in turns[-1].answer.warnings
    )  # every figure is the tool's
    if len(turns) > 1:
        assert turns[0].answer.text.startswith(COUNT_LEAD)  # counts stay the default
