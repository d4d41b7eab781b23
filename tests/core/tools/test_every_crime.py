"""Every municipal crime through the same tools (issue 14): the query database's ``incidents`` holds the curated
cells and the standing municipal observations (core/etl/query_cells.py), one number per cell.

The oracle is the raw tipo × modalidad parquet read by DuckDB, never the store."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from core import api
from core.dataset.store import Store

PARQUET = Path(__file__).parents[3] / "data/raw/sesnsp/gto_municipal_tipo_modalidad_2015-01_2025-05.parquet"
VEHICLE = ("Robo de coche de 4 ruedas", "Robo de motocicleta", "Robo de embarcaciones pequeñas y grandes")


@pytest.fixture(scope="module")
def raw():
    con = duckdb.connect()
    con.execute(
        f"""CREATE VIEW p AS SELECT year(Fecha) AS anio, Fecha::DATE AS fecha, Municipio AS municipio,
                   "Tipo de delito" AS tipo, Modalidad AS modalidad, Incidentes AS n FROM read_parquet('{PARQUET}')"""
    )
    yield con
    con.close()


def raw_sum(raw, municipio: str | None, tipo: str, year: int, modalidades: tuple[str, ...] = ()) -> int:
    cond, params = "tipo = ? AND anio = ?", [tipo, year]
    if municipio:
        cond += " AND municipio = ?"
        params.append(municipio)
    if modalidades:
        cond += f" AND modalidad IN ({', '.join('?' for _ in modalidades)})"
        params += list(modalidades)
    return int(raw.execute(f"SELECT coalesce(sum(n), 0) FROM p WHERE {cond}", params).fetchone()[0])


def count(settings, eid: str, delito: str, year: int, metodo=None, last_month: int = 12) -> int:
    args = {"entidad_id": eid, "nivel": "actual", "delito": delito, "from": f"{year}-01-01"}
    args["to"] = f"{year}-{last_month:02d}-{30 if last_month in (4, 6, 9, 11) else 31}"
    if metodo:
        args["metodo"] = metodo
    env = api.execution({"plan": [{"tool_id": 6, "args": args}]}, settings=settings).last
    assert env["status"] == "ok", env.get("error")
    return int(env["data"]["inline"]["rows"][0][2])


# (entity, municipio in the parquet, key, parquet tipo, year): crimes the 18 curated files never had
TIPO_CASES = [
    ("GTO.MUN.LEON", "León", "robo", "Robo", 2024),
    ("GTO.MUN.CELAYA", "Celaya", "extorsion", "Extorsión", 2024),
    ("GTO.MUN.SALAMANCA", "Salamanca", "lesiones", "Lesiones", 2022),
    ("GTO.MUN.SAN_MIGUEL_DE_ALLENDE", "San Miguel de Allende", "amenazas", "Amenazas", 2023),
    ("GTO.MUN.LEON", "León", "fraude", "Fraude", 2021),
    ("GTO.MUN.CELAYA", "Celaya", "dano_a_la_propiedad", "Daño a la propiedad", 2019),
    ("GTO.MUN.SALAMANCA", "Salamanca", "homicidio", "Homicidio", 2016),  # doloso + culposo, one published sum
    ("GTO.MUN.LEON", "León", "violencia_familiar", "Violencia familiar", 2024),  # the curated file ends in 2022
]


@pytest.mark.parametrize(("eid", "municipio", "key", "tipo", "year"), TIPO_CASES)
def test_a_tipo_by_municipality_is_the_raw_figure(bundled_settings, raw, eid, municipio, key, tipo, year):
    assert count(bundled_settings, eid, key, year) == raw_sum(raw, municipio, tipo, year)


def test_the_state_is_the_sum_of_its_municipalities_and_equals_the_state_file(bundled_settings, raw):
    """Robo in Guanajuato, January–November 2024: municipal cells (Irapuato by subtipo) = parquet = state file."""
    got = count(bundled_settings, "GTO", "robo", 2024, last_month=11)
    raw_11 = int(
        raw.execute(
            "SELECT sum(n) FROM p WHERE tipo = 'Robo' AND fecha < DATE '2024-12-01' AND anio = 2024"
        ).fetchone()[0]
    )
    state = Store(bundled_settings).query(
        """SELECT sum(eventos) FROM observations WHERE nivel = 'estado' AND lugar_id = 'GTO' AND tipo_key = 'robo'
           AND medida = 'carpetas' AND fuero = 'comun' AND metodologia = 'IDFC'
           AND fecha BETWEEN DATE '2024-01-01' AND DATE '2024-11-01'"""
    )[0][0]
    assert got == raw_11 == state


def test_a_subtipo_inside_a_standing_tipo_row_is_counted_once(bundled_settings):
    """León's robo a institución bancaria (a curated file) lies inside the parquet's «Robo»: the tipo counts it once,
    the subtipo asked alone still has its own figure."""
    store = Store(bundled_settings)
    covered = store.query(
        "SELECT count(*), sum(eventos) FROM incidents WHERE cubre = 'robo' AND delito = 'robo_a_institucion_bancaria'"
    )[0]
    assert covered[0] > 0
    robo = count(bundled_settings, "GTO.MUN.LEON", "robo", 2018)
    raw_robo = store.query(
        """SELECT sum(eventos) FROM observations WHERE lugar_id = 'GTO.MUN.LEON' AND delito = 'robo' AND vigente
           AND year(fecha) = 2018 AND medida = 'carpetas' AND metodologia = 'IDFC'"""
    )[0][0]
    assert robo == raw_robo
    bank = store.query(
        """SELECT sum(eventos) FROM incidents WHERE entidad_id = 'GTO.MUN.LEON' AND delito = 'robo_a_institucion_bancaria'
           AND year(fecha) = 2018"""
    )[0][0]
    assert bank and count(bundled_settings, "GTO.MUN.LEON", "robo_a_institucion_bancaria", 2018) == bank


@pytest.mark.parametrize(
    ("eid", "municipio", "year"), [("GTO.MUN.LEON", "León", 2024), ("GTO.MUN.CELAYA", "Celaya", 2023)]
)
def test_vehicle_theft_is_robo_by_its_own_modalidades(bundled_settings, raw, eid, municipio, year):
    metodos = [
        f"robo_de_{k}_{v}_violencia"
        for k in ("coche_de_4_ruedas", "motocicleta", "embarcaciones_pequenas_y_grandes")
        for v in ("con", "sin")
    ]
    modalidades = tuple(f"{k} {v} violencia" for k in VEHICLE for v in ("Con", "Sin"))
    assert count(bundled_settings, eid, "robo", year, metodos) == raw_sum(raw, municipio, "Robo", year, modalidades)


def test_coverage_of_the_new_crimes_ends_with_the_parquet(bundled_settings):
    """A month no file publishes is no zero: robo ends with the parquet (2025-05), violencia familiar joins its two
    files into one run, and Irapuato's subtipos alone are no state coverage."""
    cov = Store(bundled_settings).metadata()["coverage"]
    assert cov["robo"]["estados"]["GTO"] == [{"desde": "2015-01-01", "hasta": "2025-05-31", "meses": 125}]
    assert [(r["desde"], r["hasta"]) for r in cov["violencia_familiar"]["estados"]["GTO"]] == [
        ("2015-01-01", "2025-05-31")
    ]
    assert "robo_a_negocio" not in cov
