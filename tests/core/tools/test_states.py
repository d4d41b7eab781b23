"""ranking_estados (21): the 32 states for one crime, against the raw state files and CONAPO (national_oracle)."""

from __future__ import annotations

import json

import pytest

from core import api
from core.ask.compose import compose
from tests.conftest import FIXTURES
from tests.core.tools.national_oracle import connect

PLAN = json.loads((FIXTURES / "national" / "ranking_estados.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def oracle():
    con = connect()
    yield con
    con.close()


def run(settings, **args) -> dict:
    return api.execution({"plan": [{"tool_id": 21, "args": args}]}, settings=settings).last


def expected(oracle, view: str, column: str, value: str, months: tuple[str, str], year: int, by_rate: bool):
    """(position, lugar_id, count, population, rate) of every state, computed from the raw files."""
    order = "t DESC, n DESC" if by_rate else "n DESC, t DESC"
    return oracle.execute(
        f"""WITH c AS (SELECT ent, sum(n) AS n FROM {view}
                       WHERE {column} = ? AND make_date(anio, mes, 1) BETWEEN CAST(? AS DATE) AND CAST(? AS DATE)
                       GROUP BY 1),
                 k AS (SELECT ids.lugar_id, c.n, p.poblacion, round(c.n / p.poblacion * 100000, 2) AS t
                       FROM c JOIN ids USING (ent) JOIN pop p ON p.ent = c.ent AND p.anio = ? AND p.genero = 'Total')
            SELECT CAST(rank() OVER (ORDER BY {order}) AS INTEGER), lugar_id, n, poblacion, t FROM k
            ORDER BY 1, lugar_id""",
        [value, *months, year],
    ).fetchall()


# (plan args, raw view, raw column, raw value, months, population year, by rate)
CASES = [
    (dict(clave_delito="homicidio_doloso", desde="2023-01-01", hasta="2023-12-31"),
     "e", "subtipo", "Homicidio doloso", ("2023-01-01", "2023-12-01"), 2023, False),
    (dict(clave_delito="homicidio_doloso", desde="2024-01-01", hasta="2024-11-30", ordenar_por="tasa_per_100k"),
     "e", "subtipo", "Homicidio doloso", ("2024-01-01", "2024-11-01"), 2024, True),
    (dict(clave_delito="narcomenudeo", desde="2019-01-01", hasta="2021-12-31"),
     "e", "tipo", "Narcomenudeo", ("2019-01-01", "2021-12-01"), 2021, False),
    (dict(clave_delito="robo_a_casa_habitacion", desde="2018-03-01", hasta="2018-08-31", ordenar_por="tasa_per_100k"),
     "e", "subtipo", "Robo a casa habitación", ("2018-03-01", "2018-08-01"), 2018, True),
    (dict(clave_delito="feminicidio", desde="2026-01-01", hasta="2026-03-31", metodologia="RNID"),
     "r", "subtipo", "Feminicidio", ("2026-01-01", "2026-03-01"), 2026, False),
    (dict(clave_delito="extorsion", desde="2026-02-01", hasta="2026-03-31", metodologia="RNID"),
     "r", "tipo", "Extorsión", ("2026-02-01", "2026-03-01"), 2026, False),
]  # fmt: skip


@pytest.mark.parametrize(("args", "view", "column", "value", "months", "year", "by_rate"), CASES)
def test_the_whole_table_equals_the_raw_files(
    bundled_settings, oracle, args, view, column, value, months, year, by_rate
):
    env = run(bundled_settings, **args)
    assert env["status"] == "ok", env.get("error")
    rows = env["data"]["inline"]["rows"]
    states, country = rows[:-1], rows[-1]
    want = expected(oracle, view, column, value, months, year, by_rate)
    assert [tuple(r[:2]) + (r[3], r[4], r[5]) for r in states] == [tuple(w) for w in want]
    pop = oracle.execute("SELECT poblacion FROM pop WHERE ent = 0 AND anio = ? AND genero = 'Total'", [year]).fetchone()
    assert country[1:5] == ["MX", "México (nacional)", sum(w[2] for w in want), pop[0]]
    assert country[5] == round(country[3] / country[4] * 100_000, 2) == env["metrics"]["tasa_nacional"]
    for r in states:
        assert r[6] == ("por encima" if r[5] > country[5] else "por debajo" if r[5] < country[5] else "igual")


# README sanity figures: (args, the first states in order with their counts)
GOLDEN = [
    (dict(clave_delito="homicidio_doloso", desde="2023-01-01", hasta="2023-12-31"),
     [("GTO", 2581), ("MEX", 2254), ("BC", 2116), ("CHIH", 1759), ("JAL", 1449)], 25290),
    (dict(clave_delito="homicidio_doloso", desde="2026-01-01", hasta="2026-03-31", metodologia="RNID"),
     [("GTO", 334), ("BC", 323), ("CHIH", 317), ("MOR", 255), ("SIN", 253)], None),
    (dict(clave_delito="narcomenudeo", desde="2023-01-01", hasta="2023-12-31"),
     [("GTO", 19876), ("BC", 9839), ("COAH", 9054)], None),
]  # fmt: skip


@pytest.mark.parametrize(("args", "top", "national"), GOLDEN)
def test_readme_golden_rankings(bundled_settings, args, top, national):
    env = run(bundled_settings, **args)
    rows = env["data"]["inline"]["rows"]
    assert [(r[1], r[3]) for r in rows[: len(top)]] == top
    assert [r[0] for r in rows[: len(top)]] == list(range(1, len(top) + 1))
    if national is not None:
        assert rows[-1][3] == national


@pytest.mark.parametrize(
    ("year", "position", "count"),
    [(2023, 1, 2581), (2021, 1, 2823), (2016, 8, 947)],  # 2016: eighth (raw file, by hand)
)
def test_guanajuato_position_in_homicidio_doloso(bundled_settings, oracle, year, position, count):
    env = run(bundled_settings, clave_delito="homicidio_doloso", desde=f"{year}-01-01", hasta=f"{year}-12-31")
    met = env["metrics"]
    want = expected(oracle, "e", "subtipo", "Homicidio doloso", (f"{year}-01-01", f"{year}-12-01"), year, False)
    assert (met["lugar_id"], met["posicion"], met["conteo"]) == ("GTO", position, count)
    assert next(w[0] for w in want if w[1] == "GTO") == position
    assert met["de"] == 32 and met["tasa"] == round(count / next(w[3] for w in want if w[1] == "GTO") * 100_000, 2)


def test_guanajuato_cells_come_from_its_municipalities_and_equal_the_state_file(bundled_settings, oracle):
    env = run(bundled_settings, clave_delito="violencia_familiar", desde="2019-01-01", hasta="2019-12-31")
    assert env["metrics"]["conteo"] == 11142  # the municipal file's figure (issue 14 §4)
    assert "precedencia" in env["metrics"]  # the answer names the rule that picked the source
    raw = oracle.execute("SELECT sum(n) FROM e WHERE ent = 11 AND subtipo = 'Violencia familiar' AND anio = 2019")
    assert raw.fetchone()[0] == 11142


def test_state_against_state_and_against_the_country(bundled_settings):
    env = run(bundled_settings, clave_delito="homicidio_doloso", desde="2023-01-01", hasta="2023-12-31",
              lugar_id="JAL", comparar_con=["GTO", "BC"], ordenar_por="tasa_per_100k")  # fmt: skip
    met = env["metrics"]
    assert met["lugar"] == "Jalisco" and met["frente_al_pais"] == "por debajo"
    assert met["tasa"] < met["tasa_nacional"] == env["data"]["inline"]["rows"][-1][5]
    assert [c["lugar_id"] for c in met["comparados"]] == ["GTO", "BC"]
    by_id = {r[1]: r for r in env["data"]["inline"]["rows"]}
    assert [(c["posicion"], c["conteo"]) for c in met["comparados"]] == [
        (by_id[x][0], by_id[x][3]) for x in ("GTO", "BC")
    ]


@pytest.mark.parametrize(
    ("metodologia", "window", "warned"),
    [("RNID", ("2026-01-01", "2026-03-31"), True), ("IDFC", ("2024-01-01", "2024-06-30"), False)],
)
def test_every_result_names_its_series_and_rnid_carries_the_warning(bundled_settings, metodologia, window, warned):
    env = run(
        bundled_settings, clave_delito="homicidio_doloso", desde=window[0], hasta=window[1], metodologia=metodologia
    )
    met, meta = env["metrics"], env["meta"]
    assert (met["metodologia"], met["medida"], met["fuero"], met["vigente"]) == (metodologia, "carpetas", "comun", True)
    assert (meta["metodologia"], meta["medida"], meta["fuero"]) == (metodologia, "carpetas", "comun")
    state_file = "estatal_rnid_2026-01_2026-03.csv" if warned else "estatal_idefc_2015-01_2024-11.csv"
    # the ranking's source is the state file; Guanajuato's homicides of the IDFC series come from its municipal file
    # (finer level first), named as the source of its row only
    assert met["fuente"] == meta["fuente"] == [state_file]
    municipal = None if warned else {"lugares": ["Guanajuato"], "archivos": ["IDM_NM_gto_homicidio_2020-2025.csv"]}
    assert met["fuente_municipal"] == meta.get("fuente_municipal") == municipal
    assert state_file in env["summary"]["headline"]
    if municipal:
        assert "la fila de Guanajuato es la suma de sus municipios" in env["summary"]["headline"]
    rnid = "metodología 2026: no comparable con la serie hasta 2025"
    assert any(rnid in w for w in meta["warnings"]) is warned


def test_a_tipo_with_attempts_says_so(bundled_settings):
    env = run(bundled_settings, clave_delito="homicidio", desde="2026-01-01", hasta="2026-03-31", metodologia="RNID")
    assert any("tentativa_de_homicidio_doloso" in w for w in env["meta"]["warnings"])


def test_an_unpublished_month_is_no_zero(bundled_settings):
    env = run(bundled_settings, clave_delito="homicidio_doloso", desde="2024-01-01", hasta="2024-12-31")
    meta = env["meta"]
    assert meta["date_range_effective"] == {"from": "2024-01-01", "to": "2024-11-30"}
    assert meta["range_adjusted"] and env["metrics"]["meses_publicados"] == 11
    assert env["metrics"]["conteo"] == 2324  # January to November (README)


@pytest.mark.parametrize(
    ("args", "code", "words"),
    [
        (dict(lugar_id="XX"), "INVALID_PAYLOAD", "Valor no permitido en lugar_id"),
        (dict(comparar_con=["GTO", "ZZZ"]), "INVALID_PAYLOAD", "Valor no permitido en comparar_con"),
        (dict(clave_delito="homicidio_dolso"), "INVALID_FILTER", "no existe en carpetas de investigación"),
        (dict(clave_delito="federal_otros_delitos_patrimoniales"), "INVALID_FILTER", "no existe"),
        (dict(desde="2012-01-01", hasta="2014-12-31"), "INVALID_DATE_RANGE", "está fuera de"),
        (dict(desde="2024-05-01", hasta="2024-01-31"), "INVALID_DATE_RANGE", "posterior a hasta"),
        (dict(metodologia="IDEFF"), "INVALID_PAYLOAD", "Valor no permitido en metodologia"),
    ],
)
def test_contract_errors_in_spanish(bundled_settings, args, code, words):
    base = dict(clave_delito="homicidio_doloso", desde="2023-01-01", hasta="2023-12-31")
    env = run(bundled_settings, **{**base, **args})
    assert env["status"] == "error" and env["error"]["code"] == code
    assert words in env["error"]["details"]


def test_the_plan_fixture_runs_and_composes(bundled_settings):
    result = api.execution(PLAN, settings=bundled_settings)
    assert result.status == "ok"
    answer = compose("¿En qué lugar está Guanajuato en homicidios dolosos en 2023?", result.envelopes,
                     metadata=api.metadata(bundled_settings))  # fmt: skip
    assert "Guanajuato ocupa el lugar 1.º de 32 estados" in answer.text
    assert "por encima de la tasa nacional" in answer.text and "IDFC" in answer.text
    assert answer.chart["type"] == "bar" and len(answer.chart["data"]) == 32


# (plan args, raw view, subtipo or tipo column, value, raw modalidad(es), months, population year)
BY_MODALIDAD = [
    (dict(clave_delito="homicidio_doloso", metodo="con_arma_de_fuego", desde="2024-01-01", hasta="2024-11-30"),
     "e", "subtipo", "Homicidio doloso", ["Con arma de fuego"], ("2024-01-01", "2024-11-01"), 2024),
    (dict(clave_delito="secuestro", metodo="secuestro_expres", desde="2026-01-01", hasta="2026-03-31",
          metodologia="RNID"),
     "r", "tipo", "Secuestro", ["Secuestro exprés"], ("2026-01-01", "2026-03-01"), 2026),
    (dict(clave_delito="lesiones_dolosas", metodo=["con_arma_blanca", "con_arma_de_fuego"], desde="2019-01-01",
          hasta="2019-12-31"),
     "e", "subtipo", "Lesiones dolosas", ["Con arma blanca", "Con arma de fuego"], ("2019-01-01", "2019-12-01"), 2019),
]  # fmt: skip


@pytest.mark.parametrize(("args", "view", "column", "value", "how", "months", "year"), BY_MODALIDAD)
def test_a_modalidad_narrows_every_state_as_the_raw_file(bundled_settings, oracle, args, view, column, value, how,
                                                         months, year):  # fmt: skip
    want = oracle.execute(
        f"""SELECT ids.lugar_id, sum(n) FROM {view} JOIN ids USING (ent)
            WHERE {column} = ? AND modalidad IN (SELECT unnest(?)) AND make_date(anio, mes, 1) BETWEEN
                  CAST(? AS DATE) AND CAST(? AS DATE) GROUP BY 1""",
        [value, how, *months],
    ).fetchall()
    env = run(bundled_settings, **args)
    assert env["status"] == "ok", env.get("error")
    got = {r["lugar_id"]: r["conteo"] for r in api_rows(env) if r["lugar_id"] != "MX"}
    assert got == dict(want)
    assert all(h.lower() in env["metrics"]["delito_label"].lower() for h in how)  # the label says the modalidad


def api_rows(env: dict) -> list[dict]:
    cols = [c["name"] for c in env["data"]["inline"]["columns"]]
    return [dict(zip(cols, r)) for r in env["data"]["inline"]["rows"]]


@pytest.mark.parametrize("metodo", ["con_violencia_extrema", "robo_de_motocicleta_con_violencia"])
def test_a_modalidad_the_crime_does_not_have_is_a_contract_error(bundled_settings, metodo):
    env = run(bundled_settings, clave_delito="homicidio_doloso", metodo=metodo, desde="2023-01-01", hasta="2023-12-31")
    assert env["status"] == "error" and env["error"]["code"] in ("INVALID_FILTER", "INVALID_PAYLOAD")
    said = (env["error"]["details"] + " ".join(env["error"]["hints"])).lower()
    assert "modalidad" in said or "método" in said


@pytest.mark.parametrize(
    ("metodologia", "window", "line"),
    [
        (
            "IDFC",
            ("2023-01-01", "2023-12-31"),
            "fuente: estatal_idefc_2015-01_2024-11.csv; la fila de Guanajuato es la suma de sus municipios: "
            "IDM_NM_gto_homicidio_2020-2025.csv.",
        ),
        ("RNID", ("2026-01-01", "2026-03-31"), "fuente: estatal_rnid_2026-01_2026-03.csv."),
    ],
)
def test_the_source_line_says_which_state_its_municipal_files_built(bundled_settings, metodologia, window, line):
    # Jalisco's answer read the state file; Guanajuato's row alone came from its municipal file
    env = run(
        bundled_settings,
        lugar_id="JAL",
        clave_delito="homicidio_doloso",
        desde=window[0],
        hasta=window[1],
        metodologia=metodologia,
    )
    answer = compose("¿en qué lugar está Jalisco?", [env], metadata=api.metadata(bundled_settings))
    assert line in answer.text, answer.text
    # the answer's data source is the state series, not the municipal data (those only beside Guanajuato's row)
    titles = [s.title for s in answer.sources if s.kind == "data"]
    assert titles[0].startswith("SESNSP — carpetas de investigación del fuero común"), titles


@pytest.mark.parametrize(
    ("clave", "lugar", "window", "count"),
    [
        # «robo a transeúnte» is the SESNSP's two subtipos summed (dev_j: CDMX 2022 = 10,686 + 3,083)
        ("robo_a_transeunte", "CDMX", ("2022-01-01", "2022-12-31"), 13769),
        ("robo_en_transporte_publico", "CDMX", ("2023-01-01", "2023-12-31"), 4676),
    ],
)
def test_a_named_sum_of_subtipos_ranks_the_states_by_their_sum(bundled_settings, oracle, clave, lugar, window, count):
    env = run(bundled_settings, lugar_id=lugar, clave_delito=clave, desde=window[0], hasta=window[1])
    assert env["status"] == "ok", env
    assert env["metrics"]["conteo"] == count
    members = {
        "robo_a_transeunte": ("Robo a transeúnte en vía pública", "Robo a transeúnte en espacio abierto al público"),
        "robo_en_transporte_publico": ("Robo en transporte público individual", "Robo en transporte público colectivo"),
    }[clave]
    months = (window[0], window[1][:8] + "01")
    parts = [expected(oracle, "e", "subtipo", m, months, int(window[0][:4]), False) for m in members]
    by_state = {}
    for rows in parts:
        for _pos, lugar_id, n, _pop, _t in rows:
            by_state[lugar_id] = by_state.get(lugar_id, 0) + n
    assert by_state[lugar] == count


@pytest.mark.parametrize(
    "args",
    [
        dict(clave_delito="homicidio_doloso", desde="2024-01-01", hasta="2024-11-30"),
        dict(clave_delito="homicidio", desde="2021-01-01", hasta="2021-12-31", ordenar_por="tasa_per_100k"),
        dict(clave_delito="secuestro", desde="2019-01-01", hasta="2019-12-31"),
    ],
)
def test_guanajuato_set_aside_cells_read_the_state_sums(bundled_settings, monkeypatch, args):
    # the municipal sums of the state cells set aside come from the query database's state sums
    # (core/etl/state_sums.py), not a scan of incidents per question; the ranking is the same either way
    from core.dataset import store
    from core.etl import state_sums
    from core.tools import states

    seen: list[str] = []
    query = store.Store.query

    def spy(self, sql, params=()):
        seen.append(" ".join(sql.split()))
        return query(self, sql, params)

    monkeypatch.setattr(store.Store, "query", spy)
    got = run(bundled_settings, **args)
    assert got["status"] == "ok", got.get("error")
    assert any(f"FROM {state_sums.TABLE} s" in s and f"FROM {state_sums.STATE_ROWS} o" in s for s in seen)
    assert not any(f"{w} incidents " in s for s in seen for w in ("FROM", "JOIN"))
    monkeypatch.setattr(states, "municipal_sums", lambda ctx: f"({state_sums.fold()})")
    monkeypatch.setattr(states, "state_rows", lambda ctx: "observations")
    want = run(bundled_settings, **args)
    assert (got["data"], got["metrics"]) == (want["data"], want["metrics"])
