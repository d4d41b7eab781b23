"""Hostile plans (hypothesis): every plan gets envelopes, none raises, each answers within a second.

Plans are generated from every tool's resolved ``args_schema`` (each property through
hypothesis-jsonschema's ``from_schema``; the object around them is assembled here, because
hypothesis-jsonschema 0.23.1 cannot draw object schemas with the installed hypothesis) and far beyond
it: wrong types, empty lists, objects where text goes, NaN and ±infinity, huge integers, deep nesting,
huge strings, cyclic values, surrogates, too many steps, text plans and JSON text with hostile tokens,
bytes and junk. Each one runs through ``core.api.execute_plan`` (validation, tools, audit) on a
private copy of the bundled store. A plan passes when it yields envelopes only (``ok`` or an error
with a contract code other than ``COMPUTE_ERROR``, which is the last-resort net and so a bug), JSON
without NaN, no traceback, no path and no English from pydantic or the JSON decoder.

The bulk runs are ``slow`` and derandomized (the same plans on every run: CI cannot flake);
``CASANDRA_HOSTILE_RANDOM=1`` explores new ones, ``CASANDRA_HOSTILE_REPORT=<file>`` appends each
group's figures (plans, exceptions, p50, p99) as JSON lines.
"""

from __future__ import annotations

import json
import os
import reprlib
import shutil
import time
from collections import Counter
from datetime import date

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis_jsonschema import from_schema

from core import api
from core.config import load_settings
from core.dataset.store import Store, get_store
from core.engine.catalog import build_catalog, load_tool_specs
from tests.core.engine.hostile import (
    HOSTILE_VALUE,
    INJECTIONS,
    OBJECT_CASES,
    TEXT_CASES,
    json_text_plans,
    junk,
    text_plans,
)

CODES = {"INVALID_PAYLOAD", "INVALID_FILTER", "INVALID_DATE_RANGE", "DATA_QUALITY_ISSUE", "RESOURCE_LIMIT"}
LEAKS = ("Traceback", 'File "', "/work/", "site-packages", "Input should", "Field required", "Expecting ")
P99_SECONDS = 1.0
RANDOM = os.environ.get("CASANDRA_HOSTILE_RANDOM") == "1"
TOOL_IDS = [s.tool_id for s in load_tool_specs()]


def bulk(max_examples: int):
    """Hypothesis settings of a bulk run: derandomized for CI unless exploring, no deadline (timed here)."""
    return settings(
        max_examples=max_examples,
        deadline=None,
        derandomize=not RANDOM,
        database=None,
        suppress_health_check=list(HealthCheck),
    )


@pytest.fixture(scope="module")
def hostile_settings(bundled_settings, tmp_path_factory):
    """A private copy of the bundled store: thousands of audited runs stay out of the shared one."""
    data = tmp_path_factory.mktemp("hostile") / "data"
    shutil.copytree(
        bundled_settings.data_dir, data, ignore=shutil.ignore_patterns("audit", "artifacts", "settings.json")
    )
    return load_settings(data)


@pytest.fixture(scope="module")
def catalog(hostile_settings):
    return build_catalog(get_store(hostile_settings))


def describe(plan) -> str:
    """A short repr of any plan (repr itself fails on a 5,000-digit integer or a cyclic value)."""
    try:
        return reprlib.repr(plan)[:160]
    except Exception:  # noqa: BLE001 - only for the failure message
        return f"<{type(plan).__name__}>"


class Tally:
    """Runs plans through execute_plan and keeps what matters: how many, how long, what went wrong."""

    def __init__(self, settings_, group: str):
        self.settings, self.group = settings_, group
        self.seconds: list[float] = []
        self.failures: list[str] = []

    def run(self, plan, strict: bool = False) -> None:
        """One plan: envelopes only, contract codes, clean JSON; anything else is recorded."""
        t0 = time.perf_counter()
        try:
            envs = api.execute_plan(plan, strict_time=strict, return_all=True, settings=self.settings)
        except Exception as exc:  # noqa: BLE001 - the point: count what escapes
            envs, problem = None, f"{type(exc).__name__}: {str(exc)[:160]}"
        else:
            problem = self._check(envs)
        self.seconds.append(time.perf_counter() - t0)
        if problem:
            self.failures.append(f"{problem} ← {describe(plan)}")

    @staticmethod
    def _check(envs) -> str | None:
        if not isinstance(envs, list) or not envs:
            return f"not a list of envelopes: {envs!r:.80}"
        for env in envs:
            try:
                text = json.dumps(env, allow_nan=False, ensure_ascii=False)
            except ValueError as exc:
                return f"envelope is not strict JSON: {exc}"
            if env.get("status") == "error" and env["error"]["code"] not in CODES:
                return f"{env['error']['code']}: {env['error']['details']}"
            if env.get("status") not in ("ok", "error"):
                return f"status {env.get('status')!r}"
            if leak := next((m for m in LEAKS if m in text), None):
                return f"leaks {leak!r}: {text[:200]}"
        return None

    def summary(self) -> dict:
        """Plans, exceptions and the p50/p99 seconds of this group."""
        times = sorted(self.seconds)
        pick = (lambda q: round(times[min(len(times) - 1, int(q * len(times)))], 4)) if times else (lambda q: None)
        kinds = Counter(f.split(":")[0] for f in self.failures)
        return {
            "group": self.group,
            "plans": len(times),
            "failures": len(self.failures),
            "kinds": dict(kinds.most_common()),
            "p50_s": pick(0.50),
            "p99_s": pick(0.99),
            "max_s": round(times[-1], 4) if times else None,
        }

    def assert_clean(self, at_least: int) -> None:
        """Every plan an envelope, p99 within the budget, and the run as large as promised."""
        figures = self.summary()
        if report := os.environ.get("CASANDRA_HOSTILE_REPORT"):
            with open(report, "a", encoding="utf-8") as fh:
                fh.write(json.dumps(figures) + "\n")
        assert not self.failures, f"{len(self.failures)} failures, first: " + "\n".join(self.failures[:5])
        assert figures["plans"] >= at_least, figures
        assert figures["p99_s"] <= P99_SECONDS, figures


# -- plans from the schemas ---------------------------------------------------------------------


def realistic_dates(prop: dict):
    """A date property also draws days inside the bundled data, so many plans reach the tools."""
    days = st.dates(date(2014, 6, 1), date(2026, 6, 30)).map(date.isoformat)
    return st.one_of(from_schema(prop), days) if "pattern" in prop else from_schema(prop)


def args_from_schema(schema: dict):
    """Arguments valid for an object ``args_schema``: each property via from_schema, required ones always."""
    required = set(schema.get("required") or ())
    props = {name: realistic_dates(prop) for name, prop in schema["properties"].items()}
    return st.fixed_dictionaries(
        {k: v for k, v in props.items() if k in required},
        optional={k: v for k, v in props.items() if k not in required},
    )


_STEPS: dict[tuple[str, int], st.SearchStrategy] = {}


def schema_step(catalog, tool_id: int):
    """A plan step of ``tool_id`` with schema-valid arguments (built once: from_schema canonicalises slowly)."""
    key = (catalog.catalog_version, tool_id)
    if key not in _STEPS:
        args = args_from_schema(catalog.resolved_schemas[tool_id])
        _STEPS[key] = args.map(lambda a: {"tool_id": tool_id, "args": a})
    return _STEPS[key]


def any_schema_step(catalog):
    """A schema-valid step of any tool."""
    return st.one_of([schema_step(catalog, t) for t in TOOL_IDS])


@pytest.mark.slow
@pytest.mark.parametrize("tool_id", TOOL_IDS)
def test_plans_from_each_args_schema(hostile_settings, catalog, tool_id):
    tally = Tally(hostile_settings, f"schema:{tool_id}")

    @bulk(250)
    @given(step=schema_step(catalog, tool_id), strict=st.booleans())
    def run(step, strict):
        tally.run({"plan": [step]}, strict)

    run()
    tally.assert_clean(at_least=200)


@pytest.mark.slow
def test_pipelines_from_the_schemas(hostile_settings, catalog):
    tally = Tally(hostile_settings, "schema:pipelines")

    @bulk(500)
    @given(steps=st.lists(any_schema_step(catalog), min_size=2, max_size=4))
    def run(steps):
        tally.run({"plan": steps})

    run()
    tally.assert_clean(at_least=450)


# -- plans beyond the schemas -------------------------------------------------------------------


VALUE_EDITS = ("value",)
SHAPE_EDITS = ("key", "tool", "version", "args", "steps", "meta")


@st.composite
def mutated_plans(draw, catalog, edits):
    """A schema-valid plan with one to three hostile edits: values, keys, tool ids, versions, steps, meta."""
    steps = draw(st.lists(any_schema_step(catalog), min_size=1, max_size=3))
    plan: dict = {"plan": steps}
    for _ in range(draw(st.integers(1, 3))):
        step = draw(st.sampled_from(steps))
        edit = draw(st.sampled_from(edits))
        if edit == "value" and isinstance(step.get("args"), dict):
            tid = step.get("tool_id")
            known = isinstance(tid, int) and tid in catalog.resolved_schemas
            names = sorted(catalog.resolved_schemas[tid]["properties"]) if known else ["x"]
            step["args"][draw(st.sampled_from(names))] = draw(HOSTILE_VALUE)
        elif edit == "key" and isinstance(step.get("args"), dict):
            step["args"][draw(st.one_of(st.text(max_size=12), st.sampled_from(["x", "k" * 2000, "\ud800"])))] = 1
        elif edit == "tool":
            step["tool_id"] = draw(st.one_of(HOSTILE_VALUE, st.integers(-5, 20)))
        elif edit == "version":
            step["tool_version"] = draw(st.one_of(st.sampled_from(["1.0.0", "9.0.0", "1..0", "٣.0.0"]), HOSTILE_VALUE))
        elif edit == "args":
            step["args"] = draw(HOSTILE_VALUE)
        elif edit == "steps":
            plan["plan"] = steps * draw(st.sampled_from([0, 5, 13, 400]))
        else:
            plan["meta"] = draw(st.one_of(HOSTILE_VALUE, st.fixed_dictionaries({"strict_time": HOSTILE_VALUE})))
    return plan


@pytest.mark.slow
@pytest.mark.parametrize("edits", [VALUE_EDITS, SHAPE_EDITS], ids=["values", "shapes"])
def test_mutated_plans(hostile_settings, catalog, edits):
    tally = Tally(hostile_settings, f"beyond:mutated-{edits[0]}")

    @bulk(1250)
    @given(plan=mutated_plans(catalog, edits), strict=st.booleans())
    def run(plan, strict):
        tally.run(plan, strict)

    run()
    tally.assert_clean(at_least=1150)


@pytest.mark.slow
def test_text_plans(hostile_settings):
    tally = Tally(hostile_settings, "beyond:text")

    @bulk(1600)
    @given(plan=text_plans())
    def run(plan):
        tally.run(plan)

    run()
    tally.assert_clean(at_least=1500)


@pytest.mark.slow
def test_json_text_plans(hostile_settings, catalog):
    tally = Tally(hostile_settings, "beyond:json")
    plans = st.lists(any_schema_step(catalog), min_size=1, max_size=2).map(lambda s: {"plan": s})

    @bulk(1000)
    @given(plan=json_text_plans(plans))
    def run(plan):
        tally.run(plan)

    run()
    tally.assert_clean(at_least=900)


@pytest.mark.slow
def test_junk(hostile_settings):
    tally = Tally(hostile_settings, "beyond:junk")

    @bulk(1200)
    @given(plan=junk())
    def run(plan):
        tally.run(plan)

    run()
    tally.assert_clean(at_least=1100)


# -- quick, named cases ------------------------------------------------------------------------


def test_injection_strings_in_every_argument_are_rejected_and_harmless(hostile_settings):
    names = sorted({name for spec in load_tool_specs() for name in spec.arg_names})
    before = Store(hostile_settings).query("SELECT count(*), sum(eventos) FROM incidents")
    base = {"entidad_id": "GTO", "delito": "homicidio_doloso", "from": "2024-01-01", "to": "2024-12-31"}
    for arg in names:
        for bad in INJECTIONS:
            env = api.execute_plan({"plan": [{"tool_id": 6, "args": {**base, arg: bad}}]}, settings=hostile_settings)
            assert env["status"] == "error", (arg, bad)
    assert Store(hostile_settings).query("SELECT count(*), sum(eventos) FROM incidents") == before


def test_huge_top_k_and_reversed_dates(hostile_settings):
    def codes(text: str) -> set[str]:
        env = api.execute_plan(text, settings=hostile_settings)
        return {p["code"] for p in env["error"].get("problems", [env["error"]])}

    base = "[6]\nentidad_id: GTO\ndelito: homicidio_doloso\nfrom: 2024-12-31\nto: 2020-01-01"
    assert codes(base + "\ntop_k: 10000000000") == {"INVALID_PAYLOAD"}  # the schema problem stops validation
    assert codes(base) == {"INVALID_DATE_RANGE"}


@pytest.mark.parametrize("name", sorted(OBJECT_CASES))
def test_each_class_that_escaped_is_an_error_envelope(hostile_settings, name):
    """The ten classes of the attacker run (TypeError, IndexError, ValueError, OverflowError, RecursionError…)."""
    plan = OBJECT_CASES[name]()
    t0 = time.perf_counter()
    env = api.execute_plan(plan, settings=hostile_settings)
    assert time.perf_counter() - t0 < P99_SECONDS
    assert env["status"] == "error" and env["error"]["code"] in ("INVALID_PAYLOAD", "RESOURCE_LIMIT"), env
    assert Tally._check([env]) is None


@pytest.mark.parametrize("name", sorted(TEXT_CASES))
def test_each_hostile_text_is_an_error_envelope(hostile_settings, name):
    t0 = time.perf_counter()
    env = api.execute_plan(TEXT_CASES[name], settings=hostile_settings)
    assert time.perf_counter() - t0 < P99_SECONDS
    assert env["status"] == "error" and env["error"]["code"] in ("INVALID_PAYLOAD", "RESOURCE_LIMIT"), env
    assert Tally._check([env]) is None
