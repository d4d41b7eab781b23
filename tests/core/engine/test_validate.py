"""Validation (docs/contracts/001_casandra_v0.md C.8): every error code reachable, every problem reported at once."""

from __future__ import annotations

import pytest

from core import api
from core.errors import CRITICAL_CODES

BASE = {"entidad_id": "GTO", "delito": "homicidio_doloso", "nivel": "hijos", "from": "2024-01-01", "to": "2024-12-31"}


def run(settings, plan, **kw):
    return api.execution(plan, settings=settings, **kw)


def step(tool_id=6, **args):
    return {"tool_id": tool_id, "args": {**BASE, **args}}


def error_of(result):
    env = result.last
    assert env["status"] == "error", env
    assert set(env) == {"status", "tool", "error", "meta"}
    assert env["meta"]["schema_version"] == "1.0.0"
    return env["error"]


@pytest.mark.parametrize(
    "plan,code,needle",
    [
        ({"plan": [{"tool_id": 99, "args": {}}]}, "INVALID_PAYLOAD", "no existe"),
        ({"plan": [{"tool_id": 6, "tool_version": "2.0.0", "args": BASE}]}, "INVALID_PAYLOAD", "no está disponible"),
        ({"plan": [step(color="rojo")]}, "INVALID_PAYLOAD", "no permitido"),
        ({"plan": [step(top_k="diez")]}, "INVALID_PAYLOAD", "Tipo inválido"),
        ({"plan": [step(top_k=10_000)]}, "INVALID_PAYLOAD", "fuera de rango"),
        ({"plan": [step(**{"from": "2024/01/01"})]}, "INVALID_PAYLOAD", "AAAA-MM-DD"),
        (
            {
                "plan": [
                    {"tool_id": 6, "args": {"delito": "homicidio_doloso", "from": "2024-01-01", "to": "2024-12-31"}}
                ]
            },
            "INVALID_PAYLOAD",
            "requiere entidad_id",
        ),
        ({"plan": [{"tool_id": 9, "args": {}}]}, "INVALID_PAYLOAD", "necesita antes"),
        ({"plan": [{"tool_id": 9, "args": {}}]}, "INVALID_PAYLOAD", "Ejemplo: [6,9]"),
        ({"plan": [step(11, aggregate_by="total_anomalias")]}, "INVALID_PAYLOAD", "Ejemplo: [10,11]"),
        (
            {"plan": [step(13, base_from="2030-01-01", base_to="2030-12-31")]},
            "INVALID_DATE_RANGE",
            "fuera de los datos",
        ),
        (
            {"plan": [{"tool_id": 14, "args": {"entidad_id": "GTO", "from": "2040-01-01", "to": "2040-12-31"}}]},
            "DATA_QUALITY_ISSUE",
            "No hay totales anuales",
        ),  # calendar years: past the monthly watermark, still checked
        ({"plan": [step(entidad_id="GTO.MUN.LEONN")]}, "INVALID_FILTER", "GTO.MUN.LEON"),
        ({"plan": [step(delito="asesinato")]}, "INVALID_FILTER", "no existe"),
        ({"plan": [step(**{"from": "2024-12-31", "to": "2024-01-01"})]}, "INVALID_DATE_RANGE", "posterior"),
        ({"plan": [step(**{"from": "2024-02-30"})]}, "INVALID_DATE_RANGE", "inexistente"),
        ({"plan": [step(**{"from": "2030-01-01", "to": "2030-12-31"})]}, "INVALID_DATE_RANGE", "fuera de los datos"),
        (
            {"plan": [step(delito="feminicidio", **{"from": "2025-06-01", "to": "2025-10-31"})]},
            "DATA_QUALITY_ISSUE",
            "No hay datos publicados",
        ),
    ],
)
def test_each_problem_has_its_code(bundled_settings, plan, code, needle):
    err = error_of(run(bundled_settings, plan))
    assert err["code"] == code
    texts = (
        [err["details"]] + [p["details"] + " " + " ".join(p["hints"]) for p in err.get("problems", [])] + err["hints"]
    )
    assert any(needle in t for t in texts), texts


def test_strict_time_refuses_what_would_be_clamped(bundled_settings):
    plan = {"plan": [step(**{"from": "2025-06-01", "to": "2026-03-31"})]}
    assert run(bundled_settings, plan).last["status"] == "ok"
    err = error_of(run(bundled_settings, plan, strict_time=True))
    assert err["code"] == "INVALID_DATE_RANGE" and "strict_time" in err["details"]


def test_every_schema_problem_of_every_step_is_reported_at_once(bundled_settings):
    plan = {
        "plan": [
            {"tool_id": 99, "args": {}},
            step(entidad_id="GTO.MUN.NADA", top_k=0, **{"from": "2024-12-31", "to": "2024-01-01"}),
            {
                "tool_id": 12,
                "args": {
                    "entidad_id": "GTO",
                    "delito": "narcomenudeo_x",
                    "from": "2024-01-01",
                    "to": "2024-03-31",
                    "color": 1,
                },
            },
        ]
    }
    err = error_of(run(bundled_settings, plan))
    codes = [p["code"] for p in err["problems"]]
    assert {"INVALID_PAYLOAD", "INVALID_FILTER"} <= set(codes)
    assert len(err["problems"]) >= 5
    assert {p["path"].split(".")[0] for p in err["problems"]} == {"plan[0]", "plan[1]", "plan[2]"}
    assert err["code"] in CRITICAL_CODES and err["http_status"] == 422
    # schema problems stop validation: the contextual checks (here, the reversed window) never see bad values
    assert "INVALID_DATE_RANGE" not in codes


def test_every_contextual_problem_is_reported_at_once_when_the_schemas_pass(bundled_settings):
    reversed_window = {"from": "2024-12-31", "to": "2024-01-01"}
    plan = {"plan": [step(**reversed_window), step(7, **{"from": "2030-01-01", "to": "2030-12-31"})]}
    err = error_of(run(bundled_settings, plan))
    assert [(p["code"], p["path"]) for p in err["problems"]] == [
        ("INVALID_DATE_RANGE", "plan[0].args"),
        ("INVALID_DATE_RANGE", "plan[1].args"),
    ]


@pytest.mark.parametrize(
    "bad",
    [
        {"delito": {}},
        {"delito": []},
        {"delito": [[1]]},
        {"delito": [{}]},
        {"entidad_id": ["GTO"]},
        {"entidad_id": {"GTO": 1}},
        {"metodo": [[]]},
        {"from": [], "to": {}},
        {"nivel": ["hijos"]},
    ],
)
def test_unhashable_or_empty_values_are_schema_problems_not_crashes(bundled_settings, bad):
    """TypeError 'unhashable type' and IndexError escaped from _expand, _static_step and _entity."""
    for tool_id in (1, 3, 4, 6, 13):
        err = error_of(run(bundled_settings, {"plan": [{"tool_id": tool_id, "args": {**BASE, **bad}}]}))
        assert err["code"] == "INVALID_PAYLOAD", err


@pytest.mark.parametrize(
    "args,needle",
    [
        ({"window": "abc"}, "número entero"),
        ({"window": float("nan")}, "NaN"),
        ({"window": float("inf")}, "NaN o infinito"),
        ({"z_threshold": float("nan")}, "NaN"),
        ({"z_threshold": float("-inf")}, "NaN o infinito"),
        ({"top_k": 10**5000}, "entero enorme"),
    ],
)
def test_non_finite_and_wrong_numbers_are_refused(bundled_settings, args, needle):
    """window 'abc' raised ValueError, NaN/inf OverflowError; z_threshold NaN answered «0 detectadas»."""
    err = error_of(run(bundled_settings, {"plan": [step(10, **args)]}))
    assert err["code"] == "INVALID_PAYLOAD"
    assert needle in err["details"], err


def test_the_schemas_themselves_refuse_nan_and_infinity(bundled_settings):
    """Below the limits' walk, the args validator treats NaN and ±inf as not numbers at all."""
    from core.dataset.store import get_store
    from core.engine.catalog import build_catalog
    from core.engine.static import args_validator

    spec = build_catalog(get_store(bundled_settings)).spec_for(10)
    for value in (float("nan"), float("inf"), float("-inf")):
        errors = list(args_validator(spec).iter_errors({"z_threshold": value, "window": value}))
        assert {e.validator for e in errors} == {"type"} and len(errors) == 2
    assert not list(args_validator(spec).iter_errors({"z_threshold": 2.5, "window": 12}))


def test_fuzzy_suggestion_on_a_huge_value_is_cheap(bundled_settings, monkeypatch):
    """A 10 MB entidad_id took 4-6 s in the suggestion; the value is refused by size, and suggestions truncate.

    Checked by what the scorer is given (at most SUGGEST_CHARS characters), not by a timer: speed is measured in
    bench/, and a timed unit test fails on a loaded machine."""
    from core.engine import static

    err = error_of(run(bundled_settings, {"plan": [step(entidad_id="G" * 10_000_000)]}))
    assert err["code"] == "RESOURCE_LIMIT"
    seen: list[int] = []
    extract = static.process.extract
    monkeypatch.setattr(static.process, "extract", lambda q, *a, **k: seen.append(len(q)) or extract(q, *a, **k))
    assert "GTO.MUN.LEON" in static._suggest("GTO.MUN.LEONN" + "x" * 10_000_000, ["GTO.MUN.LEON", "GTO"])[0]
    assert seen and max(seen) <= static.SUGGEST_CHARS


def test_resource_limit(bundled_settings, monkeypatch):
    from core.engine import validate

    monkeypatch.setattr(validate, "MAX_ESTIMATED_CELLS", 10)
    err = error_of(run(bundled_settings, {"plan": [step()]}))
    assert err["code"] == "RESOURCE_LIMIT" and err["http_status"] == 413


def test_compute_error_never_leaks_internals(bundled_settings, monkeypatch):
    from core.tools import ranking

    def boom(ctx, step):
        raise ZeroDivisionError("secret internal detail")

    monkeypatch.setattr(ranking, "rank_por_delito", boom)
    err = error_of(run(bundled_settings, {"plan": [step()]}))
    assert err["code"] == "COMPUTE_ERROR" and err["http_status"] == 500
    assert "secret" not in str(err)


def test_month_alignment_sets_range_adjusted(bundled_settings):
    env = run(bundled_settings, {"plan": [step(**{"from": "2025-07-15", "to": "2025-08-13"})]}).last
    assert env["meta"]["date_range_effective"] == {"from": "2025-07-01", "to": "2025-08-31"}
    assert env["meta"]["range_adjusted"] is True and "alineada" in env["meta"]["range_adjusted_reason"]


def test_clamping_to_the_watermark_and_to_coverage(bundled_settings):
    env = run(bundled_settings, {"plan": [step(**{"from": "2025-01-01", "to": "2026-06-30"})]}).last
    assert env["meta"]["date_range_effective"]["to"] == "2025-11-30"
    assert "recortada" in env["meta"]["range_adjusted_reason"]
    fem = run(
        bundled_settings, {"plan": [step(delito="feminicidio", **{"from": "2024-07-01", "to": "2025-08-31"})]}
    ).last
    # feminicidio ends with the tipo × modalidad parquet (2025-05), before the homicide file's 2025-11
    assert fem["meta"]["date_range_effective"] == {"from": "2024-07-01", "to": "2025-05-31"}
    assert "cobertura del delito" in fem["meta"]["range_adjusted_reason"]


@pytest.mark.parametrize(
    ("args", "effective", "series_end"),
    [
        # Irapuato's own subtipo file runs to 2025-12, after the store's 2025-11: its window ends there
        (
            {"entidad_id": "GTO.MUN.IRAPUATO", "delito": "robo_a_casa_habitacion", "nivel": "actual"},
            {"from": "2025-01-01", "to": "2025-12-31"},
            "2025-12-31",
        ),
        # lesiones dolosas: by municipality only in Irapuato's own file, to its own end
        (
            {"entidad_id": "GTO.MUN.IRAPUATO", "delito": "lesiones_dolosas", "nivel": "actual"},
            {"from": "2025-01-01", "to": "2025-12-31"},
            "2025-12-31",
        ),
        # the tipo × modalidad parquet ends in 2025-05: clamped there, and the series' end said
        (
            {"entidad_id": "GTO.MUN.LEON", "delito": "robo", "nivel": "actual"},
            {"from": "2025-01-01", "to": "2025-05-31"},
            "2025-05-31",
        ),
        # the homicide file ends with the store (2025-11)
        (
            {"entidad_id": "GTO.MUN.LEON", "delito": "homicidio_doloso", "nivel": "actual"},
            {"from": "2025-01-01", "to": "2025-11-30"},
            "2025-11-30",
        ),
    ],
)
def test_a_window_is_clamped_to_its_own_series_end(bundled_settings, args, effective, series_end):
    """Each series to its own last month, never the store's: a later one is not cut, an earlier one is said."""
    env = run(bundled_settings, {"plan": [step(**args, **{"from": "2025-01-01", "to": "2025-12-31"})]}).last
    assert env["status"] == "ok", env
    assert env["meta"]["date_range_effective"] == effective
    assert env["meta"]["serie_hasta"] == series_end


def test_a_compatible_older_minor_version_runs_with_a_warning(bundled_settings):
    env = run(bundled_settings, {"plan": [{"tool_id": 6, "tool_version": "1.0.0", "args": BASE}]}).last
    assert env["status"] == "ok" and env["tool"] == "rank_por_delito@1.1.0"
    assert any("compatible" in w for w in env["meta"]["warnings"])


def test_empty_result_is_not_critical(bundled_settings):
    plan = {"plan": [{"tool_id": 5, "args": {"min_eventos": 1_000_000}}, step()]}
    env = run(bundled_settings, plan).last
    assert env["status"] == "ok" and env["data"]["inline"]["rows"] == []
    assert env["meta"]["empty_result"]["code"] == "EMPTY_RESULT"


def test_the_estimate_counts_the_history_a_tool_reads_first(bundled_settings):
    from core.dataset.store import get_store
    from core.engine.catalog import build_catalog
    from core.engine.validate import validate_plan

    store = get_store(bundled_settings)
    cells = {
        w: validate_plan({"plan": [step(10, window=w)]}, build_catalog(store), store.metadata()).estimate
        for w in (12, 24)
    }
    months = {w: c["celdas_estimadas"] for w, c in cells.items()}
    assert months[24] - months[12] == 12 * build_catalog(store).n_municipalities * 10  # spec: history = window
