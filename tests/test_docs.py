"""Documentation is part of the contract: every setting and every command is documented."""
from __future__ import annotations

import re
from pathlib import Path

from core.engine.catalog import load_tool_specs
from core.cli import build_parser
from core.config import Limits

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_every_environment_setting_is_documented():
    used = set()
    for path in (ROOT / "core").rglob("*.py"):
        used |= set(re.findall(r"CASANDRA_[A-Z_]*[A-Z](?![A-Z_*])", path.read_text(encoding="utf-8")))
    assert used, "no settings found"
    missing = sorted(v for v in used if f"`{v}`" not in README)
    assert not missing, f"README lacks: {missing}"


def test_every_limit_has_an_environment_variable():
    for name in Limits.__dataclass_fields__:
        assert f"CASANDRA_{name.upper()}" in README


def test_every_cli_command_is_documented():
    parser = build_parser()
    sub = next(a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction")
    for command in sub.choices:
        assert f"python -m core {command}" in README, command


def test_every_tool_is_documented():
    for spec in load_tool_specs():
        assert f"`{spec.name}" in README, spec.name


def test_quick_start_is_exactly_two_commands():
    block = README.split("## Quick start", 1)[1].split("```", 2)[1]
    assert [l for l in block.splitlines() if l.strip()] == ["make run", "make test"]
