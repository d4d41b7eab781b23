"""Offline Spanish understanding: from a question to typed slots (no network, deterministic).

``understand(question, lexicon, anchor) -> Understanding`` finds places, crimes, methods,
time windows and the kind of question; ``merge_follow_up`` completes a follow-up
("¿y en Celaya?") from the previous turn. The rules planner turns slots into a tool plan.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from typing import Literal

QuestionKind = Literal[
    "single_value",  # ¿cuántos homicidios hubo en León en 2024?
    "ranking",  # top / los 5 municipios con más …; "¿en qué municipio…?" (B4: group, not filter)
    "series",  # mes por mes, evolución, tendencia mensual
    "comparison",  # 2024 vs 2023, respecto al año anterior
    "share",  # porcentaje / proporción del total
    "anomalies",  # picos, anomalías, meses atípicos
    "patterns",  # co-ocurrencia, estacionalidad
    "annual_total",  # total de delitos (serie anual)
    "evidence",  # ¿de dónde sale el dato? filas de evidencia
    "extremes",  # el mes (o año) con más / con menos
    "average",  # promedio mensual o diario
    "presence",  # municipios sin eventos / con al menos uno
    "breakdown",  # porcentaje de cada modalidad dentro de un lugar
    "annual_series",  # serie anual con cambio contra el año anterior
    "places",  # varios lugares lado a lado, o un lugar contra el estado
    "composition",  # de qué delitos se compone la incidencia de un lugar; la parte de uno en el total
    "unknown",
]


@dataclass(frozen=True)
class PlaceMatch:
    """A place found in the text."""

    entidad_id: str
    label: str
    nivel: str  # "estado" | "municipio"
    text: str  # the words that matched
    score: float  # 0-100 (rapidfuzz); 100 = exact


@dataclass(frozen=True)
class CrimeMatch:
    """A crime found in the text (key of the store's taxonomy)."""

    delito: str
    label: str
    text: str
    score: float
    in_data: bool  # False: SESNSP has it, our store does not (say what is available)
    note: str | None = None  # Spanish: why this word is not a SESNSP crime ("levantones"), from alias_prensa.json


@dataclass(frozen=True)
class UnknownTerm:
    """Words of the question that no matcher understood (core/ask/understand/accounting.py)."""

    text: str  # the words as written (accent-free)
    kind: str  # place_foreign | place_unknown | place_below | place_deictic | time | crime | other
    detail: str = ""  # Spanish: «municipio de Jalisco», «estado sin datos cargados»
    suggestions: tuple[str, ...] = ()  # closest names of the store («Celaya»)
    states: tuple[str, ...] = ()  # the states a place outside the store may be in («JAL»; several: «Guadalupe»)


@dataclass
class Understanding:
    """Slots of one question; empty lists / None mean 'not said'."""

    question: str
    normalized: str
    places: list[PlaceMatch] = field(default_factory=list)
    generic_place: str | None = None  # "mi municipio", "donde vivo", "mi colonia"
    ambiguous_places: list[list[PlaceMatch]] = field(default_factory=list)  # alternatives for one mention
    whole_state: bool = False  # "todo el estado", "en Guanajuato" (the state)
    crimes: list[CrimeMatch] = field(default_factory=list)
    methods: list[str] = field(default_factory=list)
    violencia: str | None = None  # "con" | "sin"
    window: tuple[date, date] | None = None
    window_text: str | None = None
    compare_window: tuple[date, date] | None = None  # the base window of a comparison
    kind: QuestionKind = "unknown"
    top_k: int | None = None
    order: Literal["desc", "asc"] = "desc"
    medida: Literal["conteo", "tasa_per_100k"] = "conteo"
    group_by_municipio: bool = False  # B4: "¿en qué municipio…?" groups instead of filtering
    wants_evidence: bool = False
    signals: list[str] = field(default_factory=list)  # tags of what matched, for rationale/confidence
    notes: list[str] = field(default_factory=list)  # Spanish, for the answer: how words were taken (seasons, days)
    unknown_terms: list[UnknownTerm] = field(default_factory=list)  # words nothing understood (never guessed)
