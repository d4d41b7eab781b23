"""Hostile plan material shared by the engine, CLI, Job and Editor tests: named cases and hypothesis strategies.

The named cases are the classes an attacker run found escaping as exceptions (unhashable lists and
objects, empty lists, ``window: "abc"``, NaN and infinity, deep nesting, 4,300-digit numbers, huge
strings); the strategies generate many more of each kind.
"""

from __future__ import annotations

import copy
import json
from datetime import date

from hypothesis import strategies as st

GOOD = {"entidad_id": "GTO", "delito": "homicidio_doloso", "from": "2023-01-01", "to": "2024-01-01"}
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
HUGE_TEXT = "G" * 10_000_000  # one shared 10 MB string: the fuzzy suggestion took 4-6 s on it
DEEP = 100_000


def deep_list(depth: int):
    """``[[[...]]]`` nested ``depth`` times, built without recursion."""
    value: list = []
    for _ in range(depth - 1):
        value = [value]
    return value


def deep_dict(depth: int):
    """``{"a": {"a": ...}}`` nested ``depth`` times."""
    value: dict = {}
    for _ in range(depth - 1):
        value = {"a": value}
    return value


def cyclic():
    """A plan whose args contain the plan itself."""
    plan: dict = {"plan": [{"tool_id": 6, "args": {}}]}
    plan["plan"][0]["args"]["delito"] = plan
    return plan


def _step(tool_id: int, **args) -> dict:
    return {"plan": [{"tool_id": tool_id, "args": {**GOOD, **args}}]}


# name -> a builder of the Python value given to execute_plan (the ten classes that escaped)
OBJECT_CASES = {
    "delito_objeto": lambda: {"plan": [{"tool_id": 1, "args": {"delito": {}}}]},
    "delito_lista_vacia": lambda: _step(6, delito=[]),
    "delito_lista_de_listas": lambda: _step(6, delito=[[1], [2]]),
    "entidad_lista": lambda: _step(6, entidad_id=["GTO"]),
    "window_texto": lambda: _step(10, window="abc"),
    "window_nan": lambda: _step(10, window=float("nan")),
    "window_inf": lambda: _step(10, window=float("inf")),
    "z_threshold_nan": lambda: _step(10, z_threshold=float("nan")),
    "z_threshold_menos_inf": lambda: _step(10, z_threshold=float("-inf")),
    "tool_id_4300_cifras": lambda: {"plan": [{"tool_id": 10**4400}]},
    "top_k_enorme": lambda: _step(6, top_k=10**5000),
    "anidado_profundo": lambda: _step(6, delito=deep_list(DEEP)),
    "objeto_profundo": lambda: {"plan": [{"tool_id": 6, "args": deep_dict(DEEP)}]},
    "ciclico": cyclic,
    "entidad_10_mb": lambda: _step(6, entidad_id=HUGE_TEXT),
    "492_mb_en_12_pasos": lambda: {"plan": [{"tool_id": 6, "args": {"entidad_id": HUGE_TEXT}}] * 12},
    "un_millon_de_pasos": lambda: {"plan": [{"tool_id": 6}] * 1_000_000},
    "conjunto": lambda: _step(6, delito={"homicidio_doloso"}),
    "surrogate": lambda: _step(6, entidad_id="\ud800"),
}

# name -> text fed to ``python -m core execute -`` and to the Editor's text box
TEXT_CASES = {
    "json_delito_objeto": '{"plan":[{"tool_id":1,"args":{"delito":{}}}]}',
    "json_delito_vacio": '{"plan":[{"tool_id":6,"args":{"delito":[]}}]}',
    "json_entidad_lista": '{"plan":[{"tool_id":6,"args":{"entidad_id":["GTO"]}}]}',
    "json_window_texto": '{"plan":[{"tool_id":10,"args":{"window":"abc"}}]}',
    "json_nan": '{"plan":[{"tool_id":10,"args":{"entidad_id":"GTO","z_threshold":NaN}}]}',
    "json_infinity": '{"plan":[{"tool_id":10,"args":{"window":-Infinity}}]}',
    "json_1e999": '{"plan":[{"tool_id":10,"args":{"z_threshold":1e999}}]}',
    "json_profundo": '{"plan":' + "[" * 50_000 + "]" * 50_000 + "}",
    "json_profundo_corto": '{"plan":' + "[" * 900 + "]" * 900 + "}",
    "json_4300_cifras": '{"plan":[{"tool_id":' + "9" * 5000 + "}]}",
    "texto_4300_cifras": "[" + "9" * 5000 + "]",
    "texto_profundo": "[6]\ndelito: " + "[" * 20_000 + "]" * 20_000,
    "texto_top_k_enorme": "[6]\nentidad_id: GTO\ntop_k: " + "9" * 5000,
    "texto_nan": "[10]\nentidad_id: GTO\nz_threshold: NaN",
    "texto_10_mb": "[6]\nentidad_id: " + HUGE_TEXT,
    "texto_muchos_pasos": "[" + ",".join(["6"] * 5000) + "]",
    "json_invalido": '{"plan": [',
    "vacio": "",
}

# name -> text fed to ``python -m core job -``
JOB_CASES = {
    "intent_lista": '{"intent": []}',
    "no_objeto": "[1, 2, 3]",
    "nan": '{"intent": "consulta", "params": {"delito": NaN}}',
    "profundo": '{"intent": "consulta", "tools": ' + "[" * 50_000 + "]" * 50_000 + "}",
    "4300_cifras": '{"intent": "consulta", "tools": [{"name": "rank_por_delito", "args": {"top_k": '
    + "9" * 5000
    + "}}]}",
    "delito_vacio": '{"intent": "consulta", "tools": [{"name": "rank_por_delito", "args": {"delito": []}}]}',
    "window_texto": '{"intent": "patrones", "tools": [{"name": "detectar_anomalias", "args": {"window": "abc"}}]}',
    "args_enormes": '{"intent": "consulta", "params": {"delito": ["' + "x" * 40_000 + '"]}}',
    "json_invalido": '{"intent": ',
}

# -- strategies -------------------------------------------------------------------------------

_SPECIAL = [
    None,
    [],
    {},
    "",
    " ",
    float("nan"),
    float("inf"),
    float("-inf"),
    10**20,
    -(10**20),
    2**53 + 1,
    10**5000,
    "G" * 1001,
    HUGE_TEXT,
    "\ud800",
    "a\x00b",
    b"bytes",
    ("GTO",),
    frozenset({"a"}),
    date(2024, 1, 1),
    object(),
    [0] * 150,
    {f"k{i}": i for i in range(150)},
]
HOSTILE_VALUE = st.one_of(
    st.sampled_from(_SPECIAL).map(copy.copy),  # a copy: a later edit of a drawn {} or [] must not change the table
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=30),
    st.sampled_from(INJECTIONS),
    st.integers(1, 80).map(deep_list),
    st.integers(1, 80).map(deep_dict),
    st.recursive(
        st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), st.text(max_size=8)),
        lambda c: st.one_of(st.lists(c, max_size=4), st.dictionaries(st.text(max_size=6), c, max_size=3)),
        max_leaves=8,
    ),
)

_TEXT_VALUES = st.one_of(
    st.sampled_from(
        [
            "GTO",
            "GTO.MUN.LEON",
            "homicidio_doloso",
            "homicidio_doloso, robo_a_casa_habitacion",
            "2024-01-01",
            "2024-02-30",
            "-1",
            "0",
            "NaN",
            "Infinity",
            "1e999",
            "9" * 5000,
            "[]",
            "{}",
            '["GTO"]',
            "[[1]]",
            "[" * 200 + "]" * 200,
            '{"a": ' * 40 + "1" + "}" * 40,
            '"sin cerrar',
            "[NaN]",
            "[" + "9" * 30 + "]",
            "G" * 70_000,
        ]
    ),
    st.sampled_from(INJECTIONS),
    st.text(max_size=40),
)
_ARG_NAMES = ["entidad_id", "delito", "nivel", "top_k", "from", "to", "window", "z_threshold", "metodo", "limit", "x"]


@st.composite
def text_plans(draw):
    """The text form: an ids line (good, huge, negative, versioned, garbage) then ``key: value`` lines."""
    ids = draw(
        st.one_of(
            st.lists(st.integers(-3, 16), min_size=1, max_size=5).map(lambda xs: "[" + ",".join(map(str, xs)) + "]"),
            st.sampled_from(["[6]", "6,9", "[10,11]", "[6@1.0.0]", "[6@9.9.9]", "[" + "9" * 5000 + "]", "[]", "x"]),
            st.integers(13, 400).map(lambda n: "[" + ",".join(["6"] * n) + "]"),
            st.text(max_size=20),
        )
    )
    lines = draw(
        st.lists(
            st.one_of(
                st.builds(lambda k, v: f"{k}: {v}", st.sampled_from(_ARG_NAMES), _TEXT_VALUES),
                st.text(max_size=30),
                st.sampled_from(["strict_time: sí", "strict_time: [1]", "# comentario", "sin dos puntos"]),
            ),
            max_size=8,
        )
    )
    return ids + "\n" + "\n".join(lines)


_TOKENS = ["NaN", "Infinity", "-Infinity", "1e999", "9" * 5000, '"' + "x" * 2000 + '"', "[" * 60 + "]" * 60, "[]"]


@st.composite
def json_text_plans(draw, plans):
    """JSON text of a schema plan with hostile tokens spliced in, cut short, or buried deep."""
    text = json.dumps(draw(plans), ensure_ascii=draw(st.booleans()))
    how = draw(st.sampled_from(["token", "token", "cut", "deep", "pretty", "bytes"]))
    if how == "token":
        at = draw(st.sampled_from([i for i, ch in enumerate(text) if ch in ":,["] or [0]))
        return text[: at + 1] + draw(st.sampled_from(_TOKENS)) + text[at + 1 :]
    if how == "cut":
        return text[: draw(st.integers(0, len(text)))]
    if how == "deep":
        depth = draw(st.sampled_from([17, 100, 1000, 30_000]))
        return '{"plan": [{"tool_id": 6, "args": {"delito": ' + "[" * depth + "]" * depth + "}}]}"
    if how == "pretty":
        return json.dumps(json.loads(text), indent=draw(st.integers(0, 8)))
    return text.encode("utf-8") + draw(st.binary(max_size=8))


def junk():
    """Whatever else arrives where a plan should: scalars, bytes, lists, objects without a plan, random text."""
    return st.one_of(
        HOSTILE_VALUE,
        st.text(max_size=200),
        st.binary(max_size=200),
        st.lists(HOSTILE_VALUE, max_size=3),
        st.dictionaries(st.sampled_from(["plan", "meta", "x"]), HOSTILE_VALUE, max_size=3),
        st.fixed_dictionaries({"plan": st.lists(HOSTILE_VALUE, max_size=4)}),
    )
