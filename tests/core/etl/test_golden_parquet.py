"""Golden figures of the Guanajuato tipo × modalidad parquet and the Irapuato JSON (data/raw/README.md and the shared
data README, their sanity figures and cross-checks), read back from the bundled store with every file loaded, one
number per cell (core/etl/precedence.py, docs/decisions/0011)."""

from __future__ import annotations

import pytest

from core.dataset.store import Store
from core.etl.precedence import MUNICIPAL_CELLS_SQL

CELLS = f"({MUNICIPAL_CELLS_SQL}) c"
STATE = "nivel = 'estado' AND lugar_id = 'GTO' AND medida = 'carpetas' AND fuero = 'comun' AND metodologia = 'IDFC'"
YEARS = range(2015, 2026)  # 2025: January to May (the parquet's cut)
# The README's table «Guanajuato, state totals per year (sum of the 46 municipalities)», by column.
GTO_BY_YEAR = {
    "narcomenudeo": [3060, 3684, 6567, 8739, 9440, 14932, 23976, 22359, 19876, 20211, 9177],
    "extorsion": [8, 4, 4, 13, 18, 17, 291, 523, 801, 1027, 583],
    "robo": [31655, 35063, 39809, 42982, 42732, 34398, 30811, 31259, 30424, 31658, 13250],
    "lesiones": [10657, 10763, 11807, 13694, 14525, 11152, 12489, 13638, 14939, 16488, 7249],
    "fraude": [2407, 2213, 1981, 2466, 3094, 2843, 3693, 4245, 5166, 5150, 2254],
    "amenazas": [3752, 5415, 7080, 9082, 10330, 8539, 9912, 11194, 12259, 13045, 6523],
    "violencia_familiar": [10298, 11133, 11253, 10356, 11142, 10035, 11624, 13724, 14695, 15958, 7023],
    "homicidio": [2398, 2572, 3366, 4298, 4494, 4940, 3673, 3513, 3640, 3772, 1668],
    None: [95782, 106265, 117857, 133749, 137658, 122870, 134626, 141340, 147311, 154108, 69715],
}
ROBO_CON_VIOLENCIA_ROW = [6004, 7789, 9269, 11189, 12716, 10582, 7952, 7875, 7224, 8332, 3334]
# «Municipalities, 2024»: robo, robo con violencia incl. vehicles, narcomenudeo, extorsión, violencia familiar, all.
MUNICIPALITIES_2024 = {
    "GTO.MUN.LEON": (8375, 1780, 15338, 26, 2881, 50207),
    "GTO.MUN.CELAYA": (3441, 1271, 654, 208, 1818, 14757),
    "GTO.MUN.IRAPUATO": (4622, 1982, 706, 102, 2865, 18287),
    "GTO.MUN.SALAMANCA": (1682, 869, 216, 118, 1022, 6917),
}
IRAPUATO = {
    "robo_a_casa_habitacion": [465, 485, 391, 296, 442, 398, 419, 384, 331, 277, 266],
    "homicidio_doloso": [91, 79, 70, 374, 359, 298, 219, 263, 215, 261, 236],
    None: [12899, 14720, 16485, 17112, 16308, 14074, 14555, 15635, 15873, 18287, 19988],
}
IRAPUATO_ROBO_2024 = {
    "otros_robos": 2728,
    "robo_a_negocio": 1001,
    "robo_de_vehiculo_automotor": 432,
    "robo_a_casa_habitacion": 277,
    "robo_a_transeunte_en_via_publica": 173,
    "robo_de_ganado": 8,
    "robo_a_transportista": 2,
    "robo_a_institucion_bancaria": 1,
}
# README «Cross-checks»: cells of the older Guanajuato files that the parquet (or the JSON) also holds.
SET_ASIDE_BY_INCIDENTS = {
    "homicidio": 14950,  # parquet, doloso + culposo summed, 2020-01 .. 2025-05
    "violencia_familiar": 4416,
    "abuso_sexual": 4140,
    "violacion_simple": 4140,
    "violacion_equiparada": 4140,
    "feminicidio": 22080,
    "secuestro": 27600,
    **dict.fromkeys(("hostigamiento_sexual", "corrupcion_de_menores", "aborto", "trata_de_personas"), 5520),
    **dict.fromkeys(("trafico_de_menores", "incesto", "evasion_de_presos", "electorales"), 5520),
    "contra_el_medio_ambiente": 5520,
    "robo_a_institucion_bancaria": 240,  # the JSON against the MaracasBarragan file, month × modalidad
}


@pytest.fixture(scope="module")
def store(bundled_settings) -> Store:
    return Store(bundled_settings)


def one(store: Store, sql: str, params=()) -> int:
    return store.query(sql, list(params))[0][0]


GOLDEN = [
    *[(f"GTO {k or 'all crimes'} {y}", None, k, y, n[i]) for k, n in GTO_BY_YEAR.items() for i, y in enumerate(YEARS)],
    *[
        (f"Irapuato {k or 'all crimes'} {y}", "GTO.MUN.IRAPUATO", k, y, n[i])
        for k, n in IRAPUATO.items()
        for i, y in enumerate(YEARS)
    ],
]


@pytest.mark.parametrize("what,lugar,crime,year,figure", GOLDEN, ids=[g[0] for g in GOLDEN])
def test_readme_figures_one_number_per_cell(store, what, lugar, crime, year, figure):
    where = f"estado_id = 'GTO' AND year(fecha) = {year}"
    if lugar:
        where += f" AND lugar_id = '{lugar}'"
    else:
        where += " AND fecha <= DATE '2025-05-01'"  # the parquet's cut; the homicide file runs to 2025-11
    key = "delito" if crime and crime.endswith(("_doloso", "_habitacion")) else "tipo_key"
    cond = "TRUE" if crime is None else f"{key} = '{crime}'"
    assert one(store, f"SELECT sum(eventos) FROM {CELLS} WHERE {where} AND {cond}") == figure


@pytest.mark.parametrize("year,figure", list(zip(YEARS, ROBO_CON_VIOLENCIA_ROW)))
def test_robo_con_violencia_row(store, year, figure):
    """The parquet's merged «Robo / Con violencia» row; Irapuato's comes from its JSON subtipos (same modalidad)."""
    sql = f"""SELECT sum(eventos) FROM {CELLS} WHERE estado_id = 'GTO' AND tipo_key = 'robo' AND metodo = 'con_violencia'
              AND year(fecha) = ? AND fecha <= DATE '2025-05-01'"""
    assert one(store, sql, [year]) == figure


@pytest.mark.parametrize("lugar,figures", MUNICIPALITIES_2024.items())
def test_municipalities_2024(store, lugar, figures):
    sql = f"""SELECT sum(eventos) FILTER (WHERE tipo_key = 'robo'),
                     sum(eventos) FILTER (WHERE tipo_key = 'robo' AND metodo LIKE '%con_violencia'),
                     sum(eventos) FILTER (WHERE tipo_key = 'narcomenudeo'),
                     sum(eventos) FILTER (WHERE tipo_key = 'extorsion'),
                     sum(eventos) FILTER (WHERE tipo_key = 'violencia_familiar'), sum(eventos)
              FROM {CELLS} WHERE lugar_id = ? AND year(fecha) = 2024"""
    assert store.query(sql, [lugar]) == [figures]


def test_leon_robo_by_month_2024(store):
    sql = f"""SELECT list(ev ORDER BY fecha) FROM (SELECT fecha, sum(eventos) AS ev FROM {CELLS}
              WHERE lugar_id = 'GTO.MUN.LEON' AND tipo_key = 'robo' AND year(fecha) = 2024 GROUP BY 1)"""
    assert one(store, sql) == [751, 743, 734, 711, 679, 620, 723, 740, 736, 674, 638, 626]


def test_statewide_all_crimes_by_month_2025(store):
    sql = f"""SELECT list(ev ORDER BY fecha) FROM (SELECT fecha, sum(eventos) AS ev FROM {CELLS}
              WHERE estado_id = 'GTO' AND fecha BETWEEN DATE '2025-01-01' AND DATE '2025-05-01' GROUP BY 1)"""
    assert one(store, sql) == [13039, 13103, 14842, 14000, 14731]


@pytest.mark.parametrize("delito,figure", IRAPUATO_ROBO_2024.items())
def test_irapuato_robo_2024_by_subtipo(store, delito, figure):
    sql = f"SELECT sum(eventos) FROM {CELLS} WHERE lugar_id = 'GTO.MUN.IRAPUATO' AND delito = ? AND year(fecha) = 2024"
    assert one(store, sql, [delito]) == figure


@pytest.mark.parametrize(
    "question,where,figure",
    [
        ("León homicidio doloso 2024", "lugar_id = 'GTO.MUN.LEON' AND delito = 'homicidio_doloso'", 596),
        ("Guanajuato homicidio doloso 2024", "estado_id = 'GTO' AND delito = 'homicidio_doloso'", 2553),
        ("Guanajuato violencia familiar 2019", "estado_id = 'GTO' AND delito = 'violencia_familiar'", 11142),
    ],
)
def test_existing_figures_are_never_double_counted(store, question, where, figure):
    """The incident figures stand and no municipal observation of the same cell is counted beside them."""
    year = 2019 if "2019" in question else 2024
    assert one(store, f"SELECT sum(eventos) FROM {CELLS} WHERE {where} AND year(fecha) = {year}") == figure
    assert (
        one(
            store,
            f"SELECT sum(eventos) FROM incidents WHERE {where.replace('lugar_id', 'entidad_id')} AND year(fecha) = {year}",
        )
        == figure
    )


def test_no_observation_carries_a_subtipo_key_for_a_mixed_tipo(store):
    """The parquet's «Homicidio» and «Lesiones» mix doloso and culposo: their key is the tipo's, at tipo level."""
    rows = store.query(
        """SELECT DISTINCT delito FROM observations WHERE nivel = 'municipio'
           AND source_file LIKE 'gto_municipal%' AND tipo_key IN ('homicidio', 'lesiones', 'robo')"""
    )
    assert sorted(rows) == [("homicidio",), ("lesiones",), ("robo",)]
    levels = store.query("SELECT DISTINCT subtipo FROM crime_levels WHERE delito IN ('homicidio', 'lesiones', 'robo')")
    assert levels == [(None,)]


def test_state_file_equals_the_municipal_sums_where_both_exist(store):
    """README: the parquet summed over the 46 municipalities equals the state file, every month × tipo, 2015-01 ..
    2024-11 (here with every file loaded, each cell counted once)."""
    sql = f"""WITH s AS (SELECT tipo_key, fecha, sum(eventos) AS st FROM observations WHERE {STATE} GROUP BY ALL),
                   m AS (SELECT tipo_key, fecha, sum(eventos) AS mu FROM {CELLS} WHERE estado_id = 'GTO' GROUP BY ALL)
              SELECT count(*), count(*) FILTER (WHERE st = coalesce(mu, 0)) FROM s LEFT JOIN m USING (tipo_key, fecha)"""
    total, equal = store.query(sql)[0]
    assert total == equal == 40 * 119  # 40 tipos × 2015-01 .. 2024-11


@pytest.mark.parametrize(
    "year,figure",
    list(zip(range(2015, 2025), [95782, 106265, 117857, 133749, 137658, 122870, 134626, 141340, 147311, 141638])),
)
def test_state_file_yearly_totals(store, year, figure):
    """README cross-check: totals per year equal (2024: January to November, the state file's cut)."""
    assert one(store, f"SELECT sum(eventos) FROM observations WHERE {STATE} AND year(fecha) = ?", [year]) == figure
    cells = f"SELECT sum(eventos) FROM {CELLS} WHERE estado_id = 'GTO' AND year(fecha) = ? AND fecha <= '2024-11-01'"
    assert one(store, cells, [year]) == figure


def test_annual_totals_equal_the_municipal_cells(store):
    """README: 460 of 460 municipality-years 2015-2024, and Irapuato's 2025 (19,988) from its JSON."""
    sql = f"""WITH m AS (SELECT lugar_id, year(fecha) AS anio, sum(eventos) AS mu FROM {CELLS} WHERE estado_id = 'GTO'
                         GROUP BY ALL)
              SELECT count(*), count(*) FILTER (WHERE a.eventos = m.mu) FROM annual a
              JOIN m ON m.lugar_id = a.entidad_id AND m.anio = a.anio
              WHERE a.delito = 'total_delitos' AND (a.anio <= 2024 OR a.entidad_id = 'GTO.MUN.IRAPUATO' AND a.anio = 2025)"""
    assert store.query(sql) == [(461, 461)]


@pytest.mark.parametrize("delito,cells", SET_ASIDE_BY_INCIDENTS.items())
def test_rows_set_aside_equal_the_incident_cells(store, delito, cells):
    """Every municipal observation replaced by incidents equals them (a tipo row: the sum of its subtipos)."""
    sql = """WITH i AS (SELECT i.entidad_id, i.delito, c.tipo_key, i.metodo, i.fecha, sum(i.eventos) AS ev
                        FROM incidents i JOIN crimes c USING (delito) GROUP BY ALL),
                  a AS (SELECT o.*, (SELECT sum(ev) FROM i WHERE i.entidad_id = o.lugar_id AND i.metodo = o.metodo
                                     AND i.fecha = o.fecha AND (i.delito = o.delito OR i.tipo_key = o.delito)) AS inc
                        FROM observations o WHERE o.nivel = 'municipio' AND o.sustituida_por = 'incidents'
                          AND o.delito = ?)
             SELECT count(*), count(*) FILTER (WHERE eventos = coalesce(inc, 0)) FROM a"""
    assert store.query(sql, [delito]) == [(cells, cells)]


def test_irapuato_json_homicide_equals_the_idm_nm_file(store):
    """README: 639 of 639 month × subtipo × modalidad cells, 2020-01 .. 2025-11."""
    sql = """SELECT count(*) FROM observations WHERE lugar_id = 'GTO.MUN.IRAPUATO' AND source_file LIKE '%.json'
             AND sustituida_por = 'incidents' AND tipo_key = 'homicidio'"""
    assert one(store, sql) == 639


def test_irapuato_parquet_rows_equal_the_json_summed_to_tipo(store):
    """README: the JSON summed over subtipo equals the parquet's Irapuato rows; those of a tipo with several
    subtipos stand aside for the JSON (finer), those of a tipo that is its own subtipo are replaced (newer cut)."""
    sql = """WITH p AS (SELECT delito, metodo, fecha, eventos FROM observations WHERE lugar_id = 'GTO.MUN.IRAPUATO'
                        AND source_file LIKE 'gto_municipal%' AND sustituida_por LIKE '%.json'),
                  j AS (SELECT tipo_key, metodo, fecha, sum(eventos) AS ev FROM observations
                        WHERE lugar_id = 'GTO.MUN.IRAPUATO' AND source_file LIKE '%.json' GROUP BY ALL)
             SELECT count(*), count(*) FILTER (WHERE p.eventos = j.ev) FROM p
             LEFT JOIN j ON j.tipo_key = p.delito AND j.metodo = p.metodo AND j.fecha = p.fecha"""
    assert store.query(sql) == [(2675, 2675)]  # 24 tipo rows × 125 months, less homicidio 2020-01 .. 2025-05
    assert (
        one(
            store,
            "SELECT count(*) FROM observations WHERE lugar_id = 'GTO.MUN.IRAPUATO' AND vigente "
            "AND source_file LIKE 'gto_municipal%'",
        )
        == 0
    )


def test_structural_zeros_are_named_in_the_metadata(store):
    """Crimes Guanajuato's municipalities report as 0 in every published month (another crime holds them)."""
    coverage = store.metadata()["coverage"]
    zeros = {k: v["siempre_cero"] for k, v in coverage.items() if v.get("siempre_cero")}
    assert zeros == {
        "otros_delitos_que_atentan_contra_la_libertad_personal": ["GTO"],
        "rapto": ["GTO"],
        "violencia_de_genero_en_todas_sus_modalidades_distinta_a_la_violencia_familiar": ["GTO"],
    }
    assert one(store, "SELECT sum(eventos) FROM incidents WHERE delito = 'rapto'") == 0
    assert one(store, "SELECT count(*) FROM incidents WHERE delito = 'rapto'") > 0  # months published, all zero
