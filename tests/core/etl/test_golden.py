"""Golden figures from data/README.md, read back from the store built from data/raw."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from core.dataset.store import Store
from core.etl import curate
from tests.conftest import RAW

LEON_DOLOSO = {2020: 633, 2021: 709, 2022: 616, 2023: 777, 2024: 596, 2025: 393}
STATE_YEARLY = {
    "homicidio_doloso": {2020: 3359, 2021: 2823, 2022: 2634, 2023: 2581, 2024: 2553, 2025: 1916},
    "homicidio_culposo": {2020: 1581, 2021: 850, 2022: 879, 2023: 1059, 2024: 1219, 2025: 1127},
    "violencia_familiar": {
        2015: 10298,
        2016: 11133,
        2017: 11253,
        2018: 10356,
        2019: 11142,
        2020: 10035,
        2021: 11624,
        2022: 13724,
    },
    "abuso_sexual": {2015: 968, 2016: 970, 2017: 968, 2018: 948, 2019: 1162, 2020: 1141, 2021: 1274, 2022: 759},
    "violacion": {2015: 724, 2016: 450, 2017: 348, 2018: 609, 2019: 686, 2020: 569, 2021: 896, 2022: 493},
    # Split by the leftover index of the reduced file (data README): index % 98 = 35 / 36.
    "violacion_simple": {2015: 672, 2016: 421, 2017: 326, 2018: 570, 2019: 650, 2020: 527, 2021: 818, 2022: 443},
    "violacion_equiparada": {2015: 52, 2016: 29, 2017: 22, 2018: 39, 2019: 36, 2020: 42, 2021: 78, 2022: 50},
}
TIPOS = {"violacion": ("violacion_simple", "violacion_equiparada")}  # tipo-level keys: the sum of their subtipos
LONG_FILES = {  # state total per year 2015..2024 (README table)
    "feminicidio": [16, 14, 12, 21, 18, 19, 30, 21, 26, 15],
    "secuestro": [8, 8, 4, 4, 10, 14, 11, 9, 6, 9],
    "robo_a_institucion_bancaria": [58, 38, 5, 6, 6, 0, 4, 1, 0, 2],
    "hostigamiento_sexual": [34, 18, 32, 27, 44, 39, 47, 92, 82, 71],
    "corrupcion_de_menores": [140, 146, 151, 161, 161, 210, 286, 356, 361, 494],
    "aborto": [22, 27, 28, 30, 24, 31, 23, 24, 18, 22],
    "trata_de_personas": [9, 9, 5, 8, 4, 3, 0, 1, 0, 4],
    "trafico_de_menores": [18, 7, 10, 7, 10, 2, 1, 1, 3, 5],
    "incesto": [3, 2, 1, 1, 0, 0, 3, 1, 1, 0],
    "evasion_de_presos": [3, 7, 7, 7, 7, 5, 6, 8, 3, 3],
    "electorales": [54, 3, 6, 57, 2, 3, 43, 3, 2, 50],
    "contra_el_medio_ambiente": [7, 5, 8, 28, 40, 21, 6, 8, 21, 8],
}
ANNUAL = {
    2015: 95782,
    2016: 106265,
    2017: 117857,
    2018: 133749,
    2019: 137658,
    2020: 122870,
    2021: 134626,
    2022: 141340,
    2023: 147311,
    2024: 154108,
    2025: 166481,
    2026: 106146,
}


@pytest.fixture(scope="module")
def store(bundled_settings) -> Store:
    return Store(bundled_settings)


# The curated files' own cells: the query database's ``incidents`` also holds the municipal observations (issue 14)
CURATED = "(SELECT * FROM incidents WHERE origen = 'incidents')"


def _yearly(store: Store, delito: str, cve: str | None = None) -> dict[int, int]:
    keys = list(TIPOS.get(delito, (delito,)))
    sql = f"SELECT year(fecha), sum(eventos) FROM {CURATED} WHERE delito IN ({', '.join('?' for _ in keys)})"
    params = keys
    if cve:
        sql += " AND cve_municipio = ?"
        params.append(cve)
    return {y: int(n) for y, n in store.query(sql + " GROUP BY 1 ORDER BY 1", params)}


def test_leon_homicidio_doloso_per_year(store):
    assert _yearly(store, "homicidio_doloso", "11020") == LEON_DOLOSO


def test_leon_monthly_2024(store):
    rows = store.query(
        """SELECT month(fecha), sum(eventos) FROM incidents WHERE delito = 'homicidio_doloso'
           AND entidad_id = 'GTO.MUN.LEON' AND year(fecha) = 2024 GROUP BY 1 ORDER BY 1"""
    )
    assert [n for _, n in rows] == [57, 43, 42, 61, 46, 57, 63, 45, 51, 49, 41, 41]


@pytest.mark.parametrize("delito,expected", sorted(STATE_YEARLY.items()))
def test_state_totals_per_year(store, delito, expected):
    assert _yearly(store, delito) == expected


@pytest.mark.parametrize("delito,per_year", sorted(LONG_FILES.items()))
def test_long_nonzero_files_per_year(store, delito, per_year):
    got = _yearly(store, delito)
    assert [got.get(y, 0) for y in range(2015, 2025)] == per_year


@pytest.mark.parametrize("delito", sorted(LONG_FILES))
def test_long_files_cover_2015_2024_even_without_cases(store, delito):
    """One run from the long file's first month; the tipo × modalidad parquet continues it to 2025-05, except
    robo a institución bancaria, which the parquet holds only inside «Robo» (Irapuato's own file aside)."""
    meta = store.metadata()
    end = "2024-12-31" if delito == "robo_a_institucion_bancaria" else "2025-05-31"
    assert [(r["desde"], r["hasta"]) for r in meta["coverage"][delito]["estados"]["GTO"]] == [("2015-01-01", end)]


def test_unpublished_december_2025_is_not_stored(store):
    assert store.query(f"SELECT count(*) FROM {CURATED} WHERE fecha = DATE '2025-12-01'") == [(0,)]


def test_float_integers_are_read_as_integers(store):
    # Diciembre is written as '41.0' in the homicide file.
    rows = store.query("""SELECT sum(eventos) FROM incidents WHERE delito = 'homicidio_doloso'
                          AND entidad_id = 'GTO.MUN.LEON' AND fecha = DATE '2024-12-01'""")
    assert rows == [(41,)]


def test_annual_totals_are_their_own_series(store):
    rows = store.query(
        "SELECT anio, sum(eventos), any_value(metodologia), bool_or(parcial) FROM annual GROUP BY 1 ORDER BY 1"
    )
    assert {y: n for y, n, _, _ in rows} == ANNUAL
    assert [(y, m, p) for y, _, m, p in rows if y >= 2025] == [(2025, "IDFC", False), (2026, "RNID", True)]
    assert store.query("SELECT count(*) FROM incidents WHERE delito = 'total_delitos'") == [(0,)]
    leon = store.query("SELECT eventos FROM annual WHERE cve_municipio = '11020' AND anio = 2024")
    assert leon == [(50207,)]


def test_metadata_watermark_and_aliases(store):
    meta = store.metadata()
    assert meta["min_date"] == "2015-01-01"
    assert meta["max_date"] == "2025-11-30"
    assert meta["data_available_until"] == meta["max_date"]
    assert meta["dataset_version"].startswith("gx-2026.01.15-")
    assert meta["coverage"]["homicidio_doloso"]["hasta"] == "2025-11-30"
    # the reduced file ends in 2022-06; the tipo × modalidad parquet carries both on to 2025-05
    assert meta["coverage"]["violacion_simple"]["hasta"] == "2025-05-31"
    assert meta["coverage"]["violacion_equiparada"]["hasta"] == "2025-05-31"
    assert "violacion" not in meta["coverage"]  # the reduced file's rows are told apart
    assert meta["annual_series"]["total_delitos"]["years"]["2026"] == {
        "metodologia": "RNID",
        "parcial": True,
        "meses": 8,
    }
    names = {s["archivo"] for s in meta["sources"]}
    manifest = json.loads((RAW / "manifest.json").read_text(encoding="utf-8"))
    assert names == {Path(f["path"]).name for f in manifest["files"]}
    assert all(len(s["sha256"]) == 64 for s in meta["sources"])
    assert "gto_municipios" in meta["geo"]


def test_population_sums(store):
    rows = dict(
        store.query(
            "SELECT anio, sum(poblacion) FROM population WHERE fuente = 'CONAPO' AND anio IN (2015, 2020, 2025, 2026) GROUP BY 1"
        )
    )
    assert rows == {2015: 5985087, 2020: 6265796, 2025: 6537669, 2026: 6590749}
    census = store.query("SELECT sum(poblacion) FROM population WHERE fuente = 'INEGI Censo 2020'")
    assert census == [(6166934,)]


def test_entities_and_identifiers(store):
    rows = dict(store.query("SELECT cve, entidad_id FROM entities"))
    assert rows["11020"] == "GTO.MUN.LEON"
    assert rows["11037"] == "GTO.MUN.SILAO_DE_LA_VICTORIA"
    assert rows["11"] == "GTO"
    assert store.query("SELECT count(*) FROM entities WHERE nivel = 'municipio'") == [(46,)]


def test_row_ids_are_unique_and_stable(store):
    assert store.query("SELECT count(*) = count(DISTINCT row_id) FROM incidents") == [(True,)]
    curated = store.query("""SELECT c.bien_juridico, c.tipo, c.subtipo, m.modalidad, i.metodo, i.source_file,
                                    i.source_row, i.row_id
                             FROM incidents i JOIN crimes c USING (delito) JOIN methods m USING (metodo)
                             WHERE i.entidad_id = 'GTO.MUN.ABASOLO' AND i.delito = 'homicidio_doloso'
                             AND i.fecha = DATE '2020-01-01' AND i.metodo = 'con_arma_de_fuego'""")
    # The row id is built from the key alone (stable across loads and versions).
    row_id = curate.key_hash("homicidio_doloso", "con_arma_de_fuego") * 2**29 + 11001 * 2**12 + (2020 - 1900) * 12
    assert curated == [
        (
            "La vida y la Integridad corporal",
            "Homicidio",
            "Homicidio doloso",
            "Con arma de fuego",
            "con_arma_de_fuego",
            "IDM_NM_gto_homicidio_2020-2025.csv",
            2,
            row_id,
        )
    ]
