"""The HTTP API load bench (issue 16 §6): its latency figures, the versions a response names, the consistency check
of a run that publishes mid-way, its BENCHMARKS.md rows, and a toy run against the real server."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from bench import api_checks, api_load, report, report_api
from bench import run as bench_run

OLD, NEW = "gx-2026.01.15-aaaaaaaa", "gx-2026.01.16-bbbbbbbb"


def env(version: str | None, rows=((1,),)) -> dict:
    meta = {"dataset_version": version} if version else {"schema_version": "1.1.0"}
    return {"status": "ok" if version else "error", "meta": meta, "data": {"inline": {"rows": [list(r) for r in rows]}}}


def test_latency_is_linear_interpolated_percentiles() -> None:
    got = api_checks.latency(float(v) for v in range(1, 101))
    assert got == {"n": 100, "p50": 50.5, "p95": 95.0, "p99": 99.0, "max": 100.0, "mean": 50.5}
    assert api_checks.latency([]) == {"n": 0, "p50": None, "p95": None, "p99": None, "max": None, "mean": None}


@pytest.mark.parametrize(
    ("body", "named"),
    [
        (env(OLD), [OLD]),
        ([env(OLD), env(OLD)], [OLD]),
        ([env(OLD), env(NEW)], [OLD, NEW]),
        (env(None), []),
        (
            {
                "plan": {"meta": {"dataset_version": OLD}},
                "envelopes": [env(OLD)],
                "answer": {"text": f"(versión {NEW})."},
            },
            [OLD, NEW],
        ),
        (
            {"envelopes": [env(NEW)], "answer": {"text": "Datos hasta mayo.", "provenance": {"dataset_version": NEW}}},
            [NEW],
        ),
        ({"envelopes": [env(NEW)], "previous_version": OLD}, [NEW]),  # naming the one it replaced is no mixing
        (None, []),
    ],
    ids=["one", "all-same", "two", "error", "ask-text-other", "ask-provenance", "previous-version", "not-json"],
)
def test_the_versions_a_response_names(body, named) -> None:
    assert api_checks.versions_named(body) == named


def test_the_fingerprint_is_the_rows_of_every_envelope() -> None:
    a, b = api_checks.fingerprint([env(OLD, [(1,)])]), api_checks.fingerprint({"envelopes": [env(NEW, [(1,)])]})
    assert a == b != api_checks.fingerprint(env(OLD, [(2,)]))


def sample(client, seq, versions, t0, t1, *, status=200, fp="f", kind="plan", item="p", error=None) -> dict:
    return {
        "client": client,
        "seq": seq,
        "kind": kind,
        "item": item,
        "versions": versions,
        "t0": t0,
        "t1": t1,
        "ms": (t1 - t0) * 1000,
        "status": status,
        "error": error,
        "fingerprint": fp,
    }


BASE = {("plan", "p", OLD): "f", ("plan", "p", NEW): "g"}
PUBLISHED = (10.0, 20.0)


@pytest.mark.parametrize(
    ("samples", "why"),
    [
        ([sample(0, 0, [OLD], 1, 2), sample(0, 1, [OLD], 12, 13), sample(0, 2, [NEW], 15, 16, fp="g")], None),
        ([sample(0, 0, [OLD], 21, 22)], "anterior después de publicar"),
        ([sample(0, 0, [NEW], 1, 2, fp="g")], "nueva antes de publicar"),
        ([sample(0, 0, [NEW], 11, 12, fp="g"), sample(0, 1, [OLD], 12, 13)], "volvió a la anterior"),
        ([sample(0, 0, [OLD, NEW], 11, 12)], "mezcla"),
        ([sample(0, 0, [], 1, 2)], "sin_version"),
        ([sample(0, 0, ["gx-2026.01.01-cccccccc"], 1, 2)], "desconocida"),
        ([sample(0, 0, [OLD], 11, 12, fp="g")], "filas de otra versión"),
        ([sample(0, 0, [OLD, NEW], 21, 22, status=500), sample(1, 0, [], 1, 2, status=None, error="x")], None),
    ],
    ids=["consistent", "old-late", "new-early", "went-back", "mixed", "none", "unknown", "rows", "errors-apart"],
)
def test_consistency_names_each_kind_of_problem(samples, why) -> None:
    got = api_checks.consistency(samples, OLD, NEW, PUBLISHED, BASE)
    assert got["consistente"] is (why is None)
    assert list(got["por_motivo"]) == ([why] if why else [])


def test_errors_count_statuses_and_transport_failures() -> None:
    got = api_checks.errors(
        [sample(0, 0, [OLD], 1, 2), sample(0, 1, [], 2, 3, status=429), sample(1, 0, [], 1, 2, status=None, error="x")]
    )
    assert got["total"] == 2 and got["por_estado"] == {"429": 1, "transporte": 1}


def test_the_mix_asks_one_in_three_and_uses_every_plan_and_question() -> None:
    reqs = [api_load.mix(c, n) for c in range(50) for n in range(200)]
    kinds = Counter(r.kind for r in reqs)
    assert kinds["ask"] == pytest.approx(len(reqs) / api_load.ASK_EVERY, abs=50)
    assert {r.item for r in reqs if r.kind == "plan"} == set(api_load.PLANS)
    assert {r.item for r in reqs if r.kind == "ask"} == set(api_load.QUESTIONS)
    assert all(r.body["planner"] == "rules" for r in reqs if r.kind == "ask")  # no network under load
    assert [api_load.mix(3, n) for n in range(9)] == [api_load.mix(3, n) for n in range(9)]


def measured(errors: int = 0, mixed: int = 0) -> dict:
    per = {"n": 10, "p50": 40.0, "p95": 90.0, "p99": 120.0, "max": 150.0, "mean": 50.0, "solicitudes": 10}
    return {
        "clientes": 50,
        "solicitudes_por_cliente": 200,
        "solicitudes": 10_000,
        "mezcla": {"plan": 6_667, "ask": 3_333},
        "planes": list(api_load.PLANS),
        "preguntas": list(api_load.QUESTIONS),
        "tokens": {"analistas": 5, "tasa_por_token": api_load.BENCH_RATE},
        "almacen": f"copia de {OLD}",
        "duracion_carga_s": 300.0,
        "rendimiento_rps": 33.3,
        "por_endpoint": {"ask": per | {"errores": 0}, "plan": per | {"errores": errors}},
        "total_ms": per,
        "errores": {"total": errors, "por_estado": {"500": errors} if errors else {}, "ejemplos": []},
        "publicacion": {"status": 200, "resultado": "published", "inicio_s": 150.0, "fin_s": 180.0, "ms": 30_000.0},
        "versiones": {"anterior": OLD, "nueva": NEW},
        "publico_version_nueva": True,
        "consistencia": {
            "por_version": {
                "anterior": 5_000,
                "nueva": 5_000 - mixed,
                "mezcla": mixed,
                "sin_version": 0,
                "desconocida": 0,
            },
            "problemas": mixed,
            "por_motivo": {"mezcla": mixed} if mixed else {},
            "ejemplos": [],
            "consistente": not mixed,
        },
        "referencias_que_cambian": {"cambian": 6, "de": 11},
        "auditoria": {"respondidas": {"plan": 1}, "registros": {"plan": 1}, "completa": True},
        "registro_servidor": {"tracebacks": 0, "bloqueos_sqlite": 0, "lineas_error": 0, "ejemplos": []},
        "carga_promedio": [[1.0, 1.0, 1.0], [2.0, 1.0, 1.0]],
        "cumple": not errors and not mixed,
    }


def render(api: dict) -> str:
    return report.render(
        {
            "generado": "hoy",
            "escala": "full",
            "maquina": bench_run.machine(),
            "duracion_total_s": 1.0,
            "secciones": {"api": api},
        }
    )


@pytest.mark.parametrize(("errors", "mixed", "flag"), [(0, 0, "✅ sí"), (3, 0, "❌ no"), (0, 2, "❌ no")])
def test_benchmarks_md_has_the_row_and_the_section(errors, mixed, flag) -> None:
    md = render(measured(errors, mixed))
    (row,) = [line for line in md.splitlines() if line.startswith(f"| {report_api.POINT} |")]
    assert report_api.GOAL in row and flag in row and f"errores {errors}" in row and "plan p95 90 ms" in row
    assert f"## {report_api.POINT} API HTTP bajo carga" in md
    assert "| `POST /plan/execute` | 10 |" in md and f"| dos o más (mezcla) | {mixed} |" in md
    assert ("API bajo carga:" in md) is (flag != "✅ sí")  # its «Pendientes» entry


def test_a_reduced_or_broken_run_says_so() -> None:
    small = measured() | {"clientes": 3, "solicitudes_por_cliente": 5}
    assert "3 × 5 (escala reducida)" in report_api.summary_rows(small)[0][2]
    assert report_api.summary_rows({"error": "RuntimeError: no arrancó"})[0][2:] == [
        "error: RuntimeError: no arrancó",
        "❌ no",
    ]
    assert "no se corrió" in report_api.summary_rows(None)[0][2]


@pytest.mark.slow
def test_a_toy_load_against_the_real_server(tmp_path, bundled_settings) -> None:
    res = api_load.run(tmp_path, log=lambda m: None, clients=3, requests=5, source=bundled_settings.data_dir)
    assert res["errores"]["total"] == 0, res["errores"]
    assert res["solicitudes"] == 15 and set(res["por_endpoint"]) == {"plan", "ask"}
    assert res["publico_version_nueva"] and res["versiones"]["nueva"] != res["versiones"]["anterior"]
    assert res["consistencia"]["consistente"], res["consistencia"]
    assert res["referencias_que_cambian"]["cambian"] >= 1  # the revision changes rows the check compares
    assert res["auditoria"]["completa"] and res["registro_servidor"]["tracebacks"] == 0
    assert not (tmp_path / "data").exists()  # the copy of the store is removed
    json.dumps(res)


@pytest.mark.parametrize(("name", "size"), [("full", (50, 200)), ("small", (10, 200)), ("toy", (3, 5))])
def test_make_bench_runs_the_api_section_at_each_scale(name, size) -> None:
    sc = bench_run.scale(name)
    assert "api" in bench_run.SECTIONS and (sc.api_clients, sc.api_requests) == size
