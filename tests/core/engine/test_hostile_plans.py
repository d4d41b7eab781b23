"""Hostile plans (hypothesis): wrong types, injections, huge values, reversed dates, unknown tools.

Whatever comes in, the engine answers with envelopes (an error envelope when invalid) and
never raises; the store is never modified.
"""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core import api
from core.dataset.store import Store

INJECTIONS = [
    "'; DROP TABLE incidents; --",
    "GTO' OR '1'='1",
    "1; COPY incidents TO '/tmp/x'",
    "../../etc/passwd",
    "${jndi:ldap://x}",
    "\x00",
    "🙂" * 50,
    "ñ" * 5000,
    "SELECT * FROM read_csv('/etc/passwd')",
]
scalar = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**12), max_value=10**12),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=40),
    st.sampled_from(INJECTIONS),
)
value = st.recursive(
    scalar,
    lambda c: st.one_of(st.lists(c, max_size=4), st.dictionaries(st.text(max_size=8), c, max_size=3)),
    max_leaves=6,
)
ARG_NAMES = [
    "entidad_id",
    "delito",
    "nivel",
    "medida",
    "top_k",
    "from",
    "to",
    "metodo",
    "violencia",
    "por",
    "min_eventos",
    "min_tasa",
    "z_threshold",
    "window",
    "aggregate_by",
    "metrics",
    "tipo",
    "base_from",
    "base_to",
    "limit",
    "orden",
    "min_support",
    "x",
]
args = st.dictionaries(st.sampled_from(ARG_NAMES), value, max_size=8)
step = st.fixed_dictionaries(
    {"tool_id": st.one_of(st.integers(min_value=-5, max_value=20), st.text(max_size=5), scalar)},
    optional={
        "tool_version": st.one_of(st.sampled_from(["1.0.0", "1.1.0", "2.0.0", "x"]), scalar),
        "args": st.one_of(args, scalar),
    },
)
plans = st.one_of(
    st.fixed_dictionaries(
        {"plan": st.lists(step, max_size=5)},
        optional={
            "meta": st.one_of(
                scalar,
                st.dictionaries(st.sampled_from(["strict_time", "catalog_version", "dataset_version", "evil"]), scalar),
            )
        },
    ),
    st.text(max_size=300),
    st.builds(
        lambda ids, lines: f"[{','.join(map(str, ids))}]\n" + "\n".join(lines),
        st.lists(st.integers(min_value=-3, max_value=16), min_size=1, max_size=4),
        st.lists(
            st.builds(
                lambda k, v: f"{k}: {v}",
                st.sampled_from(ARG_NAMES),
                st.sampled_from(INJECTIONS + ["2024-01-01", "GTO", "-1", "999999999"]),
            ),
            max_size=8,
        ),
    ),
    scalar,
)


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
)
@given(plan=plans, strict=st.booleans())
def test_hostile_plans_always_get_envelopes(bundled_settings, plan, strict):
    envs = api.execute_plan(plan, strict_time=strict, return_all=True, settings=bundled_settings)
    assert isinstance(envs, list) and envs
    for env in envs:
        assert env["status"] in ("ok", "error")
        json.dumps(env)  # always serializable
        if env["status"] == "error":
            assert env["error"]["code"] in {
                "INVALID_PAYLOAD",
                "INVALID_FILTER",
                "INVALID_DATE_RANGE",
                "DATA_QUALITY_ISSUE",
                "COMPUTE_ERROR",
                "RESOURCE_LIMIT",
            }
            assert env["error"]["code"] != "COMPUTE_ERROR", env  # hostile input is a validation matter


def test_injection_strings_in_every_argument_are_rejected_and_harmless(bundled_settings):
    before = Store(bundled_settings).query("SELECT count(*), sum(eventos) FROM incidents")
    for arg in ARG_NAMES:
        for bad in INJECTIONS:
            env = api.execute_plan(
                {
                    "plan": [
                        {
                            "tool_id": 6,
                            "args": {
                                "entidad_id": "GTO",
                                "delito": "homicidio_doloso",
                                "from": "2024-01-01",
                                "to": "2024-12-31",
                                arg: bad,
                            },
                        }
                    ]
                },
                settings=bundled_settings,
            )
            assert env["status"] == "error", (arg, bad)
    assert Store(bundled_settings).query("SELECT count(*), sum(eventos) FROM incidents") == before


def test_huge_top_k_and_reversed_dates(bundled_settings):
    env = api.execute_plan(
        "[6]\nentidad_id: GTO\ndelito: homicidio_doloso\ntop_k: 10000000000\nfrom: 2024-12-31\nto: 2020-01-01",
        settings=bundled_settings,
    )
    codes = {p["code"] for p in env["error"].get("problems", [env["error"]])}
    assert {"INVALID_PAYLOAD", "INVALID_DATE_RANGE"} <= codes
