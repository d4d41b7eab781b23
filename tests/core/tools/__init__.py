"""Tests of core.tools, and what they share."""

from __future__ import annotations

import json


def comparable(envelopes: list[dict]) -> str:
    """Envelopes as canonical JSON without what differs run to run (timing, job id)."""
    out = []
    for env in envelopes:
        env = json.loads(json.dumps(env, default=str))
        for key in ("timing_ms", "job_id"):
            env["meta"].pop(key, None)
        out.append(env)
    return json.dumps(out, sort_keys=True)
