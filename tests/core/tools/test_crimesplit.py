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


@pytest.mark.parametrize(
    ("eid", "keys", "rows", "unpublished"),
    [
        # a group (robo a transeúnte) is the sum of its members: its members are the rows, the group no «0» row;
        # espacio abierto al público is a published zero in Irapuato's own file and keeps its row
        (
            "GTO.MUN.IRAPUATO",
            ["robo_a_negocio", "robo_a_transeunte"],
            ["robo_a_negocio", "robo_a_transeunte_en_espacio_abierto_al_publico", "robo_a_transeunte_en_via_publica"],
            [],
        ),
        # Celaya publishes no robo subtipo (only robo by modalidad): robo a negocio is not published, not a zero
        ("GTO.MUN.CELAYA", ["homicidio_doloso", "robo_a_negocio"], ["homicidio_doloso"], ["Robo a negocio"]),
    ],
)
def test_a_crime_the_place_does_not_publish_is_no_zero_row(bundled_settings, eid, keys, rows, unpublished):
    """A row «robo a transeúnte 0» reads as a published zero: a sum whose parts are rows is left out, and a crime
    the place does not publish is named as such (0003)."""
    args = {"entidad_id": eid, "delito": keys, "from": "2024-01-01", "to": "2024-12-31"}
    env = api.execution({"plan": [{"tool_id": 20, "args": args}]}, settings=bundled_settings).last
    assert env["status"] == "ok", env.get("error")
    assert sorted(r[0] for r in env["data"]["inline"]["rows"]) == rows
    assert env["metrics"]["no_publicados"] == unpublished


@pytest.mark.parametrize(
    "question",
    [
        "robo a negocio, robo a casa habitación y robo a transeúnte en Irapuato en 2024, cada uno",
        "robo a transeúnte y robo a negocio en Irapuato en 2024",
    ],
)
def test_a_named_group_in_a_breakdown_has_no_zero_row(bundled_settings, question):
    """Session 20: «… robo a transeúnte 0 (0.0 %)» beside its own members was shown; the members are the rows."""
    from core.ask.context import Assistant
    from core.ask.pipeline import Conversation

    turn = Assistant(settings=bundled_settings, use_cache=False).ask(question, Conversation(), planner="rules")
    assert "robo a transeúnte en vía pública 173" in turn.answer.text, turn.answer.text
    assert "robo a transeúnte 0" not in turn.answer.text, turn.answer.text


def test_every_subtipo_of_a_tipo_is_named_as_the_tipo(bundled_settings):
    """«de los robos en Irapuato, ¿qué porcentaje fueron a negocio?»: the split of the whole tipo says «robo»
    (Irapuato's own file: robo 2024 = 4,622, robo a negocio 1,001), not a list of fourteen subtipos."""
    from core.dataset.store import Store
    from core.engine.catalog import build_catalog

    crimes = build_catalog(Store(bundled_settings)).crimes
    keys = sorted(c["delito"] for c in crimes if c.get("tipo_key") == "robo" and c.get("nivel") == "subtipo")
    args = {"entidad_id": "GTO.MUN.IRAPUATO", "delito": keys, "from": "2024-01-01", "to": "2024-12-31"}
    env = api.execution({"plan": [{"tool_id": 20, "args": args}]}, settings=bundled_settings).last
    assert env["status"] == "ok", env.get("error")
    assert env["metrics"]["tipo"] == "Robo" and env["metrics"]["total"] == 4622
    assert {r[0]: r[2] for r in env["data"]["inline"]["rows"]}["robo_a_negocio"] == 1001
