"""The national state-level layouts (core/etl/layouts/statewide.py, places.py) on small fixture files.

Each fixture keeps a quirk of its real file (data/raw/README.md): latin-1 and CRLF, a quoted modalidad
with a comma, December 2024 empty, zero-padded and unpadded state codes, «Extranjero» without a code,
RNID «tentativa» subtipos, victims by sexo and edad compressed with bzip2, a negative upstream cell.
"""

from __future__ import annotations

import bz2
from datetime import UTC, date, datetime

import duckdb
import pytest

from core.clock import FixedClock
from core.config import load_settings
from core.etl import SourceSpec, run_etl
from core.etl.publish import Depot
from tests.conftest import FIXTURES, version_table

NAT = FIXTURES / "etl" / "nacional"
FILES = (
    "estatal_idefc_mini.csv",
    "estatal_rnid_mini.csv",
    "fuero_federal_mini.csv",
    "victimas_mini.csv.bz2",
    "conapo_estatal_mini.csv",
    "conapo_municipal_mini.csv",
    "inegi_mini.csv",
)


@pytest.fixture(scope="module")
def national(tmp_path_factory):
    """One load of every national fixture into an empty store: (summary, query)."""
    folder = tmp_path_factory.mktemp("nacional")
    (folder / "victimas_mini.csv.bz2").write_bytes(bz2.compress((NAT / "victimas_mini.csv").read_bytes()))
    paths = [folder / f if f.endswith(".bz2") else NAT / f for f in FILES]
    settings = load_settings(folder / "data")
    result = run_etl([SourceSpec(p) for p in paths], settings, clock=FixedClock(datetime(2026, 4, 1, tzinfo=UTC)))
    depot = Depot(settings.store_dir)

    def query(table: str, sql: str, params=()) -> list[tuple]:
        return duckdb.sql(sql.replace("{t}", version_table(depot.root, table)), params=params).fetchall()

    return result.summary, query


@pytest.mark.parametrize(
    "archivo,formato,codificacion,fin,filas,aceptadas,motivos",
    [
        (
            "estatal_idefc_mini.csv",
            "estatal_sesnsp",
            "latin-1",
            "CRLF",
            6,
            55,
            {"conteo negativo": 1, "entidad desconocida": 11},
        ),
        ("estatal_rnid_mini.csv", "estatal_sesnsp", "latin-1", "LF", 4, 9, {"tipo de delito vacío": 3}),
        ("fuero_federal_mini.csv", "fuero_federal", "latin-1", "CRLF", 3, 21, {}),
        ("victimas_mini.csv.bz2", "victimas_estatal", "utf-8", "LF", 7, 7, {}),
        ("conapo_estatal_mini.csv", "poblacion_estatal_sexo", "utf-8", "LF", 5, 4, {"entidad desconocida": 1}),
        ("conapo_municipal_mini.csv", "poblacion_municipal_ancha", "utf-8", "LF", 3, 6, {}),
        ("inegi_mini.csv", "catalogo_inegi", "utf-8", "LF", 4, 4, {}),
    ],
)
def test_each_file_is_recognized_and_counted(national, archivo, formato, codificacion, fin, filas, aceptadas, motivos):
    report = next(r for r in national[0]["archivos"] if r["archivo"] == archivo)
    assert (report["formato"], report["codificacion"], report["fin_de_linea"]) == (formato, codificacion, fin)
    assert (report["filas"], report["filas_aceptadas"]) == (filas, aceptadas)
    assert report["motivos_cuarentena"] == motivos


@pytest.mark.parametrize(
    "where,expected",
    [
        # Eleven months of 2024: December is empty in the file, so it is absent, never a zero.
        ("medida = 'carpetas' AND lugar_id = 'GTO' AND delito = 'homicidio_doloso' AND year(fecha) = 2024", (1750, 11)),
        ("lugar_id = 'GTO' AND fecha = DATE '2024-12-01'", (None, 0)),
        ("lugar_id = 'JAL' AND metodo = 'con_arma_de_fuego' AND year(fecha) = 2024", (555, 11)),
        # The quoted modalidad with a comma stays one field; unpadded code 1 is Aguascalientes.
        ("lugar_id = 'AGS' AND delito = 'robo_de_maquinaria' AND metodologia = 'IDFC'", (3, 11)),
        # The negative cell of February is quarantined; its row's other months stand.
        ("lugar_id = 'CDMX' AND delito = 'robo_a_casa_habitacion'", (50, 10)),
        ("lugar_id = 'GTO' AND delito = 'violencia_familiar' AND year(fecha) = 2023", (14100, 12)),
        # RNID: its own methodology, attempts as their own subtipo, April onwards empty.
        ("metodologia = 'RNID' AND lugar_id = 'GTO' AND delito = 'homicidio_doloso'", (270, 3)),
        ("metodologia = 'RNID' AND delito = 'tentativa_de_homicidio_doloso'", (75, 3)),
        ("metodologia = 'RNID' AND lugar_id = 'AGS'", (12, 3)),
        # Federal: its own jurisdiction and keys; «Extranjero» is its own place; August onwards empty.
        ("fuero = 'federal' AND lugar_id = 'GTO'", (119, 14)),
        ("fuero = 'federal' AND delito = 'federal_contra_la_salud_posesion' AND lugar_id = 'GTO'", (91, 7)),
        ("fuero = 'federal' AND lugar_id = 'MX.EXTRANJERO' AND nivel = 'extranjero'", (3, 7)),
        # Victims: a measure of their own, by sexo and rango de edad.
        ("medida = 'victimas' AND lugar_id = 'GTO'", (67, 6)),
        ("medida = 'victimas' AND lugar_id = 'GTO' AND sexo = 'Mujer'", (9, 2)),
        ("medida = 'victimas' AND rango_edad = 'Menores de edad (0-17)' AND delito = 'feminicidio'", (1, 1)),
    ],
)
def test_observation_figures(national, where, expected):
    assert national[1]("observations", f"SELECT sum(eventos), count(*) FROM {{t}} WHERE {where}")[0] == expected


@pytest.mark.parametrize(
    "fuero,metodologia,delito,levels",
    [
        (
            "comun",
            "RNID",
            "tentativa_de_homicidio_doloso",
            (
                None,
                "La vida y la Integridad corporal",
                "Homicidio",
                "Tentativa de homicidio doloso",
                "Con arma de fuego",
            ),
        ),
        (
            "federal",
            "IDEFF",
            "federal_otros_delitos_falsedad_titulo_decimo_tercero",
            ("CODIGO PENAL FEDERAL", None, "OTROS DELITOS", "FALSEDAD, TITULO DECIMO TERCERO", None),
        ),
    ],
)
def test_crime_levels_say_what_each_source_carries(national, fuero, metodologia, delito, levels):
    rows = national[1](
        "crime_levels",
        "SELECT ley, bien_juridico, tipo, subtipo, modalidad FROM {t} WHERE fuero = ? AND metodologia = ? AND delito = ?",
        [fuero, metodologia, delito],
    )
    assert rows == [levels]


def test_observations_carry_their_cut(national):
    rows = national[1](
        "observations", "SELECT medida, fuero, metodologia, min(corte), max(corte) FROM {t} GROUP BY ALL ORDER BY ALL"
    )
    assert rows == [
        ("carpetas", "comun", "IDFC", date(2024, 11, 1), date(2024, 11, 1)),
        ("carpetas", "comun", "RNID", date(2026, 3, 1), date(2026, 3, 1)),
        ("carpetas", "federal", "IDEFF", date(2025, 7, 1), date(2025, 7, 1)),
        ("victimas", "comun", "IDFC", date(2024, 2, 1), date(2024, 2, 1)),
    ]


@pytest.mark.parametrize(
    "cve,lugar_id,label,nombre_inegi",
    [
        # Guanajuato keeps the id of its catalogue even when only INEGI's short name was loaded.
        ("11014", "GTO.MUN.DOLORES_HIDALGO_CUNA_DE_LA_INDEPENDENCIA_NACIONAL", "Dolores Hidalgo", "Dolores Hidalgo"),
        ("11020", "GTO.MUN.LEON", "León", "León"),
        # Two municipalities of one state with one name: the code tells them apart.
        ("20208", "OAX.MUN.SAN_JUAN_MIXTEPEC_20208", "San Juan Mixtepec", "San Juan Mixtepec"),
        ("20209", "OAX.MUN.SAN_JUAN_MIXTEPEC_20209", "San Juan Mixtepec", "San Juan Mixtepec"),
    ],
)
def test_places(national, cve, lugar_id, label, nombre_inegi):
    rows = national[1](
        "places",
        "SELECT lugar_id, label, nombre_inegi, parent_id FROM {t} WHERE cve = ? AND nivel = 'municipio'",
        [cve],
    )
    assert rows == [(lugar_id, label, nombre_inegi, lugar_id.split(".")[0])]


def test_places_have_the_country_and_every_state(national):
    rows = national[1]("places", "SELECT nivel, count(*) FROM {t} GROUP BY 1 ORDER BY 1")
    assert rows == [("estado", 32), ("municipio", 4), ("pais", 1)]


@pytest.mark.parametrize(
    "lugar_id,anio,sexo,poblacion",
    [
        ("MX", 2024, "total", 132274416),
        ("GTO", 2024, "hombres", 3149907),
        ("GTO", 2024, "mujeres", 3331631),
        ("GTO", 2024, "total", 6481538),
        ("GTO.MUN.LEON", 2024, "total", 1851376),
        ("OAX.MUN.SAN_JUAN_MIXTEPEC_20209", 2023, "total", 6000),
    ],
)
def test_place_population(national, lugar_id, anio, sexo, poblacion):
    rows = national[1](
        "place_population",
        "SELECT poblacion FROM {t} WHERE lugar_id = ? AND anio = ? AND sexo = ?",
        [lugar_id, anio, sexo],
    )
    assert rows == [(poblacion,)]


@pytest.mark.parametrize("table", ["incidents", "entities", "population", "coverage"])
def test_national_files_never_touch_guanajuatos_tables(national, table):
    assert national[1](table, "SELECT count(*) FROM {t}") == [(0,)]


def test_the_negative_upstream_cell_is_quarantined_with_its_reason(national):
    rows = national[1](
        "quarantine", "SELECT source_file, source_row, motivo FROM {t} WHERE motivo LIKE 'conteo negativo%'"
    )
    assert rows == [("estatal_idefc_mini.csv", 5, "conteo negativo (anomalía de origen)")]


@pytest.mark.parametrize(
    "lugar_id,alias",
    [("MEX", "Edomex"), ("CDMX", "DF"), ("MEX", "Estado de México")],
)
def test_states_carry_the_catalogues_aliases(national, lugar_id, alias):
    rows = national[1]("places", "SELECT aliases FROM {t} WHERE lugar_id = ?", [lugar_id])
    assert alias in rows[0][0].split("|")
