"""The plan editor's form and text logic, as pure functions (no Streamlit here).

``fields_for(schema)`` turns a tool's resolved ``args_schema`` into widget descriptions;
``initial_value``/``args_from_values`` convert between plan arguments and widget values;
``check_plan`` validates any plan form and lists every problem; ``plan_diff`` compares the
canonical JSON of two plans. The editor page only draws what these functions describe.
"""

from __future__ import annotations

import difflib
import itertools
import json
import logging
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from core.engine.limits import MAX_PLAN_BYTES, value_problems
from core.engine.plan import canonical_plan, parse_plan, plan_to_text
from core.engine.validate import validate_plan
from core.errors import CasandraError, ErrorGroup, Problem

log = logging.getLogger(__name__)

DATE_FIELDS = ("from", "to", "base_from", "base_to")
INTERNAL_PROBLEM = {
    "code": "COMPUTE_ERROR",
    "details": "Error interno al revisar el plan.",
    "hints": ("Revise el plan; si el problema persiste, avise al equipo de datos.",),
}
DATE_PATTERN = "^[0-9]{4}-[0-9]{2}-[0-9]{2}$"
_UIDS = itertools.count(1)


@dataclass(frozen=True)
class FieldSpec:
    """One argument of a tool as the form draws it.

    kind: enum (selectbox), multi (multiselect), date (date_input), integer/number
    (number_input with bounds), boolean (checkbox) or text (text_input).
    """

    name: str
    kind: str
    help: str = ""
    required: bool = False
    options: tuple = ()
    minimum: float | None = None
    maximum: float | None = None
    default: Any = None
    scalar_ok: bool = False  # multi: a single value may be written as a plain string (oneOf string|array)

    @property
    def label(self) -> str:
        """Widget label: the contract key, marked when required."""
        return f"{self.name} *" if self.required else self.name


def _array_variant(prop: dict) -> dict | None:
    for variant in prop.get("oneOf") or prop.get("anyOf") or ():
        if variant.get("type") == "array":
            return variant
    return None


def _field(name: str, prop: dict, required: bool) -> FieldSpec:
    common = {"name": name, "help": prop.get("description", ""), "required": required, "default": prop.get("default")}
    array = _array_variant(prop) if prop.get("type") != "array" else prop
    if array is not None:
        options = array.get("items", {}).get("enum") or next(
            (v.get("enum") for v in prop.get("oneOf") or () if v.get("enum")), ()
        )
        return FieldSpec(kind="multi", options=tuple(options or ()), scalar_ok=prop.get("type") != "array", **common)
    if name in DATE_FIELDS or prop.get("pattern") == DATE_PATTERN or prop.get("format") == "date":
        return FieldSpec(kind="date", **common)
    if "enum" in prop:
        return FieldSpec(kind="enum", options=tuple(prop["enum"]), **common)
    kind = {"integer": "integer", "number": "number", "boolean": "boolean"}.get(prop.get("type"), "text")
    return FieldSpec(kind=kind, minimum=prop.get("minimum"), maximum=prop.get("maximum"), **common)


def fields_for(schema: dict) -> list[FieldSpec]:
    """Widget descriptions for every property of a resolved ``args_schema``, in schema order."""
    required = set(schema.get("required") or ())
    return [_field(name, prop or {}, name in required) for name, prop in (schema.get("properties") or {}).items()]


def initial_value(spec: FieldSpec, args: dict) -> Any:
    """The widget value for an argument (falls back to the schema default; None = unset)."""
    value = args.get(spec.name, spec.default)
    if spec.kind == "date":
        try:
            return date.fromisoformat(str(value)) if value else None
        except ValueError:
            return None
    if spec.kind == "multi":
        items = value if isinstance(value, list) else [value] if value not in (None, "") else []
        return [v for v in items if not spec.options or v in spec.options]
    if spec.kind == "boolean":
        return bool(value)
    if spec.kind == "text":
        return "" if value is None else str(value)
    if spec.kind == "enum":
        return value if value in spec.options else None
    return value


def args_from_values(fields: list[FieldSpec], values: dict) -> dict:
    """Plan arguments from widget values; unset values (None, '', []) are left out."""
    args: dict[str, Any] = {}
    for spec in fields:
        value = values.get(spec.name)
        if (
            value is None
            or value == ""
            or value == []
            or (spec.kind == "boolean" and value is False and spec.default is None)
        ):
            continue
        if spec.kind == "date":
            value = value.isoformat() if isinstance(value, date) else str(value)
        elif spec.kind == "multi":
            value = list(value)
            value = value[0] if spec.scalar_ok and len(value) == 1 else value
        elif spec.kind == "integer":
            value = int(value)
        elif spec.kind == "number":
            value = float(value)
        args[spec.name] = value
    return args


def form_problems(fields: list[FieldSpec], args: dict) -> list[str]:
    """Why the form cannot show these arguments faithfully ([] when it can)."""
    names = {f.name for f in fields}
    out = [f"argumento desconocido {k!r}" for k in args if k not in names]
    for spec in fields:
        if spec.name not in args:
            continue
        value = args[spec.name]
        if spec.kind in ("integer", "number"):
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                out.append(f"{spec.name} no es numérico")
            elif (spec.minimum is not None and value < spec.minimum) or (
                spec.maximum is not None and value > spec.maximum
            ):
                out.append(f"{spec.name} fuera de rango ({value})")
            elif spec.kind == "integer" and value != int(value):
                out.append(f"{spec.name} no es entero")
        elif spec.kind == "date" and initial_value(spec, args) is None:
            out.append(f"{spec.name} no es una fecha AAAA-MM-DD")
        elif spec.kind == "enum" and value not in spec.options:
            out.append(f"{spec.name}={value!r} no está entre las opciones")
        elif spec.kind == "multi":
            items = value if isinstance(value, list) else [value]
            if not items:  # the form would drop it and show a different, valid plan
                out.append(f"{spec.name} es una lista vacía")
            elif spec.options and any(v not in spec.options for v in items):
                out.append(f"{spec.name} tiene valores fuera del catálogo")
        elif spec.kind == "boolean" and not isinstance(value, bool):
            out.append(f"{spec.name} no es verdadero/falso")
    return out


# --- steps of the form -----------------------------------------------------------------------


def new_step(tool_id: int, args: dict | None = None) -> dict:
    """A form step with a fresh uid (widget keys follow the uid when steps move)."""
    return {"uid": next(_UIDS), "tool_id": int(tool_id), "args": dict(args or {})}


def steps_from_plan(plan: dict) -> list[dict]:
    """Form steps from a plan dict ({"plan": [{tool_id, args}], ...})."""
    return [
        new_step(s.get("tool_id", 0), s.get("args") or {}) for s in (plan or {}).get("plan", []) if isinstance(s, dict)
    ]


def plan_from_steps(steps: list[dict], meta: dict | None = None) -> dict:
    """The plan dict the form describes."""
    return {"plan": [{"tool_id": s["tool_id"], "args": dict(s["args"])} for s in steps], "meta": dict(meta or {})}


def move_step(steps: list[dict], index: int, offset: int) -> list[dict]:
    """A copy with step ``index`` moved by ``offset`` (-1 up, +1 down); out of range: unchanged."""
    target = index + offset
    out = list(steps)
    if 0 <= index < len(out) and 0 <= target < len(out):
        out[index], out[target] = out[target], out[index]
    return out


def remove_step(steps: list[dict], index: int) -> list[dict]:
    """A copy without step ``index``."""
    return [s for i, s in enumerate(steps) if i != index]


def plan_form_problems(plan: dict, catalog) -> list[str]:
    """Why a plan cannot be edited as a form ([] when every step and value fits its widgets)."""
    out = []
    for i, step in enumerate((plan or {}).get("plan", [])):
        spec = catalog.spec_for(step.get("tool_id", 0)) if isinstance(step, dict) else None
        if spec is None:
            out.append(f"paso {i + 1}: herramienta desconocida")
            continue
        out += [
            f"paso {i + 1}: {p}"
            for p in form_problems(fields_for(catalog.resolved_schemas[spec.tool_id]), step.get("args") or {})
        ]
    return out


# --- text form, validation, diff ---------------------------------------------------------------


def parse_any(raw: Any, catalog) -> dict:
    """Any plan form (text, JSON text, dict) as a plain plan dict; raises ErrorGroup (only) when unreadable."""
    try:
        return parse_plan(raw, catalog).model_dump()
    except CasandraError:
        raise
    except Exception:  # the last resort: the editor shows a Spanish problem, never a traceback
        log.exception("plan parsing failed unexpectedly")
        raise ErrorGroup([Problem(**INTERNAL_PROBLEM)]) from None


def _canonical_or_none(raw: Any, catalog) -> dict | None:
    """The canonical form of a structurally readable plan (None when unreadable), for the diff."""
    try:
        return canonical_plan(parse_plan(parse_any(raw, catalog), catalog))
    except CasandraError:
        return None


def plan_as_text(plan: dict, catalog) -> str:
    """The simple text form when it says the same plan, else pretty JSON ('' for what cannot be shown safely)."""
    try:
        parsed = parse_plan(plan, catalog)
        text = plan_to_text(parsed)
        if canonical_plan(parse_plan(text, catalog)) == canonical_plan(parsed):
            return text
    except CasandraError:
        pass
    if value_problems(plan):  # too big, too deep, NaN…: the problems say why; never dumped as it is
        return ""
    try:
        return json.dumps(plan, ensure_ascii=False, indent=2)
    except (TypeError, ValueError):
        return ""


@dataclass
class Check:
    """What validation says about a plan: ok + query_hash, or every problem."""

    ok: bool
    query_hash: str | None = None
    problems: list[dict] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    canonical: dict | None = None  # the normalized plan (valid) or the parsed one (structurally readable)


def check_plan(raw: Any, catalog, metadata: dict | None) -> Check:
    """Validate a plan (any form) and collect every problem with its code and path; never raises."""
    try:
        vp = validate_plan(raw, catalog, metadata)
    except ErrorGroup as exc:
        return Check(ok=False, problems=[p.as_dict() for p in exc.problems], canonical=_canonical_or_none(raw, catalog))
    except CasandraError as exc:
        return Check(ok=False, problems=[p.as_dict() for p in exc.problems])
    except Exception:  # the last resort: a Spanish problem on the page, never a traceback
        log.exception("plan check failed unexpectedly")
        return Check(ok=False, problems=[Problem(**INTERNAL_PROBLEM).as_dict()])
    return Check(ok=True, query_hash=vp.query_hash, warnings=list(vp.warnings), canonical=canonical_plan(vp.plan))


def plan_diff(original: dict | None, edited: dict | None) -> str:
    """Unified diff of the canonical JSON of two plans ('' when equal)."""

    def dump(plan: dict | None) -> list[str]:
        return json.dumps(plan, ensure_ascii=False, indent=2, sort_keys=True).splitlines() if plan else []

    return "\n".join(difflib.unified_diff(dump(original), dump(edited), "plan original", "plan editado", lineterm=""))


# --- editor state (any MutableMapping: st.session_state or a dict in tests) ----------------------


def load_into(state, raw: Any, catalog, metadata: dict | None, source: str) -> None:
    """Start editing ``raw`` (a plan dict, text or JSON text; None = from scratch)."""
    plan = None
    if raw is not None:
        try:
            plan = parse_any(raw, catalog)
        except CasandraError:
            plan = None
    check = check_plan(raw, catalog, metadata) if raw is not None else Check(ok=False)
    text = raw if isinstance(raw, str) else (plan_as_text(raw, catalog) if raw else "")
    unreadable = "no se pudo leer" + (f": {check.problems[0]['details'].rstrip('.')}" if check.problems else "")
    state["editor_original"] = check.canonical
    state["editor_original_hash"] = check.query_hash
    state["editor_source"] = source
    state["editor_steps"] = steps_from_plan(plan) if plan else []
    state["editor_meta"] = {"strict_time": bool(((plan or {}).get("meta") or {}).get("strict_time"))}
    state["editor_text"] = text if len(text) <= MAX_PLAN_BYTES else ""  # never megabytes in the text box
    fits = plan is not None and not plan_form_problems(plan, catalog)
    state["editor_mode"] = "form" if (fits or raw is None) else "text"
    state["editor_notice"] = (
        None
        if state["editor_mode"] == "form" or raw is None
        else (
            "Este plan se edita como texto: "
            + "; ".join(plan_form_problems(plan, catalog) if plan else [unreadable])
            + "."
        )
    )
    state["editor_result"] = None
    state.pop("ed_strict", None)


def switch_mode(state, catalog) -> None:
    """Keep form and text in step when the user changes ``editor_mode`` (its on_change)."""
    if state["editor_mode"] == "text":
        plan = plan_from_steps(state["editor_steps"], state["editor_meta"])
        state["editor_text"] = plan_as_text(plan, catalog) if plan["plan"] else ""
        state["editor_notice"] = None
        return
    try:
        plan = parse_any(state.get("editor_text") or "", catalog)
    except CasandraError as exc:
        state["editor_mode"], state["editor_notice"] = "text", f"El texto no es un plan legible: {exc.details}"
        return
    problems = plan_form_problems(plan, catalog)
    if problems:
        state["editor_mode"], state["editor_notice"] = (
            "text",
            "El formulario no puede mostrar: " + "; ".join(problems) + ".",
        )
        return
    state["editor_steps"], state["editor_notice"] = steps_from_plan(plan), None
    state["editor_meta"] = {"strict_time": bool(plan["meta"].get("strict_time"))}
    state.pop("ed_strict", None)


def option_labels(catalog) -> dict:
    """Readable names for enum values: 'León (GTO.MUN.LEON)', 'Homicidio doloso (homicidio_doloso)'."""
    out = {e["entidad_id"]: f"{e['label']} ({e['entidad_id']})" for e in catalog.entities}
    out.update({c["delito"]: f"{c.get('subtipo') or c['delito']} ({c['delito']})" for c in catalog.crimes})
    out.update({m["metodo"]: f"{m.get('modalidad') or m['metodo']} ({m['metodo']})" for m in catalog.methods})
    return out


def last_plan(turns: list) -> dict | None:
    """The plan of the latest turn that ran one (None when no turn did)."""
    return next((t.plan for t in reversed(turns or []) if getattr(t, "plan", None)), None)
