"""The structured expectations of the new evaluation set (``evals/v2``): one strict pydantic model per kind."""

from __future__ import annotations

import re
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError, field_validator, model_validator

from evals.expect_nacional import (
    NATIONAL_CATEGORIES,
    FederalNumber,
    GranularityNote,
    MunicipalTipoNumber,
    StateNumber,
    StateRank,
    VictimsShare,
)

WIDE = ("homicidio_doloso", "homicidio_culposo", "violencia_familiar", "abuso_sexual", "violacion")
WIDE += ("violacion_simple", "violacion_equiparada")
LONG = (
    "feminicidio",
    "secuestro",
    "robo_a_institucion_bancaria",
    "hostigamiento_sexual",
    "corrupcion_de_menores",
    "aborto",
    "trata_de_personas",
    "trafico_de_menores",
    "incesto",
    "evasion_de_presos",
    "electorales",
    "contra_el_medio_ambiente",
)
DELITOS = WIDE + LONG
CATEGORIES = (
    "lugar_no_reconocido",
    "lugar_aproximado",
    "extremo",
    "promedio",
    "lugares_cero",
    "desglose_modalidad",
    "serie_anual",
    "lado_a_lado",
    "vs_estatal",
    "ranking_cambio",
    "mismo_periodo",
    "lexico",
    "tiempo",
    "correccion",
    "homicidios_sin_calificar",
    "seguimiento",
    "respuesta_aclaracion",
    "definicion",
    "identidad",
    "menu",
    "bajo_municipio",
    "delito_no_cargado",
    "social",
)
REGISTERS = ("periodista", "director_municipal", "analista_estatal", "ciudadano")
_MONTH = re.compile(r"^(20[12]\d)-(0[1-9]|1[0-2])$")
_PLACE = re.compile(r"^11$|^110(?:0[1-9]|[1-3]\d|4[0-6])$")
Medida = Literal["conteo", "tasa", "promedio_mensual", "promedio_diario"]
Term = str | list[str]


def _month(v: str) -> str:
    """A ``YYYY-MM`` month from 2010 to 2029."""
    if not _MONTH.match(v):
        raise ValueError(f"mes inválido {v!r} (se espera YYYY-MM)")
    return v


def _place(v: str) -> str:
    """``"11"`` (the state) or a Guanajuato municipality code ``"11001"``..``"11046"``."""
    if not _PLACE.match(v):
        raise ValueError(f"lugar inválido {v!r} (clave INEGI: '11' o '11001'..'11046')")
    return v


def _keys(v: str | list[str]) -> str | list[str]:
    """Known store keys of crimes (one, or a non-empty list of distinct keys)."""
    keys = [v] if isinstance(v, str) else v
    bad = [k for k in keys if k not in DELITOS]
    if bad or not keys or len(set(keys)) != len(keys):
        raise ValueError(f"delito desconocido o repetido {bad or v} (claves: {', '.join(DELITOS)})")
    return v


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class _Data(_Strict):
    """Fields shared by the kinds that need a figure from the raw files."""

    delito: str | list[str]
    modalidad: str | None = None

    v_delito = field_validator("delito")(lambda cls, v: _keys(v))

    @property
    def delitos(self) -> list[str]:
        """The crime keys as a list."""
        return [self.delito] if isinstance(self.delito, str) else list(self.delito)


class _Window(_Data):
    desde: str
    hasta: str

    v_window = field_validator("desde", "hasta")(lambda cls, v: _month(v))

    @model_validator(mode="after")
    def _order(self):
        if self.desde > self.hasta:
            raise ValueError(f"desde {self.desde} es posterior a hasta {self.hasta}")
        return self


class _Placed(_Window):
    place: str

    v_place = field_validator("place")(lambda cls, v: _place(v))


class Number(_Placed):
    """A figure: count, rate or average."""

    kind: Literal["number"]
    medida: Medida = "conteo"


class Extreme(_Placed):
    """The peak or lowest month or year of a window."""

    kind: Literal["extreme"]
    which: Literal["max", "min"]
    unit: Literal["month", "year"]


class PlacesZero(_Window):
    """Municipalities with zero / at least one event, listed or counted."""

    kind: Literal["places_zero"]
    which: Literal["zero", "nonzero"]
    answer: Literal["count", "list"]


class Breakdown(_Placed):
    """Shares by modalidad inside a place."""

    kind: Literal["breakdown"]
    by: Literal["modalidad"] = "modalidad"


class AnnualSeries(_Data):
    """Yearly totals and the last year-over-year change."""

    kind: Literal["annual_series"]
    place: str
    desde_anio: int = Field(ge=2015, le=2025)
    hasta_anio: int = Field(ge=2015, le=2025)
    v_place = field_validator("place")(lambda cls, v: _place(v))

    @model_validator(mode="after")
    def _years(self):
        if self.hasta_anio <= self.desde_anio:
            raise ValueError("hasta_anio debe ser posterior a desde_anio")
        return self


class SideBySide(_Window):
    """Two or more places' figures side by side."""

    kind: Literal["side_by_side"]
    places: list[str] = Field(min_length=2)
    medida: Medida = "conteo"
    v_places = field_validator("places")(lambda cls, v: [_place(p) for p in v])


class VsState(_Placed):
    """A place's rate against the state's, with the verdict."""

    kind: Literal["vs_state"]
    medida: Literal["tasa"] = "tasa"


class ChangeRank(_Window):
    """Municipalities ranked by change between two windows."""

    kind: Literal["change_rank"]
    base_desde: str
    base_hasta: str
    direction: Literal["up", "down"]
    k: int = Field(default=1, ge=1, le=10)
    v_base = field_validator("base_desde", "base_hasta")(lambda cls, v: _month(v))


class SamePeriod(_Data):
    """A year so far against the same months of the year before."""

    kind: Literal["same_period"]
    place: str
    year: int = Field(ge=2016, le=2025)
    v_place = field_validator("place")(lambda cls, v: _place(v))


class Series(_Placed):
    """Every published month's count."""

    kind: Literal["series"]


class Comparison(_Placed):
    """One place's counts in two windows."""

    kind: Literal["comparison"]
    base_desde: str
    base_hasta: str
    v_base = field_validator("base_desde", "base_hasta")(lambda cls, v: _month(v))


class Top(_Window):
    """The first k municipalities by count or rate."""

    kind: Literal["top"]
    k: int = Field(default=5, ge=1, le=10)
    medida: Literal["conteo", "tasa"] = "conteo"


class Share(_Placed):
    """A place's share of the state's count."""

    kind: Literal["share"]


class SplitOrAsk(_Strict):
    """Bare «homicidios»: ask, or give both figures and their sum."""

    kind: Literal["split_or_ask"]
    delitos: list[str] = Field(min_length=2)
    place: str
    desde: str
    hasta: str
    v_place = field_validator("place")(lambda cls, v: _place(v))
    v_window = field_validator("desde", "hasta")(lambda cls, v: _month(v))
    v_delitos = field_validator("delitos")(lambda cls, v: _keys(v))


class NotRecognized(_Strict):
    """A place or crime not in the catalogue: no figure, say so or ask."""

    kind: Literal["not_recognized"]
    term: Term


class NotLoaded(_Strict):
    """A crime or place whose data is not loaded: no figure, say so."""

    kind: Literal["not_loaded"]
    term: Term


class BelowMunicipality(_Strict):
    """Below municipality (colonia, calle): no figure, say where the data stops."""

    kind: Literal["below_municipality"]
    term: Term | None = None


class Clarify(_Strict):
    """The assistant asks back."""

    kind: Literal["clarify"]
    options: list[str] | None = None


class Menu(_Strict):
    """A vague on-topic question: a short menu, no figure."""

    kind: Literal["menu"]


class Refuse(_Strict):
    """A request about people's identities: refused with a reason."""

    kind: Literal["refuse"]


class Social(_Strict):
    """A greeting or thanks."""

    kind: Literal["social"]


class Definition(_Strict):
    """A definition from the methodology, without a database tool."""

    kind: Literal["definition"]
    terms: list[Term] = Field(min_length=1)
    section: str | None = None


Expect = Annotated[
    Number
    | Extreme
    | PlacesZero
    | Breakdown
    | AnnualSeries
    | SideBySide
    | VsState
    | ChangeRank
    | SamePeriod
    | Series
    | Comparison
    | Top
    | Share
    | SplitOrAsk
    | NotRecognized
    | NotLoaded
    | BelowMunicipality
    | Clarify
    | Menu
    | Refuse
    | Social
    | Definition
    | StateNumber
    | StateRank
    | VictimsShare
    | FederalNumber
    | MunicipalTipoNumber
    | GranularityNote,
    Field(discriminator="kind"),
]
V2_KINDS = tuple(m.model_fields["kind"].annotation.__args__[0] for m in Expect.__origin__.__args__)
_ADAPTER = TypeAdapter(Expect)


class ExpectError(ValueError):
    """A malformed conversation or expectation of the new evaluation set (the message names the conversation)."""


def parse_expect(raw: dict, where: str) -> BaseModel:
    """The validated expectation of one turn; a clear error naming ``where`` (conversation id and turn)."""
    try:
        return _ADAPTER.validate_python(raw)
    except ValidationError as exc:
        detail = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())
        raise ExpectError(f"{where}: expect inválido ({detail})") from None


def parse_conversation(conv: dict) -> list[BaseModel]:
    """Validate a conversation's header (id, category, register, turns) and return its turns' expectations."""
    cid = conv.get("id") or "<sin id>"
    extra = set(conv) - {"id", "category", "register", "turns"}
    if extra or not conv.get("id") or not conv.get("turns"):
        raise ExpectError(f"{cid}: conversación mal formada (campos de más {sorted(extra)} o sin id/turns)")
    if conv.get("category") not in CATEGORIES + NATIONAL_CATEGORIES:  # issue 14 adds its own
        raise ExpectError(f"{cid}: categoría desconocida {conv.get('category')!r}")
    if conv.get("register") not in REGISTERS:
        raise ExpectError(f"{cid}: registro desconocido {conv.get('register')!r}")
    out = []
    for i, t in enumerate(conv["turns"], 1):
        if set(t) != {"q", "expect"} or not str(t.get("q") or "").strip():
            raise ExpectError(f"{cid} turno {i}: un turno tiene exactamente q y expect")
        out.append(parse_expect(t["expect"], f"{cid} turno {i}"))
    return out
