"""The lead sentences (core/ask/leads.py): one writer per answer shape, every number read from the envelope."""

from __future__ import annotations

import pytest

from core.ask.leads import lead


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
]


@pytest.mark.parametrize(("envelope", "shape", "detail", "sentences"), CASES)
def test_each_shape_has_its_lead(envelope, shape, detail, sentences):
    assert lead(envelope, shape, detail) == sentences
