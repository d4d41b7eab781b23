"""Structured expectations over the dimensions issue 14 adds: states, victims, fuero federal, tipo by municipality.

Self-contained (its own strict base and validators) so that ``evals.expect`` can import it without a cycle.
Crime labels are the SESNSP labels as written in the raw files; the oracle errors when a label matches no row.
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

NATIONAL_CATEGORIES = (
    "estatal",
    "ranking_estados",
    "victimas",
    "fuero_federal",
    "delito_municipal_nuevo",
    "granularidad",
    "metodologia_2026",
)
_MONTH = re.compile(r"^(20[12]\d)-(0[1-9]|1[0-2])$")
_STATE = re.compile(r"^MX$|^(0[1-9]|[12]\d|3[0-2])$")
_ONE_STATE = re.compile(r"^(0[1-9]|[12]\d|3[0-2])$")
_GTO = re.compile(r"^11$|^110(?:0[1-9]|[1-3]\d|4[0-6])$")
IRAPUATO = "11017"  # the only municipality whose every subtipo is published (the IDM_NM JSON, to 2025-12)
Labels = str | list[str]  # one SESNSP label, or a list of labels summed (e.g. the vehicle modalidades)


def _check(rx: re.Pattern, what: str):
    def v(cls, value: str) -> str:
        if not rx.match(value):
            raise ValueError(f"{what} inválido {value!r}")
        return value

    return v


class _N(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class _NWindow(_N):
    desde: str
    hasta: str
    v_window = field_validator("desde", "hasta")(_check(_MONTH, "mes (YYYY-MM)"))

    @model_validator(mode="after")
    def _order(self):
        if self.desde > self.hasta:
            raise ValueError(f"desde {self.desde} es posterior a hasta {self.hasta}")
        return self


class _StateCrime(_NWindow):
    """A state ("01".."32", or "MX" for the country) and a crime by its SESNSP labels."""

    place: str
    tipo: str
    subtipo: Labels | None = None
    modalidad: Labels | None = None
    v_place = field_validator("place")(_check(_STATE, "estado (clave INEGI '01'..'32' o 'MX')"))


class StateNumber(_StateCrime):
    """Carpetas of a crime in a state or the country (IDEFC series, or RNID 2026), count or rate."""

    kind: Literal["state_number"]
    medida: Literal["conteo", "tasa"] = "conteo"
    serie: Literal["idefc", "rnid"] = "idefc"


class StateRank(_StateCrime):
    """A state's position among the 32 for a crime and window (``place`` is ignored; ``which`` is the state)."""

    kind: Literal["state_rank"]
    place: str = "MX"
    which: str
    medida: Literal["conteo", "tasa"] = "conteo"
    v_which = field_validator("which")(_check(_ONE_STATE, "estado (clave INEGI '01'..'32')"))


class VictimsShare(_StateCrime):
    """Victims of a crime in a state or the country by sexo: the share of ``sexo`` or its count."""

    kind: Literal["victims_share"]
    sexo: Literal["Mujer", "Hombre"] = "Mujer"


class FederalNumber(_NWindow):
    """Fuero federal carpetas of a state (or the country) in a window: all, a CONCEPTO and/or a TIPO (as written)."""

    kind: Literal["federal_number"]
    place: str
    concepto: str | None = None
    tipo: str | None = None
    v_place = field_validator("place")(_check(_STATE, "estado (clave INEGI '01'..'32' o 'MX')"))


class MunicipalTipoNumber(_NWindow):
    """A Guanajuato municipality's (or the state's) count of a tipo, optionally modalidad(es) (tipo x modalidad);
    with ``subtipo`` only Irapuato (11017), from its every-subtipo JSON."""

    kind: Literal["municipal_tipo_number"]
    place: str
    tipo: str
    subtipo: Labels | None = None
    modalidad: Labels | None = None
    v_place = field_validator("place")(_check(_GTO, "lugar ('11' o '11001'..'11046')"))

    @model_validator(mode="after")
    def _subtipo_only_irapuato(self):
        if self.subtipo is not None and self.place != IRAPUATO:
            raise ValueError(f"subtipo por municipio solo se publica para Irapuato ({IRAPUATO}), no {self.place}")
        return self


class GranularityNote(_N):
    """A level the data does not publish: no figure labelled as it; says the level is not published."""

    kind: Literal["granularity_note"]
    term: str | list[str] = Field(min_length=1)
    place: str | None = None
    level: Literal["municipio", "subtipo", "victimas"] = "municipio"
    v_place = field_validator("place")(lambda cls, v: v if v is None else _check(_GTO, "lugar")(cls, v))


NATIONAL_MODELS = (StateNumber, StateRank, VictimsShare, FederalNumber, MunicipalTipoNumber, GranularityNote)
