"""Plans (docs/contracts/001_casandra_v0.md §4.3): the simple text form and the normalized JSON form.

Text form: a first line with tool ids (``[6,9]``), then ``key: value`` lines; each key goes
to every tool in the list whose schema accepts it. Both forms normalize to one canonical
JSON plan; ``query_hash`` = sha256(canonical plan + catalog_version + dataset_version).
Every form is measured against ``core.engine.limits`` before it is parsed or validated.
"""

from __future__ import annotations

import hashlib
import re
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from core.engine.catalog import Catalog, canonical_json
from core.engine.limits import MAX_STEPS, JsonSyntaxError, check_size, check_value, load_json, safe_int, short
from core.errors import ErrorGroup, Problem, ProblemCollector, pydantic_problems

META_KEYS = ("catalog_version", "dataset_version", "strict_time")


class PlanStep(BaseModel):
    """One tool call: id, optional version (latest compatible when absent) and arguments."""

    model_config = ConfigDict(extra="forbid")
    tool_id: int = Field(ge=1, le=10_000)
    tool_version: str | None = Field(default=None, max_length=20)
    args: dict[str, Any] = Field(default_factory=dict)


class PlanMeta(BaseModel):
    """Plan metadata: the versions it was written against and the time policy."""

    model_config = ConfigDict(extra="forbid")
    catalog_version: str | None = Field(default=None, max_length=80)
    dataset_version: str | None = Field(default=None, max_length=80)
    strict_time: bool = False


class Plan(BaseModel):
    """A pipeline of tool calls."""

    model_config = ConfigDict(extra="forbid")
    plan: list[PlanStep] = Field(min_length=1, max_length=MAX_STEPS)
    meta: PlanMeta = Field(default_factory=PlanMeta)


_IDS_LINE = re.compile(r"^\[?\s*([0-9]+(?:@[0-9.]+)?(?:\s*,\s*[0-9]+(?:@[0-9.]+)?)*)\s*\]?$")
_KEY_LINE = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)\s*:\s*(.*)$")
_NUMBER = re.compile(r"^-?\d+(\.\d+)?$")


def _value(text: str) -> Any:
    """Scalar or list value of a text-plan line."""
    text = text.strip()
    if text.startswith(("[", "{", '"')):
        try:
            return load_json(text, "El valor")
        except JsonSyntaxError:  # not JSON: read as text below (too deep, NaN or a huge number is refused)
            pass
    if "," in text:
        return [_value(part) for part in text.split(",") if part.strip()]
    low = text.lower()
    if low in ("true", "false"):
        return low == "true"
    if _NUMBER.match(text):
        if "." in text:
            return float(text)
        number = safe_int(text)
        return text if number is None else number  # a 5,000-digit "number" stays text; the schema refuses it
    return text


def parse_text_plan(text: str, catalog: Catalog) -> dict:
    """Text form → plan dict (not yet validated); every syntax problem collected."""
    problems = ProblemCollector()
    lines = [line.strip() for line in text.replace("\r\n", "\n").split("\n")]
    lines = [line for line in lines if line and not line.startswith("#")]
    if not lines:
        raise ErrorGroup(
            [Problem("INVALID_PAYLOAD", "El plan está vacío.", ("Ejemplo: [6,9] seguido de líneas clave: valor",))]
        )
    head = _IDS_LINE.match(lines[0])
    steps: list[dict] = []
    if not head:
        problems.add(
            "INVALID_PAYLOAD",
            f"La primera línea debe listar herramientas, p. ej. [6,9]; se leyó: {lines[0][:60]!r}",
            ["Use los tool_id del catálogo: python -m core catalog"],
            "plan",
        )
    else:
        items = head.group(1).split(",")
        if len(items) > MAX_STEPS:
            raise ErrorGroup(
                [
                    Problem(
                        "RESOURCE_LIMIT",
                        f"El plan tiene {len(items)} pasos; el límite es {MAX_STEPS}.",
                        ("Divida el análisis en varios planes.",),
                        "plan",
                    )
                ]
            )
        for item in items:
            tid, _, version = item.strip().partition("@")
            number = safe_int(tid)
            if number is None:
                problems.add("INVALID_PAYLOAD", f"tool_id fuera de rango: {short(tid, 20)}.", path="plan")
                continue
            steps.append({"tool_id": number, "tool_version": version or None, "args": {}})
    args: dict[str, Any] = {}
    meta: dict[str, Any] = {}
    for n, line in enumerate(lines[1:], start=2):
        m = _KEY_LINE.match(line)
        if not m:
            problems.add(
                "INVALID_PAYLOAD", f"Línea {n} no tiene la forma clave: valor: {short(line, 60)}", path=f"linea {n}"
            )
            continue
        try:
            key, value = m.group(1), _value(m.group(2))
        except ErrorGroup as exc:
            problems.extend(exc)
            continue
        target = meta if key in META_KEYS else args
        if key in target:
            problems.add("INVALID_PAYLOAD", f"La clave {short(key)} aparece dos veces.", path=key[:40])
        target[key] = value
    for key, value in args.items():
        takers = [s for s in steps if (spec := catalog.spec_for(s["tool_id"])) and key in spec.arg_names]
        if not takers and all(catalog.spec_for(s["tool_id"]) for s in steps):
            problems.add(
                "INVALID_PAYLOAD",
                f"Ninguna herramienta del plan acepta el argumento {short(key)}.",
                ["Revise los argumentos en el catálogo."],
                key[:40],
            )
        for s in takers:
            s["args"][key] = value
    problems.raise_if_any()
    if "strict_time" in meta and not isinstance(meta["strict_time"], bool):
        meta["strict_time"] = str(meta["strict_time"]).lower() in ("true", "1", "si", "sí")
    return {"plan": steps, "meta": meta}


def parse_plan(raw: str | bytes | dict | Plan, catalog: Catalog) -> Plan:
    """Any accepted form (text, JSON text, bytes, dict, Plan) → a structurally valid Plan within the limits.

    Size and depth are measured before any parsing, every value is checked against
    ``core.engine.limits`` before the model reads it; anything else raises one ErrorGroup.
    """
    if isinstance(raw, Plan):
        data: Any = raw.model_dump()
    elif isinstance(raw, (bytes, bytearray)):
        check_size(raw)
        return parse_plan(bytes(raw).decode("utf-8", errors="replace"), catalog)
    elif isinstance(raw, str):
        check_size(raw)
        stripped = raw.strip()
        data = load_json(stripped) if stripped.startswith("{") else parse_text_plan(stripped, catalog)
    else:
        data = raw
    if not isinstance(data, dict):
        raise ErrorGroup([Problem("INVALID_PAYLOAD", "El plan debe ser un objeto JSON con la clave 'plan'.")])
    steps = data.get("plan")
    if isinstance(steps, (list, tuple)) and len(steps) > MAX_STEPS:
        raise ErrorGroup(
            [
                Problem(
                    "RESOURCE_LIMIT",
                    f"El plan tiene {len(steps):,} pasos; el límite es {MAX_STEPS}.".replace(",", "."),
                    ("Divida el análisis en varios planes.",),
                    "plan",
                )
            ]
        )
    check_value(data)
    try:
        return Plan.model_validate(data)
    except ValidationError as exc:
        raise ErrorGroup(pydantic_problems(exc)) from exc


def canonical_plan(plan: Plan) -> dict:
    """The JSON form used for hashing and storage (sorted keys, versions filled)."""
    return {
        "plan": [
            {"tool_id": s.tool_id, "tool_version": s.tool_version, "args": dict(sorted(s.args.items()))}
            for s in plan.plan
        ],
        "meta": {"strict_time": plan.meta.strict_time},
    }


def query_hash(plan: Plan, catalog_version: str, dataset_version: str | None) -> str:
    """sha256 of the canonical plan + catalog_version + dataset_version."""
    blob = canonical_json(canonical_plan(plan)) + "|" + catalog_version + "|" + (dataset_version or "")
    return "sha256:" + hashlib.sha256(blob.encode("utf-8")).hexdigest()


def plan_to_text(plan: Plan) -> str:
    """The simple text form of a plan whose tools share their arguments."""
    ids = ",".join(str(s.tool_id) for s in plan.plan)
    merged: dict[str, Any] = {}
    for s in plan.plan:
        merged.update(s.args)
    lines = [f"[{ids}]"]
    for key, value in merged.items():
        lines.append(f"{key}: {', '.join(map(str, value)) if isinstance(value, list) else value}")
    if plan.meta.strict_time:
        lines.append("strict_time: true")
    return "\n".join(lines)
