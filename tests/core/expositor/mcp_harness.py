"""Shared pieces of the MCP tests: a data folder over the bundled store, the example calls, one client session."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

from mcp import Client
from mcp.shared.exceptions import MCPError
from mcp_types import Implementation

from tests.conftest import FIXTURES

ROOT = Path(__file__).resolve().parents[3]
EXAMPLES = json.loads((FIXTURES / "mcp" / "tool_calls.json").read_text(encoding="utf-8"))
QUESTION = "¿Cuántas carpetas de violencia familiar hubo en Salamanca en 2024?"
LEAKS = ("Traceback", 'File "', "/work/", "Input should", "Field required", "Expecting ")
NO_LLM = ("OPENAI_API_KEY", "OPENAI_BASE_URL", "CASANDRA_LLM_MODEL")  # nothing may call the network


def data_over(bundled: Path, folder: Path) -> Path:
    """A data folder reading the bundled store (linked) with its own audit log, keys and artifacts."""
    folder.mkdir(parents=True)
    for entry in bundled.iterdir():
        if entry.name not in ("audit", "keys", "artifacts", "settings.json"):
            (folder / entry.name).symlink_to(entry)
    return folder


def child_env() -> dict[str, str]:
    """The environment of a spawned ``python -m core``: the project importable, no LLM endpoint."""
    env = {k: v for k, v in os.environ.items() if k not in NO_LLM}
    env["PYTHONPATH"] = str(ROOT)
    return env


def structured(result) -> Any:
    """A tool result's structured content, checked against its JSON text block (they must say the same)."""
    assert json.loads(result.content[-1].text) == result.structured_content
    return result.structured_content


async def exercise(server: Any, client_name: str, mode: str = "auto") -> dict:
    """Every call the tests look at, in one client session: tools, example calls, plans, bad ones, ask, resources."""
    out: dict = {"calls": {}, "plans": {}, "bad": {}, "resources": {}}
    async with Client(server, client_info=Implementation(name=client_name, version="1"), mode=mode) as client:
        out["tools"] = (await client.list_tools()).tools
        for call in EXAMPLES["calls"]:
            out["calls"][call["tool"]] = await client.call_tool(call["tool"], call["args"])
        for plan in EXAMPLES["plans"]:
            out["plans"][plan["name"]] = await client.call_tool(
                "execute_plan", {"plan": plan["plan"], "return_all": True}
            )
        for bad in EXAMPLES["bad"]:
            out["bad"][bad["name"]] = await client.call_tool(bad["tool"], bad["args"])
        out["ask"] = await client.call_tool("ask", {"question": QUESTION})
        out["resource_list"] = (await client.list_resources()).resources
        for resource in out["resource_list"]:
            out["resources"][str(resource.uri)] = json.loads(
                (await client.read_resource(resource.uri)).contents[0].text
            )
        try:
            await client.call_tool("herramienta_inexistente", {})
        except MCPError as exc:
            out["unknown"] = exc
    return out


def python() -> str:
    """The interpreter running the tests (the project's venv)."""
    return sys.executable
