"""victimas_sexo_edad (22): victims by sexo and edad, women's share and victims per carpeta, against the raw files."""

from __future__ import annotations

import json

import pytest

from core import api
from core.ask.compose import compose
from tests.conftest import FIXTURES
from tests.core.tools.national_oracle import connect

PLAN = json.loads((FIXTURES / "national" / "victimas_sexo_edad.json").read_text(encoding="utf-8"))
# README sanity figures, Guanajuato homicidio doloso 2015..2025 (2025: January to June): victims, women, carpetas
VICTIMS = [957, 1096, 1423, 3290, 3540, 4490, 3516, 3260, 3104, 3151, 1606]
WOMEN = [109, 103, 159, 305, 322, 413, 344, 413, 378, 366, 201]
CARPETAS = [863, 947, 1084, 2609, 2775, 3359, 2823, 2634, 2581, 2553, 1257]


def run(settings, **args) -> dict:
    return api.execution({"plan": [{"tool_id": 22, "args": args}]}, settings=settings).last


@pytest.mark.parametrize(
    ("year", "victims", "women", "carpetas"),
    [(2015 + i, v, w, c) for i, (v, w, c) in enumerate(zip(VICTIMS, WOMEN, CARPETAS, strict=True))],
)
def test_readme_victims_women_and_carpetas_per_year(bundled_settings, year, victims, women, carpetas):
    env = run(bundled_settings, clave_delito="homicidio_doloso", desde=f"{year}-01-01", hasta=f"{year}-12-31")
    assert env["status"] == "ok", env.get("error")
    met = env["metrics"]
    assert (met["total"], met["mujeres"], met["carpetas"]) == (victims, women, carpetas)
    assert met["porcentaje_mujeres"] == round(100 * women / victims, 2)
    assert met["victimas_por_carpeta"] == round(victims / carpetas, 2) and met["victimas_por_carpeta"] > 1
    assert sum(r[2] for r in env["data"]["inline"]["rows"]) == victims  # the table holds victims only


def test_readme_sexo_by_edad_table(bundled_settings):
    env = run(bundled_settings, **PLAN["plan"][0]["args"])
    rows = {(r[0], r[1]): r[2] for r in env["data"]["inline"]["rows"]}
    assert rows == {
        ("Mujer", "Menores de edad (0-17)"): 18,
        ("Mujer", "Adultos (18 y más)"): 253,
        ("Mujer", "No especificado"): 95,
        ("Hombre", "Menores de edad (0-17)"): 139,
        ("Hombre", "Adultos (18 y más)"): 1862,
        ("Hombre", "No especificado"): 624,
        ("No identificado", "No identificado"): 160,
    }
    assert (env["metrics"]["hombres"], env["metrics"]["no_identificado"], env["metrics"]["menores"]) == (2625, 160, 157)


@pytest.mark.parametrize(
    ("args", "total"),
    [
        (dict(lugar_id="MX", clave_delito="homicidio_doloso", desde="2024-01-01", hasta="2024-12-31"), 30046),
        (dict(lugar_id="MX", clave_delito="homicidio_doloso", desde="2023-01-01", hasta="2023-12-31"), 29721),
        (dict(lugar_id="BC", clave_delito="homicidio_doloso", desde="2024-01-01", hasta="2024-12-31"), 2369),
        (dict(clave_delito="extorsion", desde="2024-01-01", hasta="2024-12-31"), 1222),
        (dict(desde="2024-01-01", hasta="2024-12-31"), 29117),
        (dict(clave_delito="feminicidio", desde="2021-01-01", hasta="2021-12-31"), 34),
    ],
)
def test_readme_victim_totals(bundled_settings, args, total):
    assert run(bundled_settings, **args)["metrics"]["total"] == total


def test_the_country_divides_only_whole_months(bundled_settings):
    # December 2024: victims published, the state file not; Guanajuato's municipal December must not join
    env = run(bundled_settings, lugar_id="MX", clave_delito="feminicidio", desde="2024-01-01", hasta="2024-12-31")
    met = env["metrics"]
    assert met["meses_comunes"] == 11 and met["meses_publicados"] == 12
    assert any("11 de 12 meses" in w for w in env["meta"]["warnings"])


def test_victims_and_carpetas_are_never_summed(bundled_settings):
    env = run(bundled_settings, **PLAN["plan"][0]["args"])
    met, meta = env["metrics"], env["meta"]
    assert (met["medida"], meta["medida"], met["fuero"], met["metodologia"]) == (
        "victimas",
        "victimas",
        "comun",
        "IDFC",
    )
    assert met["fuente"] == ["victimas_estatal_2015-01_2025-06.csv.bz2"] and met["vigente"] is True
    assert met["fuente"][0] in env["summary"]["headline"]
    numbers = json.dumps(env)
    assert str(met["total"] + met["carpetas"]) not in numbers  # 3,151 + 2,553 appears nowhere


@pytest.mark.parametrize(
    ("args", "code", "words"),
    [
        (dict(clave_delito="robo"), "INVALID_FILTER", "no publica víctimas de robo"),
        (dict(clave_delito="homicidio_dolozo"), "INVALID_FILTER", "¿Quiso decir homicidio_doloso"),
        (dict(lugar_id="GUANAJUATO"), "INVALID_PAYLOAD", "Valor no permitido en lugar_id"),
        (dict(desde="2026-01-01", hasta="2026-03-31"), "INVALID_DATE_RANGE", "está fuera de víctimas"),
    ],
)
def test_contract_errors_in_spanish(bundled_settings, args, code, words):
    base = dict(clave_delito="homicidio_doloso", desde="2024-01-01", hasta="2024-12-31")
    env = run(bundled_settings, **{**base, **args})
    assert env["status"] == "error" and env["error"]["code"] == code
    assert words in env["error"]["details"] + " ".join(env["error"]["hints"])


def test_the_plan_fixture_runs_and_composes(bundled_settings):
    result = api.execution(PLAN, settings=bundled_settings)
    answer = compose("¿Cuántas víctimas de homicidio doloso fueron mujeres en Guanajuato en 2024?", result.envelopes,
                     metadata=api.metadata(bundled_settings))  # fmt: skip
    assert "3,151 víctimas de homicidio doloso" in answer.text and "366 mujeres" in answer.text
    assert "víctimas por carpeta" in answer.text


@pytest.mark.slow
@pytest.mark.parametrize(
    ("lugar_id", "ent", "key", "column", "value", "months"),
    [
        ("GTO", 11, "homicidio_doloso", "subtipo", "Homicidio doloso", ("2019-01-01", "2019-12-31")),
        ("CHIH", 8, "lesiones", "tipo", "Lesiones", ("2022-04-01", "2023-03-31")),
        ("MX", None, "secuestro", "subtipo", "Secuestro", ("2015-01-01", "2025-06-30")),
    ],
)
def test_the_table_equals_the_raw_victims_file(bundled_settings, lugar_id, ent, key, column, value, months):
    con = connect(victims=True)
    want = con.execute(
        f"""SELECT genero, rango_de_edad, sum(n) FROM v WHERE {column} = ?
            AND make_date(anio, mes, 1) BETWEEN CAST(? AS DATE) AND CAST(? AS DATE) AND (? IS NULL OR ent = ?)
            GROUP BY ALL""",
        [value, *months, ent, ent],
    ).fetchall()
    con.close()
    env = run(bundled_settings, lugar_id=lugar_id, clave_delito=key, desde=months[0], hasta=months[1])
    assert sorted(tuple(r[:3]) for r in env["data"]["inline"]["rows"]) == sorted(want)
    women = sum(w[2] for w in want if w[0] == "Mujer")
    assert env["metrics"]["mujeres"] == women


@pytest.mark.parametrize(
    ("args", "subtipo", "how"),
    [
        (dict(clave_delito="homicidio_doloso", metodo="con_arma_de_fuego"), "Homicidio doloso", ["Con arma de fuego"]),
        (dict(lugar_id="MX", clave_delito="feminicidio", metodo="con_arma_blanca"), "Feminicidio", ["Con arma blanca"]),
        (dict(lugar_id="JAL", clave_delito="lesiones_dolosas", metodo=["con_arma_blanca", "con_arma_de_fuego"]),
         "Lesiones dolosas", ["Con arma blanca", "Con arma de fuego"]),
    ],
)  # fmt: skip
def test_a_modalidad_narrows_victims_and_their_carpetas(bundled_settings, args, subtipo, how):
    con = connect(victims=True)
    ent = {"MX": None, "JAL": 14}.get(args.get("lugar_id", "GTO"), 11)
    want = con.execute(
        """SELECT sum(n) FROM v WHERE subtipo = ? AND modalidad IN (SELECT unnest(?)) AND anio = 2024
           AND (? IS NULL OR ent = ?)""",
        [subtipo, how, ent, ent],
    ).fetchone()[0]
    con.close()
    rest = {k: v for k, v in args.items() if k != "metodo"}
    whole = run(bundled_settings, **rest, desde="2024-01-01", hasta="2024-12-31")
    env = run(bundled_settings, **args, desde="2024-01-01", hasta="2024-12-31")
    assert env["status"] == "ok", env.get("error")
    assert env["metrics"]["total"] == want < whole["metrics"]["total"]
    assert env["metrics"]["carpetas"] < whole["metrics"]["carpetas"]  # the carpetas divided are the same modalidad's
    assert all(h.lower() in env["metrics"]["delito_label"].lower() for h in how)


@pytest.mark.parametrize(
    "args",
    [
        dict(lugar_id="MX", clave_delito="homicidio_doloso", desde="2024-01-01", hasta="2024-11-30"),
        dict(clave_delito="homicidio_doloso", metodo=["con_arma_de_fuego"], desde="2023-01-01", hasta="2023-12-31"),
        dict(lugar_id="JAL", clave_delito="lesiones", desde="2022-04-01", hasta="2023-03-31"),
    ],
)
def test_a_repeated_question_reads_the_store_in_its_main_query_only(bundled_settings, monkeypatch, args):
    # The place, the crime, the series' months and whether the crime has victims are facts of the version:
    # asked again, the tool runs its one main query (and the envelope its evidence query), the same answer.
    from core.dataset import store

    first = run(bundled_settings, **args)
    seen: list[str] = []
    query = store.Store.query

    def spy(self, sql, params=()):
        seen.append(" ".join(sql.split()))
        return query(self, sql, params)

    monkeypatch.setattr(store.Store, "query", spy)
    again = run(bundled_settings, **args)
    assert again["status"] == "ok" and again["data"] == first["data"] and again["metrics"] == first["metrics"]
    tool = [s for s in seen if not s.startswith("SELECT coalesce(min(row_id")]  # the evidence's own query
    assert len(tool) == 1 and tool[0].startswith("WITH v AS MATERIALIZED"), tool


SUMS_CASES = [
    dict(clave_delito="homicidio_doloso", desde="2024-01-01", hasta="2024-11-30"),
    dict(lugar_id="MX", clave_delito="homicidio_doloso", desde="2024-01-01", hasta="2024-11-30"),
    dict(clave_delito="feminicidio"),  # months only the municipal files publish (state_cells beyond)
    dict(clave_delito="homicidio", desde="2022-01-01", hasta="2025-12-31"),  # a tipo: its subtipos' cells
    dict(clave_delito="homicidio_doloso", metodo=["con_arma_de_fuego"], desde="2023-06-01", hasta="2025-12-31"),
    dict(desde="2024-01-01", hasta="2024-12-31"),
]


@pytest.mark.parametrize("args", SUMS_CASES)
def test_the_carpetas_read_the_state_sums_and_give_what_incidents_give(bundled_settings, monkeypatch, args):
    # Guanajuato's set-aside state cells are the sums of the query database's state sums (core/etl/state_sums.py),
    # not a scan of incidents per question (20 M rows in a national version), and the answer is the same.
    from core.dataset import store
    from core.etl import state_sums
    from core.tools import victims

    seen: list[str] = []
    query = store.Store.query

    def spy(self, sql, params=()):
        seen.append(" ".join(sql.split()))
        return query(self, sql, params)

    monkeypatch.setattr(store.Store, "query", spy)
    got = run(bundled_settings, **args)
    assert got["status"] == "ok", got.get("error")
    main = [s for s in seen if s.startswith("WITH v AS MATERIALIZED")]
    assert len(main) == 1 and f"FROM {state_sums.TABLE} s" in main[0] and f"FROM {state_sums.STATE_ROWS} o" in main[0]
    assert not any(f"{w} incidents " in main[0] for w in ("FROM", "JOIN")), main[0]
    monkeypatch.setattr(victims, "municipal_sums", lambda ctx: f"({state_sums.fold()})")  # incidents, summed per query
    monkeypatch.setattr(victims, "state_rows", lambda ctx: "observations")
    want = run(bundled_settings, **args)
    assert (got["data"], got["metrics"], got["meta"]["warnings"]) == (
        want["data"],
        want["metrics"],
        want["meta"]["warnings"],
    )


def test_the_carpetas_sources_name_each_file_once(bundled_settings):
    # a month only the municipal files publish sums Guanajuato's parquet and Irapuato's JSON: both are named
    # (that month once named one of them, whichever its query met first)
    env = run(bundled_settings, clave_delito="feminicidio", desde="2024-01-01", hasta="2025-12-31")
    assert env["metrics"]["carpetas_fuente"] == [
        "gto_feminicidio_2015-2024.csv",
        "gto_municipal_tipo_modalidad_2015-01_2025-05.parquet",
        "irapuato_idm_nm_2015-2025.json",
    ]


@pytest.mark.parametrize("args", SUMS_CASES[:3])
def test_the_evidence_ids_come_from_the_main_statement_and_are_the_victims_rows(bundled_settings, args):
    # the tool's own pass keeps the first row ids with events: the executor does not scan the victims again
    from core.dataset.store import Store

    env = run(bundled_settings, **args)
    ev = env["evidence"][0]
    place = args.get("lugar_id", "GTO")
    where = "lugar_id = ?" if place != "MX" else "TRUE"
    want = Store(bundled_settings).query(
        f"""SELECT coalesce(min(row_id, 501), []), count(*) FROM observations
            WHERE nivel = 'estado' AND medida = 'victimas' AND fuero = 'comun' AND metodologia = 'IDFC' AND vigente
              AND fecha BETWEEN ? AND ? AND delito = ? AND {where} AND eventos > 0""",
        [
            env["meta"]["date_range_effective"]["from"],
            env["meta"]["date_range_effective"]["to"],
            args["clave_delito"],
            *([place] if place != "MX" else []),
        ],
    )[0]
    assert (ev["table"], ev["ids"], ev["total"]) == ("observations", list(want[0])[:500], want[1])
