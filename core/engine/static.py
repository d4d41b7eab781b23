"""Static checks of one plan step (docs/contracts/001_casandra_v0.md C.8): tool, version, arguments, catalog values.

The tool and its version must exist; the arguments are checked against the spec's ``args_schema``
with a validator whose numbers are finite (NaN and ±infinity compare false to every bound, so a plain
validator lets them through); entities, crimes and methods must exist in the data, with a fuzzy
suggestion computed on a value's first characters only. Every problem is collected, in Spanish and
with its path; a step's arguments are normalized (defaults, one-element lists) only when it has none.
"""

from __future__ import annotations

import math

from jsonschema import Draft202012Validator, validators
from rapidfuzz import process

from core.engine.catalog import Catalog, ToolSpec
from core.engine.limits import SUGGEST_CHARS, short
from core.engine.plan import PlanStep
from core.errors import ProblemCollector

ENUM_SOURCES = {"entidad_id": "entidades", "delito": "delitos", "metodo": "metodos"}
MAX_SUGGESTIONS = 5  # unknown values of one step that get a fuzzy suggestion (each scans the whole catalog)


def _finite(checker, instance) -> bool:
    """JSON Schema's number, without NaN and ±infinity (which compare false to every bound)."""
    return Draft202012Validator.TYPE_CHECKER.is_type(instance, "number") and math.isfinite(instance)


def _finite_integer(checker, instance) -> bool:
    return Draft202012Validator.TYPE_CHECKER.is_type(instance, "integer") and math.isfinite(instance)


ArgsValidator = validators.extend(
    Draft202012Validator,
    type_checker=Draft202012Validator.TYPE_CHECKER.redefine_many({"number": _finite, "integer": _finite_integer}),
)
_VALIDATORS: dict[int, tuple[ToolSpec, object]] = {}


def args_validator(spec: ToolSpec):
    """The (cached) validator of a spec's ``args_schema``: Draft 2020-12 with finite numbers only."""
    cached = _VALIDATORS.get(id(spec))
    if cached is None or cached[0] is not spec:
        cached = (spec, ArgsValidator(spec.args_schema))
        _VALIDATORS[id(spec)] = cached
    return cached[1]


def _semver(v: str) -> tuple[int, ...]:
    return tuple(int(x) for x in v.split("."))


_TYPE_NAMES = {
    "string": "texto",
    "integer": "un número entero",
    "number": "un número finito",
    "boolean": "verdadero o falso",
    "array": "una lista",
    "object": "un objeto",
    "null": "nulo",
}
_RANGE_WORDS = {
    "minimum": "mínimo",
    "maximum": "máximo",
    "exclusiveMinimum": "mayor que",
    "exclusiveMaximum": "menor que",
    "minItems": "mínimo de elementos",
    "maxItems": "máximo de elementos",
    "minLength": "mínimo de caracteres",
    "maxLength": "máximo de caracteres",
}


def _schema_message(err) -> str:
    """Spanish text for a jsonschema error (values shown short, whatever their size)."""
    where = ".".join(str(p)[:40] for p in err.absolute_path) or "args"
    v = err.validator
    if v == "required":
        missing = err.message.split("'")[1] if "'" in err.message else "?"
        return f"Falta el argumento obligatorio {short(missing)}."
    if v == "additionalProperties":
        extra = sorted(str(k) for k in set(err.instance) - set(err.schema.get("properties", {})))
        shown = ", ".join(short(k) for k in extra[:5]) + (f" y {len(extra) - 5} más" if len(extra) > 5 else "")
        return f"Argumento no permitido: {shown}."
    if v == "enum":
        options = ", ".join(map(str, err.validator_value[:12])) + (" …" if len(err.validator_value) > 12 else "")
        return f"Valor no permitido en {where}: {short(err.instance, 60)}; opciones: {options}."
    if v == "type":
        wanted = err.validator_value if isinstance(err.validator_value, list) else [err.validator_value]
        return f"Tipo inválido en {where}: se esperaba {' o '.join(_TYPE_NAMES.get(t, str(t)) for t in wanted)}."
    if v == "pattern":
        return f"Formato inválido en {where}: {short(err.instance)} (use AAAA-MM-DD)."
    if v in _RANGE_WORDS:
        return f"Valor fuera de rango en {where}: {short(err.instance)} ({_RANGE_WORDS[v]} {err.validator_value})."
    if v == "uniqueItems":
        return f"Valores repetidos en {where}."
    if v == "oneOf":
        return f"Valor inválido en {where}: {short(err.instance, 60)}."
    return f"Argumento inválido en {where}."


def _suggest(value: str, choices: list[str]) -> list[str]:
    """Close catalog values, compared on the first ``SUGGEST_CHARS`` characters only (a 10 MB value costs nothing)."""
    hits = process.extract(str(value)[:SUGGEST_CHARS], choices, limit=3, score_cutoff=60)
    return [f"¿Quiso decir {', '.join(h[0] for h in hits)}?"] if hits else []


def static_step(
    i: int, step: PlanStep, catalog: Catalog, problems: ProblemCollector, warnings: list[str]
) -> tuple[ToolSpec | None, dict]:
    """Check one step's tool, version and arguments; returns its spec and normalized args.

    The arguments are normalized (defaults, one-element lists) only when this step found no problem:
    the contextual checks never see a value its schema refuses.
    """
    path = f"plan[{i}]"
    found = len(problems.items)
    spec = catalog.spec_for(step.tool_id)
    if spec is None:
        problems.add(
            "INVALID_PAYLOAD",
            f"La herramienta {short(step.tool_id)} no existe en el catálogo.",
            [f"Herramientas: {', '.join(f'{s.tool_id} {s.name}' for s in catalog.specs)}"],
            f"{path}.tool_id",
        )
        return None, {}
    if step.tool_version and step.tool_version != spec.version:
        try:
            asked, have = _semver(step.tool_version), _semver(spec.version)
        except ValueError:
            asked, have = (), ()
        if not asked or asked[0] != have[0] or asked > have:
            problems.add(
                "INVALID_PAYLOAD",
                f"{spec.name}@{step.tool_version} no está disponible; la versión vigente es {spec.version}.",
                ["Use la versión del catálogo o omita tool_version."],
                f"{path}.tool_version",
            )
        else:
            warnings.append(f"{spec.name}@{step.tool_version} se ejecuta con {spec.identity} (compatible).")
    args = dict(step.args)
    for err in args_validator(spec).iter_errors(args):
        problems.add(
            "INVALID_PAYLOAD",
            f"{spec.name}: {_schema_message(err)}",
            path=f"{path}.args" + ("." + ".".join(map(str, err.absolute_path)) if err.absolute_path else ""),
        )
    suggestions = 0
    for key, source in ENUM_SOURCES.items():
        if key not in args or key not in spec.arg_names:
            continue
        values = args[key] if isinstance(args[key], list) else [args[key]]
        allowed = set(catalog.enum(source))
        for value in values:
            if isinstance(value, str) and value not in allowed:
                label = {"entidades": "La entidad", "delitos": "El delito", "metodos": "El método"}[source]
                suggested = suggestions < MAX_SUGGESTIONS
                suggestions += 1
                problems.add(
                    "INVALID_FILTER",
                    f"{label} {short(value, 60)} no existe en el catálogo de datos.",
                    _suggest(value, sorted(allowed)) if suggested else [],
                    f"{path}.args.{key}",
                )
    if len(problems.items) > found:
        return spec, args
    for key, prop in spec.args_schema.get("properties", {}).items():
        if key not in args and "default" in prop:
            args[key] = prop["default"]
    for key in ("delito", "metodo"):  # one-element lists and strings mean the same
        if isinstance(args.get(key), list):
            args[key] = sorted(set(args[key])) if len(set(args[key])) > 1 else args[key][0]
    return spec, args
