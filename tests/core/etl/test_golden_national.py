"""Golden figures of the national files (data/raw/README.md, their sanity checks), read back from the bundled store,
and the invariants that must hold with every file loaded (issue 14, point 4)."""

from __future__ import annotations

import pytest

from core.ask.context import Assistant
from core.ask.pipeline import Conversation
from core.dataset.store import Store

# The state file's rows (the municipal parquet and JSON rows are nivel = 'municipio').
CARPETAS_IDFC = "nivel = 'estado' AND medida = 'carpetas' AND fuero = 'comun' AND metodologia = 'IDFC'"
RNID = "medida = 'carpetas' AND metodologia = 'RNID'"
VICTIMS = "medida = 'victimas'"
FEDERAL = "fuero = 'federal'"
IDEFC_NATIONAL = {
    2015: 1657804,
    2016: 1764179,
    2017: 1939495,
    2018: 1989928,
    2019: 2071181,
    2020: 1841191,
    2021: 2044255,
    2022: 2141980,
    2023: 2173506,
    2024: 1940599,  # January to November: December 2024 is not published in that cut
}
GTO_DOLOSO = {2015: 863, 2016: 947, 2017: 1084, 2018: 2609, 2019: 2775, 2020: 3359, 2021: 2823, 2022: 2634, 2023: 2581}
GTO_DOLOSO[2024] = 2324  # January to November
GTO_FEDERAL = [10062, 7182, 4111, 4369, 4199, 5710, 6057, 5204, 4797, 4073, 4477, 4394, 4765, 2913]
GTO_VICTIMS_DOLOSO = [957, 1096, 1423, 3290, 3540, 4490, 3516, 3260, 3104, 3151, 1606]
GTO_VICTIMS_DOLOSO_WOMEN = [109, 103, 159, 305, 322, 413, 344, 413, 378, 366, 201]

# (what, SQL over observations returning one number, README figure)
OBSERVATIONS = [
    *[(f"IDEFC national {y}", f"{CARPETAS_IDFC} AND year(fecha) = {y}", n) for y, n in IDEFC_NATIONAL.items()],
    *[
        (
            f"IDEFC GTO homicidio doloso {y}",
            f"{CARPETAS_IDFC} AND lugar_id = 'GTO' AND delito = 'homicidio_doloso' AND year(fecha) = {y}",
            n,
        )
        for y, n in GTO_DOLOSO.items()
    ],
    (
        "IDEFC homicidio doloso 2023 national",
        f"{CARPETAS_IDFC} AND delito = 'homicidio_doloso' AND year(fecha) = 2023",
        25290,
    ),
    (
        "IDEFC GTO robo a casa habitación 2023",
        f"{CARPETAS_IDFC} AND lugar_id = 'GTO' AND delito = 'robo_a_casa_habitacion' AND year(fecha) = 2023",
        3573,
    ),
    (
        "IDEFC GTO otros robos 2023",
        f"{CARPETAS_IDFC} AND lugar_id = 'GTO' AND delito = 'otros_robos' AND year(fecha) = 2023",
        18864,
    ),
    (
        "IDEFC GTO narcomenudeo 2023",
        f"{CARPETAS_IDFC} AND lugar_id = 'GTO' AND tipo_key = 'narcomenudeo' AND year(fecha) = 2023",
        19876,
    ),
    (
        "IDEFC BC narcomenudeo 2023",
        f"{CARPETAS_IDFC} AND lugar_id = 'BC' AND tipo_key = 'narcomenudeo' AND year(fecha) = 2023",
        9839,
    ),
    ("RNID GTO all 2026-01", f"{RNID} AND lugar_id = 'GTO' AND fecha = DATE '2026-01-01'", 12108),
    ("RNID GTO all 2026-03", f"{RNID} AND lugar_id = 'GTO' AND fecha = DATE '2026-03-01'", 14139),
    ("RNID GTO homicidio doloso Q1", f"{RNID} AND lugar_id = 'GTO' AND delito = 'homicidio_doloso'", 334),
    ("RNID BC homicidio doloso Q1", f"{RNID} AND lugar_id = 'BC' AND delito = 'homicidio_doloso'", 323),
    ("RNID national 2026-02", f"{RNID} AND fecha = DATE '2026-02-01'", 150592),
    (
        "RNID GTO narcomenudeo 2026-01",
        f"{RNID} AND lugar_id = 'GTO' AND tipo_key = 'narcomenudeo' AND fecha = DATE '2026-01-01'",
        847,
    ),
    *[
        (
            f"victims GTO homicidio doloso {2015 + i}",
            f"{VICTIMS} AND lugar_id = 'GTO' AND delito = 'homicidio_doloso' AND year(fecha) = {2015 + i}",
            n,
        )
        for i, n in enumerate(GTO_VICTIMS_DOLOSO)
    ],
    *[
        (
            f"victims GTO homicidio doloso women {2015 + i}",
            f"{VICTIMS} AND lugar_id = 'GTO' AND delito = 'homicidio_doloso' AND sexo = 'Mujer' AND year(fecha) = {2015 + i}",
            n,
        )
        for i, n in enumerate(GTO_VICTIMS_DOLOSO_WOMEN)
    ],
    (
        "victims GTO doloso 2024 men",
        f"{VICTIMS} AND lugar_id = 'GTO' AND delito = 'homicidio_doloso' AND sexo = 'Hombre' AND year(fecha) = 2024",
        2625,
    ),
    (
        "victims GTO doloso 2024 unidentified",
        f"{VICTIMS} AND lugar_id = 'GTO' AND delito = 'homicidio_doloso' AND sexo = 'No identificado' AND year(fecha) = 2024",
        160,
    ),
    (
        "victims GTO doloso 2024 adult men",
        f"{VICTIMS} AND lugar_id = 'GTO' AND delito = 'homicidio_doloso' AND sexo = 'Hombre' AND rango_edad = 'Adultos (18 y más)' AND year(fecha) = 2024",
        1862,
    ),
    (
        "victims GTO doloso 2024 minor women",
        f"{VICTIMS} AND lugar_id = 'GTO' AND delito = 'homicidio_doloso' AND sexo = 'Mujer' AND rango_edad = 'Menores de edad (0-17)' AND year(fecha) = 2024",
        18,
    ),
    ("victims national doloso 2024", f"{VICTIMS} AND delito = 'homicidio_doloso' AND year(fecha) = 2024", 30046),
    ("victims national doloso 2023", f"{VICTIMS} AND delito = 'homicidio_doloso' AND year(fecha) = 2023", 29721),
    (
        "victims BC doloso 2024",
        f"{VICTIMS} AND lugar_id = 'BC' AND delito = 'homicidio_doloso' AND year(fecha) = 2024",
        2369,
    ),
    (
        "victims GTO extorsión 2024",
        f"{VICTIMS} AND lugar_id = 'GTO' AND tipo_key = 'extorsion' AND year(fecha) = 2024",
        1222,
    ),
    ("victims GTO all 2024", f"{VICTIMS} AND lugar_id = 'GTO' AND year(fecha) = 2024", 29117),
    (
        "victims GTO feminicidio 2021",
        f"{VICTIMS} AND lugar_id = 'GTO' AND delito = 'feminicidio' AND year(fecha) = 2021",
        34,
    ),
    *[
        (f"federal GTO {2012 + i}", f"{FEDERAL} AND lugar_id = 'GTO' AND year(fecha) = {2012 + i}", n)
        for i, n in enumerate(GTO_FEDERAL)
    ],
    ("federal national 2024, abroad included", f"{FEDERAL} AND year(fecha) = 2024", 78645),
    ("federal CDMX 2024", f"{FEDERAL} AND lugar_id = 'CDMX' AND year(fecha) = 2024", 9989),
    (
        "federal GTO patrimoniales 2024",
        f"{FEDERAL} AND lugar_id = 'GTO' AND delito = 'federal_otros_delitos_patrimoniales' AND year(fecha) = 2024",
        1820,
    ),
]


@pytest.fixture(scope="module")
def store(bundled_settings) -> Store:
    return Store(bundled_settings)


@pytest.mark.parametrize("what,where,expected", OBSERVATIONS, ids=[o[0] for o in OBSERVATIONS])
def test_readme_figures(store, what, where, expected):
    assert store.query(f"SELECT sum(eventos) FROM observations WHERE {where}") == [(expected,)]


def test_homicidio_doloso_2023_ranking(store):
    rows = store.query(
        f"""SELECT lugar_id, sum(eventos) FROM observations WHERE {CARPETAS_IDFC} AND delito = 'homicidio_doloso'
            AND year(fecha) = 2023 GROUP BY 1 ORDER BY 2 DESC LIMIT 5"""
    )
    assert rows == [("GTO", 2581), ("MEX", 2254), ("BC", 2116), ("CHIH", 1759), ("JAL", 1449)]


def test_december_2024_is_not_published_never_zero(store):
    assert store.query(f"SELECT count(*) FROM observations WHERE {CARPETAS_IDFC} AND fecha = DATE '2024-12-01'") == [
        (0,)
    ]


@pytest.mark.parametrize(
    "lugar_id,anio,sexo,poblacion",
    [
        ("GTO", 2024, "total", 6481538),
        ("GTO", 2024, "hombres", 3149907),
        ("GTO", 2024, "mujeres", 3331631),
        ("GTO", 2015, "total", 5985087),
        ("MX", 2024, "total", 132274416),
        ("GTO.MUN.LEON", 2024, "total", 1851376),
        ("GTO.MUN.IRAPUATO", 2024, "total", 614588),
        ("GTO.MUN.CELAYA", 2024, "total", 551662),
    ],
)
def test_population(store, lugar_id, anio, sexo, poblacion):
    sql = "SELECT poblacion FROM place_population WHERE lugar_id = ? AND anio = ? AND sexo = ?"
    assert store.query(sql, [lugar_id, anio, sexo]) == [(poblacion,)]


def test_municipal_population_adds_up_to_each_state(store):
    rows = store.query(
        """SELECT count(*), count(*) FILTER (WHERE s.poblacion = m.total) FROM place_population s
           JOIN (SELECT p.estado_id, q.anio, sum(q.poblacion) AS total FROM place_population q
                 JOIN places p USING (lugar_id) WHERE q.nivel = 'municipio' GROUP BY ALL) m
             ON m.estado_id = s.lugar_id AND m.anio = s.anio
           WHERE s.nivel = 'estado' AND s.sexo = 'total'"""
    )
    assert rows == [(1632, 1632)]


def test_places_keep_guanajuatos_ids(store):
    rows = store.query(
        """SELECT count(*), count(*) FILTER (WHERE p.lugar_id = e.entidad_id) FROM places p
           JOIN entities e ON e.cve = p.cve AND e.nivel = 'municipio' WHERE p.nivel = 'municipio'"""
    )
    assert rows == [(46, 46)]
    assert store.query("SELECT nivel, count(*) FROM places GROUP BY 1 ORDER BY 1") == [
        ("estado", 32),
        ("municipio", 2475),
        ("pais", 1),
    ]


def test_guanajuatos_state_file_equals_the_sum_of_its_municipalities(store):
    """Where the state file and municipal cells hold the same crime and month, the state figure is their
    sum (README cross-checks): the state rows stand aside (finer level first) and nothing differs."""
    rows = store.query(
        """WITH s AS (SELECT delito, fecha, sum(eventos) AS st FROM observations
                      WHERE lugar_id = 'GTO' AND sustituida_por = 'municipal' GROUP BY ALL),
                m AS (SELECT delito, fecha, sum(eventos) AS mu FROM incidents WHERE estado_id = 'GTO' GROUP BY ALL)
           SELECT count(*), count(*) FILTER (WHERE s.st = coalesce(m.mu, 0)),
                  count(*) FILTER (WHERE s.delito = 'homicidio_doloso') FROM s LEFT JOIN m USING (delito, fecha)"""
    )
    total, equal, doloso = rows[0]
    assert total == equal and total >= 1900
    assert doloso == 59  # 2020-01 .. 2024-11: the IDM_NM homicide file and the state file both hold them


def test_the_state_rows_with_no_municipal_data_stand(store):
    rows = store.query(
        f"""SELECT bool_and(vigente), sum(eventos) FROM observations WHERE {CARPETAS_IDFC} AND lugar_id = 'GTO'
            AND delito = 'robo_a_casa_habitacion' AND year(fecha) = 2023"""
    )
    assert rows == [(True, 3573)]


@pytest.mark.parametrize(
    "question,figure",
    [
        ("¿Cuántos homicidios dolosos hubo en León en 2024?", 596),
        ("¿Cuántos homicidios dolosos hubo en Guanajuato en 2024?", 2553),
        ("¿Cuánta violencia familiar hubo en Guanajuato en 2019?", 11142),
    ],
)
def test_existing_answers_hold_with_every_file_loaded(bundled_settings, question, figure):
    turn = Assistant(settings=bundled_settings, use_cache=False).ask(question, Conversation(), planner="rules")
    rows = turn.envelopes[-1]["data"]["inline"]["rows"]
    assert [r[2] for r in rows] == [figure]
