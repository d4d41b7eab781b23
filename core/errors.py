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

HTTP_STATUS = {
    "INVALID_PAYLOAD": 422,
    "INVALID_FILTER": 422,
    "INVALID_DATE_RANGE": 422,
    "DATA_QUALITY_ISSUE": 409,
    "COMPUTE_ERROR": 500,
    "RESOURCE_LIMIT": 413,
    "EMPTY_RESULT": 200,
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


class ProblemCollector:
    """Collects problems so a validator reports all of them at once."""

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
        """Raise an ErrorGroup when anything was collected."""
        if self.items:
            raise ErrorGroup(self.items)


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
