"""Limits on what a plan may be, checked before anything parses, recurses over or validates it.

A plan arrives as text (the simple form or JSON), as bytes or as Python data (the pipeline, the
Job adapter, the Editor's form). Whatever its form, it is measured first, without recursion and
in time proportional to the limits rather than to the input: its size in bytes, the nesting depth
of its brackets and values, the length of each string, the number of items of each list or
object and of values in all, integers beyond the JSON-safe range, NaN and ±infinity. A plan past
a limit is answered with ``RESOURCE_LIMIT`` (too big: bytes, characters, items, depth, steps) or
``INVALID_PAYLOAD`` (not a value a plan can hold: NaN, infinity, a huge integer, a foreign type,
text that is not valid Unicode), each with a Spanish message and the path of the value.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

from core.errors import ErrorGroup, Problem

MAX_PLAN_BYTES = 64 * 1024  # a 12-step plan with 20 crimes a step, pretty-printed, is under 20 KiB
MAX_STRING_CHARS = 1_000  # the longest value a plan needs is an 80-character version string
MAX_DEPTH = 16  # a plan nests five levels deep: plan, step, args, a list of crimes, a crime
MAX_ITEMS = 100  # elements of one list or keys of one object (a list of crimes holds at most 20)
MAX_VALUES = 5_000  # every value of the plan together
MAX_STEPS = 12
MAX_INT = 2**53  # the integers JSON keeps exactly; every numeric argument is far below
MAX_INT_DIGITS = 20  # longer digit strings are refused before int() reads them (Python refuses 4,300)
MAX_PROBLEMS = 20  # the walk stops after this many findings
SUGGEST_CHARS = 64  # fuzzy suggestions compare only this many characters of a value

_BRACKETS = re.compile(r'["\\\[\]{}]')
_JSON_MESSAGES = {  # json.JSONDecodeError.msg → Spanish (the decoder speaks English)
    "Expecting value": "se esperaba un valor",
    "Expecting property name enclosed in double quotes": "se esperaba un nombre de campo entre comillas dobles",
    "Expecting ',' delimiter": "falta una coma",
    "Expecting ':' delimiter": "faltan los dos puntos",
    "Unterminated string starting at": "un texto entre comillas no se cierra",
    "Extra data": "sobra texto después del JSON",
    "Invalid control character at": "carácter de control no válido",
    "Invalid \\escape": "secuencia de escape no válida",
    "Invalid \\uXXXX escape": "secuencia \\u no válida",
    "Illegal trailing comma before end of object": "sobra una coma antes de }",
    "Illegal trailing comma before end of array": "sobra una coma antes de ]",
}


class JsonSyntaxError(ErrorGroup):
    """Text that is not JSON at all (as opposed to JSON past a limit)."""


class _Refused(Exception):
    """Raised from inside ``json.loads`` hooks to stop parsing at the first refused token."""

    def __init__(self, problem: Problem):
        super().__init__(problem.details)
        self.problem = problem


def _kib(n: int) -> str:
    return f"{n / 1024:,.0f} KiB".replace(",", ".")


def _count(n: int) -> str:
    return f"{n:,}".replace(",", ".")


def short(value: Any, limit: int = 40) -> str:
    """A bounded, printable rendering of any value for a message (never the whole of a huge one)."""
    if isinstance(value, str):
        text = value[:limit]
        return repr(text + "…" if len(value) > limit else text)
    if isinstance(value, bool) or value is None:
        return str(value)
    if isinstance(value, int):
        return str(value) if -MAX_INT <= value <= MAX_INT else "un entero enorme"
    if isinstance(value, float):
        return repr(value) if math.isfinite(value) else "un número no finito"
    if isinstance(value, (list, tuple)):
        return "una lista vacía" if not value else f"una lista de {_count(len(value))} elemento(s)"
    if isinstance(value, dict):
        return "un objeto vacío" if not value else f"un objeto de {_count(len(value))} clave(s)"
    return f"un valor de tipo {type(value).__name__}"


def _too_big(details: str, path: str, hint: str = "Reduzca el plan; un plan válido ocupa pocos KiB.") -> Problem:
    return Problem("RESOURCE_LIMIT", details, (hint,), path)


def check_size(text: str | bytes, what: str = "El plan") -> None:
    """Refuse text longer than ``MAX_PLAN_BYTES`` (UTF-8 bytes) before reading it any further."""
    size = len(text)
    if size <= MAX_PLAN_BYTES and isinstance(text, str):
        size = len(text.encode("utf-8", "surrogatepass"))
    if size > MAX_PLAN_BYTES:
        raise ErrorGroup(
            [_too_big(f"{what} ocupa más de {_kib(MAX_PLAN_BYTES)}; el límite es {_kib(MAX_PLAN_BYTES)}.", "plan")]
        )


def bracket_depth(text: str, stop: int = MAX_DEPTH) -> int:
    """Deepest nesting of ``[``/``{`` outside JSON strings, in one pass over brackets and quotes; stops past ``stop``."""
    depth = deepest = 0
    in_string = False
    skip = -1  # position escaped by a backslash inside a string
    for m in _BRACKETS.finditer(text):
        pos, ch = m.start(), m.group()
        if pos == skip:
            continue
        if in_string:
            if ch == "\\":
                skip = pos + 1
            elif ch == '"':
                in_string = False
            continue
        if ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            deepest = max(deepest, depth)
            if deepest > stop:
                break
        elif ch in "]}":
            depth = max(0, depth - 1)
    return deepest


def _int_token(token: str) -> int:
    if len(token.lstrip("-")) > MAX_INT_DIGITS:
        raise _Refused(
            Problem(
                "INVALID_PAYLOAD",
                f"Un número del JSON tiene {_count(len(token.lstrip('-')))} cifras; "
                f"el máximo admitido es {MAX_INT_DIGITS}.",
                ("Los argumentos numéricos son pequeños (top_k, window, min_eventos…).",),
            )
        )
    return int(token)


def _constant_token(token: str) -> Any:
    raise _Refused(
        Problem(
            "INVALID_PAYLOAD",
            f"El JSON contiene {token}, que no es un número válido.",
            ("Use un número finito, p. ej. 3.0.",),
        )
    )


def load_json(text: str, what: str = "El plan") -> Any:
    """``json.loads`` within the limits: size and depth measured first, NaN/Infinity and huge integers refused."""
    check_size(text, what)
    if bracket_depth(text) > MAX_DEPTH:
        raise ErrorGroup(
            [
                _too_big(
                    f"{what} anida listas u objetos a más de {MAX_DEPTH} niveles.",
                    "plan",
                    "Un plan anida cinco niveles: plan, paso, args, lista de delitos, delito.",
                )
            ]
        )
    try:
        return json.loads(text, parse_int=_int_token, parse_constant=_constant_token)
    except _Refused as exc:
        raise ErrorGroup([exc.problem]) from None
    except json.JSONDecodeError as exc:
        why = _JSON_MESSAGES.get(exc.msg, "texto que no es JSON")
        raise JsonSyntaxError(
            [Problem("INVALID_PAYLOAD", f"JSON inválido: {why} (línea {exc.lineno}, columna {exc.colno}).")]
        ) from None
    except RecursionError:  # cannot happen below MAX_DEPTH; a message, never a crash, if it ever does
        raise ErrorGroup([_too_big(f"{what} anida demasiados niveles.", "plan")]) from None


def safe_int(token: str) -> int | None:
    """``int(token)`` for a digit string, or None when it has more than ``MAX_INT_DIGITS`` digits."""
    return None if len(token.lstrip("+-")) > MAX_INT_DIGITS else int(token)


def _key_path(path: str, key: Any) -> str:
    name = key[:40] if isinstance(key, str) else short(key)
    return f"{path}.{name}" if path else name


def _scalar_problem(value: Any, path: str, what: str = "El texto") -> Problem | None:
    """What is wrong with one leaf value or key (None when it is a value a plan can hold)."""
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, int):
        if -MAX_INT <= value <= MAX_INT:
            return None
        return Problem("INVALID_PAYLOAD", f"Número fuera de rango en {path or 'el plan'}: un entero enorme.", (), path)
    if isinstance(value, float):
        if math.isfinite(value):
            return None
        return Problem(
            "INVALID_PAYLOAD",
            f"Valor no válido en {path or 'el plan'}: {short(value)} (NaN o infinito).",
            ("Use un número finito, p. ej. 3.0.",),
            path,
        )
    if isinstance(value, str):
        if len(value) > MAX_STRING_CHARS:
            return _too_big(
                f"{what} en {path or 'el plan'} mide {_count(len(value))} caracteres; "
                f"el límite es {_count(MAX_STRING_CHARS)}.",
                path,
                "Los valores de un plan son claves cortas del catálogo o fechas AAAA-MM-DD.",
            )
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return Problem("INVALID_PAYLOAD", f"{what} en {path or 'el plan'} no es Unicode válido.", (), path)
        return None
    return Problem(
        "INVALID_PAYLOAD",
        f"Valor no admitido en {path or 'el plan'}: {short(value)}.",
        ("Un plan solo contiene textos, números, verdadero/falso, listas y objetos.",),
        path,
    )


def value_problems(value: Any, path: str = "") -> list[Problem]:
    """Every limit a plan value breaks, found without recursion; stops after ``MAX_PROBLEMS`` findings.

    Depth, items per list or object, values in all, string length and bytes, integer range, NaN and
    infinity, and types outside JSON. A cyclic value is reported as too deep, never followed forever.
    """
    problems: list[Problem] = []
    stack: list[tuple[Any, str, int]] = [(value, path, 1)]
    seen = 0
    chars = 0
    while stack and len(problems) < MAX_PROBLEMS:
        item, where, depth = stack.pop()
        seen += 1
        if seen > MAX_VALUES:
            problems.append(
                _too_big(
                    f"El plan tiene más de {_count(MAX_VALUES)} valores; el límite es {_count(MAX_VALUES)}.", "plan"
                )
            )
            break
        if isinstance(item, (dict, list, tuple)):
            if depth > MAX_DEPTH:
                problems.append(
                    _too_big(
                        f"El plan anida listas u objetos a más de {MAX_DEPTH} niveles (en {where or 'el plan'}).",
                        where,
                        "Un plan anida cinco niveles: plan, paso, args, lista de delitos, delito.",
                    )
                )
                continue
            if len(item) > MAX_ITEMS:
                kind = "El objeto" if isinstance(item, dict) else "La lista"
                unit = "claves" if isinstance(item, dict) else "elementos"
                problems.append(
                    _too_big(
                        f"{kind} en {where or 'el plan'} tiene {_count(len(item))} {unit}; el límite es {MAX_ITEMS}.",
                        where,
                    )
                )
                continue
            if isinstance(item, dict):
                children = []
                for key, child in item.items():
                    if isinstance(key, str):
                        chars += len(key)
                        if (bad := _scalar_problem(key, where, "Una clave")) is not None:
                            problems.append(bad)
                            continue
                    children.append((child, _key_path(where, key), depth + 1))
                stack.extend(reversed(children))
            else:
                stack.extend((child, f"{where}[{i}]", depth + 1) for i, child in reversed(list(enumerate(item))))
            continue
        if isinstance(item, str):
            chars += len(item)
        if (bad := _scalar_problem(item, where)) is not None:
            problems.append(bad)
        if chars > MAX_PLAN_BYTES:
            problems.append(
                _too_big(
                    f"Los textos del plan suman más de {_kib(MAX_PLAN_BYTES)}; el límite es {_kib(MAX_PLAN_BYTES)}.",
                    "plan",
                )
            )
            break
    return problems


def check_value(value: Any, path: str = "") -> None:
    """Raise one ErrorGroup with ``value_problems`` when there are any."""
    problems = value_problems(value, path)
    if problems:
        raise ErrorGroup(problems)
