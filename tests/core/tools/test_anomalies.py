"""detectar_anomalias end to end, against an independent recomputation from the raw files.

The reference here reads the raw SESNSP CSV with DuckDB (months unpivoted by hand), then
scores every month with a plain loop over ``statistics.median``; it shares no code with
``core.tools.anomalies``.
"""

from __future__ import annotations

import math
import statistics
from datetime import date
from pathlib import Path

import duckdb
import pytest

from core.api import execution
from core.config import load_settings
from core.dataset.store import Store
from core.etl import SourceSpec, run_etl
from tests.conftest import RAW

HOMICIDE_CSV = RAW / "sesnsp" / "IDM_NM_gto_homicidio_2020-2025.csv"
MONTHS = [
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


# -- independent reference ---------------------------------------------------------------


def raw_series(subtipo: str = "Homicidio doloso", modalidad: str | None = None) -> dict[str, dict[date, int]]:
    """{cve_municipio: {month: events}} from the raw wide CSV; unpublished months are absent."""
    cols = ", ".join(f'"{m}"' for m in MONTHS)
    con = duckdb.connect()
    long = f"""
        SELECT "Cve. Municipio" AS cve, "Año" AS anio, mes, "Subtipo de delito" AS subtipo, "Modalidad" AS modalidad,
               CAST(valor AS DOUBLE) AS v
        FROM (UNPIVOT (SELECT * FROM read_csv('{HOMICIDE_CSV}', all_varchar = true, header = true))
              ON {cols} INTO NAME mes VALUE valor)
        WHERE valor IS NOT NULL AND trim(valor) <> ''"""
    published = con.execute(f"SELECT DISTINCT anio, mes FROM ({long}) t").fetchall()
    cves = [r[0] for r in con.execute(f"SELECT DISTINCT cve FROM ({long}) t").fetchall()]
    rows = con.execute(
        f"""SELECT cve, anio, mes, sum(v) FROM ({long}) t
            WHERE subtipo = ? AND (? IS NULL OR modalidad = ?) GROUP BY ALL""",
        [subtipo, modalidad, modalidad],
    ).fetchall()
    months = [date(int(a), MONTHS.index(m) + 1, 1) for a, m in published]
    out = {cve: dict.fromkeys(months, 0) for cve in cves}  # inside coverage an absent cell is a zero
    for cve, anio, mes, n in rows:
        out[cve][date(int(anio), MONTHS.index(mes) + 1, 1)] = int(n)
    return out


def shift(d: date, n: int) -> date:
    idx = d.year * 12 + d.month - 1 + n
    return date(idx // 12, idx % 12 + 1, 1)


def reference_z(series: dict[date, int], month: date, window: int) -> float | None:
    """Robust z of one month against the ``window`` calendar months before it (None: not evaluated)."""
    if month not in series:
        return None
    base = [series[shift(month, -k)] for k in range(1, window + 1) if shift(month, -k) in series]
    if len(base) < window // 2:
        return None
    x = series[month]
    med = statistics.median(base)
    dev = [abs(v - med) for v in base]
    mad = statistics.median(dev)
    if mad > 0:
        z = 0.6745 * (x - med) / mad
    elif sum(dev) > 0:
        z = (x - med) / (1.2533 * (sum(dev) / len(dev)))
    elif x != med:
        z = math.copysign(math.inf, x - med)
    else:
        return None
    return max(-99.0, min(99.0, z))


def reference_anomalies(series: dict[date, int], start: date, end: date, window: int, thr: float) -> dict:
    """{month: (conteo, mediana, z)} of the anomalous months in [start, end]."""
    out = {}
    m = start
    while m <= end:
        z = reference_z(series, m, window)
        if z is not None and abs(z) >= thr:
            base = [series[shift(m, -k)] for k in range(1, window + 1) if shift(m, -k) in series]
            out[m] = (series[m], statistics.median(base), z)
        m = shift(m, 1)
    return out


def severity(z: float, thr: float) -> float:
    return round(1 - thr / abs(z), 3)


def plan(*steps: tuple[int, dict]) -> dict:
    return {"plan": [{"tool_id": t, "args": a} for t, a in steps]}


@pytest.fixture(scope="module")
def raw_homicide() -> dict[str, dict[date, int]]:
    return raw_series()


@pytest.fixture(scope="module")
def cve_to_id(bundled_settings) -> dict[str, str]:
    return dict(Store(bundled_settings).query("SELECT cve, entidad_id FROM entities WHERE nivel = 'municipio'"))


# -- León against the raw file -------------------------------------------------------------


@pytest.mark.parametrize(
    "start,end,thr,window",
    [
        ("2021-01-01", "2025-11-30", 3.0, 12),
        ("2021-01-01", "2025-11-30", 2.0, 12),
        ("2020-01-01", "2025-11-30", 1.5, 6),  # first months lack a base (need 3 of 6)
        ("2022-01-01", "2024-12-31", 2.0, 24),
        ("2021-01-01", "2025-11-30", 1.0, 36),  # base clipped at the coverage start (2020-01)
    ],
)
def test_leon_matches_independent_robust_z(bundled_settings, raw_homicide, start, end, thr, window):
    result = execution(
        plan(
            (
                10,
                {
                    "entidad_id": "GTO.MUN.LEON",
                    "delito": "homicidio_doloso",
                    "from": start,
                    "to": end,
                    "z_threshold": thr,
                    "window": window,
                    "top_k": 100,
                },
            )
        ),
        settings=bundled_settings,
    )
    assert result.status == "ok"
    env = result.last
    expected = reference_anomalies(raw_homicide[LEON], date.fromisoformat(start), date.fromisoformat(end), window, thr)
    cols = [c["name"] for c in env["data"]["inline"]["columns"]]
    got = {date.fromisoformat(r[cols.index("fecha")]): dict(zip(cols, r)) for r in env["data"]["inline"]["rows"]}
    assert not env["data"]["inline"]["limit_notice"]["applied"]
    assert set(got) == set(expected)
    for month, (conteo, mediana, z) in expected.items():
        row = got[month]
        assert row["entidad_id"] == "GTO.MUN.LEON"
        assert row["conteo"] == conteo
        assert row["mediana"] == pytest.approx(mediana)
        assert row["z_score"] == pytest.approx(z, abs=0.006)
        assert row["severity"] == pytest.approx(severity(z, thr), abs=0.0011)
        assert row["direccion"] == ("alza" if z > 0 else "baja")
    metrics = env["metrics"]
    assert metrics["total_anomalias"] == len(expected)
    sev = [severity(z, thr) for _, _, z in expected.values()]
    assert metrics["gravedad_promedio"] == pytest.approx(round(sum(sev) / len(sev), 3) if sev else 0, abs=0.0011)
    assert (metrics["z_threshold"], metrics["window"]) == (thr, window)
    assert metrics["entidades_con_anomalias"] == (1 if expected else 0)
    severities = [r[cols.index("severity")] for r in env["data"]["inline"]["rows"]]
    assert severities == sorted(severities, reverse=True)


def test_months_without_enough_base_are_reported(bundled_settings):
    env = execution(
        plan(
            (
                10,
                {
                    "entidad_id": "GTO.MUN.LEON",
                    "delito": "homicidio_doloso",
                    "from": "2020-01-01",
                    "to": "2020-12-31",
                    "window": 12,
                },
            )
        ),
        settings=bundled_settings,
    ).last
    assert env["status"] == "ok"
    assert any("sin base suficiente" in w for w in env["meta"]["warnings"])


def test_method_filter_uses_only_that_modality(bundled_settings):
    series = raw_series(modalidad="Con arma de fuego")[LEON]
    expected = reference_anomalies(series, date(2021, 1, 1), date(2025, 11, 1), 12, 2.0)
    env = execution(
        plan(
            (4, {"metodo": "con_arma_de_fuego"}),
            (
                10,
                {
                    "entidad_id": "GTO.MUN.LEON",
                    "delito": "homicidio_doloso",
                    "from": "2021-01-01",
                    "to": "2025-11-30",
                    "z_threshold": 2.0,
                    "top_k": 100,
                },
            ),
        ),
        settings=bundled_settings,
    ).last
    assert expected, "the reference should find anomalies for this case"
    assert "retry" not in env["meta"]
    assert {date.fromisoformat(r[2]) for r in env["data"]["inline"]["rows"]} == set(expected)


# -- state-wide -----------------------------------------------------------------------------


@pytest.mark.parametrize("thr,window,top_k", [(3.0, 12, 10), (2.5, 12, 100), (3.5, 24, 5)])
def test_statewide_municipalities_match_reference(bundled_settings, raw_homicide, cve_to_id, thr, window, top_k):
    result = execution(
        plan(
            (
                10,
                {
                    "entidad_id": "GTO",
                    "delito": "homicidio_doloso",
                    "from": "2024-01-01",
                    "to": "2024-12-31",
                    "z_threshold": thr,
                    "window": window,
                    "top_k": top_k,
                },
            )
        ),
        settings=bundled_settings,
    )
    env = result.last
    assert env["status"] == "ok"
    expected = {}
    for cve, series in raw_homicide.items():
        found = reference_anomalies(series, date(2024, 1, 1), date(2024, 12, 1), window, thr)
        for month, (conteo, med, z) in found.items():
            expected[(cve_to_id[cve], month)] = (conteo, med, z)
    sev = sorted((severity(z, thr) for *_, z in expected.values()), reverse=True)
    metrics = env["metrics"]
    assert metrics["total_anomalias"] == len(expected)
    assert metrics["gravedad_promedio"] == pytest.approx(round(sum(sev) / len(sev), 3) if sev else 0, abs=0.0011)
    assert metrics["entidades_con_anomalias"] == len({eid for eid, _ in expected})
    rows = env["data"]["inline"]["rows"]
    assert env["data"]["inline"]["limit_notice"]["total_rows"] == min(top_k, len(expected))
    assert len(rows) == min(top_k, len(expected), 50)  # the contract's max_rows inline
    for eid, _label, fecha, conteo, mediana, z, _sv, _direccion, _capped in rows:
        ref = expected[(eid, date.fromisoformat(fecha))]
        assert (conteo, mediana) == (ref[0], ref[1])
        assert z == pytest.approx(ref[2], abs=0.006)
    assert [r[6] for r in rows] == pytest.approx(sev[: len(rows)], abs=0.0011)  # the top by severity
    keys = [(-r[6], r[2]) for r in rows]
    assert keys == sorted(keys)  # severity desc, then fecha
    assert env["summary"]["headline"] == (
        f"Anomalías de Homicidio doloso — municipios de GTO, 2024-01..2024-12: {len(expected)} detectadas"
    )
    assert result.timings_ms["0:detectar_anomalias"] < 5000


def test_state_itself_sums_its_municipalities(bundled_settings, raw_homicide):
    total: dict[date, int] = {}
    for series in raw_homicide.values():
        for m, n in series.items():
            total[m] = total.get(m, 0) + n
    expected = reference_anomalies(total, date(2021, 1, 1), date(2025, 11, 1), 12, 2.0)
    env = execution(
        plan(
            (
                10,
                {
                    "entidad_id": "GTO",
                    "nivel": "actual",
                    "delito": "homicidio_doloso",
                    "from": "2021-01-01",
                    "to": "2025-11-30",
                    "z_threshold": 2.0,
                    "top_k": 100,
                },
            )
        ),
        settings=bundled_settings,
    ).last
    got = {date.fromisoformat(r[2]): r for r in env["data"]["inline"]["rows"]}
    assert set(got) == set(expected)
    assert all(r[0] == "GTO" for r in got.values())
    for m, (conteo, _med, z) in expected.items():
        assert got[m][3] == conteo and got[m][5] == pytest.approx(z, abs=0.006)
    if expected:
        assert env["evidence"][0]["total"] > 0


def test_evidence_is_the_incidents_of_the_anomalous_months(bundled_settings, raw_homicide):
    expected = reference_anomalies(raw_homicide[LEON], date(2021, 1, 1), date(2025, 11, 1), 12, 2.0)
    env = execution(
        plan(
            (
                10,
                {
                    "entidad_id": "GTO.MUN.LEON",
                    "delito": "homicidio_doloso",
                    "from": "2021-01-01",
                    "to": "2025-11-30",
                    "z_threshold": 2.0,
                },
            )
        ),
        settings=bundled_settings,
    ).last
    months = sorted(expected)
    ids = [
        r[0]
        for r in Store(bundled_settings).query(
            f"""SELECT row_id FROM incidents WHERE entidad_id = 'GTO.MUN.LEON' AND delito = 'homicidio_doloso'
            AND eventos > 0 AND fecha IN ({", ".join("?" for _ in months)}) ORDER BY row_id""",
            months,
        )
    ]
    ev = env["evidence"][0]
    assert ev["table"] == "incidents" and ev["total"] == len(ids) and ev["ids"] == ids[:500]


def test_no_anomalies_is_an_empty_result_with_zero_metrics(bundled_settings):
    env = execution(
        plan(
            (
                10,
                {
                    "entidad_id": "GTO.MUN.LEON",
                    "delito": "homicidio_doloso",
                    "from": "2024-01-01",
                    "to": "2024-12-31",
                    "z_threshold": 10,
                },
            )
        ),
        settings=bundled_settings,
    ).last
    assert env["status"] == "ok" and env["data"]["inline"]["rows"] == []
    assert env["metrics"]["total_anomalias"] == 0 and env["metrics"]["gravedad_promedio"] == 0
    assert env["evidence"] == [] and env["meta"]["empty_result"]["code"] == "EMPTY_RESULT"


# -- synthetic stores ---------------------------------------------------------------------


def synthetic_settings(tmp_path: Path, cells: list[tuple[date, str, int]]):
    """A store built with the ETL from a canonical long CSV (fecha, cve_municipio, delito, eventos)."""
    csv = tmp_path / "synthetic.csv"
    csv.write_text(
        "fecha,cve_municipio,delito,eventos\n"
        + "".join(f"{d.isoformat()},{cve},homicidio_doloso,{n}\n" for d, cve, n in cells),
        encoding="utf-8",
    )
    settings = load_settings(tmp_path / "data")
    run_etl([SourceSpec(csv)], settings)
    return settings


MONTHS_24 = [shift(date(2021, 1, 1), k) for k in range(24)]
ALT = [4 if k % 2 else 6 for k in range(24)]
SPIKE = 17  # 2022-06


def _with(values: list[int], k: int, v: int) -> list[int]:
    out = list(values)
    out[k] = v
    return out


@pytest.mark.parametrize(
    "values,conteo,z,capped,direccion",
    [
        # flat base: MAD = 0 and mean deviation = 0 → z capped at +99
        (_with([5] * 24, SPIKE, 20), 20, 99.0, True, "alza"),
        # alternating 4/6: median 5, MAD 1 → z = 0.6745·(11 − 5)/1
        (_with(ALT, SPIKE, 11), 11, 0.6745 * 6, False, "alza"),
        # same base shifted up, a drop: z = 0.6745·(9 − 15)/1
        (_with([v + 10 for v in ALT], SPIKE, 9), 9, -0.6745 * 6, False, "baja"),
        # MAD = 0 but mean deviation > 0 → z = (x − median) / (1.2533 · mean|x − median|)
        (_with(_with(_with([5] * 24, 10, 6), 11, 7), SPIKE, 9), 9, 4 / (1.2533 * 3 / 12), False, "alza"),
    ],
)
def test_synthetic_single_spike(tmp_path, values, conteo, z, capped, direccion):
    settings = synthetic_settings(tmp_path, [(m, LEON, v) for m, v in zip(MONTHS_24, values)])
    env = execution(
        plan(
            (
                10,
                {
                    "entidad_id": "GTO.MUN.LEON",
                    "delito": "homicidio_doloso",
                    "from": "2022-01-01",
                    "to": "2022-12-31",
                    "z_threshold": 3.0,
                    "window": 12,
                },
            )
        ),
        settings=settings,
    ).last
    assert env["status"] == "ok"
    rows = env["data"]["inline"]["rows"]
    assert len(rows) == 1
    eid, label, fecha, got_conteo, _mediana, got_z, sev, got_dir, got_capped = rows[0]
    assert (eid, label, fecha, got_conteo, got_dir, got_capped) == (
        "GTO.MUN.LEON",
        "León",
        "2022-06-01",
        conteo,
        direccion,
        capped,
    )
    assert got_z == round(z, 2)
    assert sev == round(1 - 3.0 / abs(z), 3)
    assert env["metrics"] == {
        "total_anomalias": 1,
        "gravedad_promedio": sev,
        "entidades_con_anomalias": 1,
        "z_threshold": 3.0,
        "window": 12,
    }
    row_id = Store(settings).query("SELECT row_id FROM incidents WHERE fecha = DATE '2022-06-01'")[0][0]
    assert env["evidence"][0]["ids"] == [row_id]


def test_absent_cells_inside_coverage_are_zeros(tmp_path):
    """Celaya has one row in the whole file: the other 23 months are zeros, so its event is an anomaly."""
    cells = [(m, LEON, v) for m, v in zip(MONTHS_24, ALT)] + [(date(2022, 3, 1), "11007", 3)]
    settings = synthetic_settings(tmp_path, cells)
    env = execution(
        plan((10, {"entidad_id": "GTO", "delito": "homicidio_doloso", "from": "2022-01-01", "to": "2022-12-31"})),
        settings=settings,
    ).last
    rows = env["data"]["inline"]["rows"]
    assert [(r[0], r[2], r[3], r[4], r[5], r[8]) for r in rows] == [
        ("GTO.MUN.CELAYA", "2022-03-01", 3, 0.0, 99.0, True)
    ]
    assert env["metrics"]["total_anomalias"] == 1


def test_months_before_coverage_do_not_count_as_zeros(tmp_path):
    """The base is clipped at the coverage start: with 2 of 12 base months the month is not scored."""
    cells = [(m, LEON, v) for m, v in zip(MONTHS_24, _with([5] * 24, 2, 50))]
    settings = synthetic_settings(tmp_path, cells)
    env = execution(
        plan(
            (
                10,
                {
                    "entidad_id": "GTO.MUN.LEON",
                    "delito": "homicidio_doloso",
                    "from": "2021-01-01",
                    "to": "2021-12-31",
                    "window": 12,
                },
            )
        ),
        settings=settings,
    ).last
    assert env["data"]["inline"]["rows"] == []  # 2021-03 (50) has only 2 base months
    assert any("sin base suficiente" in w for w in env["meta"]["warnings"])
    env = execution(
        plan(
            (
                10,
                {
                    "entidad_id": "GTO.MUN.LEON",
                    "delito": "homicidio_doloso",
                    "from": "2021-01-01",
                    "to": "2021-12-31",
                    "window": 4,
                },
            )
        ),
        settings=settings,
    ).last
    assert [r[2] for r in env["data"]["inline"]["rows"]] == ["2021-03-01"]  # 2 of 4 is enough


@pytest.mark.parametrize(
    "entidad_id,nivel,start,thr",
    [
        ("GTO", "hijos", "2024-01-01", 3.0),
        ("GTO", "actual", "2021-01-01", 2.0),
        ("GTO.MUN.LEON", "actual", "2021-01-01", 2.0),
    ],
)
def test_listar_evidencia_after_anomalies(bundled_settings, entidad_id, nivel, start, thr):
    """The evidence (months passed as list parameters) is re-queried by listar_evidencia."""
    result = execution(
        plan(
            (
                10,
                {
                    "entidad_id": entidad_id,
                    "nivel": nivel,
                    "delito": "homicidio_doloso",
                    "from": start,
                    "to": "2024-12-31",
                    "z_threshold": thr,
                    "top_k": 100,
                },
            ),
            (9, {"limit": 1000}),
        ),
        settings=bundled_settings,
    )
    assert result.status == "ok"
    anomalies, listing = result.envelopes
    months = {(r[0], r[2]) for r in anomalies["data"]["inline"]["rows"]}
    assert anomalies["data"]["inline"]["limit_notice"]["total_rows"] == anomalies["metrics"]["total_anomalias"] <= 50
    cols = [c["name"] for c in listing["data"]["inline"]["columns"]]
    listed = [dict(zip(cols, r)) for r in listing["data"]["inline"]["rows"]]
    assert listed and listing["metrics"]["filas"] == anomalies["evidence"][0]["total"]
    for r in listed:
        assert r["delito"] == "homicidio_doloso" and r["eventos"] > 0
        owner = r["entidad_id"] if nivel == "hijos" or entidad_id != "GTO" else "GTO"
        assert (owner, r["fecha"]) in months
