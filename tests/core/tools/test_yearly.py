"""serie_anual (18): each year's total and its change, a partial year against the same months before."""

from __future__ import annotations

import pytest

from core import api
from tests.core.tools.oracle import connect, month_number


@pytest.fixture(scope="module")
def oracle():
    con = connect()
    yield con
    con.close()


def yearly(oracle, name: str, months: int = 12) -> dict[int, int]:
    got = oracle.execute(
        "SELECT anio, mes, sum(n) FROM h WHERE municipio = ? AND subtipo = 'Homicidio doloso' GROUP BY 1, 2", [name]
    ).fetchall()
    out: dict[int, int] = {}
    for y, m, n in got:
        if month_number(m) <= months:
            out[y] = out.get(y, 0) + int(n)
    return out


@pytest.mark.parametrize(
    ("eid", "name"),
    [
        ("GTO.MUN.CELAYA", "Celaya"),
        ("GTO.MUN.LEON", "León"),
        (
            "GTO.MUN.DOLORES_HIDALGO_CUNA_DE_LA_INDEPENDENCIA_NACIONAL",
            "Dolores Hidalgo Cuna de la Independencia Nacional",
        ),
    ],
)
def test_year_over_year_against_the_raw_file(bundled_settings, oracle, eid, name):
    plan = {"plan": [{"tool_id": 18, "args": {"entidad_id": eid, "delito": "homicidio_doloso",
                                              "from": "2020-01-01", "to": "2025-11-30"}}]}  # fmt: skip
    env = api.execution(plan, settings=bundled_settings).last
    assert env["status"] == "ok", env.get("error")
    full, eleven = yearly(oracle, name), yearly(oracle, name, 11)
    rows = {r[0]: r for r in env["data"]["inline"]["rows"]}
    assert sorted(rows) == list(range(2020, 2026))
    for y in range(2021, 2025):
        n, nb = full[y], full[y - 1]
        assert rows[y][1] == n and rows[y][4] == nb and rows[y][5] == n - nb
        assert rows[y][6] == (round(100 * (n - nb) / nb, 2) if nb else None) and rows[y][3] is False
    assert rows[2020][4] is None and rows[2020][6] is None
    partial = rows[2025]
    assert partial[3] is True and partial[2] == 11 and partial[1] == eleven[2025]
    assert partial[4] == eleven[2024]  # the same eleven months of 2024, never the whole year


@pytest.mark.parametrize(("orden", "sign"), [("asc", 1), ("desc", -1)])
def test_comparar_periodos_ranks_changes_by_direction(bundled_settings, oracle, orden, sign):
    plan = {"plan": [{"tool_id": 13, "args": {"entidad_id": "GTO", "delito": "homicidio_doloso", "orden": orden,
                                              "top_k": 46, "from": "2023-01-01", "to": "2023-12-31",
                                              "base_from": "2022-01-01", "base_to": "2022-12-31"}}]}  # fmt: skip
    env = api.execution(plan, settings=bundled_settings).last
    got = oracle.execute(
        """SELECT municipio, sum(n) FILTER (WHERE anio = 2023) - sum(n) FILTER (WHERE anio = 2022) FROM h
           WHERE subtipo = 'Homicidio doloso' AND anio IN (2022, 2023) GROUP BY 1"""
    ).fetchall()
    changes = [r[4] for r in env["data"]["inline"]["rows"]]
    assert changes == sorted((int(c) for _, c in got), key=lambda c: sign * c)
    assert env["metrics"]["orden"] == orden
