"""Plan API (docs/contracts/001_casandra_v0.md §4.1) as Python functions: catalog, metadata, execute_plan.

Every execution writes one audit record (the Celador). The Job API adapter lives in
``core.jobs``; the CLI and the UI call these functions, never the internals.
"""

from __future__ import annotations

import uuid
from typing import Any

from core.audit.log import AuditLog
from core.clock import Clock
from core.config import Settings, load_settings
from core.dataset.store import get_store
from core.engine.catalog import build_catalog
from core.engine.envelope import tool_name
from core.engine.execute import Execution, run_plan
from core.engine.plan import canonical_plan


def _settings(settings: Settings | None) -> Settings:
    return settings or load_settings()


def _reconciled(settings: Settings | None) -> Settings:
    """The settings, after settling a publish or rollback that a killed process left between its switch and its
    records (the next start; a stat when nothing is pending, skipped while a load holds the store)."""
    from core.etl.publish import Depot

    settings = _settings(settings)
    depot = Depot(settings.store_dir)
    if depot.pending():
        depot.reconcile(AuditLog.for_settings(settings), wait=False)
    return settings


def catalog(settings: Settings | None = None) -> dict:
    """The CatalogSpec (tools, entities, taxonomy, catalog_version, checksum)."""
    return build_catalog(get_store(_settings(settings))).as_dict()


def metadata(settings: Settings | None = None) -> dict:
    """``/dataset/metadata``: dataset_version, min_date, max_date, updated_at."""
    meta = get_store(_settings(settings)).metadata()
    return {k: meta[k] for k in ("dataset_version", "min_date", "max_date", "updated_at")}


def dataset_info(settings: Settings | None = None) -> dict:
    """``/dataset/info``: the superset with both names (max_date and data_available_until)."""
    meta = get_store(_settings(settings)).metadata()
    return {
        **metadata(settings),
        "data_available_until": meta["max_date"],
        "coverage": meta["coverage"],
        "annual_series": meta.get("annual_series", {}),
        "row_counts": meta["row_counts"],
        "sources": meta["sources"],
    }


def availability(settings: Settings | None = None):
    """What the store holds: crime × level × period, each cell at its granularity (``core.dataset.availability``)."""
    from core.dataset.availability import availability as build

    return build(get_store(_settings(settings)))


def audit_payload(result: Execution, question: str | None, extra: dict | None = None) -> dict:
    """What the audit keeps of one execution (docs/contracts/001_casandra_v0.md §7)."""
    vp = result.validated
    return {
        "plan": canonical_plan(vp.plan) if vp else None,
        "timings_ms": result.timings_ms,
        "row_counts": {
            e["tool"]: e["data"]["inline"]["limit_notice"]["total_rows"]
            for e in result.envelopes
            if e["status"] == "ok"
        },
        "effective_ranges": {
            e["tool"]: e["meta"].get("date_range_effective") for e in result.envelopes if e["status"] == "ok"
        },
        "range_adjusted": any(e["meta"].get("range_adjusted") for e in result.envelopes if e["status"] == "ok"),
        "errors": result.errors,
        "warnings": sorted({w for e in result.envelopes for w in e["meta"].get("warnings", [])}),
        **(extra or {}),
    }


def execute_plan(
    plan: Any,
    strict_time: bool = False,
    return_all: bool = False,
    *,
    settings: Settings | None = None,
    user: str = "local",
    role: str = "analista",
    question: str | None = None,
    kind: str = "execute",
    audit_extra: dict | None = None,
    clock: Clock | None = None,
) -> dict | list[dict]:
    """Validate and run a plan; the last envelope (or all) — errors come back as error envelopes."""
    result = execution(
        plan,
        strict_time=strict_time,
        settings=settings,
        user=user,
        role=role,
        question=question,
        kind=kind,
        audit_extra=audit_extra,
        clock=clock,
    )
    return result.envelopes if return_all else result.last


def execution(
    plan: Any,
    *,
    strict_time: bool | None = None,
    settings: Settings | None = None,
    user: str = "local",
    role: str = "analista",
    question: str | None = None,
    kind: str = "execute",
    audit_extra: dict | None = None,
    clock: Clock | None = None,
) -> Execution:
    """Validate, run and audit a plan: the whole Execution (envelopes, timings, validated plan)."""
    settings = _reconciled(settings)
    clock = clock or Clock()
    store = get_store(settings)
    cat = build_catalog(store)
    day = clock.now().strftime("%Y-%m-%d")
    result = run_plan(
        plan, store=store, catalog=cat, artifacts_dir=settings.artifacts_dir, day=day, strict_time=strict_time or None
    )
    job_id = uuid.uuid4().hex
    for env in result.envelopes:
        env["meta"]["job_id"] = job_id
    vp = result.validated
    with AuditLog.for_settings(settings, clock=clock) as log:
        log.append(
            kind=kind,
            user=user,
            role=role,
            status=result.status,
            question=question,
            query_hash=vp.query_hash if vp else None,
            catalog_version=cat.catalog_version,
            dataset_version=store.dataset_version,
            tools=[tool_name(e) for e in result.envelopes],
            job_id=job_id,
            payload=audit_payload(result, question, audit_extra),
        )
    return result


def load_files(
    specs,
    *,
    settings: Settings | None = None,
    user: str = "local",
    role: str = "steward",
    dry_run: bool = False,
    progress=None,
    clock: Clock | None = None,
    confirm_removals: int | None = None,
    note: str | None = None,
) -> dict:
    """Run the ETL (or its preview) and audit who loaded what; refusals are audited and re-raised.

    A load that removes cells publishes only with ``confirm_removals`` equal to the preview's removed cells."""
    from core.errors import CasandraError, error_payload
    from core.etl import run_etl
    from core.etl.intent import PublishAudit, load_payload

    settings = _reconciled(settings)
    clock = clock or Clock()
    names = [getattr(s, "display_name", None) or str(getattr(s, "path", s)) for s in specs]
    # A publish writes its «published» record in the same step as the switch (core.etl.intent).
    audit = None if dry_run else PublishAudit(AuditLog.for_settings(settings, clock=clock), user, role, names)
    try:
        result = run_etl(
            specs,
            settings,
            clock=clock,
            progress=progress,
            dry_run=dry_run,
            audit=audit,
            confirm_removals=confirm_removals,
            note=note,
        )
    except CasandraError as exc:
        if not dry_run:
            with AuditLog.for_settings(settings, clock=clock) as log:
                log.append(
                    kind="etl",
                    user=user,
                    role=role,
                    status="refused",
                    dataset_version=get_store(settings).dataset_version,
                    payload={"files": names, "error": error_payload(exc)},
                )
        raise
    if not dry_run:
        if not result.published:  # nothing switched (no change): the load is audited here
            with AuditLog.for_settings(settings, clock=clock) as log:
                log.append(
                    kind="etl",
                    user=user,
                    role=role,
                    status=result.summary.get("status", "ok"),
                    dataset_version=result.dataset_version,
                    payload=load_payload(names, result.summary),
                )
        get_store(settings).refresh()
    return result.summary


def rollback(
    version_id: str,
    *,
    settings: Settings | None = None,
    user: str = "local",
    role: str = "steward",
    clock: Clock | None = None,
    reason: str | None = None,
) -> dict:
    """Make an earlier version current again, its history line and audit record (with ``reason``) in the same step."""
    from core.clock import iso_utc
    from core.etl.publish import Depot

    settings = _reconciled(settings)
    clock = clock or Clock()
    log = AuditLog.for_settings(settings, clock=clock)
    meta = Depot(settings.store_dir).rollback(
        version_id, iso_utc(clock.now()), log=log, user=user, role=role, reason=reason
    )
    get_store(settings).refresh()
    return meta


def versions(settings: Settings | None = None) -> list[dict]:
    """Published versions, newest first."""
    from core.etl.publish import Depot

    return Depot(_reconciled(settings).store_dir).versions()


def quarantine(settings: Settings | None = None, limit: int = 5000) -> list[dict]:
    """Quarantined rows of the current version (reason, file, line)."""
    store = get_store(_settings(settings))
    if store.is_empty():
        return []
    cols = ["load_id", "source_file", "source_row", "motivo", "valores", "loaded_at"]
    return [
        dict(zip(cols, r))
        for r in store.query(
            f"SELECT {', '.join(cols)} FROM quarantine ORDER BY loaded_at DESC, source_file, source_row LIMIT ?",
            [limit],
        )
    ]


def set_lab_approval(
    approved: bool,
    *,
    settings: Settings | None = None,
    user: str = "local",
    role: str = "supervisor",
    clock: Clock | None = None,
) -> dict:
    """The supervisor's lab setting the Governor reads; audited."""
    from core.ask.govern import set_lab_approved

    settings = _reconciled(settings)
    data = set_lab_approved(settings, approved, user)
    with AuditLog.for_settings(settings, clock=clock or Clock()) as log:
        log.append(kind="settings", user=user, role=role, status="ok", payload={"lab_approved": bool(approved)})
    return data
