"""desglose_delito (20): a sum of several crimes with each crime's part, against the raw homicide file."""

from __future__ import annotations

import pytest

from core import api
from tests.core.tools.oracle import connect


@pytest.fixture(scope="module")
def oracle():
    con = connect()
    yield con
    con.close()


def by_subtipo(oracle, year: int, name: str | None, modalidad: str | None = None) -> dict[str, int]:
    cond, params = "anio = ?", [year]
    if name:
        cond += " AND municipio = ?"
        params.append(name)
    if modalidad:
        cond += " AND modalidad = ?"
        params.append(modalidad)
    sql = f"SELECT subtipo, sum(n) FROM h WHERE {cond} GROUP BY 1"
    return {s: int(n) for s, n in oracle.execute(sql, params).fetchall()}


@pytest.mark.parametrize(
    ("eid", "name", "year", "metodo", "modalidad"),
    [
        ("GTO.MUN.CELAYA", "Celaya", 2024, None, None),
        ("GTO.MUN.LEON", "León", 2023, None, None),
        ("GTO", None, 2022, None, None),
        ("GTO.MUN.IRAPUATO", "Irapuato", 2021, "con_arma_blanca", "Con arma blanca"),
    ],
)
def test_each_crime_and_the_sum(bundled_settings, oracle, eid, name, year, metodo, modalidad):
    args = {"entidad_id": eid, "delito": ["homicidio_doloso", "homicidio_culposo"],
            "from": f"{year}-01-01", "to": f"{year}-12-31"}  # fmt: skip
    if metodo:
        args["metodo"] = metodo
    env = api.execution({"plan": [{"tool_id": 20, "args": args}]}, settings=bundled_settings).last
    assert env["status"] == "ok", env.get("error")
    raw = by_subtipo(oracle, year, name, modalidad)
    rows = {r[0]: r for r in env["data"]["inline"]["rows"]}
    assert rows["homicidio_doloso"][2] == raw.get("Homicidio doloso", 0)
    assert rows["homicidio_culposo"][2] == raw.get("Homicidio culposo", 0)
    total = raw.get("Homicidio doloso", 0) + raw.get("Homicidio culposo", 0)
    assert env["metrics"]["total"] == total
    assert sum(r[3] or 0 for r in rows.values()) == pytest.approx(100, abs=0.05)
    counts = [r[2] for r in env["data"]["inline"]["rows"]]
    assert counts == sorted(counts, reverse=True)  # largest first


def test_a_crime_with_no_events_keeps_its_row(bundled_settings):
    """Every asked crime has a row: a split that drops a zero reads as a crime left out."""
    args = {"entidad_id": "GTO.MUN.SANTA_CATARINA", "delito": ["feminicidio", "secuestro"],
            "from": "2019-01-01", "to": "2019-12-31"}  # fmt: skip
    env = api.execution({"plan": [{"tool_id": 20, "args": args}]}, settings=bundled_settings).last
    assert env["status"] == "ok", env.get("error")
    assert sorted(r[0] for r in env["data"]["inline"]["rows"]) == ["feminicidio", "secuestro"]


@pytest.mark.parametrize(
    ("question", "parts"),
    [
        ("homicidios dolosos y culposos en León en 2023", ["homicidio doloso 777", "homicidio culposo 61", "838"]),
        ("feminicidios y homicidios dolosos en Celaya en 2024", ["homicidio doloso 443", "feminicidio"]),
    ],
)
def test_a_summed_question_shows_its_parts(bundled_settings, question, parts):
    """issue 13 §3: a sum of crimes is never given without the figure of each one."""
    from core.ask.context import Assistant
    from core.ask.pipeline import Conversation

    turn = Assistant(settings=bundled_settings, use_cache=False).ask(question, Conversation(), planner="rules")
    assert turn.status == "ok", turn.reply
    assert [s["tool_id"] for s in turn.plan["plan"]] == [20]
    for part in parts:
        assert part in turn.answer.text, turn.answer.text
