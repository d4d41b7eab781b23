"""Documentation is part of the contract: every setting and every command is documented."""

from __future__ import annotations

import re
from pathlib import Path

from core.cli import build_parser
from core.config import Limits
from core.engine.catalog import ToolSpec, load_tool_specs

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


def undocumented(spec: ToolSpec) -> list[str]:
    """What a tool spec leaves unsaid: its summary (a sentence) and a description of every argument."""
    out = (
        []
        if len(spec.summary) >= 30 and spec.summary[0].isupper() and spec.summary.endswith(".")
        else [f"{spec.name}: summary"]
    )
    for name, prop in spec.args_schema.get("properties", {}).items():
        if not isinstance(prop.get("description"), str) or len(prop["description"].strip()) < 10:
            out.append(f"{spec.name}.{name}: description")
    return out


def test_every_tool_spec_documents_its_summary_and_arguments(monkeypatch):
    monkeypatch.setenv("CASANDRA_TOOL_DIRS", str(ROOT / "tests" / "fixtures" / "toy_tool"))  # an added tool too
    specs = load_tool_specs()
    assert "total_juguete" in {s.name for s in specs}
    assert [p for s in specs for p in undocumented(s)] == []


def test_a_spec_without_its_documentation_is_caught():
    rank = next(s for s in load_tool_specs() if s.name == "rank_por_delito")
    props = {
        k: {x: y for x, y in v.items() if x != "description"} if k == "top_k" else v
        for k, v in rank.args_schema["properties"].items()
    }
    bare = rank.model_copy(
        update={"summary": "ranking de cosas sin punto", "args_schema": {**rank.args_schema, "properties": props}}
    )
    assert undocumented(bare) == ["rank_por_delito: summary", "rank_por_delito.top_k: description"]


def test_quick_start_is_exactly_two_commands():
    block = README.split("## Quick start", 1)[1].split("```", 2)[1]
    assert [line for line in block.splitlines() if line.strip()] == ["make run", "make test"]
