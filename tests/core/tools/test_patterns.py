"""detectar_patrones (tool 8): co-occurrence and seasonality against independent computations.

The expected numbers come straight from the raw files under ``data/raw/sesnsp`` (DuckDB reads
them, pandas does the arithmetic): the wide homicide file is unpivoted here, the long files
list only non-zero cells (an absent municipality-month is a zero), the tipo × modalidad parquet
continues each curated file after it ends (issue 14), and every municipality of the catalog is a
transaction. A synthetic store checks the definitions on exact numbers.
"""

from __future__ import annotations

import itertools
import re
import unicodedata
from pathlib import Path

import duckdb
import pandas as pd
import pytest

from core import api
from core.config import load_settings
from core.dataset.store import Store
from core.etl import SourceSpec, run_etl

RAW = Path(__file__).resolve().parents[3] / "data" / "raw"
SESNSP = RAW / "sesnsp"
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
MESES = [m.lower() for m in MONTHS]
LABELS = {
    "homicidio_doloso": "Homicidio doloso",
    "homicidio_culposo": "Homicidio culposo",
    "homicidio": "Homicidio",
    "feminicidio": "Feminicidio",
    "secuestro": "Secuestro",
    "violencia_familiar": "Violencia familiar",
    "abuso_sexual": "Abuso sexual",
}
HOMICIDE_SUBTYPES = {
    "homicidio_doloso": ["Homicidio doloso"],
    "homicidio_culposo": ["Homicidio culposo"],
    "homicidio": ["Homicidio doloso", "Homicidio culposo"],
}
LONG_FILES = {"feminicidio": "gto_feminicidio_2015-2024.csv", "secuestro": "gto_secuestro_2015-2024.csv"}
REDUCED_FILES = {
    "violencia_familiar": "gto_violencia_familiar_2015-2022.csv",
    "abuso_sexual": "gto_abuso_sexual_2015-2022.csv",
}
PARQUET = SESNSP / "gto_municipal_tipo_modalidad_2015-01_2025-05.parquet"
# The parquet's months after each curated file ends: the curated file holds the months before (issue 14).
# (Irapuato's JSON replaces the parquet's Irapuato rows, but both hold the same numbers up to 2025-05.)
PARQUET_AFTER = {
    "feminicidio": (["Feminicidio"], "2025-01-01"),
    "secuestro": (["Secuestro"], "2025-01-01"),
    "violencia_familiar": (["Violencia familiar"], "2023-01-01"),
    "abuso_sexual": (["Abuso sexual"], "2022-07-01"),
}
# Published months of each crime (data/raw/README.md), first and last: the homicide file's subtipos
# 2020-01..2025-11; the tipo «homicidio» also 2015..2019, from the parquet's «Homicidio» (it stands aside from 2020);
# robo a institución bancaria is a subtipo the parquet only holds inside «Robo» (its file ends 2024-12);
# every other crime is a tipo of the parquet (2015-01..2025-05), its curated file included.
COVERAGE = {
    "homicidio_doloso": ("2020-01", "2025-11"),
    "homicidio_culposo": ("2020-01", "2025-11"),
    "homicidio": ("2015-01", "2025-11"),
    "robo_a_institucion_bancaria": ("2015-01", "2024-12"),
}
PARQUET_COVERAGE = ("2015-01", "2025-05")
ENVELOPE_KEYS = {"status", "tool", "summary", "data", "evidence", "meta", "metrics"}
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
COOC_COLUMNS = ["patron", "delito_a", "delito_b", "support", "confidence", "lift", "score", "n", "transacciones"]
SEASON_COLUMNS = ["patron", "delito_a", "mes", "indice", "promedio", "score", "support"]


# -- independent reading of the raw files ----------------------------------------------


def _wide_unpivot(path: Path, where: str, params: list) -> pd.DataFrame:
    """(cve, year, month, eventos) from a wide file; empty cells are unpublished and dropped."""
    cols = ", ".join(f'"{m}"' for m in MONTHS)
    con = duckdb.connect()
    df = con.execute(
        f"""SELECT CAST("Cve. Municipio" AS INTEGER) AS cve, CAST("Año" AS INTEGER) AS year, mes, CAST(v AS DOUBLE) AS eventos
            FROM (UNPIVOT (SELECT * FROM read_csv(?, header = true, all_varchar = true) WHERE {where})
                  ON {cols} INTO NAME mes VALUE v)
            WHERE v IS NOT NULL AND trim(v) <> ''""",
        [str(path), *params],
    ).df()
    df["month"] = df["mes"].map({m: i + 1 for i, m in enumerate(MONTHS)})
    return df[["cve", "year", "month", "eventos"]]


def _parquet_after(tipos: list[str], since: str, until: str = "2100-01-01") -> pd.DataFrame:
    """(cve, year, month, eventos) of the parquet's tipos from ``since`` on, before ``until`` (names → codes)."""
    return (
        duckdb.connect()
        .execute(
            f"""SELECT CAST(m.cve_municipio AS INTEGER) AS cve, year(p.Fecha) AS year, month(p.Fecha) AS month,
                       CAST(p.Incidentes AS DOUBLE) AS eventos
                FROM read_parquet(?) p JOIN read_csv(?, all_varchar = true) m ON m.municipio = p.Municipio
                WHERE p."Tipo de delito" IN ({", ".join("?" for _ in tipos)}) AND p.Fecha >= CAST(? AS DATE)
                  AND p.Fecha < CAST(? AS DATE)""",
            [str(PARQUET), str(RAW / "municipios_gto.csv"), *tipos, since, until],
        )
        .df()
    )


def raw_monthly(delito: str) -> pd.DataFrame:
    """Events per municipality and month of one crime, read from the raw files (non-zero cells)."""
    if delito in HOMICIDE_SUBTYPES:
        subtypes = HOMICIDE_SUBTYPES[delito]
        df = _wide_unpivot(
            SESNSP / "IDM_NM_gto_homicidio_2020-2025.csv",
            f'"Subtipo de delito" IN ({", ".join("?" for _ in subtypes)})',
            subtypes,
        )
    elif delito in REDUCED_FILES:
        df = _wide_unpivot(SESNSP / REDUCED_FILES[delito], "TRUE", [])
    else:
        df = (
            duckdb.connect()
            .execute(
                """SELECT CAST(cve_municipio AS INTEGER) AS cve, CAST("Año" AS INTEGER) AS year,
                      CAST(split_part("Mes", '-', 1) AS INTEGER) AS month, CAST("Cantidad" AS DOUBLE) AS eventos
               FROM read_csv(?, header = true, all_varchar = true)""",
                [str(SESNSP / LONG_FILES[delito])],
            )
            .df()
        )
    if delito in PARQUET_AFTER:
        df = pd.concat([df, _parquet_after(*PARQUET_AFTER[delito])], ignore_index=True)
    if delito == "homicidio":  # before the homicide file (2020-01) the parquet's tipo row is homicidio's number
        df = pd.concat([df, _parquet_after(["Homicidio"], "2015-01-01", "2020-01-01")], ignore_index=True)
    df = df.groupby(["cve", "year", "month"], as_index=False)["eventos"].sum()
    df["ym"] = df["year"] * 100 + df["month"]
    return df[df["eventos"] > 0]


def published_months(delito: str, start: str, end: str) -> set[int]:
    """yyyymm of the crime's published months inside [start, end] ('YYYY-MM')."""
    lo, hi = COVERAGE.get(delito, PARQUET_COVERAGE)
    first, last = max(lo, start), min(hi, end)
    return {p.year * 100 + p.month for p in pd.period_range(first, last, freq="M")} if first <= last else set()


def municipalities() -> list[int]:
    return (
        duckdb.connect()
        .execute(
            "SELECT DISTINCT CAST(cve_municipio AS INTEGER) FROM read_csv(?, all_varchar = true) ORDER BY 1",
            [str(RAW / "municipios_gto.csv")],
        )
        .df()
        .iloc[:, 0]
        .tolist()
    )


def _key(name: str) -> str:
    """A crime name as its store key: no accents, lower case, words joined by ``_``."""
    plain = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z0-9]+", "_", plain.lower()).strip("_")


def published_crimes(start: str, end: str) -> set[str]:
    """Keys of every monthly crime the raw files publish inside [start, end]: the parquet's tipos, the
    homicide file's subtipos and the curated files' crimes."""
    tipos = duckdb.connect().execute('SELECT DISTINCT "Tipo de delito" FROM read_parquet(?)', [str(PARQUET)]).fetchall()
    keys = {_key(t) for (t,) in tipos} | set(COVERAGE)
    return {k for k in keys if published_months(k, start, end)}


LEON = 11020


def expected_pairs(delitos: list[str], start: str, end: str, cves: list[int], min_support: float) -> list[dict]:
    """Support/confidence/lift/score for every pair, each on the months both crimes publish."""
    presence = {d: raw_monthly(d) for d in delitos}
    out = []
    for a, b in itertools.combinations(sorted(delitos), 2):
        months = published_months(a, start, end) & published_months(b, start, end)
        n_total = len(months) * len(cves)
        if not n_total:
            continue
        sa = {(c, m) for c, m in zip(presence[a]["cve"], presence[a]["ym"]) if m in months and c in cves}
        sb = {(c, m) for c, m in zip(presence[b]["cve"], presence[b]["ym"]) if m in months and c in cves}
        n_a, n_b, n_ab = len(sa), len(sb), len(sa & sb)
        if not n_a or not n_b:
            continue
        support = n_ab / n_total
        lift = n_ab * n_total / (n_a * n_b)
        if support >= min_support and n_ab:
            out.append(
                {
                    "patron": f"{LABELS[a]} + {LABELS[b]}",
                    "delito_a": a,
                    "delito_b": b,
                    "support": support,
                    "confidence": n_ab / n_a,
                    "lift": lift,
                    "score": support * lift,
                    "n": n_ab,
                    "transacciones": n_total,
                }
            )
    return sorted(out, key=lambda r: (r["lift"] <= 1, -r["score"]))


def expected_seasonality(delito: str, start: str, end: str, cve: int | None) -> pd.DataFrame:
    """Month-of-year index of the entity's monthly totals (absent months inside coverage are 0)."""
    df = raw_monthly(delito)
    if cve is not None:
        df = df[df["cve"] == cve]
    months = sorted(published_months(delito, start, end))
    series = df.groupby("ym")["eventos"].sum().reindex(months, fill_value=0).rename("n").reset_index()
    series["mes"] = series["ym"] % 100
    overall = series["n"].mean()
    by_month = series.groupby("mes")["n"].agg(["mean", "sum"]).reset_index()
    by_month["indice"] = by_month["mean"] / overall
    by_month["support"] = by_month["sum"] / series["n"].sum()
    return by_month.sort_values(["indice", "mes"], ascending=[False, True]).reset_index(drop=True)


def run(settings, args: dict, extra: list | None = None):
    plan = {"plan": [{"tool_id": 8, "tool_version": "1.0.0", "args": args}] + (extra or [])}
    result = api.execution(plan, settings=settings)
    assert result.status == "ok", result.envelopes[-1].get("error")
    return result


def rows_as_dicts(env: dict) -> list[dict]:
    names = [c["name"] for c in env["data"]["inline"]["columns"]]
    return [dict(zip(names, r)) for r in env["data"]["inline"]["rows"]]


# -- co-occurrence on the bundled data --------------------------------------------------

COOC_CASES = [
    # entity, crimes, from, to, min_support
    ("GTO", ["homicidio_doloso", "feminicidio", "secuestro"], "2020-01", "2024-12", 0.0),
    ("GTO", ["homicidio_doloso", "violencia_familiar", "abuso_sexual"], "2020-01", "2024-12", 0.0),
    ("GTO", ["homicidio", "feminicidio"], "2020-01", "2024-12", 0.0),
    ("GTO.MUN.LEON", ["homicidio_doloso", "feminicidio", "secuestro"], "2020-01", "2024-12", 0.0),
    ("GTO", ["homicidio_doloso", "feminicidio", "secuestro"], "2020-01", "2024-12", 0.01),
]


@pytest.mark.parametrize(
    "entidad, delitos, start, end, min_support", COOC_CASES, ids=[f"{c[0]}-{'+'.join(c[1])}-{c[4]}" for c in COOC_CASES]
)
def test_cooccurrence_matches_an_independent_pandas_computation(
    bundled_settings, entidad, delitos, start, end, min_support
):
    result = run(
        bundled_settings,
        {
            "entidad_id": entidad,
            "delito": delitos,
            "from": f"{start}-01",
            "to": f"{end}-28",
            "tipo": "coocurrencia",
            "min_support": min_support,
            "top_k": 50,
        },
    )
    env = result.last
    cves = [LEON] if entidad == "GTO.MUN.LEON" else municipalities()
    expected = expected_pairs(delitos, start, end, cves, min_support)
    got = rows_as_dicts(env)
    assert expected, "the case must keep at least one pair"
    assert [c["name"] for c in env["data"]["inline"]["columns"]] == COOC_COLUMNS
    assert [(r["delito_a"], r["delito_b"]) for r in got] == [(e["delito_a"], e["delito_b"]) for e in expected]
    for g, e in zip(got, expected):
        assert g["patron"] == e["patron"]
        assert (g["n"], g["transacciones"]) == (e["n"], e["transacciones"])
        for key in ("support", "confidence", "lift", "score"):
            assert g[key] == pytest.approx(e[key], abs=1e-4), key
            assert g[key] == round(g[key], 4)
    assert env["metrics"]["patrones"] == len(got)
    assert env["metrics"]["pares_evaluados"] == len(list(itertools.combinations(delitos, 2)))
    union = set().union(
        *(
            published_months(a, start, end) & published_months(b, start, end)
            for a, b in itertools.combinations(delitos, 2)
        )
    )
    assert env["metrics"]["transacciones"] == len(union) * len(cves)
    if min_support > 0:
        assert all(r["support"] >= min_support for r in got)


def test_cooccurrence_envelope_has_every_block_and_its_evidence(bundled_settings):
    args = {
        "entidad_id": "GTO",
        "delito": ["homicidio_doloso", "feminicidio", "secuestro"],
        "from": "2020-01-01",
        "to": "2024-12-31",
        "min_support": 0.0,
        "top_k": 1,
    }
    result = run(bundled_settings, args, extra=[{"tool_id": 9, "args": {}}])
    env, listing = result.envelopes
    assert set(env) >= ENVELOPE_KEYS and env["status"] == "ok" and env["tool"] == "detectar_patrones@1.0.0"
    assert (
        env["summary"]["headline"].startswith("Co-ocurrencia de delitos") and "Guanajuato" in env["summary"]["headline"]
    )
    assert any(h.startswith("Top-1: ") for h in env["summary"]["highlights"])
    assert {"columns", "rows", "limit_notice"} <= set(env["data"]["inline"])
    assert env["data"]["artifacts"]["tables"] == {}  # one row: the envelope holds the whole table
    assert set(env["meta"]) >= META_KEYS
    assert env["meta"]["date_range_effective"] == {"from": "2020-01-01", "to": "2024-12-31"}
    assert set(env["metrics"]) >= {"transacciones", "pares_evaluados", "patrones"}
    assert env["metrics"]["patrones"] == 1
    top = rows_as_dicts(env)[0]
    # Evidence: the scope's incidents of the two crimes of the returned pattern, nothing else.
    ev = env["evidence"][0]
    assert ev["table"] == "incidents" and ev["total"] > 0 and ev["ids"]
    store = Store(bundled_settings)
    total = store.query(
        """SELECT count(*) FROM incidents WHERE estado_id = 'GTO' AND eventos > 0 AND delito IN (?, ?)
           AND fecha BETWEEN DATE '2020-01-01' AND DATE '2024-12-31'""",
        [top["delito_a"], top["delito_b"]],
    )[0][0]
    assert ev["total"] == total
    listed = rows_as_dicts(listing)
    assert {r["delito"] for r in listed} == {top["delito_a"], top["delito_b"]}
    assert listing["metrics"]["filas"] == total


def test_one_crime_is_paired_with_every_other_published_crime(bundled_settings):
    env = run(
        bundled_settings,
        {
            "entidad_id": "GTO",
            "delito": "homicidio_doloso",
            "from": "2020-01-01",
            "to": "2024-12-31",
            "min_support": 0.0,
            "top_k": 100,
        },
    ).last
    rows = rows_as_dicts(env)
    assert rows and all(r["delito_a"] == "homicidio_doloso" for r in rows)
    # every other crime the raw files publish in the window is evaluated (a pair never together is dropped),
    # but not the tipo «homicidio», which sums the asked crime (a tipo is never paired with its subtipos)
    others = published_crimes("2020-01", "2024-12") - {"homicidio_doloso", "homicidio"}
    assert env["metrics"]["pares_evaluados"] == len(others)
    got = {r["delito_b"] for r in rows}
    assert got <= others and {"violencia_familiar", "homicidio_culposo", "robo", "narcomenudeo", "lesiones"} <= got
    # the asked crime is A: confidence = n(A∧B) / n(homicidio doloso); violencia familiar continues in the
    # parquet after its file (2022-12), so the pair spans the whole window
    vf = next(r for r in rows if r["delito_b"] == "violencia_familiar")
    (expected,) = expected_pairs(["homicidio_doloso", "violencia_familiar"], "2020-01", "2024-12", municipalities(), 0)
    assert (vf["n"], vf["transacciones"]) == (expected["n"], expected["transacciones"]) == (expected["n"], 46 * 60)
    hd = raw_monthly("homicidio_doloso")
    n_a = int(hd["ym"].isin(published_months("homicidio_doloso", "2020-01", "2024-12")).sum())
    assert vf["confidence"] == pytest.approx(vf["n"] / n_a, abs=1e-4)
    assert vf["lift"] == pytest.approx(expected["lift"], abs=1e-4)


def test_without_delito_every_pair_uses_only_months_both_crimes_publish(bundled_settings):
    result = run(
        bundled_settings,
        {"entidad_id": "GTO", "from": "2015-01-01", "to": "2025-12-31", "min_support": 0.0, "top_k": 100},
    )
    env = result.last
    rows = rows_as_dicts(env)
    assert rows and env["metrics"]["pares_evaluados"] > len(rows) / 2
    assert env["meta"]["date_range_effective"] == {"from": "2015-01-01", "to": "2025-11-30"}
    n_munis = len(municipalities())
    assert {k for r in rows for k in (r["delito_a"], r["delito_b"])} <= published_crimes("2015-01", "2025-11")
    for r in rows:
        months = published_months(r["delito_a"], "2015-01", "2025-11") & published_months(
            r["delito_b"], "2015-01", "2025-11"
        )
        assert r["transacciones"] == n_munis * len(months), r["patron"]
    keys = [(r["lift"] <= 1, -r["score"]) for r in rows]
    assert keys == sorted(keys)  # lift > 1 first, then by score
    assert any("cobertura" in w for w in env["meta"]["warnings"])
    assert result.timings_ms["0:detectar_patrones"] < 10_000  # state-wide, every published crime


def test_a_window_only_homicide_publishes_leaves_one_pair(bundled_settings):
    # after the parquet's 2025-05 only the homicide file publishes: its doloso and culposo subtipos and their
    # tipo, which is never paired with its own subtipos
    assert published_crimes("2025-06", "2025-11") == {"homicidio", "homicidio_culposo", "homicidio_doloso"}
    env = run(
        bundled_settings, {"entidad_id": "GTO", "from": "2025-06-01", "to": "2025-11-30", "min_support": 0.0}
    ).last
    assert env["metrics"]["pares_evaluados"] == 1
    got = rows_as_dicts(env)
    expected = expected_pairs(["homicidio_culposo", "homicidio_doloso"], "2025-06", "2025-11", municipalities(), 0)
    assert [(r["delito_a"], r["delito_b"], r["n"], r["transacciones"]) for r in got] == [
        (e["delito_a"], e["delito_b"], e["n"], e["transacciones"]) for e in expected
    ]


# -- seasonality on the bundled data ----------------------------------------------------

SEASON_CASES = [
    ("GTO", "violencia_familiar", "2015-01", "2022-12", None),
    ("GTO.MUN.LEON", "homicidio_doloso", "2020-01", "2025-11", LEON),  # partial last year
    ("GTO", "feminicidio", "2015-01", "2024-12", None),  # long file: absent months are zeros
]


@pytest.mark.parametrize("entidad, delito, start, end, cve", SEASON_CASES, ids=[f"{c[0]}-{c[1]}" for c in SEASON_CASES])
def test_seasonality_matches_an_independent_pandas_computation(bundled_settings, entidad, delito, start, end, cve):
    env = run(
        bundled_settings,
        {
            "entidad_id": entidad,
            "delito": delito,
            "tipo": "estacionalidad",
            "from": f"{start}-01",
            "to": f"{end}-28",
            "top_k": 12,
        },
    ).last
    expected = expected_seasonality(delito, start, end, cve)
    got = rows_as_dicts(env)
    assert [c["name"] for c in env["data"]["inline"]["columns"]] == SEASON_COLUMNS
    assert len(got) == 12
    assert [r["indice"] for r in got] == sorted((r["indice"] for r in got), reverse=True)
    by_month = {int(r.mes): r for r in expected.itertuples()}
    for g in got:
        e = by_month[g["mes"]]
        assert g["patron"] == f"{LABELS[delito]} — {MESES[g['mes'] - 1]}"
        assert g["delito_a"] == delito
        assert g["indice"] == pytest.approx(e.indice, abs=5e-4) and g["score"] == g["indice"]
        assert g["promedio"] == pytest.approx(e.mean, abs=5e-4)
        assert g["support"] == pytest.approx(e.support, abs=5e-5)
    assert sum(g["support"] for g in got) == pytest.approx(1, abs=1e-3)
    assert env["metrics"]["delitos"] == 1 and env["metrics"]["meses"] == len(published_months(delito, start, end))
    assert env["summary"]["headline"].startswith("Estacionalidad") and env["evidence"][0]["total"] > 0


def test_seasonality_needs_24_months(bundled_settings):
    env = run(
        bundled_settings,
        {
            "entidad_id": "GTO",
            "delito": "homicidio_doloso",
            "tipo": "estacionalidad",
            "from": "2024-01-01",
            "to": "2025-06-30",
        },
    ).last
    assert env["data"]["inline"]["rows"] == []
    assert any("24 meses" in w for w in env["meta"]["warnings"])
    assert env["meta"]["empty_result"]["code"] == "EMPTY_RESULT" and env["evidence"] == []


# -- a synthetic store with exactly known numbers ---------------------------------------


def synthetic_settings(tmp_path: Path, files: dict[str, tuple[str | None, list[tuple]]]):
    specs = []
    for name, (coverage, rows) in files.items():
        path = tmp_path / name
        path.write_text(
            "fecha,cve_municipio,delito,eventos\n" + "".join(f"{f},{c},{d},{e}\n" for f, c, d, e in rows),
            encoding="utf-8",
        )
        specs.append(SourceSpec(path, coverage=coverage))
    settings = load_settings(tmp_path / "data")
    run_etl(specs, settings)
    return settings


MUNIS = [11001, 11002, 11003, 11004]
JAN_JUN = [f"2023-0{m}-01" for m in range(1, 7)]


def _together_rows():
    """homicidio doloso and secuestro always together (6 municipality-months), feminicidio never with them."""
    rows = [(f, 11001, "homicidio_doloso", 2) for f in JAN_JUN[:3]] + [(f, 11001, "secuestro", 1) for f in JAN_JUN[:3]]
    rows += [(f, 11002, "homicidio_doloso", 1) for f in JAN_JUN[3:]] + [(f, 11002, "secuestro", 3) for f in JAN_JUN[3:]]
    rows += [(f, 11003, "feminicidio", 1) for f in JAN_JUN[:4]]
    rows += [("2023-06-01", 11004, "homicidio_doloso", 0)]  # a zero cell is not a presence
    return rows


@pytest.mark.parametrize(
    "entidad, support, lift, n, tx",
    [
        ("GTO", 6 / 24, 4.0, 6, 24),  # P(A)=P(B)=6/24=support → lift = 1/P = 4
        ("GTO.MUN.ACAMBARO", 3 / 6, 2.0, 3, 6),  # its 6 months, together in 3
    ],
)
def test_synthetic_pair_that_always_co_occurs_has_the_exact_lift(tmp_path, entidad, support, lift, n, tx):
    settings = synthetic_settings(tmp_path, {"s.csv": (None, _together_rows())})
    env = run(settings, {"entidad_id": entidad, "from": "2023-01-01", "to": "2023-06-30", "min_support": 0.0}).last
    rows = rows_as_dicts(env)
    assert len(rows) == 1
    r = rows[0]
    assert (r["delito_a"], r["delito_b"], r["patron"]) == (
        "homicidio_doloso",
        "secuestro",
        "Homicidio doloso + Secuestro",
    )
    assert (r["n"], r["transacciones"]) == (n, tx)
    assert r["support"] == round(support, 4) and r["lift"] == lift and r["confidence"] == 1.0
    assert r["score"] == round(support * lift, 4)
    assert env["metrics"] == {"transacciones": tx, "pares_evaluados": 3, "patrones": 1}


def test_synthetic_min_support_and_coverage_per_pair(tmp_path):
    rows_c = [(f"2023-0{m}-01", 11003, "violencia_familiar", 1) for m in (4, 5, 6, 7, 8, 9)]
    rows_c += [("2023-04-01", 11001, "violencia_familiar", 1)]
    settings = synthetic_settings(tmp_path, {"s.csv": (None, _together_rows()), "vf.csv": ("2023-04:2023-09", rows_c)})
    env = run(
        settings, {"entidad_id": "GTO", "from": "2023-01-01", "to": "2023-09-30", "min_support": 0.0, "top_k": 10}
    ).last
    got = {(r["delito_a"], r["delito_b"]): r for r in rows_as_dicts(env)}
    # homicidio doloso + secuestro: both published 2023-01..06 only (their file's coverage) → 4 × 6
    assert got[("homicidio_doloso", "secuestro")]["transacciones"] == 24
    # feminicidio (11003, Jan-Apr) + violencia familiar (11003 Apr-Sep, 11001 Apr): months Apr-Jun → 4 × 3 = 12
    fv = got[("feminicidio", "violencia_familiar")]
    assert fv["transacciones"] == 12 and fv["n"] == 1
    assert fv["lift"] == round((1 / 12) / ((1 / 12) * (4 / 12)), 4) == 3.0
    assert fv["confidence"] == 1.0
    # every pair with zero support is dropped; a higher min_support drops the rare pair
    env2 = run(settings, {"entidad_id": "GTO", "from": "2023-01-01", "to": "2023-09-30", "min_support": 0.2}).last
    assert [(r["delito_a"], r["delito_b"]) for r in rows_as_dicts(env2)] == [("homicidio_doloso", "secuestro")]
    assert env2["metrics"]["pares_evaluados"] == 6


def test_synthetic_seasonality_is_refused_below_24_months(tmp_path):
    settings = synthetic_settings(tmp_path, {"s.csv": (None, _together_rows())})
    env = run(settings, {"entidad_id": "GTO", "tipo": "estacionalidad", "from": "2023-01-01", "to": "2023-06-30"}).last
    assert env["data"]["inline"]["rows"] == []
    assert any("al menos 24 meses" in w for w in env["meta"]["warnings"])
    assert env["metrics"] == {"meses": 0, "delitos": 0, "patrones": 0}
