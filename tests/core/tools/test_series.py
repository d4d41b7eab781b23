"""serie_temporal (12) and comparar_periodos (13), end to end through core.api.execute.

Every expected number comes from independent SQL over the CSV files in data/raw (DuckDB
reading them directly, month columns unpivoted here) or from the golden figures of
data/README.md; never from the engine.
"""

from __future__ import annotations

import calendar
import copy
from datetime import date

import duckdb
import pytest

from core import api
from core.dataset.store import get_store
from core.engine.catalog import build_catalog
from core.engine.validate import validate_plan
from core.tools import ToolContext
from core.tools.series import comparar_periodos, serie_temporal
from tests.conftest import RAW

MESES = [
    "Enero",
    "Febrero",
    "Marzo",
    "Abril",
    "Mayo",
    "Junio",
    "Julio",
    "Agosto",
    "Septiembre",
    "Octubre",
    "Noviembre",
    "Diciembre",
]
LEON = "11020"
LEON_2024 = [57, 43, 42, 61, 46, 57, 63, 45, 51, 49, 41, 41]  # data/README.md
META_KEYS = {
    "schema_version",
    "tool_version",
    "dataset_version",
    "anchor_date",
    "date_range_effective",
    "range_adjusted",
    "timing_ms",
    "query_hash",
}


# ---------------------------------------------------------------- independent SQL over data/raw


def _wide(path: str, crimen_sql: str, modalidad_sql: str) -> str:
    cols = ", ".join(f'"{m}"' for m in MESES)
    names = "[" + ", ".join(f"'{m}'" for m in MESES) + "]"
    return f"""
        SELECT CAST("Cve. Municipio" AS VARCHAR) AS cve, {crimen_sql} AS crimen, {modalidad_sql} AS modalidad,
               make_date(CAST("Año" AS INTEGER), list_position({names}, mes), 1) AS fecha,
               CAST(CAST(v AS DOUBLE) AS BIGINT) AS eventos
        FROM (UNPIVOT (SELECT * FROM read_csv('{path}', all_varchar = true)) ON {cols} INTO NAME mes VALUE v)"""


def _long(path: str) -> str:
    return f"""
        SELECT cve_municipio AS cve, "Subtipo de delito" AS crimen, Modalidad AS modalidad,
               make_date(CAST("Año" AS INTEGER), CAST(split_part(Mes, '-', 1) AS INTEGER), 1) AS fecha,
               CAST(Cantidad AS BIGINT) AS eventos
        FROM read_csv('{path}', all_varchar = true)"""


def _parquet_after(path) -> str:
    """The tipo × modalidad parquet's months after each curated file ends (issue 14: the series continue there)."""
    return f"""
        SELECT lpad(CAST(m.cve_municipio AS VARCHAR), 5, '0') AS cve,
               CASE WHEN p."Tipo de delito" LIKE 'Violación%' THEN 'Violación' ELSE p."Tipo de delito" END AS crimen,
               CASE WHEN p."Tipo de delito" IN ('Feminicidio', 'Secuestro') THEN p.Modalidad END AS modalidad,
               date_trunc('month', p.Fecha)::DATE AS fecha, p.Incidentes AS eventos
        FROM read_parquet('{path}') p JOIN read_csv('{RAW / "municipios_gto.csv"}') m ON m.municipio = p.Municipio
        WHERE (p."Tipo de delito" IN ('Feminicidio', 'Secuestro') AND p.Fecha >= DATE '2025-01-01')
           OR (p."Tipo de delito" = 'Violencia familiar' AND p.Fecha >= DATE '2023-01-01')
           OR (p."Tipo de delito" LIKE 'Violación%' AND p.Fecha >= DATE '2022-07-01')"""


@pytest.fixture(scope="module")
def raw():
    """DuckDB over the raw CSVs: view ``m(cve, crimen, modalidad, fecha, eventos)`` and ``mun(cve, municipio)``."""
    s = RAW / "sesnsp"
    con = duckdb.connect()
    parts = [
        _wide(s / "IDM_NM_gto_homicidio_2020-2025.csv", '"Subtipo de delito"', "Modalidad"),
        _wide(s / "gto_violacion_2015-2022.csv", "'Violación'", "NULL"),
        _wide(s / "gto_violencia_familiar_2015-2022.csv", "'Violencia familiar'", "NULL"),
        _long(s / "gto_feminicidio_2015-2024.csv"),
        _long(s / "gto_secuestro_2015-2024.csv"),
        _parquet_after(s / "gto_municipal_tipo_modalidad_2015-01_2025-05.parquet"),
    ]
    con.execute("CREATE VIEW m AS " + " UNION ALL ".join(parts))
    con.execute(
        "CREATE VIEW mun AS SELECT cve_municipio AS cve, municipio "
        f"FROM read_csv('{RAW / 'municipios_gto.csv'}', all_varchar = true)"
    )
    yield con
    con.close()


def _months(a: date, b: date) -> list[date]:
    out = []
    while a <= b:
        out.append(a)
        a = date(a.year + a.month // 12, a.month % 12 + 1, 1)
    return out


def _filter(crimenes, cve, modalidad):
    cond = [f"crimen IN ({', '.join('?' for _ in crimenes)})"]
    params = list(crimenes)
    if cve:
        cond.append("cve = ?")
        params.append(cve)
    if modalidad:
        cond.append("modalidad = ?")
        params.append(modalidad)
    return " AND ".join(cond), params


def sql_monthly(con, crimenes, a: date, b: date, cve=None, modalidad=None) -> list[tuple[date, int]]:
    """(month, events) zero-filled over every month a..b (inside coverage an absent cell is 0)."""
    cond, params = _filter(crimenes, cve, modalidad)
    got = dict(
        con.execute(
            f"SELECT fecha, sum(eventos) FROM m WHERE {cond} AND fecha BETWEEN ? AND ? GROUP BY 1", params + [a, b]
        ).fetchall()
    )
    return [(d, int(got.get(d, 0))) for d in _months(a, b)]


def sql_by_municipio(con, crimenes, a: date, b: date) -> dict[str, int]:
    """label → events (every municipality of the catalogue, 0 when absent)."""
    cond, params = _filter(crimenes, None, None)
    rows = con.execute(
        f"""SELECT mun.municipio, coalesce(sum(m.eventos), 0) FROM mun
                           LEFT JOIN m ON m.cve = mun.cve AND {cond} AND m.fecha BETWEEN ? AND ?
                           GROUP BY 1""",
        params + [a, b],
    ).fetchall()
    return {label: int(n) for label, n in rows}


def sql_nonzero_cells(con, crimenes, windows, cve=None) -> int:
    cond, params = _filter(crimenes, cve, None)
    win = " OR ".join("fecha BETWEEN ? AND ?" for _ in windows)
    return con.execute(
        f"SELECT count(*) FROM m WHERE {cond} AND ({win}) AND eventos > 0", params + [d for w in windows for d in w]
    ).fetchone()[0]


# ---------------------------------------------------------------- envelope helpers


def run(plan, settings) -> dict:
    result = api.execution(plan, settings=settings)
    return result.last


def assert_ok_envelope(env: dict, columns: list[str]) -> None:
    """The §4.4 blocks of a success envelope."""
    assert env["status"] == "ok", env.get("error")
    assert env["summary"]["headline"]
    assert isinstance(env["summary"]["highlights"], list)
    inline = env["data"]["inline"]
    assert [c["name"] for c in inline["columns"]] == columns
    assert isinstance(inline["rows"], list)
    assert {"applied", "max_rows"} <= set(inline["limit_notice"])
    # the full table is a file exactly when the inline rows are cut at max_rows
    assert bool(env["data"]["artifacts"]["tables"]) == inline["limit_notice"]["applied"]
    assert isinstance(env["evidence"], list)
    assert set(env["meta"]) >= META_KEYS
    assert env["meta"]["query_hash"].startswith("sha256:")


def assert_error_envelope(env: dict, code: str) -> None:
    assert env["status"] == "error"
    assert env["error"]["code"] == code
    assert env["error"]["details"]
    assert "data" not in env  # never a made-up count
    assert {"schema_version", "tool_version"} <= set(env["meta"])


def _series(entidad, delito, a, b, **extra) -> dict:
    return {"plan": [{"tool_id": 12, "args": {"entidad_id": entidad, "delito": delito, "from": a, "to": b, **extra}}]}


# ---------------------------------------------------------------- serie_temporal

LEON_TEXT = "[12]\nentidad_id: GTO.MUN.LEON\ndelito: homicidio_doloso\nfrom: 2024-01-01\nto: 2024-12-31"


@pytest.mark.parametrize(
    "plan,adjusted",
    [
        (_series("GTO.MUN.LEON", "homicidio_doloso", "2024-01-01", "2024-12-31"), False),
        (_series("GTO.MUN.LEON", ["homicidio_doloso"], "2024-01-15", "2024-12-02"), True),  # aligned to whole months
        (LEON_TEXT, False),
    ],
    ids=["dict", "unaligned", "text"],
)
def test_leon_2024_series_matches_golden_and_raw_sql(bundled_settings, raw, plan, adjusted):
    env = run(plan, bundled_settings)
    assert_ok_envelope(env, ["fecha", "conteo", "publicado"])
    rows = env["data"]["inline"]["rows"]
    expected = sql_monthly(raw, ["Homicidio doloso"], date(2024, 1, 1), date(2024, 12, 1), cve=LEON)
    assert [n for _, n in expected] == LEON_2024
    assert rows == [[d.isoformat(), n, True] for d, n in expected]
    assert env["metrics"] == {
        "total": 596,
        "promedio_mensual": round(596 / 12, 2),
        "mes_maximo": "2024-07",
        "meses_publicados": 12,
        "meses_no_publicados": 0,
    }
    assert env["summary"]["headline"] == "Serie mensual de Homicidio doloso — León, 2024-01..2024-12"
    assert env["meta"]["date_range_effective"] == {"from": "2024-01-01", "to": "2024-12-31"}
    assert env["evidence"][0]["table"] == "incidents"
    assert env["evidence"][0]["total"] == sql_nonzero_cells(
        raw, ["Homicidio doloso"], [(date(2024, 1, 1), date(2024, 12, 1))], LEON
    )
    assert env["meta"]["range_adjusted"] is adjusted


@pytest.mark.parametrize(
    "entidad,cve,delito,crimenes,metodo,modalidad,asked,effective,reason",
    [
        (
            "GTO",
            None,
            "homicidio_doloso",
            ["Homicidio doloso"],
            None,
            None,
            ("2023-01-01", "2023-12-31"),
            ("2023-01-01", "2023-12-31"),
            None,
        ),
        (
            "GTO",
            None,
            "feminicidio",
            ["Feminicidio"],
            None,
            None,  # crosses the end of coverage (the parquet's 2025-05)
            ("2024-07-01", "2025-08-31"),
            ("2024-07-01", "2025-05-31"),
            "cobertura",
        ),
        (
            "GTO.MUN.CELAYA",
            "11007",
            "homicidio",
            ["Homicidio doloso", "Homicidio culposo"],
            None,
            None,  # tipo key
            ("2025-06-01", "2025-12-31"),
            ("2025-06-01", "2025-11-30"),
            "datos disponibles",
        ),
        (
            "GTO.MUN.LEON",
            LEON,
            "homicidio_doloso",
            ["Homicidio doloso"],
            "con_arma_de_fuego",
            "Con arma de fuego",
            ("2024-01-01", "2024-06-30"),
            ("2024-01-01", "2024-06-30"),
            None,
        ),
        (
            "GTO",
            None,
            "homicidio_doloso",
            ["Homicidio doloso"],
            None,
            None,  # starts before coverage (2020-01)
            ("2019-10-01", "2020-03-31"),
            ("2020-01-01", "2020-03-31"),
            "cobertura",
        ),
    ],
    ids=["state-2023", "feminicidio-end-of-coverage", "celaya-tipo-watermark", "leon-metodo", "doloso-start"],
)
def test_series_values_and_clamping(
    bundled_settings, raw, entidad, cve, delito, crimenes, metodo, modalidad, asked, effective, reason
):
    extra = {"metodo": metodo} if metodo else {}
    env = run(_series(entidad, delito, *asked, **extra), bundled_settings)
    assert_ok_envelope(env, ["fecha", "conteo", "publicado"])
    a, b = date.fromisoformat(effective[0]), date.fromisoformat(effective[1])
    expected = sql_monthly(raw, crimenes, a, b.replace(day=1), cve=cve, modalidad=modalidad)
    assert env["data"]["inline"]["rows"] == [[d.isoformat(), n, True] for d, n in expected]
    assert env["meta"]["date_range_effective"] == {"from": effective[0], "to": effective[1]}
    assert env["meta"]["range_adjusted"] is (reason is not None)
    if reason:
        assert reason in env["meta"]["range_adjusted_reason"]
    total = sum(n for _, n in expected)
    assert env["metrics"]["total"] == total
    assert env["metrics"]["meses_publicados"] == len(expected)
    assert env["metrics"]["meses_no_publicados"] == 0
    peak = max(expected, key=lambda r: (r[1], -r[0].toordinal()))
    assert env["metrics"]["mes_maximo"] == (f"{peak[0]:%Y-%m}" if total else None)


def test_state_2023_series_sums_to_golden(bundled_settings):
    env = run(_series("GTO", "homicidio_doloso", "2023-01-01", "2023-12-31"), bundled_settings)
    assert env["metrics"]["total"] == 2581  # data/README.md


@pytest.mark.parametrize(
    "entidad,delito,a,b",
    [
        ("GTO", "feminicidio", "2025-06-01", "2025-10-31"),  # after feminicidio coverage (the parquet's 2025-05)
        ("GTO.MUN.LEON", "feminicidio", "2025-06-01", "2025-11-30"),
        ("GTO", "violacion", "2025-07-01", "2025-11-30"),  # violación ends with the parquet (2025-05)
        ("GTO", "homicidio_doloso", "2018-01-01", "2018-12-31"),  # homicide file starts 2020-01
    ],
    ids=["feminicidio-2025", "leon-feminicidio-2025", "violacion-2023", "doloso-2018"],
)
def test_series_wholly_outside_coverage_is_an_error_never_a_count(bundled_settings, entidad, delito, a, b):
    env = run(_series(entidad, delito, a, b), bundled_settings)
    assert_error_envelope(env, "DATA_QUALITY_ISSUE")
    assert "No hay datos publicados" in env["error"]["details"]


@pytest.mark.parametrize(
    "entidad,cve,a,b",
    [("GTO", None, date(2025, 1, 1), date(2025, 9, 1)), ("GTO.MUN.LEON", LEON, date(2024, 10, 1), date(2025, 11, 1))],
    ids=["state", "leon"],
)
def test_multi_crime_series_when_one_crime_ends_earlier(bundled_settings, raw, entidad, cve, a, b):
    """Feminicidio ends with the parquet (2025-05), homicidio doloso runs to 2025-11: the later months are published
    (homicide's) and hold homicide alone, and the answer says which crime lacks them."""
    end = b.replace(day=calendar.monthrange(b.year, b.month)[1])
    env = run(_series(entidad, ["feminicidio", "homicidio_doloso"], a.isoformat(), end.isoformat()), bundled_settings)
    assert_ok_envelope(env, ["fecha", "conteo", "publicado"])
    both = sql_monthly(raw, ["Feminicidio", "Homicidio doloso"], a, b, cve=cve)
    only_other = dict(sql_monthly(raw, ["Homicidio doloso"], a, b, cve=cve))
    rows = env["data"]["inline"]["rows"]
    assert rows == [[d.isoformat(), n, True] for d, n in both]  # every month still published
    after = [r for r in rows if r[0] > "2025-05-31"]
    assert after and all(r[1] == only_other[date.fromisoformat(r[0])] for r in after)
    assert env["metrics"]["meses_no_publicados"] == 0
    assert any("Feminicidio no está publicado en 2025-06.." in w for w in env["meta"]["warnings"]), env["meta"]


def test_months_outside_every_run_have_no_number(bundled_settings, raw):
    """A gap between coverage runs: the month is not published, conteo None, never 0."""
    store = get_store(bundled_settings)
    catalog = build_catalog(store)
    state = dict(sql_monthly(raw, ["Feminicidio"], date(2024, 7, 1), date(2024, 12, 1)))
    gap = date(2024, 9, 1)
    assert state[gap] == 0  # precondition: no rows that month, so only coverage decides
    metadata = copy.deepcopy(store.metadata())
    metadata["coverage"]["feminicidio"]["estados"]["GTO"] = [
        {"desde": "2015-01-01", "hasta": "2024-08-31", "meses": 116},
        {"desde": "2024-10-01", "hasta": "2024-12-31", "meses": 3},
    ]
    vp = validate_plan(_series("GTO", "feminicidio", "2024-07-01", "2024-12-31"), catalog, metadata)
    out = serie_temporal(ToolContext(store=store, catalog=catalog, metadata=metadata), vp.steps[0])
    assert [c for c, _ in out.columns] == ["fecha", "conteo", "publicado"]
    assert out.rows == [[d, None if d == gap else n, d != gap] for d, n in sorted(state.items())]
    assert out.metrics["meses_no_publicados"] == 1
    assert out.metrics["meses_publicados"] == 5
    assert out.metrics["total"] == sum(state.values())
    assert any("2024-09" in w and "no son cero" in w for w in out.warnings)


# ---------------------------------------------------------------- comparar_periodos


def _compare(entidad, delito, a, b, base_a, base_b, **extra) -> dict:
    return {
        "plan": [
            {
                "tool_id": 13,
                "args": {
                    "entidad_id": entidad,
                    "delito": delito,
                    "from": a,
                    "to": b,
                    "base_from": base_a,
                    "base_to": base_b,
                    **extra,
                },
            }
        ]
    }


def _celaya_rate_plan() -> dict:
    """«homicidio doloso en Celaya en tasa, 2024 contra 2023»: the plan two tests read."""
    return _compare(
        "GTO.MUN.CELAYA",
        "homicidio_doloso",
        "2024-01-01",
        "2024-12-31",
        "2023-01-01",
        "2023-12-31",
        medida="tasa_per_100k",
    )


COMPARE_COLUMNS = [
    "entidad_id",
    "label",
    "conteo",
    "conteo_base",
    "cambio",
    "cambio_pct",
    "tasa_per_100k",
    "tasa_per_100k_base",
]
RATE_METRICS = ["tasa_per_100k", "tasa_per_100k_base", "cambio_tasa", "cambio_tasa_pct"]
STATE_TEXT = (
    "[13]\nentidad_id: GTO\nnivel: actual\ndelito: homicidio_doloso\nfrom: 2024-01-01\nto: 2024-12-31\n"
    "base_from: 2023-01-01\nbase_to: 2023-12-31"
)


@pytest.mark.parametrize(
    "plan,row",
    [
        (
            _compare("GTO", "homicidio_doloso", "2024-01-01", "2024-12-31", "2023-01-01", "2023-12-31", nivel="actual"),
            ["GTO", "Guanajuato", 2553, 2581],
        ),
        (STATE_TEXT, ["GTO", "Guanajuato", 2553, 2581]),
        (
            _compare("GTO.MUN.LEON", "homicidio_doloso", "2024-01-01", "2024-12-31", "2023-01-01", "2023-12-31"),
            ["GTO.MUN.LEON", "León", 596, 777],
        ),
    ],
    ids=["state-dict", "state-text", "leon"],
)
def test_compare_one_entity_against_golden(bundled_settings, plan, row):
    env = run(plan, bundled_settings)
    assert_ok_envelope(env, COMPARE_COLUMNS)
    cambio = row[2] - row[3]
    pct = round(100 * cambio / row[3], 2)
    assert [r[:6] for r in env["data"]["inline"]["rows"]] == [row + [cambio, pct]]
    assert {k: v for k, v in env["metrics"].items() if k not in RATE_METRICS} == {
        "conteo": row[2],
        "conteo_base": row[3],
        "cambio": cambio,
        "cambio_pct": pct,
        "periodo": "2024-01..2024-12",
        "periodo_base": "2023-01..2023-12",
        "medida": "conteo",
        "anio_poblacion": 2024,
        "anio_poblacion_base": 2023,
    }
    assert env["meta"]["range_adjusted"] is False
    assert not any("distinto número de meses" in w for w in env["meta"]["warnings"])


def test_compare_state_evidence_covers_both_windows(bundled_settings, raw):
    env = run(
        _compare("GTO", "homicidio_doloso", "2024-01-01", "2024-12-31", "2023-01-01", "2023-12-31", nivel="actual"),
        bundled_settings,
    )
    windows = [(date(2024, 1, 1), date(2024, 12, 1)), (date(2023, 1, 1), date(2023, 12, 1))]
    assert env["evidence"][0]["total"] == sql_nonzero_cells(raw, ["Homicidio doloso"], windows)


@pytest.mark.parametrize(
    "delito,crimenes,window,base",
    [
        (
            "homicidio_doloso",
            ["Homicidio doloso"],
            (date(2024, 1, 1), date(2024, 12, 31)),
            (date(2023, 1, 1), date(2023, 12, 31)),
        ),
        (
            "homicidio",
            ["Homicidio doloso", "Homicidio culposo"],
            (date(2025, 1, 1), date(2025, 6, 30)),
            (date(2024, 1, 1), date(2024, 6, 30)),
        ),
        (
            "feminicidio",
            ["Feminicidio"],
            (date(2024, 1, 1), date(2024, 12, 31)),
            (date(2021, 1, 1), date(2021, 12, 31)),
        ),
    ],
    ids=["doloso-2024-2023", "homicidio-h1", "feminicidio-2024-2021"],
)
def test_compare_municipalities_top5_against_raw_sql(bundled_settings, raw, delito, crimenes, window, base):
    env = run(
        _compare(
            "GTO",
            delito,
            window[0].isoformat(),
            window[1].isoformat(),
            base[0].isoformat(),
            base[1].isoformat(),
            nivel="hijos",
            top_k=5,
        ),
        bundled_settings,
    )
    assert_ok_envelope(env, COMPARE_COLUMNS)
    now = sql_by_municipio(raw, crimenes, window[0], window[1].replace(day=1))
    before = sql_by_municipio(raw, crimenes, base[0], base[1].replace(day=1))
    expected = {
        label: (
            now[label],
            before[label],
            now[label] - before[label],
            round(100 * (now[label] - before[label]) / before[label], 2) if before[label] else None,
        )
        for label in now
    }
    ranked = sorted(expected.values(), key=lambda r: (-abs(r[2]), -r[2]))
    rows = env["data"]["inline"]["rows"]
    assert len(rows) == 5
    assert [r[4] for r in rows] == [r[2] for r in ranked[:5]]  # biggest change first, rises before falls
    for r in rows:
        assert r[0].startswith("GTO.MUN.")
        assert tuple(r[2:6]) == expected[r[1]]
    assert env["metrics"]["conteo"] == sum(now.values())
    assert env["metrics"]["conteo_base"] == sum(before.values())
    assert env["metrics"]["cambio"] == sum(now.values()) - sum(before.values())


def test_compare_zero_base_has_no_percentage(bundled_settings, raw):
    now = sum(n for _, n in sql_monthly(raw, ["Secuestro"], date(2024, 1, 1), date(2024, 12, 1), cve=LEON))
    before = sum(n for _, n in sql_monthly(raw, ["Secuestro"], date(2023, 1, 1), date(2023, 12, 1), cve=LEON))
    assert (now, before) == (1, 0)  # data/README.md: León secuestro 2023 = 0, 2024 = 1
    env = run(
        _compare("GTO.MUN.LEON", "secuestro", "2024-01-01", "2024-12-31", "2023-01-01", "2023-12-31"), bundled_settings
    )
    assert_ok_envelope(env, COMPARE_COLUMNS)
    assert [r[:6] for r in env["data"]["inline"]["rows"]] == [["GTO.MUN.LEON", "León", 1, 0, 1, None]]
    assert env["metrics"]["cambio_pct"] is None
    assert env["metrics"]["cambio_tasa_pct"] is None  # a zero base rate has no percentage either
    assert env["data"]["inline"]["rows"][0][7] == 0.0  # a zero with population is a rate of zero, not a null


# ---------------------------------------------------------------- comparar_periodos in rates (1.1.0)


def raw_population(year: int) -> dict[str, int]:
    """cve → CONAPO population of a year, read straight from data/raw/poblacion_gto.csv."""
    got = duckdb.sql(
        f"SELECT cve_municipio, poblacion FROM read_csv('{RAW / 'poblacion_gto.csv'}', all_varchar = true) "
        f"WHERE anio = '{year}'"
    ).fetchall()
    return {cve: int(p) for cve, p in got}


def _expected_rates(n: int, pop: int, nb: int, pop_base: int) -> dict:
    now, before = n / pop * 100_000, nb / pop_base * 100_000
    return {
        "tasa_per_100k": round(now, 2),
        "tasa_per_100k_base": round(before, 2),
        "cambio_tasa": round(now - before, 2),
        "cambio_tasa_pct": round(100 * (now - before) / before, 2),
    }


CELAYA = "11007"


@pytest.mark.parametrize(
    "entidad,cve,window,base",
    [
        ("GTO.MUN.CELAYA", CELAYA, (date(2024, 1, 1), date(2024, 12, 31)), (date(2023, 1, 1), date(2023, 12, 31))),
        ("GTO.MUN.CELAYA", CELAYA, (date(2025, 1, 1), date(2025, 6, 30)), (date(2021, 1, 1), date(2021, 6, 30))),
        ("GTO", None, (date(2024, 1, 1), date(2024, 12, 31)), (date(2023, 1, 1), date(2023, 12, 31))),
        ("GTO", None, (date(2025, 1, 1), date(2025, 6, 30)), (date(2020, 1, 1), date(2020, 6, 30))),
    ],
    ids=["celaya-2024-2023", "celaya-h1-2025-2021", "state-2024-2023", "state-h1-2025-2020"],
)
def test_compare_rates_use_each_windows_population_year(bundled_settings, raw, entidad, cve, window, base):
    """Each window's rate is its count over the CONAPO population of the year it ends (the state: the sum of
    its municipalities), as rank_por_delito and comparar_lugares compute it."""
    env = run(
        _compare(entidad, "homicidio_doloso", *(d.isoformat() for d in (*window, *base)), nivel="actual"),
        bundled_settings,
    )
    assert_ok_envelope(env, COMPARE_COLUMNS)
    n = sum(v for _, v in sql_monthly(raw, ["Homicidio doloso"], window[0], window[1].replace(day=1), cve=cve))
    nb = sum(v for _, v in sql_monthly(raw, ["Homicidio doloso"], base[0], base[1].replace(day=1), cve=cve))
    pops, pops_base = raw_population(window[1].year), raw_population(base[1].year)
    pop, pop_base = (pops[cve], pops_base[cve]) if cve else (sum(pops.values()), sum(pops_base.values()))
    expected = _expected_rates(n, pop, nb, pop_base)
    [row] = env["data"]["inline"]["rows"]
    assert row[2:4] == [n, nb]
    assert row[6:] == [expected["tasa_per_100k"], expected["tasa_per_100k_base"]]
    assert {k: env["metrics"][k] for k in RATE_METRICS} == expected
    assert (env["metrics"]["anio_poblacion"], env["metrics"]["anio_poblacion_base"]) == (window[1].year, base[1].year)


def test_compare_celaya_rates_2024_2023(bundled_settings):
    """The figures of the answer «homicidio doloso en Celaya en tasa, 2024 contra 2023» (443 and 370 cases)."""
    env = run(
        _celaya_rate_plan(),
        bundled_settings,
    )
    assert env["data"]["inline"]["rows"] == [["GTO.MUN.CELAYA", "Celaya", 443, 370, 73, 19.73, 80.3, 67.81]]
    assert env["metrics"]["medida"] == "tasa_per_100k"
    assert (env["metrics"]["cambio_tasa"], env["metrics"]["cambio_tasa_pct"]) == (12.5, 18.43)


def test_compare_municipalities_rates_against_raw_sql(bundled_settings, raw):
    env = run(
        _compare("GTO", "homicidio_doloso", "2024-01-01", "2024-12-31", "2023-01-01", "2023-12-31", top_k=5),
        bundled_settings,
    )
    names = dict(raw.execute("SELECT municipio, cve FROM mun").fetchall())
    now = sql_by_municipio(raw, ["Homicidio doloso"], date(2024, 1, 1), date(2024, 12, 1))
    before = sql_by_municipio(raw, ["Homicidio doloso"], date(2023, 1, 1), date(2023, 12, 1))
    pops, pops_base = raw_population(2024), raw_population(2023)
    rows = env["data"]["inline"]["rows"]
    assert len(rows) == 5
    for r in rows:
        cve = names[r[1]]
        assert r[6:] == [round(now[r[1]] / pops[cve] * 100_000, 2), round(before[r[1]] / pops_base[cve] * 100_000, 2)]
    # the metrics are the state's: every municipality's events over the sum of their populations
    expected = _expected_rates(sum(now.values()), sum(pops.values()), sum(before.values()), sum(pops_base.values()))
    assert {k: env["metrics"][k] for k in RATE_METRICS} == expected


class _WithoutPopulationOf:
    """The store with no CONAPO row of one year: what a window beyond the projections would meet."""

    def __init__(self, store, year: int):
        self.store, self.year = store, year

    def query(self, sql: str, params=()):
        hidden = f"(SELECT * FROM population WHERE anio <> {int(self.year)}) AS population"
        return self.store.query(sql.replace("FROM population", f"FROM {hidden}"), params)


def test_compare_rate_is_null_without_population(bundled_settings):
    """No population for the base year: the base rate and the change are null, never a made-up number."""
    store = get_store(bundled_settings)
    catalog = build_catalog(store)
    metadata = store.metadata()
    plan = _celaya_rate_plan()
    step = validate_plan(plan, catalog, metadata).steps[0]
    ctx = ToolContext(store=_WithoutPopulationOf(store, 2023), catalog=catalog, metadata=metadata)
    out = comparar_periodos(ctx, step)
    assert out.rows == [["GTO.MUN.CELAYA", "Celaya", 443, 370, 73, 19.73, 80.3, None]]
    assert {k: out.metrics[k] for k in RATE_METRICS} == {
        "tasa_per_100k": 80.3,
        "tasa_per_100k_base": None,
        "cambio_tasa": None,
        "cambio_tasa_pct": None,
    }
    assert any("Sin población CONAPO de 2023 para Celaya" in w for w in out.warnings)


def test_compare_base_partly_outside_coverage_is_clamped(bundled_settings, raw):
    env = run(
        _compare("GTO", "homicidio_doloso", "2024-01-01", "2024-12-31", "2019-07-01", "2020-06-30", nivel="actual"),
        bundled_settings,
    )
    assert_ok_envelope(env, COMPARE_COLUMNS)
    base = sum(n for _, n in sql_monthly(raw, ["Homicidio doloso"], date(2020, 1, 1), date(2020, 6, 1)))
    assert env["data"]["inline"]["rows"][0][2:4] == [2553, base]
    assert env["metrics"]["periodo_base"] == "2020-01..2020-06"
    assert env["meta"]["range_adjusted"] is True
    assert "base" in env["meta"]["range_adjusted_reason"]
    assert any("distinto número de meses (12 frente a 6)" in w for w in env["meta"]["warnings"])


@pytest.mark.parametrize(
    "delito,window,base",
    [
        ("homicidio_doloso", ("2024-01-01", "2024-12-31"), ("2018-01-01", "2018-12-31")),  # before 2020-01
        ("feminicidio", ("2024-01-01", "2024-06-30"), ("2025-06-01", "2025-11-30")),  # after 2025-05
        ("violacion", ("2021-01-01", "2021-12-31"), ("2025-06-01", "2025-11-30")),  # after 2025-05
    ],
    ids=["doloso-2018", "feminicidio-2025", "violacion-2023"],
)
def test_compare_base_wholly_outside_coverage_is_an_error(bundled_settings, delito, window, base):
    env = run(_compare("GTO", delito, *window, *base), bundled_settings)
    assert_error_envelope(env, "DATA_QUALITY_ISSUE")
    assert "ventana base" in env["error"]["details"]
    assert env["tool"].startswith("comparar_periodos@")
