"""resumen_periodo (15): peak, lowest and averages of a window, checked against the raw homicide file."""

from __future__ import annotations

import calendar

import pytest

from core import api
from tests.core.tools.oracle import connect, month_number

CASES = [  # (municipio, cve, year)
    ("Celaya", "GTO.MUN.CELAYA", 2023),
    ("León", "GTO.MUN.LEON", 2021),
    ("Salamanca", "GTO.MUN.SALAMANCA", 2024),
    ("Xichú", "GTO.MUN.XICHU", 2022),
]


@pytest.fixture(scope="module")
def oracle():
    con = connect()
    yield con
    con.close()


def run(settings, **args) -> dict:
    plan = {"plan": [{"tool_id": 15, "args": {"delito": "homicidio_doloso", **args}}]}
    return api.execution(plan, settings=settings).last


def monthly(oracle, name: str, year: int) -> dict[int, int]:
    got = oracle.execute(
        "SELECT mes, sum(n) FROM h WHERE municipio = ? AND anio = ? AND subtipo = 'Homicidio doloso' GROUP BY 1",
        [name, year],
    ).fetchall()
    return {month_number(m): int(n) for m, n in got}


@pytest.mark.parametrize(("name", "eid", "year"), CASES)
@pytest.mark.parametrize("enfoque", ["maximo", "minimo", "promedio"])
def test_peak_lowest_and_averages_match_the_raw_file(bundled_settings, oracle, name, eid, year, enfoque):
    env = run(bundled_settings, entidad_id=eid, **{"from": f"{year}-01-01", "to": f"{year}-12-31"}, enfoque=enfoque)
    assert env["status"] == "ok", env.get("error")
    met, by_month = env["metrics"], monthly(oracle, name, year)
    total = sum(by_month.values())
    assert met["total"] == total and met["meses_publicados"] == 12
    days = 366 if calendar.isleap(year) else 365
    assert met["dias"] == days and met["promedio_diario"] == round(total / days, 2)
    assert met["promedio_mensual"] == round(total / 12, 2)
    high, low = max(by_month.values()), min(by_month.values())
    assert met["maximo_conteo"] == (high if total else None) and met["minimo_conteo"] == low
    first_high = min(m for m, n in by_month.items() if n == high)
    if total:
        assert met["maximo_periodo"] == f"{year}-{first_high:02d}"
    assert sorted(met["empates_minimo"]) == [f"{year}-{m:02d}" for m, n in sorted(by_month.items()) if n == low]
    assert [r[2] for r in env["data"]["inline"]["rows"]] == [by_month[m] for m in range(1, 13)]


def test_by_year_marks_the_partial_year_and_keeps_it_out_of_the_lowest(bundled_settings, oracle):
    env = run(bundled_settings, entidad_id="GTO.MUN.CELAYA", por="anio", enfoque="minimo",
              **{"from": "2020-01-01", "to": "2025-11-30"})  # fmt: skip
    rows = {r[0]: r for r in env["data"]["inline"]["rows"]}
    assert rows["2025"][5] is True and rows["2025"][3] == 11 and rows["2024"][5] is False
    years = {y: sum(monthly(oracle, "Celaya", y).values()) for y in range(2020, 2025)}
    assert env["metrics"]["minimo_periodo"] == str(min(years, key=lambda y: (years[y], y)))
    assert {int(k): v[2] for k, v in rows.items() if k != "2025"} == years


@pytest.mark.parametrize(("por", "size", "tag"), [("trimestre", 3, "T"), ("semestre", 6, "S")])
@pytest.mark.parametrize(("name", "eid", "year"), CASES[:3])
def test_by_quarter_and_semester_sum_the_raw_months(bundled_settings, oracle, por, size, tag, name, eid, year):
    """«el trimestre con más…»: calendar quarters (semesters) of the window, each the sum of its months."""
    env = run(
        bundled_settings, entidad_id=eid, por=por, enfoque="maximo", **{"from": f"{year}-01-01", "to": f"{year}-12-31"}
    )
    assert env["status"] == "ok", env.get("error")
    by_month = monthly(oracle, name, year)
    parts = {f"{year}-{tag}{k + 1}": sum(by_month.get(m, 0) for m in range(k * size + 1, (k + 1) * size + 1))
             for k in range(12 // size)}  # fmt: skip
    assert {r[0]: r[2] for r in env["data"]["inline"]["rows"]} == parts
    best = max(parts.values())
    assert env["metrics"]["maximo_conteo"] == best
    assert env["metrics"]["maximo_periodo"] == min(k for k, v in parts.items() if v == best)


def test_a_partial_quarter_is_marked(bundled_settings):
    """November 2025 is the last month published: that quarter has 2 of 3 months and never competes as the lowest."""
    env = run(bundled_settings, entidad_id="GTO.MUN.LEON", por="trimestre", enfoque="minimo",
              **{"from": "2025-01-01", "to": "2025-11-30"})  # fmt: skip
    rows = {r[0]: r for r in env["data"]["inline"]["rows"]}
    assert rows["2025-T4"][5] is True and rows["2025-T4"][3] == 2 and rows["2025-T3"][5] is False
    assert env["metrics"]["minimo_periodo"] != "2025-T4"


def test_unpublished_months_are_not_zeros(bundled_settings):
    # homicidio doloso starts in 2020: 2019 is outside its coverage, validation clamps the window
    env = run(bundled_settings, entidad_id="GTO.MUN.LEON", **{"from": "2019-07-01", "to": "2020-06-30"})
    assert env["status"] == "ok" and env["metrics"]["meses_publicados"] == 6
    assert all(r[1].startswith("2020") for r in env["data"]["inline"]["rows"])


def test_evidence_counts_the_rows_with_events(bundled_settings):
    env = run(bundled_settings, entidad_id="GTO.MUN.CELAYA", **{"from": "2023-01-01", "to": "2023-12-31"})
    assert env["evidence"][0]["total"] > 0 and env["evidence"][0]["ids"] == sorted(env["evidence"][0]["ids"])
