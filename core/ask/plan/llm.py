"""The LLM planner: an OpenAI-compatible endpoint proposes a tool plan (JSON, never SQL). Every proposal
goes through ``validate_plan``; invalid output is retried at most ``max_retries`` times with the Spanish
problems, then ``fallback_reason`` sends the caller to the offline planner. The response mode
(json_schema → json_object + schema → by instruction) is negotiated and remembered.
"""

from __future__ import annotations

import json
import re
import time
from contextlib import suppress
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from core.ask.plan.endpoint import (
    ENDPOINT_MODES,
    EndpointModes,
    endpoint_label,
    failure_of,
    http_client,
    refuses_mode,
    response_format,
)
from core.ask.plan.prompt import allowed_specs, plan_json_schema, system_prompt
from core.clock import Clock, iso_utc
from core.config import LLM_LOCAL_KEY, LlmSettings
from core.engine.catalog import Catalog
from core.engine.plan import MAX_STEPS
from core.engine.validate import ValidatedPlan, validate_plan
from core.errors import CasandraError

if TYPE_CHECKING:  # only an annotation: the client is imported where a request is made
    pass

PLANNER_MODES = ("auto", "rules", "llm")


def planner_choice(requested: str, config: LlmSettings | None) -> tuple[str, str | None]:
    """The planner to use (auto → llm when configured, else rules) and, when the request cannot be honoured, why."""
    asked = (requested or "auto").strip().lower()
    if asked not in PLANNER_MODES:
        return "rules", f"unknown_mode:{asked[:20]}"
    if asked == "rules" or config is None:
        return "rules", ("no_config" if asked == "llm" else None)
    return "llm", None


class LlmStep(BaseModel):
    """One proposed tool call."""

    model_config = ConfigDict(extra="forbid")
    tool_id: int = Field(ge=1, le=10_000)
    args: dict[str, Any] = Field(default_factory=dict)


class LlmPlan(BaseModel):
    """What the model must answer: the plan and a short rationale."""

    model_config = ConfigDict(extra="forbid")
    plan: list[LlmStep] = Field(min_length=1, max_length=MAX_STEPS)
    rationale: str = Field(default="", max_length=300)


@dataclass
class LlmOutcome:
    """What the LLM planner did: a validated plan, or why the offline planner must answer."""

    plan: dict | None = None
    validated: ValidatedPlan | None = None
    attempts: list[dict] = field(default_factory=list)
    model: str | None = None
    mode_used: str | None = None
    total_latency_ms: int = 0
    fallback_reason: str | None = None
    rationale: str | None = None
    retries: int = 0
    endpoint: str | None = None
    started_at: str | None = None
    error: str | None = None

    def as_audit(self) -> dict:
        """JSON-ready record for the audit log (no secrets, no ValidatedPlan object)."""
        out = {k: v for k, v in vars(self).items() if k != "validated"}
        return {
            "planner": "llm",
            **out,
            "fallback": self.fallback_reason is not None,
            "query_hash": self.validated.query_hash if self.validated else None,
            **{k: sum(a.get(k) or 0 for a in self.attempts) for k in ("prompt_tokens", "completion_tokens")},
        }


_FENCE = re.compile(r"```(?:json|JSON)?\s*(.*?)```", re.S)


def extract_json(text: str | None) -> dict:
    """The first JSON object in a model answer (``json`` fences tolerated); ValueError otherwise."""
    if not text or not text.strip():
        raise ValueError("la respuesta está vacía")
    fenced = _FENCE.search(text)
    for chunk in ([fenced.group(1)] if fenced else []) + [text]:
        for start in [m.start() for m in re.finditer(r"\{", chunk)][:20]:
            try:
                value, _ = json.JSONDecoder().raw_decode(chunk, start)
            except json.JSONDecodeError:
                continue
            if isinstance(value, dict):
                return value
    raise ValueError("no contiene un objeto JSON válido")


def _check(content: str | None, catalog: Catalog, metadata: dict, allowed_ids: set[int]):
    """(error code or None, problem lines, LlmPlan, ValidatedPlan) for one answer."""
    try:
        data = extract_json(content)
    except ValueError as exc:
        return "invalid_json", [f"La respuesta {exc}. Responde solo con el objeto JSON."], None, None
    try:
        proposal = LlmPlan.model_validate(data)
    except ValidationError as exc:
        lines = [
            f"{'.'.join(map(str, e['loc'])) or 'raíz'}: "
            + (
                "campo no permitido."
                if e["type"] == "extra_forbidden"
                else "falta el campo obligatorio."
                if e["type"] == "missing"
                else f"valor inválido ({e['msg'][:100]})."
            )
            for e in exc.errors()[:10]
        ]
        return "schema_violation", lines, None, None
    bad = [(i, s.tool_id) for i, s in enumerate(proposal.plan) if s.tool_id not in allowed_ids]
    if bad:
        ids = ", ".join(f"{s.tool_id} {s.name}" for s in catalog.specs if s.tool_id in allowed_ids)
        return (
            "schema_violation",
            [
                f"plan[{i}].tool_id: la herramienta {t} no existe en el catálogo o no está"
                f" permitida; use una de: {ids}."
                for i, t in bad
            ],
            proposal,
            None,
        )
    raw = {"plan": [{"tool_id": s.tool_id, "args": s.args} for s in proposal.plan]}
    try:
        return None, [], proposal, validate_plan(raw, catalog, metadata)
    except CasandraError as exc:
        lines = [
            f"{p.path + ': ' if p.path else ''}{p.details}" + (f" ({' '.join(p.hints)})" if p.hints else "")
            for p in exc.problems[:12]
        ]
        return "validation_failed", lines, proposal, None


def _feedback(problems: list[str]) -> str:
    return (
        "Tu respuesta anterior no se pudo usar. Problemas encontrados:\n"
        + "\n".join(f"- {p}" for p in problems)
        + '\nCorrige el plan y responde SOLO con el objeto JSON {"plan": [...], "rationale": "..."},'
        " sin SQL ni texto adicional."
    )


def _scrub(text: str, config: LlmSettings, limit: int = 240) -> str:
    if config.api_key and config.api_key != LLM_LOCAL_KEY:
        text = text.replace(config.api_key, "***")
    return re.sub(r"(?i)(bearer\s+)\S+", r"\1***", text)[:limit]


def propose_plan(
    question: str,
    catalog: Catalog,
    metadata: dict | None,
    config: LlmSettings | None,
    *,
    allowed_status=("stable",),
    client=None,
    clock=None,
    modes: EndpointModes | None = None,
) -> LlmOutcome:
    """Ask the model for a plan and validate it; never raises (plan None + fallback_reason on failure)."""
    out = LlmOutcome(
        model=config.model if config else None,
        started_at=iso_utc((clock or Clock()).now()),
        endpoint=endpoint_label(config.base_url) if config else None,
    )
    if config is None or metadata is None:
        out.fallback_reason = "no_config" if config is None else "no_data"
        return out
    import openai  # imported here: the client library is slow to import and the rules planner never needs it

    t0, own = time.perf_counter(), client is None
    try:
        client = client or openai.OpenAI(
            api_key=config.api_key or LLM_LOCAL_KEY,
            base_url=config.base_url,
            timeout=config.timeout_s,
            max_retries=0,
            http_client=http_client(config),
        )
        _negotiate(out, question, catalog, metadata, config, allowed_status, client, modes or ENDPOINT_MODES)
    except Exception as exc:  # noqa: BLE001 - the caller always gets an outcome
        out.plan, out.validated = None, None
        out.fallback_reason = out.fallback_reason or "internal_error"
        out.error = _scrub(f"{type(exc).__name__}: {exc}", config)
    finally:
        if own and client is not None:
            with suppress(Exception):
                client.close()
        out.total_latency_ms = int((time.perf_counter() - t0) * 1000)
    return out


def _negotiate(
    out: LlmOutcome,
    question: str,
    catalog: Catalog,
    metadata: dict,
    config: LlmSettings,
    allowed_status,
    client,
    modes: EndpointModes,
) -> None:
    """The request loop: mode negotiation plus at most ``max_retries`` corrective retries."""
    import openai

    schema = plan_json_schema(catalog, allowed_status)
    allowed_ids = {s.tool_id for s in allowed_specs(catalog, allowed_status)}
    order, mi, schema_tries, failures = modes.candidates(config), 0, 0, 0
    feedback: list[dict] = []
    extra = {"max_tokens": config.max_tokens} if config.max_tokens else {}
    while True:
        mode = order[mi]
        schema_tries += mode == "json_schema"
        prompt = system_prompt(catalog, metadata, allowed_status, schema if mode == "prompt" else None)
        messages = [{"role": "system", "content": prompt}, {"role": "user", "content": question}, *feedback]
        record: dict[str, Any] = {
            "n": len(out.attempts) + 1,
            "mode": mode,
            "latency_ms": 0,
            "prompt_tokens": None,
            "completion_tokens": None,
            "error": None,
            "summary": None,
        }
        out.attempts.append(record)
        t = time.perf_counter()
        try:
            resp = client.chat.completions.create(
                model=config.model,
                messages=messages,
                timeout=config.timeout_s,
                **response_format(mode, schema),
                **extra,
            )
        except openai.APITimeoutError:
            record.update(error="timeout", summary=f"sin respuesta en {config.timeout_s:g} s")
            out.fallback_reason = "timeout"
            return
        except openai.APIStatusError as exc:
            record.update(error=f"http_{exc.status_code}", summary=_scrub(f"{exc.message}", config))
            if refuses_mode(exc, mode, schema_tries == 1) and mi + 1 < len(order):
                record["summary"] = f"modo {mode} rechazado; " + (record["summary"] or "")[:180]
                mi += 1
                continue
            out.fallback_reason = f"http_{exc.status_code}"
            return
        except openai.APIConnectionError as exc:
            reason = failure_of(exc) or "connection_error"
            record.update(error=reason, summary=_scrub(str(exc.__cause__ or exc), config))
            out.fallback_reason = reason
            return
        finally:
            record["latency_ms"] = int((time.perf_counter() - t) * 1000)
        usage, out.mode_used = getattr(resp, "usage", None), mode
        record.update({k: getattr(usage, k, None) for k in ("prompt_tokens", "completion_tokens")})
        content = resp.choices[0].message.content if resp.choices else None
        code, problems, proposal, validated = _check(content, catalog, metadata, allowed_ids)
        if code != "invalid_json":
            modes.remember(config, mode)
        if proposal is not None:
            out.rationale = _scrub(proposal.rationale, config, 300)
        if code is None:
            out.plan = {"plan": [{"tool_id": s.tool_id, "args": s.args} for s in proposal.plan]}
            out.validated, out.fallback_reason = validated, None
            return
        problems = [_scrub(p, config, 400) for p in problems]
        record.update(error=code, summary=_scrub(" | ".join(problems), config), problems=problems)
        failures += 1
        if failures > config.max_retries:
            out.fallback_reason = "validation_failed_after_retries" if config.max_retries else code
            return
        out.retries, feedback = (
            failures,
            [
                {"role": "assistant", "content": (content or "")[:4000]},
                {"role": "user", "content": _feedback(problems)},
            ],
        )
