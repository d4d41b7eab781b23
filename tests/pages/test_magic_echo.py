"""No page echoes Python objects through Streamlit's magic.

Streamlit runs each page as a script and writes the value of every bare expression statement that is not a call,
a docstring, a yield or an await (``streamlit/runtime/scriptrunner/magic.py``). A conditional expression used as a
statement (``st.json(v) if ok else st.code(v)``) is such a statement: its value, a DeltaGenerator, was drawn as
«Creator of Delta protobuf messages…» under every contract of Auditoría's record detail.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPTS = sorted([*(ROOT / "pages").glob("*.py"), ROOT / "app.py"])
BLOCKS = ("body", "orelse", "finalbody", "handlers")


def echoed(source: str) -> list[tuple[int, str]]:
    """(line, statement) of every expression statement Streamlit's magic would write on the page."""
    found = []
    for node in ast.walk(ast.parse(source)):
        for block in BLOCKS:
            statements = getattr(node, block, None)
            if not isinstance(statements, list):
                continue
            for index, statement in enumerate(statements):
                if not isinstance(statement, ast.Expr):
                    continue
                value = statement.value
                if isinstance(value, ast.Call | ast.Yield | ast.YieldFrom | ast.Await):
                    continue
                if index == 0 and isinstance(value, ast.Constant) and isinstance(value.value, str):
                    continue  # a docstring
                found.append((statement.lineno, ast.unparse(statement)[:80]))
    return found


@pytest.mark.parametrize(
    "source,lines",
    [
        ("st.json(v) if ok else st.code(v)\n", [1]),
        ("x = 1\nx\n", [2]),
        ("for v in vs:\n    st.json(v) if v else None\n", [2]),
        ("with box:\n    a and st.write(a)\n", [2]),
        ('"""Doc."""\nst.title("t")\n(st.success if ok else st.error)(text)\n', []),
        ("def f():\n    '''Doc.'''\n    yield 1\n", []),
    ],
    ids=["conditional", "name", "in-a-loop", "boolean", "calls-and-docstring", "yield"],
)
def test_the_scan_finds_what_magic_echoes(source, lines):
    assert [line for line, _ in echoed(source)] == lines


@pytest.mark.parametrize("script", SCRIPTS, ids=[p.name for p in SCRIPTS])
def test_no_page_has_a_statement_magic_would_echo(script):
    assert echoed(script.read_text(encoding="utf-8")) == []
