"""One error tree (Celador). Every error carries its contract code and HTTP status.

Internal exceptions map 1:1 to the codes of docs/contracts/001_casandra_v0.md §6; ``error_payload`` is the single
function that turns any of them into the ``error`` block of an error envelope. Validation
collects several ``Problem`` objects and raises them together in one ``ErrorGroup``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import ClassVar

CRITICAL_CODES = (
    "INVALID_PAYLOAD",
    "INVALID_FILTER",
    "INVALID_DATE_RANGE",
    "DATA_QUALITY_ISSUE",
    "COMPUTE_ERROR",
    "RESOURCE_LIMIT",
)
NON_CRITICAL_CODES = ("EMPTY_RESULT",)
# The HTTP API's access refusals (core/expositor): who may call, not what was asked (envelope_error 1.1.0).
ACCESS_CODES = ("UNAUTHORIZED", "FORBIDDEN")

HTTP_STATUS = {
    "INVALID_PAYLOAD": 422,
    "INVALID_FILTER": 422,
    "INVALID_DATE_RANGE": 422,
    "DATA_QUALITY_ISSUE": 409,
    "COMPUTE_ERROR": 500,
    "RESOURCE_LIMIT": 413,
    "EMPTY_RESULT": 200,
    "UNAUTHORIZED": 401,
    "FORBIDDEN": 403,
}


@dataclass(frozen=True)
class Problem:
    """One validation finding: a code, a Spanish explanation, hints and where it is."""

    code: str
    details: str
    hints: tuple[str, ...] = ()
    path: str = ""

    def as_dict(self) -> dict:
        """JSON-ready form used inside error envelopes."""
        out = {"code": self.code, "details": self.details, "hints": list(self.hints)}
        if self.path:
            out["path"] = self.path
        return out


class CasandraError(Exception):
    """Base of every error the engine raises on purpose."""

    code: ClassVar[str] = "COMPUTE_ERROR"

    def __init__(self, details: str, hints: Iterable[str] = (), path: str = ""):
        super().__init__(details)
        self.details = details
        self.hints = tuple(hints)
        self.path = path

    @property
    def http_status(self) -> int:
        """HTTP status of the code (docs/contracts/001_casandra_v0.md §6)."""
        return HTTP_STATUS[self.code]

    @property
    def problems(self) -> list[Problem]:
        """This error as a list of problems (one, unless it is a group)."""
        return [Problem(self.code, self.details, self.hints, self.path)]


class ValidacionError(CasandraError):
    """Malformed input: wrong shape, types or unknown fields."""

    code = "INVALID_PAYLOAD"


class FiltroInvalidoError(CasandraError):
    """A filter names an entity, crime or method that does not exist."""

    code = "INVALID_FILTER"


class RangoFueraDeCorte(ValidacionError):
    """A date window that is reversed or lies outside the data."""

    code = "INVALID_DATE_RANGE"


class DatosFaltantesError(CasandraError):
    """The data cannot support the request (missing, unpublished, unreadable)."""

    code = "DATA_QUALITY_ISSUE"


class HerramientaError(CasandraError):
    """A tool failed while computing."""

    code = "COMPUTE_ERROR"


class LimiteRecursosError(CasandraError):
    """Input or work beyond a configured limit."""

    code = "RESOURCE_LIMIT"


class LimiteTasaError(LimiteRecursosError):
    """Too many requests from one client in the configured window (HTTP 429, ``retry_after`` seconds)."""

    def __init__(self, details: str, hints: Iterable[str] = (), retry_after: int = 1):
        super().__init__(details, hints)
        self.retry_after = max(1, int(retry_after))

    @property
    def http_status(self) -> int:
        """429: the same RESOURCE_LIMIT code, told apart by its status and ``Retry-After``."""
        return 429


class NoAutenticadoError(CasandraError):
    """A request without a valid bearer token (HTTP 401)."""

    code = "UNAUTHORIZED"


class SinPermisoError(CasandraError):
    """A valid token whose role may not use this endpoint (HTTP 403)."""

    code = "FORBIDDEN"


class ResultadoVacio(CasandraError):
    """No rows: not critical, the envelope may still be ok with ``rows: []``."""

    code = "EMPTY_RESULT"


class ErrorGroup(CasandraError):
    """Several problems found together; the envelope lists them all."""

    def __init__(self, problems: Iterable[Problem]):
        items = list(problems)
        if not items:
            raise ValueError("ErrorGroup needs at least one problem")
        self._problems = items
        first = items[0]
        super().__init__(first.details, first.hints, first.path)

    @property
    def code(self) -> str:  # type: ignore[override]
        """The first critical code among the problems."""
        for p in self._problems:
            if p.code in CRITICAL_CODES:
                return p.code
        return self._problems[0].code

    @property
    def problems(self) -> list[Problem]:
        """Every collected problem, in the order found."""
        return list(self._problems)


MAX_PROBLEMS = 50  # beyond this, one closing problem says how many more there were


class ProblemCollector:
    """Collects problems so a validator reports all of them at once (the first ``MAX_PROBLEMS``)."""

    def __init__(self) -> None:
        self.items: list[Problem] = []

    def add(self, code: str, details: str, hints: Iterable[str] = (), path: str = "") -> None:
        """Record one problem."""
        self.items.append(Problem(code, details, tuple(hints), path))

    def extend(self, error: CasandraError) -> None:
        """Record every problem of an error."""
        self.items.extend(error.problems)

    def __bool__(self) -> bool:
        return bool(self.items)

    def raise_if_any(self) -> None:
        """Raise an ErrorGroup when anything was collected; a hostile plan's thousands of findings are cut."""
        if len(self.items) > MAX_PROBLEMS:
            rest = len(self.items) - (MAX_PROBLEMS - 1)
            closing = Problem(
                self.items[MAX_PROBLEMS - 1].code,
                f"Hay {rest} problemas más; corrija los anteriores y vuelva a validar.",
            )
            raise ErrorGroup([*self.items[: MAX_PROBLEMS - 1], closing])
        if self.items:
            raise ErrorGroup(self.items)


_PYDANTIC_SPANISH = {
    "missing": "falta y es obligatorio",
    "extra_forbidden": "no es un campo permitido",
    "int_type": "se esperaba un número entero",
    "int_parsing": "se esperaba un número entero",
    "int_from_float": "se esperaba un número entero",
    "float_type": "se esperaba un número",
    "float_parsing": "se esperaba un número",
    "finite_number": "se esperaba un número finito (no NaN ni infinito)",
    "string_type": "se esperaba texto",
    "bool_type": "se esperaba verdadero o falso",
    "bool_parsing": "se esperaba verdadero o falso",
    "dict_type": "se esperaba un objeto",
    "model_type": "se esperaba un objeto",
    "model_attributes_type": "se esperaba un objeto",
    "list_type": "se esperaba una lista",
    "literal_error": "valor no permitido",
    "enum": "valor no permitido",
}


def _pydantic_where(loc: Iterable) -> str:
    """``('plan', 0, 'tool_id')`` → ``plan[0].tool_id`` (the paths validation uses)."""
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        elif part != "[key]":
            out += ("." if out else "") + str(part)[:40]
    return out


def _units(n, characters: bool) -> str:
    """«1 elemento», «2 elementos», «1 carácter», «3 caracteres»: the count with its noun in number."""
    one, many = ("carácter", "caracteres") if characters else ("elemento", "elementos")
    return f"{n} {one if n == 1 else many}"


def _pydantic_detail(err: dict) -> str:
    kind, ctx = err.get("type", ""), err.get("ctx") or {}
    if kind in ("greater_than_equal", "greater_than"):
        return f"fuera de rango (mínimo {ctx.get('ge', ctx.get('gt'))})"
    if kind in ("less_than_equal", "less_than"):
        return f"fuera de rango (máximo {ctx.get('le', ctx.get('lt'))})"
    if kind in ("string_too_long", "too_long"):
        return f"demasiado largo (máximo {_units(ctx.get('max_length'), kind.startswith('string'))})"
    if kind in ("string_too_short", "too_short"):
        return f"demasiado corto (mínimo {_units(ctx.get('min_length'), kind.startswith('string'))})"
    if kind == "literal_error" and ctx.get("expected"):
        return f"valor no permitido; opciones: {str(ctx['expected'])[:200].replace(' or ', ' o ')}"
    return _PYDANTIC_SPANISH.get(kind, "valor no válido")


def pydantic_problems(exc, code: str = "INVALID_PAYLOAD", root: str = "plan") -> list[Problem]:
    """A pydantic ``ValidationError`` as Spanish problems with ``plan[0].args``-style paths (no English)."""
    problems = []
    for err in exc.errors()[:MAX_PROBLEMS]:
        where = _pydantic_where(err.get("loc", ()))
        kind = err.get("type", "")
        if kind == "missing":
            details = f"Falta el campo obligatorio {where or root}."
        elif kind == "extra_forbidden":
            details = f"Campo no permitido: {where or root}."
        else:
            details = f"Valor inválido en {where or root}: {_pydantic_detail(err)}."
        problems.append(Problem(code, details, (), where))
    return problems


def error_payload(exc: BaseException) -> dict:
    """The ``error`` block of an error envelope for any exception (the one mapper)."""
    if isinstance(exc, CasandraError):
        problems = exc.problems
        first = problems[0]
        payload = {
            "code": exc.code,
            "http_status": exc.http_status,
            "details": first.details,
            "hints": list(first.hints),
        }
        if len(problems) > 1 or first.path:
            payload["problems"] = [p.as_dict() for p in problems]
        return payload
    # Unexpected failures never leak internals to the user: a generic Spanish message.
    return {
        "code": "COMPUTE_ERROR",
        "http_status": 500,
        "details": "Error interno al calcular el resultado.",
        "hints": ["Intente de nuevo; si persiste, avise al equipo de datos."],
    }
