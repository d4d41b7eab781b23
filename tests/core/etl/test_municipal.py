"""The municipal national layouts (core/etl/layouts/municipal.py, parquet_tipo.py, idm_nm_json.py) on small fixtures.

``municipal_tipo_mini.parquet`` keeps the quirks of the real parquet parts (data/raw/README.md): names without
codes, a timestamp at the month's last day, «No Especificado» and «Otros Municipios» rows, the negative Jonuta cell,
a municipality created in 2024 that no catalogue has (Villa de Pozos), an ambiguous name (San Juan Mixtepec) beside
its SESNSP spelling with the district, an accent dropped (Tixmehuac), an unknown state, and a NULL count (never a
zero). ``idm_nm_mini.json`` keeps those of the Irapuato file: every value a string, CRLF, an empty December
(not published), plus an unknown municipality code, a negative and a non-numeric cell.
"""

from __future__ import annotations

from datetime import UTC, datetime

import duckdb
import pytest

from core.clock import FixedClock
from core.config import load_settings
from core.etl import SourceSpec, run_etl
from core.etl.publish import Depot
from tests.conftest import FIXTURES, version_table

NAT = FIXTURES / "etl" / "nacional"
INEGI = FIXTURES.parent.parent / "data" / "raw" / "nacional" / "municipios_inegi_mg2023.csv"


@pytest.fixture(scope="module")
def municipal(tmp_path_factory):
    """One load of the INEGI catalogue and both municipal fixtures into an empty store: (summary, query)."""
    folder = tmp_path_factory.mktemp("municipal")
    settings = load_settings(folder / "data")
    specs = [SourceSpec(INEGI), SourceSpec(NAT / "municipal_tipo_mini.parquet"), SourceSpec(NAT / "idm_nm_mini.json")]
    result = run_etl(specs, settings, clock=FixedClock(datetime(2026, 4, 1, tzinfo=UTC)))
    depot = Depot(settings.store_dir)

    def query(sql: str, params=()) -> list[tuple]:
        for table in ("observations", "places", "crime_levels", "quarantine"):
            sql = sql.replace("{" + table + "}", version_table(depot.root, table))
        return duckdb.sql(sql, params=params).fetchall()

    return result.summary, query


@pytest.mark.parametrize(
    "archivo,formato,filas,aceptadas,motivos",
    [
        (
            "municipal_tipo_mini.parquet",
            "municipal_tipo_parquet",
            15,
            10,
            {
                "conteo negativo": 1,
                "municipio desconocido en el catálogo INEGI": 2,
                "entidad desconocida": 1,
            },
        ),
        (
            "idm_nm_mini.json",
            "idm_nm_json",
            4,
            33,
            {
                "municipio desconocido en el catálogo INEGI": 12,
                "conteo negativo": 1,
                "conteo no numérico": 1,
            },
        ),
    ],
)
def test_each_file_reports_what_it_staged_and_quarantined(municipal, archivo, formato, filas, aceptadas, motivos):
    summary, _ = municipal
    report = next(r for r in summary["archivos"] if r["archivo"] == archivo)
    assert (report["formato"], report["filas"], report["filas_aceptadas"]) == (formato, filas, aceptadas)
    assert report["motivos_cuarentena"] == motivos


@pytest.mark.parametrize(
    "municipio,lugar_id,cve",
    [
        ("León", "GTO.MUN.LEON", "11020"),
        (
            "Dolores Hidalgo Cuna de la Independencia Nacional",
            "GTO.MUN.DOLORES_HIDALGO_CUNA_DE_LA_INDEPENDENCIA_NACIONAL",
            "11014",
        ),
        ("No Especificado", "CDMX.MUN.NO_ESPECIFICADO", "09998"),
        ("Otros Municipios", "OAX.MUN.OTROS_MUNICIPIOS", "20999"),
        ("San Juan Mixtepec Distrito 26", "OAX.MUN.SAN_JUAN_MIXTEPEC_20209", "20209"),
        ("Tixmehuac", "YUC.MUN.TIXMEHUAC", "31094"),
        ("Saltillo", "COAH.MUN.SALTILLO", "05030"),
    ],
)
def test_names_without_codes_resolve_to_places(municipal, municipio, lugar_id, cve):
    _, query = municipal
    assert query("SELECT lugar_id FROM {places} WHERE cve = ?", [cve]) == [(lugar_id,)]
    assert query("SELECT count(*) FROM {observations} WHERE lugar_id = ?", [lugar_id])[0][0] >= 1


def test_a_tipo_that_mixes_subtipos_keeps_a_tipo_key(municipal):
    """«Homicidio» of the parquet mixes doloso and culposo: its key is the tipo's, never homicidio_doloso."""
    _, query = municipal
    rows = query("SELECT DISTINCT tipo_key, delito, metodo FROM {observations} WHERE source_file LIKE '%.parquet'")
    assert ("homicidio", "homicidio", "con_arma_de_fuego") in rows
    assert ("lesiones", "lesiones", "con_arma_blanca") in rows
    assert not {r[1] for r in rows} & {"homicidio_doloso", "homicidio_culposo", "lesiones_dolosas"}
    levels = query("SELECT delito, tipo, subtipo FROM {crime_levels} WHERE delito IN ('homicidio', 'narcomenudeo')")
    assert sorted(levels) == [("homicidio", "Homicidio", None), ("narcomenudeo", "Narcomenudeo", "Narcomenudeo")]


@pytest.mark.parametrize(
    "where",
    [
        "lugar_id = 'GTO.MUN.LEON' AND fecha = DATE '2024-03-01'",  # a NULL count in the parquet
        "lugar_id = 'GTO.MUN.IRAPUATO' AND delito = 'homicidio_doloso' AND fecha = DATE '2025-12-01'",  # empty month
    ],
)
def test_empty_cells_are_absent_never_zeros(municipal, where):
    _, query = municipal
    assert query(f"SELECT count(*) FROM {{observations}} WHERE {where}") == [(0,)]


def test_irapuato_json_lands_at_subtipo_level(municipal):
    _, query = municipal
    rows = query(
        """SELECT delito, metodo, sum(eventos), count(*) FROM {observations} WHERE lugar_id = 'GTO.MUN.IRAPUATO'
           AND nivel = 'municipio' GROUP BY ALL ORDER BY 1, 2"""
    )
    assert rows == [
        ("homicidio_doloso", "con_arma_de_fuego", 211, 11),
        ("robo_a_casa_habitacion", "con_violencia", 32, 12),
        ("robo_a_negocio", "sin_violencia", 10, 10),
    ]


def test_the_negative_upstream_cell_is_quarantined(municipal):
    _, query = municipal
    rows = query(
        "SELECT source_file, motivo, valores FROM {quarantine} WHERE motivo LIKE 'conteo negativo%' ORDER BY 1"
    )
    assert [r[0] for r in rows] == ["idm_nm_mini.json", "municipal_tipo_mini.parquet"]
    assert "Jonuta" in rows[1][2]
