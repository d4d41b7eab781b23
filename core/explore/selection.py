"""The explorer's selection: crime(s), place(s), period, measure and shape, and its URL form.

The URL form is what makes a reload or a shared link show the same answer: ``to_params`` writes every field
(lists as repeated keys), ``from_params`` reads them back and never raises — a value it cannot read is left at
its default and said in a note, so a hand-edited or stale link still opens. Whether a crime or a place exists is
the options' business (``core.explore.options.Options.fit``), not this module's.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

Measure = Literal["conteo", "tasa", "victimas"]
Shape = Literal["total", "serie", "serie_anual", "ranking", "comparacion", "lugares", "desglose"]
Base = Literal["anterior", "anio_anterior"]

MEASURES: dict[str, str] = {
    "conteo": "Carpetas de investigación",
    "tasa": "Tasa por 100 mil habitantes",
    "victimas": "Víctimas (estatal)",
}
SHAPES: dict[str, str] = {
    "total": "Total del periodo",
    "serie": "Serie mensual",
    "serie_anual": "Serie anual",
    "ranking": "Ranking de municipios",
    "comparacion": "Comparación de periodos",
    "lugares": "Comparación de lugares",
    "desglose": "Desglose por modalidad",
}
BASES: dict[str, str] = {
    "anterior": "Periodo anterior de la misma duración",
    "anio_anterior": "Mismo periodo del año anterior",
}
ORDERS: dict[str, str] = {"desc": "más", "asc": "menos"}
MAX_CRIMES = 5
MAX_PLACES = 10
MAX_TOP = 46  # Guanajuato's municipalities
_MONTH = re.compile(r"^(19|20)[0-9]{2}-(0[1-9]|1[0-2])$")
# The URL keys, in the order they are written (the link reads the same every time).
KEYS = ("delito", "lugar", "desde", "hasta", "medida", "forma", "orden", "top", "base")


class Selection(BaseModel):
    """What the slicers say: crime keys, entity ids (empty: the state), months ``AAAA-MM``, measure and shape."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    delitos: tuple[str, ...] = ()
    lugares: tuple[str, ...] = ()
    desde: str | None = Field(default=None, pattern=_MONTH.pattern)
    hasta: str | None = Field(default=None, pattern=_MONTH.pattern)
    medida: Measure = "conteo"
    forma: Shape = "total"
    orden: Literal["desc", "asc"] = "desc"
    top_k: int = Field(default=10, ge=1, le=MAX_TOP)
    base: Base = "anterior"

    @property
    def crime(self) -> str | None:
        """The first crime selected (most shapes take one)."""
        return self.delitos[0] if self.delitos else None


def _values(params: Mapping, key: str) -> list[str]:
    """A key's values: ``st.query_params`` gives the last one by ``[]``, ``get_all`` gives every one."""
    if hasattr(params, "get_all"):
        return [str(v) for v in params.get_all(key)]
    value = params.get(key)
    if value is None:
        return []
    return [str(v) for v in value] if isinstance(value, list | tuple) else [str(value)]


def from_params(params: Mapping) -> tuple[Selection, list[str]]:
    """The selection a URL carries and a note per value it could not read (left at its default)."""
    notes: list[str] = []
    fields: dict = {
        "delitos": tuple(dict.fromkeys(v for v in _values(params, "delito") if v))[:MAX_CRIMES],
        "lugares": tuple(dict.fromkeys(v for v in _values(params, "lugar") if v))[:MAX_PLACES],
    }
    for key in ("desde", "hasta"):
        value = (_values(params, key) or [None])[-1]
        if value is None:
            continue
        if _MONTH.match(value):
            fields[key] = value
        else:
            notes.append(f"El enlace trae un mes que no se entiende ({value!r}); se usa el periodo por omisión.")
    choices = {"medida": MEASURES, "forma": SHAPES, "orden": ORDERS, "base": BASES}
    for key, allowed in choices.items():
        value = (_values(params, key) or [None])[-1]
        if value is None:
            continue
        if value in allowed:
            fields[key] = value
        else:
            notes.append(f"El enlace trae un valor desconocido para «{key}» ({value!r}); se usa el de omisión.")
    top = (_values(params, "top") or [None])[-1]
    if top is not None:
        if top.isdigit() and 1 <= int(top) <= MAX_TOP:
            fields["top_k"] = int(top)
        else:
            notes.append(f"El número de municipios del enlace ({top!r}) debe ir de 1 a {MAX_TOP}; se usan 10.")
    return Selection(**fields), notes


def to_params(selection: Selection) -> dict[str, str | list[str]]:
    """The URL form of a selection: every field, lists as repeated keys, always in the same order."""
    out: dict[str, str | list[str]] = {
        "delito": list(selection.delitos),
        "lugar": list(selection.lugares),
        "desde": selection.desde or "",
        "hasta": selection.hasta or "",
        "medida": selection.medida,
        "forma": selection.forma,
        "orden": selection.orden,
        "top": str(selection.top_k),
        "base": selection.base,
    }
    return {k: out[k] for k in KEYS if out[k] not in ("", [])}
