"""Issue 16 §6, the pure half of the API load bench: latency figures, the versions a response names, and whether
every response of a run that published a new version mid-run is consistent with one version.

``bench.api_load`` drives the server and records one sample per request (a dict: ``client``, ``seq``, ``kind``
(``plan`` or ``ask``), ``item``, ``t0``/``t1`` seconds since the load started, ``ms``, ``status``, ``error``,
``versions`` and ``fingerprint``); everything here reads those samples, so it is tested without a server.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from collections.abc import Iterable

from bench.common import percentile

VERSION_KEY = "dataset_version"  # the envelopes' meta, the plan's meta, the answer's provenance
VERSION_ID = re.compile(r"\b[a-z]{2}-\d{4}\.\d{2}\.\d{2}-[0-9a-f]{8}\b")  # as core.etl names versions
ERROR_EXAMPLES = 10
PROBLEM_EXAMPLES = 10


def latency(ms: Iterable[float]) -> dict:
    """n, p50, p95, p99, max and mean of a list of latencies (ms, one decimal)."""
    xs = sorted(v for v in ms if v is not None)

    def r(v):
        return None if v is None else round(v, 1)

    return {
        "n": len(xs),
        "p50": r(percentile(xs, 50)),
        "p95": r(percentile(xs, 95)),
        "p99": r(percentile(xs, 99)),
        "max": r(xs[-1]) if xs else None,
        "mean": r(sum(xs) / len(xs)) if xs else None,
    }


def versions_named(body) -> list[str]:
    """Every dataset version a response names: values of any ``dataset_version`` key, and version ids written in
    the answer's text (``… (versión gx-…)``), sorted and without repeats."""
    found: set[str] = set()

    def walk(node, key=None):
        if isinstance(node, dict):
            for k, v in node.items():
                walk(v, k)
        elif isinstance(node, list):
            for v in node:
                walk(v, key)
        elif isinstance(node, str):
            if key == VERSION_KEY:
                found.add(node)
            elif key == "text":  # the answer's sentence names the version it read
                found.update(VERSION_ID.findall(node))

    walk(body)
    return sorted(found)


def envelopes_of(body) -> list[dict]:
    """The envelopes of a /plan/execute (one or a list) or /ask answer."""
    if isinstance(body, list):
        return [e for e in body if isinstance(e, dict)]
    if isinstance(body, dict):
        if isinstance(body.get("envelopes"), list):
            return [e for e in body["envelopes"] if isinstance(e, dict)]
        if "status" in body and "meta" in body:
            return [body]
    return []


def fingerprint(body) -> str:
    """sha256 (12 hex) of the rows of every envelope: the same plan on the same version gives the same rows."""
    rows = [((e.get("data") or {}).get("inline") or {}).get("rows") for e in envelopes_of(body)]
    blob = json.dumps(rows, ensure_ascii=False, sort_keys=True, default=str)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()[:12]


def is_error(sample: dict) -> bool:
    """A transport error or any status outside 2xx."""
    return sample.get("error") is not None or not (200 <= int(sample.get("status") or 0) < 300)


def errors(samples: list[dict]) -> dict:
    """How many requests failed, by status (``transporte`` for no response), and the first few."""
    bad = [s for s in samples if is_error(s)]
    by_status = Counter("transporte" if s.get("error") else str(s["status"]) for s in bad)
    examples = [{k: s.get(k) for k in ("kind", "item", "status", "error", "code", "t0")} for s in bad[:ERROR_EXAMPLES]]
    return {"total": len(bad), "por_estado": dict(sorted(by_status.items())), "ejemplos": examples}


def classify(versions: list[str], old: str | None, new: str | None) -> str:
    """``anterior``, ``nueva``, ``mezcla`` (two or more), ``sin_version`` or ``desconocida``."""
    if not versions:
        return "sin_version"
    if len(versions) > 1:
        return "mezcla"
    if versions[0] == old:
        return "anterior"
    if versions[0] == new:
        return "nueva"
    return "desconocida"


def consistency(
    samples: list[dict],
    old: str | None,
    new: str | None,
    published: tuple[float, float] | None,
    baselines: dict[tuple[str, str, str], str],
) -> dict:
    """Whether every answered request names exactly one version, the right one for when it ran, and rows of it.

    ``published`` is (start, end) of the steward's upload, in the samples' clock: a response that ended before
    the upload began must name the old version, one that began after the upload answered must name the new one,
    and a client never goes back to the old version after seeing the new one. ``baselines`` maps (kind, item,
    version) to the fingerprint of the same request answered alone on that version: a response whose rows are
    not its named version's read one version and named another."""
    counts: Counter = Counter()
    problems: list[dict] = []
    saw_new: set[int] = set()

    def problem(s: dict, why: str) -> None:
        problems.append({"motivo": why, "kind": s["kind"], "item": s["item"], "versions": s["versions"], "t0": s["t0"]})

    for s in sorted(samples, key=lambda s: (s["client"], s["seq"])):
        if is_error(s):
            continue
        label = classify(s["versions"], old, new)
        counts[label] += 1
        if label in ("sin_version", "mezcla", "desconocida"):
            problem(s, label)
            continue
        if published is not None:
            if label == "nueva" and s["t1"] < published[0]:
                problem(s, "nueva antes de publicar")
            if label == "anterior" and s["t0"] > published[1]:
                problem(s, "anterior después de publicar")
        if label == "anterior" and s["client"] in saw_new:
            problem(s, "volvió a la anterior")
        if label == "nueva":
            saw_new.add(s["client"])
        expected = baselines.get((s["kind"], s["item"], s["versions"][0]))
        if expected is not None and s.get("fingerprint") != expected:
            problem(s, "filas de otra versión")
    reasons = Counter(p["motivo"] for p in problems)
    return {
        "por_version": {k: counts.get(k, 0) for k in ("anterior", "nueva", "mezcla", "sin_version", "desconocida")},
        "problemas": len(problems),
        "por_motivo": dict(sorted(reasons.items())),
        "ejemplos": problems[:PROBLEM_EXAMPLES],
        "consistente": not problems,
    }


def per_endpoint(samples: list[dict]) -> dict:
    """Latency of the answered requests and the error count, per endpoint (``plan`` → /plan/execute, ``ask``)."""
    out = {}
    for kind in sorted({s["kind"] for s in samples}):
        mine = [s for s in samples if s["kind"] == kind]
        out[kind] = latency(s["ms"] for s in mine if not is_error(s)) | {
            "solicitudes": len(mine),
            "errores": sum(is_error(s) for s in mine),
        }
    return out
