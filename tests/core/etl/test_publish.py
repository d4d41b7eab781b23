"""Kill injection around the switch: after the next start, every current version has its records.

A subprocess loads (or rolls back) through ``core.api`` and dies with ``os._exit`` at one point of the publish:
before or after the intent, the switch, the history line, the audit record and its anchor, the intent's removal.
Then the next start (any API call) must leave CURRENT named by exactly one history line and one audit record,
sharing a job id, and the audit chain intact. Before the intent, 6 of these points left a switch with no record.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from core import api
from core.audit.log import AuditLog
from core.config import load_settings
from core.etl import SourceSpec
from core.etl.publish import Depot
from tests.conftest import FIXTURES, RAW

pytestmark = pytest.mark.slow  # one subprocess load or rollback per kill point

ROOT = Path(__file__).resolve().parents[3]
HOMICIDE = RAW / "sesnsp" / "IDM_NM_gto_homicidio_2020-2025.csv"
LEON = FIXTURES / "etl" / "leon_revision.csv"

KILL_SCRIPT = """
import os, sys
from pathlib import Path
from core import api
from core.audit import log as audit_log, seal
from core.config import load_settings
from core.etl import SourceSpec, intent, merge, publish

point, data, action, arg = sys.argv[1:5]
when, _, where = point.partition(":")
owner_name, _, name = where.partition(".")
owner = {
    "merge": merge, "Depot": publish.Depot, "intent": intent, "AuditLog": audit_log.AuditLog, "Seal": seal.Seal,
}[owner_name]
real = getattr(owner, name)

def dying(*args, **kwargs):
    if when == "after":
        real(*args, **kwargs)
    os._exit(137)

setattr(owner, name, dying)
settings = load_settings(data)
if action == "load":
    api.load_files([SourceSpec(Path(arg))], settings=settings, user="killed@example.org")
else:
    api.rollback(arg, settings=settings, user="killed@example.org")
"""

# Every step of a publish, in order; "instead" dies before the step, "after" right after it.
STEPS = [
    "after:merge.write_tables",
    "instead:Depot.commit_version",
    "after:Depot.commit_version",
    "instead:intent.write_intent",
    "after:intent.write_intent",
    "instead:Depot.switch",
    "after:Depot.switch",
    "instead:Depot.record",
    "after:Depot.record",
    "instead:AuditLog._insert",
    "after:AuditLog._insert",
    "instead:Seal.write_anchor",
    "after:AuditLog.append",
    "instead:intent.clear_intent",
    "after:intent.clear_intent",
]
ROLLBACK_STEPS = [s for s in STEPS if not s.startswith(("after:merge", "instead:Depot.commit", "after:Depot.commit"))]
POINTS = [("load", s) for s in STEPS] + [("rollback", s) for s in ROLLBACK_STEPS]


@pytest.fixture(scope="module")
def stores(tmp_path_factory) -> dict[str, Path]:
    """``one``: homicide published; ``two``: then León's revision published (somewhere to roll back from)."""
    base = tmp_path_factory.mktemp("kill")
    one = load_settings(base / "one")
    first = api.load_files([SourceSpec(HOMICIDE)], settings=one, user="base")["dataset_version"]
    shutil.copytree(one.data_dir, base / "two")
    api.load_files([SourceSpec(LEON)], settings=load_settings(base / "two"), user="base")
    return {"one": one.data_dir, "two": base / "two", "first": first}


def _history(settings) -> list[dict]:
    return [json.loads(line) for line in (settings.store_dir / "history.jsonl").read_text().splitlines()]


@pytest.mark.parametrize("action,point", POINTS, ids=[f"{a}-{p}" for a, p in POINTS])
def test_every_current_version_has_its_records_after_a_kill(stores, tmp_path, action, point):
    data = tmp_path / "data"
    shutil.copytree(stores["one" if action == "load" else "two"], data)
    settings = load_settings(data)
    before = Depot(settings.store_dir).current_id()
    arg = str(LEON) if action == "load" else stores["first"]
    proc = subprocess.run(
        [sys.executable, "-c", KILL_SCRIPT, point, str(data), action, arg],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        timeout=300,
    )
    assert proc.returncode == 137, proc.stderr.decode()[-800:]

    api.versions(settings)  # the next start: any API call settles what the kill left
    depot = Depot(settings.store_dir)
    current = depot.current_id()
    assert not depot.pending()
    history = _history(settings)
    last = history[-1]
    assert (last.get("dataset_version") or last.get("to")) == current
    log = AuditLog.for_settings(settings)
    switches = [r for r in log.list(limit=None) if r.kind == "rollback" or (r.kind, r.status) == ("etl", "published")]
    assert switches[0].dataset_version == current
    assert switches[0].job_id == last["job_id"]  # the history line and the record are the same event
    assert len({h["job_id"] for h in history}) == len(history) == len(switches)  # nothing written twice
    assert log.verify().ok
    if current == before:  # killed before the switch: nothing new was recorded as published
        assert len(history) == len(_history(load_settings(stores["one" if action == "load" else "two"])))
