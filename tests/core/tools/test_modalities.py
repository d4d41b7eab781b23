"""desglose_modalidad (17): shares inside a place and in the state, against the raw homicide file."""

from __future__ import annotations

import pytest

from core import api
from tests.core.tools.oracle import connect

MODALIDAD = {"con_arma_de_fuego": "Con arma de fuego", "con_arma_blanca": "Con arma blanca",
             "con_otro_elemento": "Con otro elemento", "no_especificado": "No especificado"}  # fmt: skip


@pytest.fixture(scope="module")
def oracle():
    con = connect()
    yield con
    con.close()


def shares(oracle, subtipo: str, year: int, name: str | None) -> dict[str, int]:
    cond, params = "subtipo = ? AND anio = ?", [subtipo, year]
    if name:
        cond += " AND municipio = ?"
        params.append(name)
    return {
        m: int(n)
        for m, n in oracle.execute(f"SELECT modalidad, sum(n) FROM h WHERE {cond} GROUP BY 1", params).fetchall()
    }


@pytest.mark.parametrize(
    ("eid", "name", "delito", "subtipo", "year"),
    [
        ("GTO.MUN.CELAYA", "Celaya", "homicidio_doloso", "Homicidio doloso", 2023),
        ("GTO.MUN.LEON", "León", "homicidio_doloso", "Homicidio doloso", 2021),
        ("GTO.MUN.IRAPUATO", "Irapuato", "homicidio_culposo", "Homicidio culposo", 2024),
        ("GTO", None, "homicidio_doloso", "Homicidio doloso", 2022),
    ],
)
def test_shares_inside_the_place_and_the_state(bundled_settings, oracle, eid, name, delito, subtipo, year):
    plan = {"plan": [{"tool_id": 17, "args": {"entidad_id": eid, "delito": delito, "foco": "con_arma_de_fuego",
                                              "from": f"{year}-01-01", "to": f"{year}-12-31"}}]}  # fmt: skip
    env = api.execution(plan, settings=bundled_settings).last
    assert env["status"] == "ok", env.get("error")
    place, state = shares(oracle, subtipo, year, name), shares(oracle, subtipo, year, None)
    rows = {r[1]: r for r in env["data"]["inline"]["rows"]}
    assert {k: r[2] for k, r in rows.items() if r[2] or k in place} == {
        k: v for k, v in place.items() if v or k in rows
    }
    assert {k: r[4] for k, r in rows.items()} == {k: state.get(k, 0) for k in rows}
    total = sum(place.values())
    fire = place.get("Con arma de fuego", 0)
    assert env["metrics"]["foco_conteo"] == fire
    assert env["metrics"]["foco_porcentaje"] == (round(100 * fire / total, 2) if total else None)
    assert sum(r[3] or 0 for r in rows.values()) == pytest.approx(100, abs=0.05)


@pytest.mark.parametrize(
    "question",
    [
        "robos con violencia por modalidad en León 2024",
        "robos con violencia de cada tipo en León 2024",
        "desglose de los robos sin violencia en Celaya en 2023",
    ],
)
def test_a_breakdown_keeps_the_violence_asked(bundled_settings, question):
    """Session 20: «robos con violencia por modalidad» was every robo (León 2024: 8,375); it is the violent kinds
    only (con violencia 1,679 + coche de 4 ruedas con violencia 101 = 1,780; Celaya 2023 sin violencia 1,995 + coche
    185 = 2,180, shared data README figures by modalidad)."""
    from core.ask.context import Assistant
    from core.ask.pipeline import Conversation

    turn = Assistant(settings=bundled_settings, use_cache=False).ask(question, Conversation(), planner="rules")
    violent = "sin" not in question
    assert ("1,780" if violent else "2,180") in turn.answer.text, turn.answer.text
    assert "8,375" not in turn.answer.text and "3,375" not in turn.answer.text, turn.answer.text
    rows = turn.result["data"]["inline"]["rows"]
    assert all(r[0].endswith("con_violencia" if violent else "sin_violencia") for r in rows), rows
