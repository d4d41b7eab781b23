"""agrupar_por_entidad end to end, against independent SQL over the raw files."""

from __future__ import annotations

from datetime import date

import duckdb
import pytest

from core.api import execution
from core.dataset.store import Store
from tests.conftest import RAW
from tests.core.tools.test_anomalies import HOMICIDE_CSV, MONTHS, plan, raw_series, reference_anomalies, severity

POPULATION_CSV = RAW / "poblacion_gto.csv"
SCOPE = {"entidad_id": "GTO", "delito": "homicidio_doloso", "from": "2024-01-01", "to": "2024-12-31"}


@pytest.fixture(scope="module")
def raw_2024() -> dict[str, dict]:
    """{entidad_id: {conteo, tasa_per_100k, porcentaje, label}} for homicidio doloso 2024, from the raw CSVs."""
    con = duckdb.connect()
    months = " + ".join(f'coalesce(CAST("{m}" AS DOUBLE), 0)' for m in MONTHS)
    counts = dict(
        con.execute(
            f"""SELECT "Cve. Municipio", sum({months}) FROM read_csv('{HOMICIDE_CSV}', all_varchar = true)
            WHERE "Año" = '2024' AND "Subtipo de delito" = 'Homicidio doloso' GROUP BY 1"""
        ).fetchall()
    )
    pops = dict(
        con.execute(
            f"SELECT CAST(cve_municipio AS VARCHAR), poblacion FROM read_csv('{POPULATION_CSV}', all_varchar = true) "
            "WHERE anio = '2024'"
        ).fetchall()
    )
    total = sum(counts.values())
    return {
        cve: {
            "conteo": int(n),
            "tasa_per_100k": round(n / int(pops[cve]) * 100_000, 2),
            "porcentaje": round(100 * n / total, 2),
        }
        for cve, n in counts.items()
    }


@pytest.fixture(scope="module")
def ids(bundled_settings) -> dict[str, str]:
    return dict(Store(bundled_settings).query("SELECT cve, entidad_id FROM entities WHERE nivel = 'municipio'"))


def table(env: dict) -> list[dict]:
    cols = [c["name"] for c in env["data"]["inline"]["columns"]]
    return [dict(zip(cols, r)) for r in env["data"]["inline"]["rows"]]


@pytest.mark.parametrize(
    "aggregate_by,orden",
    [
        ("conteo", "desc"),
        ("conteo", "asc"),
        ("porcentaje", "desc"),
        ("porcentaje", "asc"),
        ("tasa_per_100k", "desc"),
        ("tasa_per_100k", "asc"),
    ],
)
def test_ranks_by_count_metrics_like_independent_sql(bundled_settings, raw_2024, ids, aggregate_by, orden):
    env = execution(
        plan((11, {**SCOPE, "aggregate_by": aggregate_by, "orden": orden, "top_k": 50})), settings=bundled_settings
    ).last
    assert env["status"] == "ok"
    assert [c["name"] for c in env["data"]["inline"]["columns"]] == [
        "entidad_id",
        "label",
        "conteo",
        "tasa_per_100k",
        "porcentaje",
    ]
    sign = -1 if orden == "desc" else 1
    expected = sorted(((ids[cve], m) for cve, m in raw_2024.items()), key=lambda p: (sign * p[1][aggregate_by], p[0]))
    got = table(env)
    assert [r["entidad_id"] for r in got] == [eid for eid, _ in expected]
    for row, (_eid, m) in zip(got, expected):
        assert (row["conteo"], row["tasa_per_100k"], row["porcentaje"]) == (
            m["conteo"],
            m["tasa_per_100k"],
            m["porcentaje"],
        )
    assert sum(r["porcentaje"] for r in got) == pytest.approx(100, abs=0.05)
    total = sum(m["conteo"] for m in raw_2024.values())
    assert env["metrics"] == {"total_conteo": total, "entidades": 46}
    assert env["summary"]["headline"].startswith(f"Entidades por {aggregate_by} (Homicidio doloso)")


@pytest.mark.parametrize(
    "metrics,aggregate_by,columns",
    [
        (["tasa_per_100k"], "conteo", ["conteo", "tasa_per_100k"]),
        (["porcentaje"], "porcentaje", ["porcentaje"]),
        (["conteo"], "tasa_per_100k", ["conteo", "tasa_per_100k"]),
        (None, "conteo", ["conteo", "tasa_per_100k", "porcentaje"]),
    ],
)
def test_metric_columns_follow_the_request(bundled_settings, metrics, aggregate_by, columns):
    args = {**SCOPE, "aggregate_by": aggregate_by, **({"metrics": metrics} if metrics else {})}
    env = execution(plan((11, args)), settings=bundled_settings).last
    assert [c["name"] for c in env["data"]["inline"]["columns"]] == ["entidad_id", "label", *columns]
    assert len(env["data"]["inline"]["rows"]) == 10  # default top_k


def test_top_k_evidence_and_frequency_filter(bundled_settings, raw_2024, ids):
    env = execution(plan((5, {"min_eventos": 50}), (11, {**SCOPE, "top_k": 5})), settings=bundled_settings).last
    kept = sorted(
        ((ids[c], m["conteo"]) for c, m in raw_2024.items() if m["conteo"] >= 50), key=lambda p: (-p[1], p[0])
    )
    got = table(env)
    assert [(r["entidad_id"], r["conteo"]) for r in got] == kept[:5]
    assert env["metrics"]["entidades"] == len(kept)
    top = [r["entidad_id"] for r in got]
    n = Store(bundled_settings).query(
        f"""SELECT count(*) FROM incidents WHERE delito = 'homicidio_doloso' AND year(fecha) = 2024 AND eventos > 0
            AND entidad_id IN ({", ".join("?" for _ in top)})""",
        top,
    )[0][0]
    assert env["evidence"][0]["total"] == n


def test_a_municipality_is_its_own_group(bundled_settings, raw_2024):
    env = execution(
        plan((11, {**SCOPE, "entidad_id": "GTO.MUN.LEON", "aggregate_by": "porcentaje"})), settings=bundled_settings
    ).last
    assert table(env) == [
        {
            "entidad_id": "GTO.MUN.LEON",
            "label": "León",
            "conteo": raw_2024["11020"]["conteo"],
            "tasa_per_100k": raw_2024["11020"]["tasa_per_100k"],
            "porcentaje": 100.0,
        }
    ]


# -- anomaly metrics --------------------------------------------------------------------------


@pytest.fixture(scope="module")
def reference_by_entity(ids) -> dict[str, list[float]]:
    """Severities of the reference anomalies (2024, z ≥ 3, window 12) per municipality."""
    out: dict[str, list[float]] = {eid: [] for eid in ids.values()}
    for cve, series in raw_series().items():
        for _m, (_n, _med, z) in reference_anomalies(series, date(2024, 1, 1), date(2024, 12, 1), 12, 3.0).items():
            out[ids[cve]].append(severity(z, 3.0))
    return out


@pytest.mark.parametrize(
    "aggregate_by,tie", [("total_anomalias", "gravedad_promedio"), ("gravedad_promedio", "total_anomalias")]
)
def test_plan_10_11_ranks_by_anomaly_results(bundled_settings, reference_by_entity, aggregate_by, tie):
    result = execution(
        plan((10, {**SCOPE, "top_k": 3}), (11, {**SCOPE, "aggregate_by": aggregate_by, "top_k": 50})),
        settings=bundled_settings,
    )
    assert result.status == "ok"
    anomalies, grouped = result.envelopes
    ref = {
        eid: {"total_anomalias": len(s), "gravedad_promedio": round(sum(s) / len(s), 3) if s else 0.0}
        for eid, s in reference_by_entity.items()
    }
    got = table(grouped)
    assert [c["name"] for c in grouped["data"]["inline"]["columns"]] == [
        "entidad_id",
        "label",
        "conteo",
        "tasa_per_100k",
        "porcentaje",
        "total_anomalias",
        "gravedad_promedio",
    ]
    assert len(got) == 46  # counted from the full anomaly list, not detectar_anomalias' top_k
    for row in got:
        assert row["total_anomalias"] == ref[row["entidad_id"]]["total_anomalias"]
        assert row["gravedad_promedio"] == pytest.approx(ref[row["entidad_id"]]["gravedad_promedio"], abs=0.0011)
    keys = [(-r[aggregate_by], -r[tie], r["entidad_id"]) for r in got]
    assert keys == sorted(keys)
    all_sev = [v for s in reference_by_entity.values() for v in s]
    assert grouped["metrics"]["total_anomalias"] == anomalies["metrics"]["total_anomalias"] == len(all_sev)
    assert grouped["metrics"]["gravedad_promedio"] == anomalies["metrics"]["gravedad_promedio"]
    assert grouped["metrics"]["gravedad_promedio"] == pytest.approx(round(sum(all_sev) / len(all_sev), 3), abs=0.0011)
    assert grouped["metrics"]["entidades_con_anomalias"] == sum(1 for s in reference_by_entity.values() if s)


def test_text_plan_with_filters_then_10_11(bundled_settings, reference_by_entity):
    text = (
        "[1,2,3,10,11]\nentidad_id: GTO\nfrom: 2024-01-01\nto: 2024-12-31\ndelito: homicidio_doloso\n"
        'aggregate_by: total_anomalias\nmetrics: ["total_anomalias"]\ntop_k: 5'
    )
    result = execution(text, settings=bundled_settings)
    assert result.status == "ok"
    env = result.last
    assert [c["name"] for c in env["data"]["inline"]["columns"]] == ["entidad_id", "label", "total_anomalias"]
    counts = sorted((len(s) for s in reference_by_entity.values()), reverse=True)
    assert [r[2] for r in env["data"]["inline"]["rows"]] == counts[:5]
    assert {"total_anomalias", "gravedad_promedio"} <= set(env["metrics"])


@pytest.mark.parametrize(
    "args",
    [
        {"aggregate_by": "total_anomalias"},
        {"aggregate_by": "gravedad_promedio"},
        {"aggregate_by": "conteo", "metrics": ["gravedad_promedio"]},
    ],
)
def test_anomaly_metrics_without_detectar_anomalias_is_invalid(bundled_settings, args):
    result = execution(plan((11, {**SCOPE, **args})), settings=bundled_settings)
    assert result.status == "error"
    env = result.last
    assert env["status"] == "error" and env["error"]["code"] == "INVALID_PAYLOAD"
    assert "detectar_anomalias" in env["error"]["details"]


def test_anomalies_from_another_scope_are_flagged(bundled_settings):
    result = execution(
        plan(
            (10, {**SCOPE, "from": "2023-01-01", "to": "2023-12-31"}),
            (11, {**SCOPE, "aggregate_by": "total_anomalias"}),
        ),
        settings=bundled_settings,
    )
    assert result.status == "ok"
    assert any("otro alcance" in w for w in result.last["meta"]["warnings"])
