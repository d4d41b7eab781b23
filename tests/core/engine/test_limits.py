"""Plan limits: measured before parsing, without recursion, in time bounded by the limits."""

from __future__ import annotations

import time

import pytest

from core.engine import limits
from core.engine.limits import MAX_DEPTH, bracket_depth, load_json, short, value_problems
from core.errors import ErrorGroup
from tests.core.engine.hostile import cyclic, deep_dict, deep_list


@pytest.mark.parametrize(
    "text,depth",
    [
        ("{}", 1),
        ('{"a": [[1], {"b": []}]}', 4),
        ('{"a": "[[[[[[[["}', 1),  # brackets inside strings do not count
        ('{"a": "\\"[[[[", "b": [[]]}', 3),  # nor after an escaped quote
        ('{"a": "\\\\", "b": [[]]}', 3),  # an escaped backslash closes nothing
        ("]]]][[", 2),
        ("[" * 100_000, MAX_DEPTH + 1),  # stops counting past the limit
    ],
)
def test_bracket_depth(text, depth):
    assert bracket_depth(text) == depth


@pytest.mark.parametrize(
    "text,code,needle",
    [
        ('{"a": NaN}', "INVALID_PAYLOAD", "NaN"),
        ('{"a": -Infinity}', "INVALID_PAYLOAD", "-Infinity"),
        ('{"a": ' + "9" * 4400 + "}", "INVALID_PAYLOAD", "4.400 cifras"),
        ("[" * 17 + "]" * 17, "RESOURCE_LIMIT", "16 niveles"),
        ("[" * 200_000, "RESOURCE_LIMIT", "64 KiB"),
        ('{"a": 1,}', "INVALID_PAYLOAD", "JSON inválido"),
    ],
)
def test_load_json_refuses_before_or_while_parsing(text, code, needle):
    with pytest.raises(ErrorGroup) as info:
        load_json(text)
    assert info.value.code == code and needle in info.value.details


def test_load_json_reads_plain_json():
    assert load_json('{"a": [1, 2.5, "x", null, true]}') == {"a": [1, 2.5, "x", None, True]}


@pytest.mark.parametrize(
    "value,code,needle",
    [
        ({"a": float("nan")}, "INVALID_PAYLOAD", "NaN o infinito"),
        ({"a": [1, float("-inf")]}, "INVALID_PAYLOAD", "a[1]"),
        pytest.param({"a": 10**5000}, "INVALID_PAYLOAD", "entero enorme", id="huge-int"),
        ({"a": "x" * 1001}, "RESOURCE_LIMIT", "1.001 caracteres"),
        ({"k" * 1001: 1}, "RESOURCE_LIMIT", "Una clave"),
        ({"a": "\ud800"}, "INVALID_PAYLOAD", "Unicode"),
        ({"a": {1, 2}}, "INVALID_PAYLOAD", "set"),
        ({"a": object()}, "INVALID_PAYLOAD", "object"),
        ({"a": list(range(101))}, "RESOURCE_LIMIT", "101 elemento"),
        ({"a": deep_list(100_000)}, "RESOURCE_LIMIT", "16 niveles"),
        (deep_dict(100_000), "RESOURCE_LIMIT", "16 niveles"),
        (cyclic(), "RESOURCE_LIMIT", "16 niveles"),
        ([[1] * 90] * 90, "RESOURCE_LIMIT", "más de 5.000 valores"),
        ([["x" * 999] * 80], "RESOURCE_LIMIT", "suman más de 64 KiB"),
    ],
)
def test_value_problems(value, code, needle):
    t0 = time.perf_counter()
    found = value_problems(value)
    assert time.perf_counter() - t0 < 0.5
    assert found and found[0].code == code
    assert any(needle in p.details for p in found), [p.details for p in found]


def test_value_problems_stop_after_a_few_findings():
    found = value_problems({f"k{i}": float("nan") for i in range(100)})
    assert len(found) == limits.MAX_PROBLEMS


def test_plain_values_pass():
    assert value_problems({"plan": [{"tool_id": 6, "args": {"delito": ["a", "b"], "top_k": 5, "x": 0.5}}]}) == []


@pytest.mark.parametrize(
    "value,text",
    [
        ("x" * 100, "'" + "x" * 40 + "…'"),
        pytest.param(10**5000, "un entero enorme", id="huge-int"),
        (float("nan"), "un número no finito"),
        ([], "una lista vacía"),
        ({"a": 1}, "un objeto de 1 clave(s)"),
        (b"x", "un valor de tipo bytes"),
    ],
)
def test_short_never_renders_a_huge_value(value, text):
    assert short(value) == text
