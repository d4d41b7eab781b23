"""A switch of CURRENT and the records it owes, as one step (publish and rollback).

Before the pointer moves, ``<store>/PENDING`` says which version becomes current, the ``history.jsonl`` line
and the audit record the switch owes, and the job id they share. After the switch the line and the record are
written and the intent removed. A process killed anywhere in between leaves the intent behind; the next writer
(under the store lock) or API call settles it: if CURRENT names the intended version the switch happened, and
its line and record are written, each at most once; otherwise the switch never happened and the intent goes.
A record that cannot be written yet (a caller with no audit log) waits in ``<store>/owed/`` for one that has.
"""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from core import durable

if TYPE_CHECKING:
    from core.etl.publish import Depot

INTENT = "PENDING"
OWED = "owed"
LOAD_FILE_KEYS = ("archivo", "formato", "sha256", "filas", "filas_en_cuarentena")


def _write_atomic(path: Path, data: dict) -> None:
    durable.replace_atomically(path, json.dumps(data, ensure_ascii=False, sort_keys=True))


def new_intent(target: str, event: dict, record: dict | None) -> dict:
    """The intent of switching CURRENT to ``target``: its history event, its audit record fields, one job id."""
    return {"id": uuid.uuid4().hex, "target": target, "event": event, "record": record}


def write_intent(root: Path, intent: dict) -> None:
    """Persist the intent before the switch (temp file, fsync, rename)."""
    _write_atomic(Path(root) / INTENT, intent)


def read_intent(root: Path) -> dict | None:
    """The intent a publish or rollback left, or None (an unreadable one is ignored: it never reached a switch)."""
    try:
        data = json.loads((Path(root) / INTENT).read_text(encoding="utf-8"))
    except (FileNotFoundError, ValueError, UnicodeDecodeError):
        return None
    return data if isinstance(data, dict) and {"id", "target", "event"} <= set(data) else None


def clear_intent(root: Path) -> None:
    """Remove the intent once its switch is settled (or known not to have happened)."""
    (Path(root) / INTENT).unlink(missing_ok=True)
    durable.fsync_dir(Path(root))


def pending(root: Path) -> bool:
    """Whether an intent or an owed record waits to be settled (two stats: cheap enough for every API call)."""
    return (Path(root) / INTENT).exists() or (Path(root) / OWED).is_dir()


def _in_history(root: Path, job_id: str) -> bool:
    try:
        lines = (Path(root) / "history.jsonl").read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        return False
    for line in lines:
        try:
            if json.loads(line).get("job_id") == job_id:
                return True
        except ValueError:
            continue  # a line cut by a crash mid-append: not this event's
    return False


def _write_record(log: Any, job_id: str, record: dict, *, reconciled: bool) -> None:
    """Append the owed audit record under the intent's job id, once."""
    if log.get(job_id) is not None:
        return
    fields = dict(record)
    if reconciled:  # written on a later start, after a crash: say so in the record
        fields["payload"] = {**fields.get("payload", {}), "reconciled": True}
    log.append(**fields, job_id=job_id)


def settle(depot: Depot, intent: dict, log: Any | None, *, reconciled: bool = False) -> None:
    """After the switch: the history line and the audit record (each once), then the intent goes."""
    if not _in_history(depot.root, intent["id"]):
        depot.record({**intent["event"], "job_id": intent["id"]})
    if intent.get("record"):
        if log is not None:
            _write_record(log, intent["id"], intent["record"], reconciled=reconciled)
        else:
            owed = depot.root / OWED
            owed.mkdir(exist_ok=True)
            _write_atomic(owed / f"{intent['id']}.json", intent)
    clear_intent(depot.root)


def reconcile(depot: Depot, log: Any | None) -> dict | None:
    """Settle what a killed publish or rollback left (callers hold the store lock); the settled intent or None."""
    intent = read_intent(depot.root)
    settled = None
    if intent is not None:
        if depot.current_id() == intent["target"]:
            settle(depot, intent, log, reconciled=True)
            settled = intent
        else:
            clear_intent(depot.root)  # killed before the switch: nothing was published
    owed = depot.root / OWED
    if log is not None and owed.is_dir():
        for path in sorted(owed.glob("*.json")):
            waiting = json.loads(path.read_text(encoding="utf-8"))
            _write_record(log, waiting["id"], waiting["record"], reconciled=True)
            path.unlink()
        owed.rmdir()
    return settled


def load_payload(files: list[str], summary: dict) -> dict:
    """What the audit keeps of a load: the files, the summary and each file's format, hash and counts."""
    return {
        "files": files,
        "summary": {k: v for k, v in summary.items() if k != "archivos"},
        "archivos": [{k: a.get(k) for k in LOAD_FILE_KEYS} for a in summary["archivos"]],
    }


@dataclass(frozen=True)
class PublishAudit:
    """The audit log a publish writes its record to, and in whose name (``core.api.load_files`` passes one)."""

    log: Any
    user: str
    role: str
    files: list[str]

    def record(self, vid: str, summary: dict) -> dict:
        """The «published» record's fields for version ``vid`` and the load's summary."""
        return {
            "kind": "etl",
            "user": self.user,
            "role": self.role,
            "status": "published",
            "dataset_version": vid,
            "payload": load_payload(self.files, summary),
        }
