"""The error tree: the problem cap and pydantic's errors in Spanish."""

from __future__ import annotations

import pytest
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from core.errors import MAX_PROBLEMS, ErrorGroup, ProblemCollector, pydantic_problems


def test_thousands_of_problems_are_cut_with_a_closing_count():
    problems = ProblemCollector()
    for i in range(5000):
        problems.add("INVALID_PAYLOAD", f"línea {i}")
    with pytest.raises(ErrorGroup) as info:
        problems.raise_if_any()
    found = info.value.problems
    assert len(found) == MAX_PROBLEMS
    assert (
        found[-1].details == f"Hay {5000 - MAX_PROBLEMS + 1} problemas más; corrija los anteriores y vuelva a validar."
    )


class Toy(BaseModel):
    model_config = ConfigDict(extra="forbid")
    n: int = Field(ge=1, le=10)
    s: str = Field(default="", max_length=3)
    items: list[int] = Field(default_factory=list, max_length=2)


@pytest.mark.parametrize(
    "data,details,path",
    [
        ({}, "Falta el campo obligatorio n.", "n"),
        ({"n": 1, "x": 1}, "Campo no permitido: x.", "x"),
        ({"n": "a"}, "Valor inválido en n: se esperaba un número entero.", "n"),
        ({"n": 0}, "Valor inválido en n: fuera de rango (mínimo 1).", "n"),
        ({"n": 11}, "Valor inválido en n: fuera de rango (máximo 10).", "n"),
        ({"n": float("nan")}, "Valor inválido en n: se esperaba un número finito (no NaN ni infinito).", "n"),
        ({"n": 1, "s": "abcd"}, "Valor inválido en s: demasiado largo (máximo 3 caracteres).", "s"),
        ({"n": 1, "items": [1, 2, 3]}, "Valor inválido en items: demasiado largo (máximo 2 elementos).", "items"),
        ({"n": 1, "items": [1, "x"]}, "Valor inválido en items[1]: se esperaba un número entero.", "items[1]"),
    ],
)
def test_pydantic_problems_speak_spanish(data, details, path):
    with pytest.raises(ValidationError) as info:
        Toy.model_validate(data)
    (problem,) = pydantic_problems(info.value)
    assert (problem.code, problem.details, problem.path) == ("INVALID_PAYLOAD", details, path)


class Sized(BaseModel):
    model_config = ConfigDict(extra="forbid")
    one: list[int] = Field(default=[0], min_length=1, max_length=1)
    two: list[int] = Field(default=[0, 0], min_length=2, max_length=2)
    word: str = Field(default="a", min_length=1, max_length=1)
    words: str = Field(default="ab", min_length=2, max_length=2)


@pytest.mark.parametrize(
    "data,details",
    [
        ({"one": []}, "demasiado corto (mínimo 1 elemento)"),
        ({"one": [1, 2]}, "demasiado largo (máximo 1 elemento)"),
        ({"two": [1]}, "demasiado corto (mínimo 2 elementos)"),
        ({"two": [1, 2, 3]}, "demasiado largo (máximo 2 elementos)"),
        ({"word": ""}, "demasiado corto (mínimo 1 carácter)"),
        ({"word": "ab"}, "demasiado largo (máximo 1 carácter)"),
        ({"words": "a"}, "demasiado corto (mínimo 2 caracteres)"),
        ({"words": "abc"}, "demasiado largo (máximo 2 caracteres)"),
    ],
)
def test_a_size_limit_names_its_unit_in_singular_or_plural(data, details):
    with pytest.raises(ValidationError) as info:
        Sized.model_validate(data)
    (problem,) = pydantic_problems(info.value)
    assert problem.details.endswith(f": {details}.")
