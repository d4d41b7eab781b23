"""Request and response bodies of the HTTP API, built from the existing contracts (``extra="forbid"``).

The plan itself is the engine's ``Plan`` (docs/contracts/001_casandra_v0.md §4.3), the answers are envelopes
(``core.engine.envelope_schema``), ``JobRequest``/``JobResult`` (``core.jobs``) and the ``Answer`` contract
(``core.ask.contracts``): the OpenAPI document is generated from them. A plan is validated by the engine, not
here (``SkipValidation``): an invalid plan gets the same error envelope, and the same audit record, as
``core.api.execute_plan`` gives it.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, SkipValidation

from core.ask.contracts import Answer, DomainHint
from core.engine.envelope_schema import ErrorEnvelope, OkEnvelope
from core.engine.plan import Plan, PlanMeta, PlanStep


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ExecuteRequest(_Strict):
    """``POST /plan/execute``: a plan (text, normalized JSON, or its steps with ``meta``) and how to run it.

    The seed's normalized plan ``{"plan": [...], "meta": {...}}`` is itself a valid request."""

    plan: SkipValidation[str | Plan | list[PlanStep]] = Field(
        description="El plan: texto (§4.3), JSON normalizado (objeto con 'plan' y 'meta') o la lista de pasos."
    )
    meta: SkipValidation[PlanMeta | None] = Field(default=None, description="Metadatos, cuando 'plan' es la lista.")
    strict_time: bool = Field(default=False, description="Un rango fuera de los datos es error en vez de recortarse.")
    return_all: bool = Field(default=False, description="Devolver todos los sobres, no solo el último.")

    def raw_plan(self) -> Any:
        """What ``core.api.execute_plan`` receives: the plan as sent (steps with ``meta`` become one object)."""
        if isinstance(self.plan, list):
            return {"plan": self.plan, **({"meta": self.meta} if self.meta is not None else {})}
        return self.plan


class AskRequest(_Strict):
    """``POST /ask``: a question in Spanish, optionally after the earlier questions of the same conversation."""

    question: str = Field(min_length=1, max_length=2000, description="La pregunta, en español.")
    previous: list[Annotated[str, Field(min_length=1, max_length=2000)]] = Field(
        default_factory=list,
        max_length=5,
        description="Preguntas anteriores de la misma conversación (se responden antes, para los seguimientos).",
    )
    domain_hint: DomainHint = "auto"
    planner: Literal["auto", "rules", "llm"] = "auto"


Envelope = OkEnvelope | ErrorEnvelope


class AskResponse(BaseModel):
    """The turn as ``python -m core ask --json`` gives it: the answer contract, the envelopes and the stages."""

    model_config = ConfigDict(extra="allow")
    job_id: str | None
    question: str
    rewritten_question: str
    answer: Answer | None
    envelopes: list[Envelope]
    plan: dict[str, Any] | None = None
    validation: dict[str, Any] | None = None


class DatasetMetadata(_Strict):
    """``GET /dataset/metadata`` (§4.1)."""

    dataset_version: str
    min_date: str
    max_date: str
    updated_at: str


class DatasetInfo(BaseModel):
    """``GET /dataset/info``: the superset with both names of the last day (§9)."""

    model_config = ConfigDict(extra="allow")
    dataset_version: str
    min_date: str
    max_date: str
    data_available_until: str
    updated_at: str


class Ready(_Strict):
    """``GET /health/ready``: whether the store is open and the audit writable."""

    status: Literal["ready", "not_ready"]
    checks: dict[str, str]
    dataset_version: str | None = None


class Live(_Strict):
    """``GET /health/live``."""

    status: Literal["live"]


class AuditPage(_Strict):
    """``GET /audit/records``: the newest records matching the filters and how many match in all."""

    total: int
    records: list[dict[str, Any]]
