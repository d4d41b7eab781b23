"""Depósito: versioned, atomically published datasets and the pointer to the current one.

A version is a folder ``versions/<dataset_version>/`` with Parquet tables and
``metadata.json`` written last. Publishing writes everything into a hidden temporary
folder, renames it into place, then replaces the ``CURRENT`` pointer with ``os.replace``.
A crash at any point leaves the previous version and pointer untouched; the leftover
temporary folder is swept on the next load. The switch and its records (the history line,
the audit record) are one step: an intent written before the switch is settled after it,
or on the next start when a crash came in between (``core.etl.intent``).
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import shutil
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from core import durable
from core.errors import DatosFaltantesError, ValidacionError
from core.etl import intent as intents

TABLES = ("incidents", "annual", "population", "entities", "crimes", "methods", "coverage", "quarantine")
TABLES += ("observations", "crime_levels", "places", "place_population")  # docs/decisions/0011
POINTER = "CURRENT"
VERSION_PREFIX = "gx-"


class Depot:
    """The folder of published versions (``<data_dir>/store``)."""

    def __init__(self, store_dir: Path):
        self.root = Path(store_dir)
        self.versions_dir = self.root / "versions"

    # -- reading -------------------------------------------------------------------
    def current_id(self) -> str | None:
        """The dataset_version the pointer names, or None for an empty store."""
        pointer = self.root / POINTER
        try:
            vid = pointer.read_text(encoding="utf-8").strip()
        except FileNotFoundError:
            return None
        return vid if vid and (self.versions_dir / vid / "metadata.json").is_file() else None

    def version_dir(self, vid: str) -> Path:
        """Folder of one version; refuses ids that are not plain version names."""
        if not vid.startswith(VERSION_PREFIX) or "/" in vid or "\\" in vid or ".." in vid:
            raise ValidacionError(f"Identificador de versión inválido: {vid[:80]}")
        return self.versions_dir / vid

    def metadata(self, vid: str | None = None) -> dict | None:
        """Metadata of a version (the current one by default), or None."""
        vid = vid or self.current_id()
        if not vid:
            return None
        path = self.version_dir(vid) / "metadata.json"
        if not path.is_file():
            return None
        return json.loads(path.read_text(encoding="utf-8"))

    def table_path(self, table: str, vid: str | None = None) -> Path | None:
        """Parquet file of one table of a version, or None when there is none."""
        vid = vid or self.current_id()
        if not vid:
            return None
        path = self.version_dir(vid) / f"{table}.parquet"
        return path if path.is_file() else None

    def versions(self) -> list[dict]:
        """Every complete version, newest first, with a ``current`` flag."""
        current = self.current_id()
        out = []
        if not self.versions_dir.is_dir():
            return out
        for child in self.versions_dir.iterdir():
            if child.name.startswith(".") or not (child / "metadata.json").is_file():
                continue
            meta = json.loads((child / "metadata.json").read_text(encoding="utf-8"))
            out.append(
                {
                    "dataset_version": meta["dataset_version"],
                    "updated_at": meta["updated_at"],
                    "min_date": meta.get("min_date"),
                    "max_date": meta.get("max_date"),
                    "row_counts": meta.get("row_counts", {}),
                    "previous_version": meta.get("previous_version"),
                    "current": meta["dataset_version"] == current,
                    # who published it, from which files, what changed and their note (older versions: none)
                    "publicacion": meta.get("publicacion") or {},
                }
            )
        out.sort(key=lambda v: (v["updated_at"], v["dataset_version"]), reverse=True)
        return out

    # -- writing -------------------------------------------------------------------
    @contextlib.contextmanager
    def lock(self, *, wait: bool = True) -> Iterator[bool]:
        """Exclusive writer lock: one load or rollback at a time, across processes.

        Yields True once held; with ``wait=False`` yields False at once when another writer holds it."""
        self.root.mkdir(parents=True, exist_ok=True)
        with open(self.root / ".lock", "a+") as fh:
            try:
                fcntl.flock(fh.fileno(), fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
            except BlockingIOError:
                yield False
                return
            try:
                yield True
            finally:
                fcntl.flock(fh.fileno(), fcntl.LOCK_UN)

    def new_work_dir(self) -> Path:
        """A fresh private folder for one load; earlier leftovers are swept first."""
        work_root = self.root / ".work"
        work_root.mkdir(parents=True, exist_ok=True)
        for stale in work_root.iterdir():
            shutil.rmtree(stale, ignore_errors=True)
        path = work_root / uuid.uuid4().hex
        path.mkdir()
        return path

    def new_staging_version(self) -> Path:
        """A hidden folder that becomes a version only when renamed into place."""
        self.versions_dir.mkdir(parents=True, exist_ok=True)
        for stale in self.versions_dir.glob(".tmp-*"):
            shutil.rmtree(stale, ignore_errors=True)
        path = self.versions_dir / f".tmp-{uuid.uuid4().hex}"
        path.mkdir()
        return path

    def commit_version(self, staging: Path, vid: str) -> Path:
        """Make a fully written staging folder the version ``vid`` (atomic rename)."""
        target = self.version_dir(vid)
        if target.exists():
            # Same content published earlier the same day: keep the existing files.
            shutil.rmtree(staging, ignore_errors=True)
            return target
        durable.fsync_tree(staging)
        os.rename(staging, target)
        durable.fsync_dir(self.versions_dir)
        return target

    def _require_complete(self, vid: str) -> None:
        if not (self.version_dir(vid) / "metadata.json").is_file():
            raise DatosFaltantesError(
                f"La versión {vid} no existe o está incompleta.",
                ["Consulte la lista de versiones con `python -m core versions`."],
            )

    def switch(self, vid: str) -> None:
        """Point CURRENT at a complete version (atomic replace of the pointer file)."""
        self._require_complete(vid)
        durable.replace_atomically(self.root / POINTER, vid + "\n")

    def record(self, event: dict) -> None:
        """Append a publish/rollback event to ``history.jsonl``."""
        self.root.mkdir(parents=True, exist_ok=True)
        with open(self.root / "history.jsonl", "a", encoding="utf-8") as fh:
            fh.write(json.dumps(event, ensure_ascii=False, sort_keys=True) + "\n")
            fh.flush()
            os.fsync(fh.fileno())

    def publish(self, vid: str, event: dict, record: dict | None = None, log: Any | None = None) -> str:
        """Make ``vid`` current as one step with its history line and audit record; callers hold ``lock``.

        ``record`` is the audit record's fields (kind, user, role, status…) and ``log`` the AuditLog it goes
        to; returns the job id the history line and the audit record share."""
        intents.reconcile(self, log)  # a leftover intent is settled before this one replaces it
        self._require_complete(vid)
        job = intents.new_intent(vid, event, record)
        intents.write_intent(self.root, job)
        self.switch(vid)
        intents.settle(self, job, log)
        return job["id"]

    def pending(self) -> bool:
        """Whether a publish or rollback left its records unsettled (see ``reconcile``)."""
        return intents.pending(self.root)

    def reconcile(self, log: Any | None = None, *, wait: bool = True) -> dict | None:
        """Settle a publish or rollback a killed process left between its switch and its records.

        A stat when nothing is pending; with ``wait=False`` it skips while another writer holds the store."""
        if not self.pending():
            return None
        with self.lock(wait=wait) as held:
            return intents.reconcile(self, log) if held else None

    def rollback(
        self,
        vid: str,
        when: str,
        *,
        log: Any | None = None,
        user: str = "local",
        role: str = "steward",
        reason: str | None = None,
    ) -> dict:
        """Make an earlier version current again, with its history line and (given ``log``) audit record;
        ``reason`` (why the steward goes back) is kept in both."""
        with self.lock():
            previous = self.current_id()
            reason = (reason or "").strip() or None
            record = {
                "kind": "rollback",
                "user": user,
                "role": role,
                "status": "ok",
                "dataset_version": vid,
                "payload": {"from": previous, "to": vid} | ({"motivo": reason} if reason else {}),
            }
            event = {"event": "rollback", "from": previous, "to": vid, "at": when}
            event |= {"motivo": reason} if reason else {}
            self.publish(vid, event, record if log is not None else None, log)
        return self.metadata(vid)
