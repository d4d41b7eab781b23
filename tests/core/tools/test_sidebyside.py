"""comparar_lugares (19): places side by side and against the state rate, against the raw file and CONAPO."""

from __future__ import annotations

import duckdb
import pytest

from core import api
from tests.conftest import RAW
from tests.core.tools.oracle import connect


@pytest.fixture(scope="module")
def oracle():
    con = connect()
    yield con
    con.close()


def population(year: int) -> dict[str, int]:
    """CONAPO population per municipality of a year, read from the raw file."""
    rows = duckdb.execute(
        f"SELECT municipio, CAST(poblacion AS BIGINT) FROM read_csv('{RAW / 'poblacion_gto.csv'}', all_varchar = true) "
        "WHERE CAST(anio AS INTEGER) = ?",
        [year],
    ).fetchall()
    return dict(rows)


def run(settings, places, year, **args) -> dict:
    plan = {"plan": [{"tool_id": 19, "args": {"entidad_id": "GTO", "entidades": places, "delito": "homicidio_doloso",
                                              "from": f"{year}-01-01", "to": f"{year}-12-31", **args}}]}  # fmt: skip
    return api.execution(plan, settings=settings).last


@pytest.mark.parametrize(
    ("places", "names", "year"),
    [
        (["GTO.MUN.CELAYA", "GTO.MUN.SALAMANCA"], ["Celaya", "Salamanca"], 2023),
        (["GTO.MUN.LEON"], ["León"], 2024),
        (["GTO.MUN.IRAPUATO", "GTO.MUN.LEON", "GTO.MUN.GUANAJUATO"], ["Irapuato", "León", "Guanajuato"], 2022),
    ],
)
def test_counts_rates_and_verdicts(bundled_settings, oracle, places, names, year):
    env = run(bundled_settings, places, year)
    assert env["status"] == "ok", env.get("error")
    rows = env["data"]["inline"]["rows"]
    assert [r[1] for r in rows] == [*names, "Guanajuato"]  # the order asked, then the state
    counts = dict(
        oracle.execute(
            "SELECT municipio, sum(n) FROM h WHERE anio = ? AND subtipo = 'Homicidio doloso' GROUP BY 1", [year]
        ).fetchall()
    )
    assert [r[2] for r in rows[:-1]] == [counts[n] for n in names] and rows[-1][2] == sum(counts.values())
    state_rate = round(rows[-1][2] / rows[-1][3] * 100_000, 2)
    assert rows[-1][4] == state_rate == env["metrics"]["tasa_estatal"]
    for r in rows[:-1]:
        assert r[4] == round(r[2] / r[3] * 100_000, 2)
        assert r[5] == ("por encima" if r[4] > state_rate else "por debajo" if r[4] < state_rate else "igual")
    assert sum(r[3] for r in rows[:-1]) <= rows[-1][3]


@pytest.mark.parametrize("year", [2020, 2023, 2025])
def test_populations_are_conapo_and_the_state_is_their_sum(bundled_settings, year):
    env = run(bundled_settings, ["GTO.MUN.LEON", "GTO.MUN.CELAYA"], year)
    pop = population(year)
    rows = env["data"]["inline"]["rows"]
    assert [r[3] for r in rows] == [pop["León"], pop["Celaya"], sum(pop.values())]


def test_without_the_state_row(bundled_settings):
    env = run(bundled_settings, ["GTO.MUN.CELAYA", "GTO.MUN.SALAMANCA"], 2023, incluir_estado=False)
    assert [r[1] for r in env["data"]["inline"]["rows"]] == ["Celaya", "Salamanca"]


def test_without_places_only_the_state(bundled_settings):
    plan = {"plan": [{"tool_id": 19, "args": {"entidad_id": "GTO", "delito": "homicidio_doloso",
                                              "from": "2023-01-01", "to": "2023-12-31"}}]}  # fmt: skip
    env = api.execution(plan, settings=bundled_settings).last
    assert [r[1] for r in env["data"]["inline"]["rows"]] == ["Guanajuato"]
