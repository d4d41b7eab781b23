"""fuero_federal (23): federal carpetas by ley, concepto, tipo or state, against the raw federal file."""

from __future__ import annotations

import json

import pytest

from core import api
from core.ask.compose import compose
from tests.conftest import FIXTURES
from tests.core.tools.national_oracle import connect

PLAN = json.loads((FIXTURES / "national" / "fuero_federal.json").read_text(encoding="utf-8"))
GTO_PER_YEAR = [10062, 7182, 4111, 4369, 4199, 5710, 6057, 5204, 4797, 4073, 4477, 4394, 4765, 2913]  # README


@pytest.fixture(scope="module")
def oracle():
    con = connect()
    yield con
    con.close()


def run(settings, **args) -> dict:
    return api.execution({"plan": [{"tool_id": 23, "args": args}]}, settings=settings).last


@pytest.mark.parametrize(("year", "total"), [(2012 + i, n) for i, n in enumerate(GTO_PER_YEAR)])
def test_readme_guanajuato_per_year(bundled_settings, year, total):
    env = run(bundled_settings, desde=f"{year}-01-01", hasta=f"{year}-12-31")
    assert env["status"] == "ok", env.get("error")
    assert env["metrics"]["total"] == total == sum(r[3] for r in env["data"]["inline"]["rows"])


@pytest.mark.parametrize(
    ("lugar_id", "ent", "desglose", "raw", "window"),
    [
        ("GTO", 11, "tipo", "concepto || ' — ' || tipo", ("2024-01-01", "2024-12-01")),
        ("JAL", 14, "concepto", "concepto", ("2019-06-01", "2020-05-01")),
        ("CDMX", 9, "ley", "ley", ("2012-01-01", "2025-07-01")),
    ],
)
def test_breakdowns_equal_the_raw_file(bundled_settings, oracle, lugar_id, ent, desglose, raw, window):
    want = oracle.execute(
        f"""SELECT {raw}, sum(n) FROM f WHERE ent = ?
            AND make_date(anio, mes, 1) BETWEEN CAST(? AS DATE) AND CAST(? AS DATE) GROUP BY 1""",
        [ent, *window],
    ).fetchall()
    env = run(bundled_settings, lugar_id=lugar_id, desglose=desglose, desde=window[0], hasta=window[1])
    rows = env["data"]["inline"]["rows"]
    assert sorted((r[1], r[3]) for r in rows) == sorted(want)
    assert [r[3] for r in rows] == sorted((r[3] for r in rows), reverse=True)  # largest first
    total = sum(w[1] for w in want)
    assert all(r[4] == round(100 * r[3] / total, 2) for r in rows)


def test_the_country_by_state_shows_abroad_apart(bundled_settings, oracle):
    env = run(bundled_settings, lugar_id="MX", desglose="estado", desde="2024-01-01", hasta="2024-12-31")
    rows = {r[0]: r for r in env["data"]["inline"]["rows"]}
    want = dict(oracle.execute("SELECT coalesce(ids.lugar_id, 'MX.EXTRANJERO'), sum(n) FROM f LEFT JOIN ids "
                               "USING (ent) WHERE anio = 2024 GROUP BY 1").fetchall())  # fmt: skip
    assert {k: r[3] for k, r in rows.items()} == want
    assert (rows["CDMX"][3], rows["MEX"][3], rows["GTO"][3]) == (9989, 5107, 4765)  # README
    assert env["metrics"]["total"] == 78645 and env["metrics"]["extranjero"] == want["MX.EXTRANJERO"]
    assert rows["MX.EXTRANJERO"][1] == "Extranjero (no es un estado)"
    assert any("Extranjero" in w for w in env["meta"]["warnings"])


@pytest.mark.parametrize(
    ("clave", "count"),
    [("federal_otros_delitos_patrimoniales", 1820), ("federal_contra_la_salud", 269)],  # README, Guanajuato 2024
)
def test_readme_guanajuato_2024_by_crime(bundled_settings, clave, count):
    env = run(bundled_settings, clave_delito=clave, desde="2024-01-01", hasta="2024-12-31")
    assert env["metrics"]["total"] == count


def test_federal_is_labelled_and_never_mixed_with_comun(bundled_settings):
    env = run(bundled_settings, **PLAN["plan"][0]["args"])
    met, meta = env["metrics"], env["meta"]
    assert (met["fuero"], met["medida"], met["metodologia"]) == ("federal", "carpetas", "IDEFF")
    assert (meta["fuero"], meta["metodologia"]) == ("federal", "IDEFF")
    assert met["fuente"] == ["fuero_federal_estatal_2012-01_2025-07.csv"] and met["vigente"] is True
    assert any("no se suman" in w for w in meta["warnings"])
    assert all(r[0].startswith("federal_") for r in env["data"]["inline"]["rows"])  # no común key in the table
    # the state's narcomenudeo (fuero común) is no federal crime: asking the federal tool for it is refused
    refused = run(bundled_settings, clave_delito="narcomenudeo", desde="2024-01-01", hasta="2024-12-31")
    assert refused["error"]["code"] == "INVALID_FILTER" and "fuero federal" in refused["error"]["details"]


def test_unpublished_months_are_no_zeros(bundled_settings):
    env = run(bundled_settings, desde="2025-01-01", hasta="2025-12-31")
    assert env["meta"]["date_range_effective"] == {"from": "2025-01-01", "to": "2025-07-31"}
    assert env["metrics"]["meses_publicados"] == 7 and env["metrics"]["total"] == 2913


@pytest.mark.parametrize(
    ("args", "code", "words"),
    [
        (dict(lugar_id="EXTRANJERO"), "INVALID_PAYLOAD", "Valor no permitido en lugar_id"),
        (dict(desglose="municipio"), "INVALID_PAYLOAD", "Valor no permitido en desglose"),
        (dict(desde="2026-01-01", hasta="2026-03-31"), "INVALID_DATE_RANGE", "está fuera de carpetas"),
        (dict(desde="2024-13-01"), "INVALID_DATE_RANGE", "Fecha inexistente"),
    ],
)
def test_contract_errors_in_spanish(bundled_settings, args, code, words):
    env = run(bundled_settings, **{**dict(desde="2024-01-01", hasta="2024-12-31"), **args})
    assert env["status"] == "error" and env["error"]["code"] == code
    assert words in env["error"]["details"]


def test_the_plan_fixture_runs_and_composes(bundled_settings):
    result = api.execution(PLAN, settings=bundled_settings)
    answer = compose("¿Cuántos delitos federales hubo en Guanajuato en 2024?", result.envelopes,
                     metadata=api.metadata(bundled_settings))  # fmt: skip
    assert "Guanajuato registró 4,765 carpetas del fuero federal" in answer.text
    assert "no se suman" in answer.text


@pytest.mark.parametrize(
    ("tool", "window", "months"),
    [
        (21, {"from": "2023-12-01", "to": "2024-11-30"}, 12),  # IDFC state file ends 2024-11
        (22, {"from": "2024-07-01", "to": "2025-06-30"}, 12),  # victims end 2025-06
        (23, {"from": "2024-08-01", "to": "2025-07-31"}, 12),  # federal file ends 2025-07
    ],
)
def test_without_a_window_each_series_gives_its_last_12_published_months(bundled_settings, tool, window, months):
    env = api.execution({"plan": [{"tool_id": tool, "args": {}}]}, settings=bundled_settings).last
    assert env["status"] == "ok", env.get("error")
    assert env["meta"]["date_range_effective"] == window and env["metrics"]["meses_publicados"] == months
    assert env["meta"]["date_range_requested"] is None and "últimos 12 meses" in env["meta"]["range_adjusted_reason"]


@pytest.mark.parametrize("tool", [21, 22, 23])
def test_desde_and_hasta_go_together(bundled_settings, tool):
    env = api.execution({"plan": [{"tool_id": tool, "args": {"desde": "2024-01-01"}}]}, settings=bundled_settings).last
    assert env["error"]["code"] == "INVALID_DATE_RANGE" and "desde y hasta van juntos" in env["error"]["details"]
