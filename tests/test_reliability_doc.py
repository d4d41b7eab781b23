"""RELIABILITY.md stays true: every test it names exists, and every probe row names one."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "RELIABILITY.md"
_REF = re.compile(r"`(tests/[\w/]+\.py)(?:::(\w+))?`")


def _rows() -> list[str]:
    """The table rows of the document (header and separator rows left out)."""
    lines = [line for line in DOC.read_text(encoding="utf-8").splitlines() if line.startswith("| ")]
    return [line for line in lines if not line.startswith(("| #", "| Sonda")) and not set(line) <= set("|- ")]


def _refs() -> list[tuple[str, str | None]]:
    """Every (test file, test name or None) the document names."""
    return sorted({m.groups() for m in _REF.finditer(DOC.read_text(encoding="utf-8"))}, key=str)


@pytest.mark.parametrize("path,name", _refs(), ids=lambda v: str(v))
def test_each_named_test_exists(path, name):
    source = ROOT / path
    assert source.is_file(), f"RELIABILITY.md names {path}, which does not exist"
    if name:
        assert re.search(rf"^def {name}\(", source.read_text(encoding="utf-8"), re.M), f"{path} has no {name}"


def test_every_probe_row_names_a_test_and_a_figure():
    rows = _rows()
    assert len(rows) >= 19
    for row in rows:
        assert _REF.search(row), f"a row names no test: {row[:80]}"
    assert not re.search(r"\b(?:TODO|TBD|XXX)\b", DOC.read_text(encoding="utf-8")), "a figure was left as a placeholder"
