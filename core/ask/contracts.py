"""Pydantic models of the understanding contracts (extra="forbid" at every edge).

- ``QueryPlan`` — docs/contracts/000_query_plan.md, versioned to 2.0.0 for Casandra's domains
  (docs/contracts/design.md §2; docs/contracts/query-plan-schema-v2.md; 000 §7).
- ``GovernorDecision`` — the Governor's lab decision (docs/contracts/000_query_plan.md §3.7, §9).
- ``AnalystPlan`` — docs/contracts/002_analyst_plan.md §2 with its source rules.
- ``PlannerState`` — docs/contracts/003_planner_state.md §2, whole.
- ``Intake`` and ``Answer`` — docs/contracts/004_chatbot_graph.md §2.1 and §4.
JSON Schemas are exported to ``catalogs/contracts`` (``python -m core contracts``). The models' docstrings
become the schemas' descriptions, so they cite ``000 §2`` for short: the files of ``docs/contracts/``.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

QUERY_PLAN_SCHEMA_VERSION = "2.0.0"

DomainKey = Literal[
    "incidencia", "tendencias", "comparacion", "patrones", "anomalias", "evidencia", "metodologia", "lab"
]
DomainHint = Literal[
    "auto", "incidencia", "tendencias", "comparacion", "patrones", "anomalias", "evidencia", "metodologia", "lab"
]
QueryFlag = Literal[
    "needs-clarification",
    "domain-hint-overridden",
    "lab-access-requested",
    "lab-access-denied",
    "lab-access-approved",
    "strategic-mode-parse-failed",
    "router-ambiguity-detected",
    "mode-forced-deep",
]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class LabPolicy(_Strict):
    """Access to experimental tools (000 §3.7)."""

    allow_lab: bool
    status: Literal["denied", "conditional", "approved"]
    rationale: str = Field(min_length=1, max_length=300)

    @model_validator(mode="after")
    def _consistent(self) -> LabPolicy:
        if self.status == "denied" and self.allow_lab:
            raise ValueError("lab_policy denied cannot allow lab")
        if self.status in ("approved", "conditional") and not self.allow_lab:
            raise ValueError("an approved or conditional lab policy allows lab")
        return self


def default_lab_policy() -> LabPolicy:
    """Lab denied: the default of every plan (000 §3.7)."""
    return LabPolicy(allow_lab=False, status="denied", rationale="Laboratorio bloqueado por defecto.")


class QueryPlan(_Strict):
    """The Router's output (000 §2), schema 2.0.0 with Casandra's domains."""

    schema_version: Literal["2.0.0"] = QUERY_PLAN_SCHEMA_VERSION
    mode: Literal["fast", "deep"]
    domain_hint: DomainHint = "auto"
    domains_selected: list[DomainKey] = Field(min_length=1, max_length=3)
    agents_selected: list[str] = Field(default_factory=list, max_length=3)
    needs_evidence: bool = False
    needs_skills: bool = False
    lab_policy: LabPolicy = Field(default_factory=default_lab_policy)
    rationale: str = Field(min_length=1, max_length=1200)
    confidence: Literal["low", "medium", "high"]
    flags: list[QueryFlag] = Field(default_factory=list)
    timestamp: datetime

    @field_validator("rationale")
    @classmethod
    def _short(cls, value: str) -> str:
        if len(value.strip().splitlines()) > 10:
            raise ValueError("rationale: 10 lines at most")
        return value

    @field_validator("flags")
    @classmethod
    def _unique_flags(cls, value: list[str]) -> list[str]:
        if len(set(value)) != len(value):
            raise ValueError("flags must not repeat")
        return value

    @model_validator(mode="after")
    def _invariants(self) -> QueryPlan:
        if len(set(self.domains_selected)) != len(self.domains_selected):
            raise ValueError("domains_selected must not repeat")
        if self.mode == "fast" and len(self.domains_selected) > 2:
            raise ValueError("mode fast allows at most 2 domains")
        if "lab" in self.domains_selected and self.lab_policy.status != "approved":
            raise ValueError("lab is never selected unless the Governor approved it")
        if self.timestamp.tzinfo is None:
            raise ValueError("timestamp must be timezone-aware ISO-8601")
        return self


class GovernorDecision(_Strict):
    """The Governor's decision on a QueryPlan: lab access and allowed tool status."""

    schema_version: Literal["1.0.0"] = "1.0.0"
    lab_policy: LabPolicy
    allowed_tool_status: list[Literal["stable", "experimental"]] = Field(min_length=1)
    flags: list[QueryFlag] = Field(default_factory=list)
    decided_by: Literal["policy", "supervisor_setting"]
    rationale: str = Field(min_length=1, max_length=400)
    timestamp: datetime

    @model_validator(mode="after")
    def _experimental_only_when_approved(self) -> GovernorDecision:
        if "experimental" in self.allowed_tool_status and self.lab_policy.status != "approved":
            raise ValueError("experimental tools need an approved lab policy")
        return self


RequestType = Literal[
    "STATUS_METRIC",
    "STATUS_SUMMARY",
    "STATUS_LIST",
    "HOWTO_POLICY",
    "DESIGN_ARCH",
    "DATA_DEFINITION",
    "TROUBLESHOOTING",
    "KNOWLEDGE_QA",
    "CASUAL",
]
STATUS_TYPES = ("STATUS_METRIC", "STATUS_SUMMARY", "STATUS_LIST")


class AnalystPlan(_Strict):
    """The Analyst's plan (002 §2) with its source rules enforced."""

    intent: str = Field(min_length=1, max_length=120)
    request_type: RequestType
    track: Literal["FAST", "QUALITY"]
    required_sources: list[Literal["db", "neo4j", "doc", "policy"]]
    missing_info_questions: list[str] = Field(default_factory=list, max_length=1)
    expected_output_schema: str = Field(pattern=r"^[a-z0-9_]+_v\d+(_[a-z0-9]+)?$")

    @model_validator(mode="after")
    def _rules(self) -> AnalystPlan:
        if self.request_type in STATUS_TYPES and ("db" not in self.required_sources or "doc" in self.required_sources):
            raise ValueError("STATUS_* requests must include db and never doc")
        if self.request_type in ("DATA_DEFINITION", "HOWTO_POLICY", "DESIGN_ARCH") and not (
            {"doc", "policy"} & set(self.required_sources)
        ):
            raise ValueError("definitions and policies use doc or policy")
        if self.track == "FAST" and self.missing_info_questions:
            raise ValueError("FAST track asks no questions")
        return self


ClarificationReason = Literal[
    "missing_place",
    "generic_place",
    "ambiguous_place",
    "missing_crime",
    "ambiguous_crime",
    "missing_period",
    "unsupported_crime",
]


class ClarifyingQuestion(_Strict):
    """A question that unblocks one concrete slot."""

    question: str = Field(min_length=3, max_length=300)
    reason: ClarificationReason
    blocking: bool
    options: list[str] = Field(default_factory=list, max_length=12)


class RetrievalMode(_Strict):
    """One retriever of a round."""

    type: Literal["bm25", "vector"]
    k: int = Field(ge=1, le=100)
    alpha: float | None = None


class RetrievalFilters(_Strict):
    """Filters of a retrieval round."""

    doc_types: list[str] | None = None
    domains: list[str] | None = None
    entities: list[str] | None = None
    time_range: str | None = None


class Rerank(_Strict):
    """Reranking settings."""

    enabled: bool
    model: Literal["cross_encoder"] = "cross_encoder"
    rerank_top_k: int = Field(ge=1, le=100)


class RoundOutput(_Strict):
    """How many documents a round keeps."""

    max_docs: int = Field(ge=1, le=50)


class RetrievalRound(_Strict):
    """One explicit retrieval round (003 §2)."""

    round_id: int = Field(ge=1)
    purpose: Literal["recall", "precision", "verification", "gap_filling"]
    query_variants: list[str] = Field(min_length=1, max_length=5)
    retrieval_modes: list[RetrievalMode] = Field(min_length=1)
    filters: RetrievalFilters = Field(default_factory=RetrievalFilters)
    use_hyde: bool = False
    rrf: bool = False
    rerank: Rerank
    output: RoundOutput


class LiteralConstraints(_Strict):
    """Terms that must survive retrieval untouched."""

    must_preserve_terms: list[str] = Field(default_factory=list)
    must_match_exactly: bool = False


class AcceptanceCriteria(_Strict):
    """What counts as success."""

    min_independent_sources: int = Field(ge=0, le=10)
    require_authoritative_source: bool
    must_cover_entities: list[str] = Field(default_factory=list)
    must_answer_subquestions: list[str] | None = None


class StopConditions(_Strict):
    """When to stop searching."""

    max_rounds: int = Field(ge=0, le=3)
    max_total_docs: int = Field(ge=0, le=100)
    confidence_threshold: float | None = Field(default=None, ge=0, le=1)
    no_new_information_rounds: int = Field(ge=0, le=3)


class AnswerRequirements(_Strict):
    """What kind of answer (not its content)."""

    format: list[str] = Field(min_length=1)
    tone: str | None = None
    length: str | None = None
    citation_style: str | None = None


class Budget(_Strict):
    """Token and latency budget."""

    max_tokens: int = Field(ge=0)
    max_latency_ms: int | None = Field(default=None, ge=0)


class Safety(_Strict):
    """Sensitivity and whether personal data may appear."""

    sensitivity: Literal["public", "internal", "sensitive", "restricted"]
    pii_allowed: bool


class PlannerMeta(_Strict):
    """Traceability without chain-of-thought."""

    planner_version: str
    rationale_tags: list[str] = Field(default_factory=list)


class PlannerState(_Strict):
    """The planner's output (003 §2)."""

    goal: str = Field(min_length=1, max_length=400)
    strategy: Literal["direct_answer", "retrieve_then_answer", "clarify_then_retrieve", "defer_or_refuse"]
    clarifying_questions: list[ClarifyingQuestion] = Field(default_factory=list, max_length=3)
    retrieval_rounds: list[RetrievalRound] = Field(default_factory=list, max_length=3)
    literal_constraints: LiteralConstraints = Field(default_factory=LiteralConstraints)
    acceptance_criteria: AcceptanceCriteria
    stop_conditions: StopConditions
    answer_requirements: AnswerRequirements
    budget: Budget
    safety: Safety
    planner_meta: PlannerMeta

    @model_validator(mode="after")
    def _strategy_rules(self) -> PlannerState:
        if self.strategy == "clarify_then_retrieve" and not self.clarifying_questions:
            raise ValueError("clarify_then_retrieve needs at least one clarifying question")
        if self.strategy != "clarify_then_retrieve" and any(q.blocking for q in self.clarifying_questions):
            raise ValueError("blocking questions imply clarify_then_retrieve")
        return self


class Moderation(_Strict):
    """What the intake moderation found."""

    pii_request: bool = False
    offensive: bool = False
    instruction_override: bool = False
    destructive: bool = False


class Intake(_Strict):
    """The intake of one turn (004 §2.1)."""

    original_question: str = Field(max_length=4000)
    rewritten_question: str = Field(max_length=4000)
    is_follow_up: bool
    category: Literal["social", "support", "definition", "irrelevant", "relevant"]
    moderation: Moderation = Field(default_factory=Moderation)
    cache_key: str
    cache_hit: bool = False


class SourceRef(_Strict):
    """Where a number or a sentence comes from."""

    kind: Literal["data", "doc"]
    title: str
    ref: str


class Answer(_Strict):
    """The composed answer of a turn (004 §4)."""

    text: str
    chart: dict[str, Any] | None = None
    sources: list[SourceRef] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)
    evidence_ids: list[int] = Field(default_factory=list)
    clarifying_options: list[str] = Field(default_factory=list)
    provenance: dict[str, Any] = Field(default_factory=dict)
    blocked: bool = False


CONTRACTS: dict[str, tuple[type[BaseModel], str]] = {
    "query_plan": (QueryPlan, QUERY_PLAN_SCHEMA_VERSION),
    "governor_decision": (GovernorDecision, "1.0.0"),
    "analyst_plan": (AnalystPlan, "1.0.0"),
    "planner_state": (PlannerState, "1.0.0"),
    "intake": (Intake, "1.0.0"),
    "answer": (Answer, "1.0.0"),
}


def contract_schemas() -> dict[str, dict]:
    """JSON Schema of every contract, keyed ``<name>.v<version>``."""
    from core.engine.envelope_schema import ErrorEnvelope, OkEnvelope

    items = dict(CONTRACTS)
    items["envelope_ok"] = (OkEnvelope, "1.0.0")
    items["envelope_error"] = (ErrorEnvelope, "1.1.0")  # 1.1.0: the HTTP API's UNAUTHORIZED and FORBIDDEN
    return {f"{name}.v{version}": model.model_json_schema(by_alias=True) for name, (model, version) in items.items()}


def export_schemas(folder) -> list[str]:
    """Write every contract's JSON Schema into ``folder``; returns the file names."""
    import json
    from pathlib import Path

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    names = []
    for key, schema in contract_schemas().items():
        path = folder / f"{key}.schema.json"
        path.write_text(json.dumps(schema, ensure_ascii=False, indent=2, sort_keys=True) + "\n", encoding="utf-8")
        names.append(path.name)
    return names
