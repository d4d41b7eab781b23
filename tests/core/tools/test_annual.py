"""total_anual (14), end to end through core.api.execute.

Expected numbers come from independent SQL over data/raw/sesnsp/gto_total_delitos_anual_2015-2026.csv
(DuckDB reading the CSV directly) or from the golden figures of data/README.md.
"""

from __future__ import annotations

import duckdb
import pytest

from core import api
from tests.conftest import RAW

COLUMNS = ["entidad_id", "label", "anio", "conteo", "metodologia", "parcial"]
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
STATE_GOLDEN = {
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
LEON = "11020"


@pytest.fixture(scope="module")
def raw():
    """DuckDB view ``a(cve, anio, total)`` over the annual CSV and ``mun(cve, municipio)``."""
    con = duckdb.connect()
    con.execute(f"""CREATE VIEW a AS SELECT cve_municipio AS cve, CAST(anio AS INTEGER) AS anio,
                    CAST(total_delitos AS BIGINT) AS total
                    FROM read_csv('{RAW / "sesnsp" / "gto_total_delitos_anual_2015-2026.csv"}', all_varchar = true)""")
    con.execute(
        "CREATE VIEW mun AS SELECT cve_municipio AS cve, municipio "
        f"FROM read_csv('{RAW / 'municipios_gto.csv'}', all_varchar = true)"
    )
    yield con
    con.close()


def sql_yearly(con, y0: int, y1: int, cve: str | None = None) -> dict[int, int]:
    cond, params = "anio BETWEEN ? AND ?", [y0, y1]
    if cve:
        cond += " AND cve = ?"
        params.append(cve)
    rows = con.execute(f"SELECT anio, sum(total) FROM a WHERE {cond} GROUP BY 1", params).fetchall()
    return {y: int(n) for y, n in rows}


def sql_by_municipio(con, y0: int, y1: int) -> dict[str, int]:
    return {
        m: int(n)
        for m, n in con.execute(
            "SELECT mun.municipio, sum(a.total) FROM a JOIN mun USING (cve) WHERE a.anio BETWEEN ? AND ? GROUP BY 1",
            [y0, y1],
        ).fetchall()
    }


def sql_nonzero_rows(con, y0: int, y1: int, cves: list[str] | None = None) -> int:
    cond, params = "anio BETWEEN ? AND ? AND total > 0", [y0, y1]
    if cves:
        cond += f" AND cve IN ({', '.join('?' for _ in cves)})"
        params += cves
    return con.execute(f"SELECT count(*) FROM a WHERE {cond}", params).fetchone()[0]


def run(plan, settings) -> dict:
    return api.execution(plan, settings=settings).last


def assert_ok_envelope(env: dict) -> None:
    """The §4.4 blocks of a success envelope, with the annual evidence table."""
    assert env["status"] == "ok", env.get("error")
    assert env["tool"].startswith("total_anual@")
    assert env["summary"]["headline"]
    assert isinstance(env["summary"]["highlights"], list)
    inline = env["data"]["inline"]
    assert [c["name"] for c in inline["columns"]] == COLUMNS
    assert {"applied", "max_rows"} <= set(inline["limit_notice"])
    # the full table is a file exactly when the inline rows are cut at max_rows
    assert bool(env["data"]["artifacts"]["tables"]) == inline["limit_notice"]["applied"]
    assert env["evidence"] and env["evidence"][0]["table"] == "annual"
    assert set(env["meta"]) >= META_KEYS


def _annual(entidad, a, b, **extra) -> dict:
    return {"plan": [{"tool_id": 14, "args": {"entidad_id": entidad, "from": a, "to": b, **extra}}]}


def _rnid_warned(env) -> bool:
    return any("RNID" in w and "no es comparable" in w for w in env["meta"]["warnings"])


def _partial_warned(env) -> bool:
    return any("parcial" in w and "enero–agosto" in w for w in env["meta"]["warnings"])


@pytest.mark.parametrize(
    "plan",
    [
        _annual("GTO", "2015-01-01", "2026-12-31", nivel="actual"),
        "[14]\nentidad_id: GTO\nnivel: actual\nfrom: 2015-01-01\nto: 2026-12-31",
    ],
    ids=["dict", "text"],
)
def test_state_series_2015_2026(bundled_settings, raw, plan):
    env = run(plan, bundled_settings)
    assert_ok_envelope(env)
    rows = env["data"]["inline"]["rows"]
    expected = sql_yearly(raw, 2015, 2026)
    assert expected == STATE_GOLDEN
    assert len(rows) == 12  # top_k does not cut a per-year series
    assert [r[:4] for r in rows] == [["GTO", "Guanajuato", y, n] for y, n in sorted(expected.items())]
    assert [(r[4], r[5]) for r in rows] == [("IDFC", False)] * 11 + [("RNID", True)]
    assert _rnid_warned(env) and _partial_warned(env)
    assert any("2015–2025" in w for w in env["meta"]["warnings"])
    assert "2026: 106,146 (RNID, parcial)" in env["summary"]["highlights"]
    assert env["evidence"][0]["total"] == sql_nonzero_rows(raw, 2015, 2026)
    assert env["meta"]["date_range_effective"] == {"from": "2015-01-01", "to": "2026-12-31"}
    assert env["meta"]["range_adjusted"] is False


@pytest.mark.parametrize(
    "entidad,cve,label,y0,y1,rnid",
    [
        ("GTO.MUN.LEON", LEON, "León", 2024, 2024, False),
        ("GTO.MUN.LEON", LEON, "León", 2020, 2026, True),
        ("GTO.MUN.CELAYA", "11007", "Celaya", 2019, 2021, False),
        ("GTO", None, "Guanajuato", 2023, 2024, False),
    ],
    ids=["leon-2024", "leon-2020-2026", "celaya-2019-2021", "state-2023-2024"],
)
def test_entity_per_year_against_raw_sql(bundled_settings, raw, entidad, cve, label, y0, y1, rnid):
    env = run(_annual(entidad, f"{y0}-01-01", f"{y1}-12-31", nivel="actual"), bundled_settings)
    assert_ok_envelope(env)
    expected = sql_yearly(raw, y0, y1, cve)
    rows = env["data"]["inline"]["rows"]
    assert [r[:4] for r in rows] == [[entidad, label, y, n] for y, n in sorted(expected.items())]
    assert _rnid_warned(env) is rnid
    assert _partial_warned(env) is rnid
    assert env["evidence"][0]["total"] == sql_nonzero_rows(raw, y0, y1, [cve] if cve else None)


def test_leon_2024_golden(bundled_settings):
    env = run("[14]\nentidad_id: GTO.MUN.LEON\nfrom: 2024-01-01\nto: 2024-12-31", bundled_settings)
    assert_ok_envelope(env)
    assert env["data"]["inline"]["rows"] == [["GTO.MUN.LEON", "León", 2024, 50207, "IDFC", False]]
    assert not _rnid_warned(env)


@pytest.mark.parametrize(
    "y0,y1,orden,top_k",
    [
        (2024, 2024, "desc", 5),
        (2015, 2016, "desc", 5),
        (2025, 2026, "asc", 3),
    ],
    ids=["2024-top5", "2015-2016-top5", "2025-2026-bottom3"],
)
def test_municipalities_ranked_against_raw_sql(bundled_settings, raw, y0, y1, orden, top_k):
    env = run(_annual("GTO", f"{y0}-01-01", f"{y1}-12-31", nivel="hijos", orden=orden, top_k=top_k), bundled_settings)
    assert_ok_envelope(env)
    expected = sql_by_municipio(raw, y0, y1)
    ranked = sorted(expected.values(), reverse=(orden == "desc"))
    rows = env["data"]["inline"]["rows"]
    assert len(rows) == top_k
    assert [r[3] for r in rows] == ranked[:top_k]
    for r in rows:
        assert r[0].startswith("GTO.MUN.")
        assert r[3] == expected[r[1]]
        assert r[2] == y1  # the last year of the summed window
    assert env["metrics"]["total_conteo"] == sum(expected.values())
    several = y0 != y1
    assert any("suma los años" in w for w in env["meta"]["warnings"]) is several
    rnid = y1 >= 2026
    assert _rnid_warned(env) is rnid
    assert all(r[5] is rnid for r in rows)
    assert env["evidence"][0]["total"] == sql_nonzero_rows(raw, y0, y1, _cves(raw, [r[1] for r in rows]))


def _cves(con, labels: list[str]) -> list[str]:
    marks = ", ".join("?" for _ in labels)
    return [c for (c,) in con.execute(f"SELECT cve FROM mun WHERE municipio IN ({marks})", labels).fetchall()]


def test_top5_2024_golden_leader(bundled_settings):
    env = run(_annual("GTO", "2024-01-01", "2024-12-31", top_k=5), bundled_settings)
    assert env["data"]["inline"]["rows"][0][:4] == ["GTO.MUN.LEON", "León", 2024, 50207]
    assert env["metrics"]["total_conteo"] == 154108


def test_years_outside_the_series_are_clamped(bundled_settings, raw):
    env = run(_annual("GTO", "2012-01-01", "2016-12-31", nivel="actual"), bundled_settings)
    assert_ok_envelope(env)
    expected = sorted(sql_yearly(raw, 2015, 2016).items())
    assert [r[2:4] for r in env["data"]["inline"]["rows"]] == [[y, n] for y, n in expected]
    assert env["meta"]["range_adjusted"] is True
    assert "serie anual" in env["meta"]["range_adjusted_reason"]
    assert env["meta"]["date_range_effective"] == {"from": "2015-01-01", "to": "2016-12-31"}


@pytest.mark.parametrize("a,b", [("2010-01-01", "2013-12-31"), ("2027-01-01", "2028-12-31")])
def test_years_wholly_outside_the_series_are_an_error(bundled_settings, a, b):
    env = run(_annual("GTO", a, b, nivel="actual"), bundled_settings)
    assert env["status"] == "error"
    assert env["error"]["code"] == "DATA_QUALITY_ISSUE"
    assert "data" not in env
