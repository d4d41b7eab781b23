"""The audit log's seal: a key and an anchor kept outside the SQLite file (docs/decisions/0007-hash-chained-audit.md).

New records are chained with ``hmac-sha256`` under a key in ``<keys_dir>/<name>.key`` (32 random bytes, created
with mode 0600 on the first append): whoever can write the audit file but cannot read the key can no longer edit a
record and recompute the hashes after it. After every append the anchor ``<keys_dir>/<name>.anchor`` names the
file (its ``log_id``), the head's seq and hash and the first keyed seq, itself HMAC'd: deleting the tail, every
row or the whole file leaves the anchor ahead of what is left.

The anchor only moves forward from a state the file still matches. An anchor the file contradicts, or a missing
one next to an existing key, is evidence: appends never overwrite it, ``reanchor`` (an audited, deliberate act)
does. A missing key is never replaced once the log was sealed: appends fail until it is restored.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import hmac
import json
import os
import secrets
import sqlite3
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path

from core import durable
from core.audit.records import _HASHED, _TABLE, GENESIS_HASH
from core.errors import CasandraError
from core.text import canonical_json

PLAIN = "sha256:"  # the chain of logs written before the seal (and of records before the key existed)
KEYED = "hmac-sha256:"
KEY_BYTES = 32
ANCHOR_FORMAT = 1
ANCHOR_BYTES = 512  # the anchor file is one record of this size, rewritten in place


class SelloError(CasandraError):
    """The audit log cannot be sealed: its key is missing or unreadable (COMPUTE_ERROR)."""


def record_mac(key: bytes, prev_hash: str, fields: dict) -> str:
    """``hmac-sha256:<hex>`` of ``prev_hash`` + canonical JSON of a record's hashed fields, under ``key``."""
    body = canonical_json({name: fields[name] for name in _HASHED})
    return KEYED + hmac.new(key, (prev_hash + body).encode("utf-8"), hashlib.sha256).hexdigest()


def is_keyed(digest: str | None) -> bool:
    """Whether a stored hash was made with the key (its prefix names the rule)."""
    return bool(digest) and digest.startswith(KEYED)


@dataclass(frozen=True)
class Anchor:
    """The head a log had after its last sealed append: file id, seq, hash and the first keyed seq."""

    log_id: str
    seq: int
    hash: str
    keyed_from: int
    mac: str = ""

    def _body(self) -> bytes:
        fields = {"format": ANCHOR_FORMAT, "log_id": self.log_id, "seq": self.seq, "hash": self.hash}
        return canonical_json({**fields, "keyed_from": self.keyed_from}).encode("utf-8")

    def signed(self, key: bytes) -> Anchor:
        """This anchor with its HMAC under ``key``."""
        return replace(self, mac=KEYED + hmac.new(key, self._body(), hashlib.sha256).hexdigest())

    def valid(self, key: bytes) -> bool:
        """Whether the anchor was written with ``key`` and not changed since."""
        return hmac.compare_digest(self.signed(key).mac, self.mac)


UNREADABLE = Anchor("", -1, "", 0)  # what a mangled anchor file reads as: never valid


def _read(path: Path) -> bytes:
    """A small file's bytes through raw descriptors (this runs for every record, inside the lock)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        return os.read(fd, 4096)
    finally:
        os.close(fd)


def _acquire(fd: int) -> None:
    """Take the lock the way SQLite's busy handler does: a waiter sleeps (1 ms, doubling to 50 ms) and retries.

    A blocking flock hands the lock over on every release, a context switch per record: 8 writers on 2 cores
    took 10x longer. Sleeping waiters let the holder append a burst while its time slice lasts."""
    delay = 0.001
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            time.sleep(delay)
            delay = min(delay * 2, 0.05)


class Seal:
    """The key and anchor files of one audit log, and the lock its appenders share."""

    def __init__(self, keys_dir: Path, name: str = "audit"):
        """The seal of the log called ``name`` (the SQLite file's stem) in ``keys_dir``."""
        self.dir = Path(keys_dir)
        self.key_path = self.dir / f"{name}.key"
        self.anchor_path = self.dir / f"{name}.anchor"
        self._lock_path = self.dir / f"{name}.lock"

    def key(self) -> bytes | None:
        """The key, or None when there is none yet; an unreadable key is an error, never a new key."""
        try:
            text = _read(self.key_path).decode("ascii").strip()
        except FileNotFoundError:
            return None
        except (OSError, UnicodeDecodeError):
            text = ""
        try:
            key = bytes.fromhex(text)
        except ValueError:
            key = b""
        if len(key) != KEY_BYTES:
            raise SelloError(
                "La llave de la bitácora de auditoría es ilegible.",
                ["Restaure el archivo de la llave desde su respaldo (carpeta de llaves de auditoría)."],
            )
        return key

    def create_key(self) -> bytes:
        """Write a new random key (mode 0600); if another process wrote one first, that one is kept."""
        self.dir.mkdir(parents=True, exist_ok=True, mode=0o700)
        tmp = self.dir / f".{self.key_path.name}.{uuid.uuid4().hex}"
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            os.write(fd, (secrets.token_hex(KEY_BYTES) + "\n").encode("ascii"))
            os.fsync(fd)
        finally:
            os.close(fd)
        try:
            os.link(tmp, self.key_path)  # unlike a rename, a link never replaces an existing key
        except FileExistsError:
            pass
        finally:
            tmp.unlink(missing_ok=True)
        durable.fsync_dir(self.dir)
        return self.key()

    def anchor(self) -> Anchor | None:
        """The anchor as written, None when there is no file, ``UNREADABLE`` when it is mangled."""
        try:
            data = json.loads(_read(self.anchor_path))
            return Anchor(
                str(data["log_id"]), int(data["seq"]), str(data["hash"]), int(data["keyed_from"]), str(data["mac"])
            )
        except FileNotFoundError:
            return None
        except (OSError, ValueError, KeyError, TypeError):
            return UNREADABLE

    def write_anchor(self, anchor: Anchor, key: bytes) -> None:
        """Sign the anchor and overwrite the anchor file's one fixed-size record in place (callers hold ``locked``).

        One write of ``ANCHOR_BYTES`` at offset 0 replaces the whole record at once for a killed process (and
        fits one disk sector). Not temp file + rename: on ext4 a rename over an existing file flushes its data
        first, 2-3 ms per record, five times the cost of the append itself."""
        signed = anchor.signed(key)
        data = {
            "format": ANCHOR_FORMAT,
            "log_id": signed.log_id,
            "seq": signed.seq,
            "hash": signed.hash,
            "keyed_from": signed.keyed_from,
            "mac": signed.mac,
        }
        text = json.dumps(data, sort_keys=True).encode("ascii")
        if len(text) >= ANCHOR_BYTES:
            raise SelloError("El ancla de la bitácora de auditoría no cabe en su registro.")
        fd = os.open(self.anchor_path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            # No fsync, like the log's own commits (WAL, synchronous=NORMAL): safe against a killed process, and
            # an anchor that a power cut leaves behind the file only lags.
            os.pwrite(fd, text.ljust(ANCHOR_BYTES - 1) + b"\n", 0)
        finally:
            os.close(fd)

    @contextlib.contextmanager
    def locked(self, *, create: bool = True) -> Iterator[None]:
        """Exclusive lock over appending and moving the anchor, across threads and processes.

        With ``create=False`` (readers) and no lock file yet, nothing ever sealed this log: no lock is needed."""
        if not create and not self._lock_path.exists():
            yield
            return
        try:
            fd = os.open(self._lock_path, os.O_RDWR | os.O_CREAT, 0o600)
        except FileNotFoundError:  # the first sealed append: the keys folder is made here, private
            self.dir.mkdir(parents=True, exist_ok=True, mode=0o700)
            fd = os.open(self._lock_path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            _acquire(fd)
            try:
                yield
            finally:
                fcntl.flock(fd, fcntl.LOCK_UN)
        finally:
            os.close(fd)


def log_id(conn: sqlite3.Connection) -> str | None:
    """The file's identity (migration 0003), or None when its table was removed."""
    try:
        row = conn.execute("SELECT value FROM audit_meta WHERE name = 'log_id'").fetchone()
    except sqlite3.OperationalError:
        return None
    return row[0] if row else None


def head(conn: sqlite3.Connection) -> tuple[int, str]:
    """The last record's seq and hash, ``(0, GENESIS_HASH)`` for an empty log."""
    row = conn.execute(f"SELECT seq, hash FROM {_TABLE} ORDER BY seq DESC LIMIT 1").fetchone()
    return (int(row[0]), row[1]) if row else (0, GENESIS_HASH)


def sealing_key(seal: Seal, conn: sqlite3.Connection) -> bytes:
    """The key for the next record: created with the first anchor on the first sealed append, never replaced."""
    key = seal.key()
    if key is not None:
        return key
    seq, digest = head(conn)
    if seal.anchor() is not None or is_keyed(digest):
        raise SelloError(
            "Falta la llave de la bitácora de auditoría y la bitácora ya estaba sellada: no se crea una llave nueva.",
            [
                "Restaure el archivo de la llave desde su respaldo.",
                "Sin ella no se puede registrar ni verificar la auditoría.",
            ],
        )
    key = seal.create_key()
    if seal.anchor() is None:  # a log written before the seal: its plain chain is anchored from here on
        seal.write_anchor(Anchor(log_id(conn) or "", seq, digest, seq + 1), key)
    return key


def _matches(conn: sqlite3.Connection, anchor: Anchor, below: int) -> bool:
    """Whether the file still holds the anchored record (and the anchor is behind ``below``)."""
    if anchor.seq >= below:
        return False
    if anchor.seq == 0:
        return anchor.hash == GENESIS_HASH
    row = conn.execute(f"SELECT hash FROM {_TABLE} WHERE seq = ?", (anchor.seq,)).fetchone()
    return row is not None and row[0] == anchor.hash


def advance(seal: Seal, conn: sqlite3.Connection, key: bytes, seq: int, digest: str, prev_hash: str) -> bool:
    """Move the anchor to the record just appended (callers hold ``locked``), only from an anchor the file
    still matches; a missing or forged one, or one another file or other records contradict, stays as evidence."""
    old = seal.anchor()
    if old is None or not old.valid(key):
        return False
    current = log_id(conn)
    if current is None or old.log_id != current:
        return False
    if not (old.seq == seq - 1 and old.hash == prev_hash) and not _matches(conn, old, seq):
        return False
    seal.write_anchor(Anchor(current, seq, digest, old.keyed_from), key)
    return True


def reanchor(seal: Seal, conn: sqlite3.Connection, key: bytes) -> tuple[Anchor | None, Anchor]:
    """Anchor the file as it is now; returns the old anchor (as read) and the new one."""
    old = seal.anchor()
    seq, digest = head(conn)
    first = conn.execute(f"SELECT min(seq) FROM {_TABLE} WHERE hash LIKE ?", (KEYED + "%",)).fetchone()[0]
    new = Anchor(log_id(conn) or "", seq, digest, int(first) if first else seq + 1)
    seal.write_anchor(new, key)
    return old, new.signed(key)
