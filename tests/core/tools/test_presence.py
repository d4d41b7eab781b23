"""municipios_por_presencia (16): every municipality considered, zero-filled, against the raw secuestro file."""

from __future__ import annotations

import pytest

from core import api
from tests.core.tools.oracle import connect


@pytest.fixture(scope="module")
def oracle():
    con = connect()
    yield con
    con.close()


def run(settings, **args) -> dict:
    plan = {"plan": [{"tool_id": 16, "args": {"entidad_id": "GTO", "delito": "secuestro", **args}}]}
    return api.execution(plan, settings=settings).last


@pytest.mark.parametrize("year", [2016, 2019, 2023, 2024])
@pytest.mark.parametrize("condicion", ["sin", "con"])
def test_groups_match_the_raw_file(bundled_settings, oracle, year, condicion):
    env = run(bundled_settings, condicion=condicion, **{"from": f"{year}-01-01", "to": f"{year}-12-31"})
    assert env["status"] == "ok", env.get("error")
    with_events = {
        m: int(n)
        for m, n in oracle.execute(
            "SELECT mun.municipio, sum(s.n) FROM s JOIN mun USING (cve) WHERE anio = ? GROUP BY 1 HAVING sum(s.n) > 0",
            [year],
        ).fetchall()
    }
    every = {m for (m,) in oracle.execute("SELECT municipio FROM mun").fetchall()}
    met = env["metrics"]
    assert met["total_municipios"] == 46 == len(every)
    assert met["con_eventos"] == len(with_events) and met["sin_eventos"] == 46 - len(with_events)
    rows = env["data"]["inline"]["rows"]
    if condicion == "con":
        assert {r[1]: r[2] for r in rows} == with_events
    else:
        assert {r[1] for r in rows} == every - set(with_events) and all(r[2] == 0 for r in rows)


def test_a_municipality_is_refused_as_the_entity(bundled_settings):
    env = run(bundled_settings, entidad_id="GTO.MUN.LEON", **{"from": "2023-01-01", "to": "2023-12-31"})
    assert env["status"] == "error" and "estado" in env["error"]["details"] + str(env["error"].get("problems"))
