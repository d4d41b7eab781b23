"""desglose_delito (20) with no crime: every crime of a place by tipo, against the raw files (the yearly totals file
and the tipo × modalidad parquet, read by DuckDB with no code of core)."""

from __future__ import annotations

import duckdb
import pytest

from core import api
from tests.conftest import RAW

ANNUAL = RAW / "sesnsp" / "gto_total_delitos_anual_2015-2026.csv"
PARQUET = RAW / "sesnsp" / "gto_municipal_tipo_modalidad_2015-01_2025-05.parquet"


@pytest.fixture(scope="module")
def raw():
    con = duckdb.connect()
    yield con
    con.close()


def _year_total(raw, cve: str | None, year: int) -> int:
    cond, params = ("anio = ?", [year]) if cve is None else ("anio = ? AND cve_municipio = ?", [year, cve])
    sql = f"SELECT sum(total_delitos) FROM read_csv('{ANNUAL}', types={{'cve_municipio': 'VARCHAR'}}) WHERE {cond}"
    return int(raw.execute(sql, params).fetchone()[0])


def _tipo(raw, municipio: str | None, tipo: str, start: str, end: str) -> int:
    cond, params = '"Tipo de delito" = ? AND "Fecha" BETWEEN ? AND ?', [tipo, start, end]
    if municipio:
        cond += ' AND "Municipio" = ?'
        params.append(municipio)
    return int(
        raw.execute(f"SELECT sum(\"Incidentes\") FROM read_parquet('{PARQUET}') WHERE {cond}", params).fetchone()[0]
    )


def _run(settings, **args) -> dict:
    env = api.execution({"plan": [{"tool_id": 20, "args": args}]}, settings=settings).last
    assert env["status"] == "ok", env.get("error")
    return env


@pytest.mark.parametrize(
    ("eid", "cve", "name", "year", "top"),
    [
        ("GTO.MUN.CELAYA", "11007", "Celaya", 2024, "Robo"),
        ("GTO.MUN.LEON", "11020", "León", 2023, "Narcomenudeo"),
        ("GTO.MUN.IRAPUATO", "11017", "Irapuato", 2019, "Robo"),  # its own subtipo file, summed back to the tipo
        ("GTO", None, None, 2023, "Robo"),  # the state: the sum of its municipalities
    ],
)
def test_every_crime_by_tipo_adds_up_to_the_yearly_total(bundled_settings, raw, eid, cve, name, year, top):
    env = _run(bundled_settings, entidad_id=eid, **{"from": f"{year}-01-01", "to": f"{year}-12-31"})
    rows = env["data"]["inline"]["rows"]
    assert env["metrics"]["total"] == sum(r[2] for r in rows) == _year_total(raw, cve, year)
    counts = [r[2] for r in rows]
    assert counts == sorted(counts, reverse=True)  # the most common first
    assert sum(r[3] or 0 for r in rows) == pytest.approx(100, abs=0.05)
    assert rows[0][1].startswith(top)
    assert rows[0][2] == _tipo(raw, name, top, f"{year}-01-01", f"{year}-12-31")


def test_homicide_and_lesiones_rows_name_both_subtipos(bundled_settings):
    """At the tipo level homicidio and lesiones sum dolosos and culposos: the row says so."""
    env = _run(bundled_settings, entidad_id="GTO.MUN.CELAYA", **{"from": "2024-01-01", "to": "2024-12-31"})
    labels = {r[0]: r[1] for r in env["data"]["inline"]["rows"]}
    assert labels["homicidio"] == "Homicidio (doloso y culposo)"
    assert labels["lesiones"] == "Lesiones (dolosas y culposas)"


def test_top_k_keeps_k_rows_and_sums_the_rest(bundled_settings):
    env = _run(bundled_settings, entidad_id="GTO.MUN.SILAO_DE_LA_VICTORIA", top_k=3,
               **{"from": "2024-01-01", "to": "2024-06-30"})  # fmt: skip
    rows, met = env["data"]["inline"]["rows"], env["metrics"]
    assert len(rows) == 3
    assert sum(r[2] for r in rows) + met["resto_conteo"] == met["total"]
    assert met["delitos"] == 3 + met["resto_delitos"]


def test_months_where_only_some_crimes_run_are_left_out(bundled_settings, raw):
    """León 2025: after May only the homicide file runs; a total of June–November would be homicide alone."""
    env = _run(bundled_settings, entidad_id="GTO.MUN.LEON", **{"from": "2025-01-01", "to": "2025-11-30"})
    assert env["meta"]["date_range_effective"] == {"from": "2025-01-01", "to": "2025-05-31"}
    assert env["meta"]["range_adjusted"]
    total = raw.execute(
        f"""SELECT sum("Incidentes") FROM read_parquet('{PARQUET}') WHERE "Municipio" = 'León'
            AND "Fecha" BETWEEN '2025-01-01' AND '2025-05-31'"""
    ).fetchone()[0]
    assert env["metrics"]["total"] == total


@pytest.mark.parametrize(
    ("eid", "cve", "foco", "count"),
    [
        ("GTO.MUN.SALAMANCA", "11027", "violencia_familiar", 1022),
        ("GTO.MUN.SAN_MIGUEL_DE_ALLENDE", "11003", "fraude", 256),
        ("GTO.MUN.CELAYA", "11007", "homicidio_doloso", 443),  # a subtipo inside the homicidio tipo row
    ],
)
def test_a_focus_gets_its_count_and_share_of_the_same_total(bundled_settings, raw, eid, cve, foco, count):
    env = _run(bundled_settings, entidad_id=eid, foco=foco, **{"from": "2024-01-01", "to": "2024-12-31"})
    met = env["metrics"]
    total = _year_total(raw, cve, 2024)
    assert met["total"] == total
    assert met["foco_conteo"] == count
    assert met["foco_porcentaje"] == pytest.approx(100 * count / total, abs=0.01)


def test_a_focus_the_place_does_not_publish_has_no_share(bundled_settings):
    """Robo a negocio is not published by municipality (except Irapuato): no share of an unpublished figure."""
    env = _run(bundled_settings, entidad_id="GTO.MUN.CELAYA", foco="robo_a_negocio",
               **{"from": "2024-01-01", "to": "2024-12-31"})  # fmt: skip
    assert env["metrics"]["foco_publicado"] is False
    assert "foco_porcentaje" not in env["metrics"]
