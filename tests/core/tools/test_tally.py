"""core.tools.tally: a ranking by counts keeps only its first entities in SQL, and says the same as ranking all of them."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core import api
from core.tools import ranking, series, tally
from tests.core.tools import comparable

W = {"from": "2024-01-01", "to": "2024-12-31"}


@pytest.mark.parametrize(
    "steps",
    [
        [(6, {"entidad_id": "GTO", "delito": "homicidio_doloso", "nivel": "hijos", "top_k": 5, **W})],
        [(6, {"entidad_id": "GTO", "delito": "feminicidio", "nivel": "hijos", "orden": "asc", "top_k": 7, **W})],
        [(6, {"entidad_id": "GTO", "delito": "homicidio", "nivel": "hijos", "top_k": 100, **W}), (9, {"limit": 5})],
        [(7, {"entidad_id": "GTO", "nivel": "hijos", "top_k": 3, **W})],
        [(5, {"min_eventos": 50}), (7, {"entidad_id": "GTO", "nivel": "hijos", "top_k": 10, **W})],
        [(5, {"min_eventos": 10**9}), (6, {"entidad_id": "GTO", "delito": "homicidio_doloso", "nivel": "hijos", **W})],
        [
            (
                6,
                {
                    "entidad_id": "GTO",
                    "delito": "secuestro",
                    "nivel": "hijos",
                    "top_k": 4,
                    "from": "2016-01-01",
                    "to": "2016-03-31",
                },
            )
        ],
        [
            (
                13,
                {
                    "entidad_id": "GTO",
                    "delito": "homicidio_doloso",
                    "nivel": "hijos",
                    "top_k": 6,
                    "base_from": "2023-01-01",
                    "base_to": "2023-12-31",
                    **W,
                },
            ),
            (9, {"limit": 3}),
        ],
        [
            (5, {"min_eventos": 30}),
            (
                13,
                {
                    "entidad_id": "GTO",
                    "delito": "violencia_familiar",
                    "nivel": "hijos",
                    "base_from": "2021-01-01",
                    "base_to": "2021-12-31",
                    "from": "2022-01-01",
                    "to": "2022-12-31",
                },
            ),
        ],
        [
            (
                13,
                {
                    "entidad_id": "GTO",
                    "delito": "feminicidio",
                    "nivel": "hijos",
                    "top_k": 50,
                    "base_from": "2019-01-01",
                    "base_to": "2019-06-30",
                    "from": "2024-01-01",
                    "to": "2024-06-30",
                },
            )
        ],
    ],
)
def test_top_only_ranking_equals_ranking_every_entity(bundled_settings, monkeypatch, steps):
    plan = {"plan": [{"tool_id": t, "args": a} for t, a in steps]}
    used = []
    top = tally._children_top

    def spy(*args, **kwargs):
        used.append(True)
        return top(*args, **kwargs)

    monkeypatch.setattr(tally, "_children_top", spy)
    fast = api.execution(plan, settings=bundled_settings)
    assert used, "a ranking by counts should take the top-only statement"
    full_tally = tally.tally
    for module in (ranking, series):
        monkeypatch.setattr(module, "tally", lambda *a, **k: full_tally(*a, **{**k, "top_only": False}))
    full = api.execution(plan, settings=bundled_settings)
    assert fast.status == full.status == "ok", (fast.errors, full.errors)
    assert comparable(fast.envelopes) == comparable(full.envelopes)


def test_a_ranking_by_rate_ranks_every_entity(bundled_settings, monkeypatch):
    monkeypatch.setattr(tally, "_children_top", lambda *a, **k: pytest.fail("a rate is rounded: Python ranks it"))
    plan = {
        "plan": [
            {
                "tool_id": 6,
                "args": {
                    "entidad_id": "GTO",
                    "delito": "homicidio_doloso",
                    "nivel": "hijos",
                    "medida": "tasa_per_100k",
                    **W,
                },
            }
        ]
    }
    assert api.execution(plan, settings=bundled_settings).status == "ok"


MONTHLY = ["homicidio_doloso", "feminicidio", "secuestro", "violencia_familiar", "homicidio", "abuso_sexual"]


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
)
@given(
    tool=st.sampled_from([6, 7, 13]),
    delito=st.sampled_from(MONTHLY),
    top_k=st.integers(1, 60),
    orden=st.sampled_from(["asc", "desc"]),
    min_eventos=st.one_of(st.none(), st.integers(0, 400)),
    year=st.integers(2016, 2022),
    months=st.integers(1, 24),
)
def test_any_count_ranking_agrees_with_ranking_every_entity(
    bundled_settings, tool, delito, top_k, orden, min_eventos, year, months
):
    end_year, end_month = year + (months - 1) // 12, (months - 1) % 12 + 1
    window = {"from": f"{year}-01-01", "to": f"{end_year}-{end_month:02d}-28"}
    args = {"entidad_id": "GTO", "nivel": "hijos", "top_k": top_k, **window}
    if tool != 7:
        args["delito"] = delito
    if tool == 13:
        args |= {"base_from": f"{year - 1}-01-01", "base_to": f"{year - 1}-12-31"}
    else:
        args["orden"] = orden
    steps = ([{"tool_id": 5, "args": {"min_eventos": min_eventos}}] if min_eventos is not None else []) + [
        {"tool_id": tool, "args": args}
    ]
    fast = api.execution({"plan": steps}, settings=bundled_settings)
    full_tally = tally.tally
    ranking.tally = series.tally = lambda *a, **k: full_tally(*a, **{**k, "top_only": False})
    try:
        full = api.execution({"plan": steps}, settings=bundled_settings)
    finally:
        ranking.tally = series.tally = full_tally
    assert fast.status == full.status
    assert comparable(fast.envelopes) == comparable(full.envelopes)
