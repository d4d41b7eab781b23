"""What the LLM planner is told: the JSON Schema of a plan over the allowed tools, and the Spanish prompt.

Both are built from the catalog and the dataset's metadata, so a new tool or a new month of data changes
them with no edit here. The big closed enums (entities, crimes, methods) go once into ``$defs``.
"""

from __future__ import annotations

import json
from datetime import date
from typing import Any

from core.engine.catalog import Catalog
from core.engine.plan import MAX_STEPS
from core.text import shift_months


def allowed_specs(catalog: Catalog, allowed_status) -> list:
    """The tool specs the planner may use (stable, plus experimental when lab is approved)."""
    return [s for s in catalog.specs if s.status in tuple(allowed_status)]


def _compact(schema: Any, defs: dict, named: dict) -> Any:
    """Drop nested ``$schema``; move the big closed enums into ``$defs``."""
    if isinstance(schema, list):
        return [_compact(s, defs, named) for s in schema]
    if not isinstance(schema, dict):
        return schema
    enum = schema.get("enum")
    if isinstance(enum, list) and tuple(enum) in named:
        name = named[tuple(enum)]
        defs.setdefault(name, {k: v for k, v in schema.items() if k != "default"})
        return {"$ref": f"#/$defs/{name}"}
    return {k: _compact(v, defs, named) for k, v in schema.items() if k != "$schema"}


def plan_json_schema(catalog: Catalog, allowed_status=("stable",), compact: bool = True) -> dict:
    """The JSON Schema of ``LlmPlan`` with ``plan.items`` a oneOf over the allowed tools."""
    defs: dict = {}
    named = {tuple(catalog.enum(src)): src for src in ("entidades", "delitos", "metodos")} if compact else {}
    variants = [
        {
            "type": "object",
            "properties": {
                "tool_id": {"const": s.tool_id},
                "args": _compact(catalog.resolved_schemas[s.tool_id], defs, named)
                if compact
                else catalog.resolved_schemas[s.tool_id],
            },
            "required": ["tool_id", "args"],
            "additionalProperties": False,
        }
        for s in allowed_specs(catalog, allowed_status)
    ]
    schema = {
        "type": "object",
        "properties": {
            "plan": {"type": "array", "minItems": 1, "maxItems": MAX_STEPS, "items": {"oneOf": variants}},
            "rationale": {"type": "string", "maxLength": 300},
        },
        "required": ["plan", "rationale"],
        "additionalProperties": False,
    }
    return {**schema, "$defs": defs} if defs else schema


def _example(catalog: Catalog, metadata: dict, allowed_status) -> str:
    """One plan for the last 12 months, built from the catalog (shows how to resolve dates)."""
    spec = next(
        (
            s
            for s in allowed_specs(catalog, allowed_status)
            if s.kind == "analysis" and {"entidad_id", "delito", "from", "to"} <= s.arg_names
        ),
        None,
    )
    crimes = [c for c in catalog.enum("delitos") if c in metadata.get("coverage", {})]
    if spec is None or not crimes:
        return ""
    hi = date.fromisoformat(metadata["max_date"])
    lo = shift_months(hi, -11)
    delito = "homicidio_doloso" if "homicidio_doloso" in crimes else crimes[0]
    args = {"entidad_id": "GTO", "delito": delito, "from": lo.isoformat(), "to": hi.isoformat()}
    plan = {"plan": [{"tool_id": spec.tool_id, "args": args}], "rationale": f"{spec.name}, últimos 12 meses de datos."}
    return f"Ejemplo («{delito.replace('_', ' ')} en Guanajuato, últimos 12 meses»): {json.dumps(plan, ensure_ascii=False)}"


_RULES = """Eres el planificador de Casandra, un motor auditado de análisis delictivo de Guanajuato (datos SESNSP).
Convierte la pregunta del analista en un plan de herramientas del catálogo.
Reglas:
- Responde SOLO con un objeto JSON {{"plan": [{{"tool_id": N, "args": {{...}}}}], "rationale": "..."}}, sin texto adicional.
- Nunca escribas SQL ni código: usa solo las herramientas y los tool_id del catálogo, con sus argumentos.
- entidad_id: 'GTO' para el estado o 'GTO.MUN.<MUNICIPIO>', p. ej. GTO.MUN.LEON.
- Fechas en formato AAAA-MM-DD; la ventana se alinea a meses completos.
- Los datos van de {lo} a {hi}. Resuelve las expresiones relativas ('últimos 12 meses', 'el año pasado', \
'en lo que va del año') contra {hi}, nunca contra la fecha de hoy.
- Fuera de la cobertura de un delito no hay datos (un mes no publicado no es un cero).
- rationale: una frase en español de máximo 300 caracteres."""


def system_prompt(catalog: Catalog, metadata: dict, allowed_status=("stable",), schema: dict | None = None) -> str:
    """The Spanish instructions: tools, watermark, coverage, rules (and the schema when given)."""
    lo, hi = metadata["min_date"], metadata["max_date"]
    tools = []
    for s in allowed_specs(catalog, allowed_status):
        required = set(s.args_schema.get("required", []))
        args = ", ".join(f"{a}{'*' if a in required else ''}" for a in s.args_schema.get("properties", {}))
        tools.append(f"- {s.tool_id} {s.name}: {s.summary} Argumentos: {args or 'ninguno'}.")
    coverage = [
        f"- {k}: {v.get('desde', '')[:7]}..{v.get('hasta', '')[:7]}"
        for k, v in sorted(metadata.get("coverage", {}).items())
    ]
    parts = [
        _RULES.format(lo=lo, hi=hi),
        "Herramientas (tool_id nombre: resumen; * = argumento obligatorio):",
        *tools,
        "Cobertura por delito (primer..último mes publicado):",
        *(coverage or ["- sin cobertura registrada"]),
        "entidad_id válidos: " + ", ".join(catalog.enum("entidades")),
        "Claves de delito válidas: " + ", ".join(catalog.enum("delitos")),
        _example(catalog, metadata, allowed_status),
    ]
    if schema is not None:
        parts.append("La respuesta debe cumplir este JSON Schema:\n" + json.dumps(schema, ensure_ascii=False))
    return "\n".join(p for p in parts if p)
