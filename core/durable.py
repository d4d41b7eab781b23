"""Durable writes: a file or a folder that survives a crash once the call returns.

A rename is only durable once the folder that holds it is flushed, and a file's bytes only once the file
is; the published versions (``core.etl.publish``), their switch intent (``core.etl.intent``) and the audit
key (``core.audit.seal``) share these few steps instead of each keeping a copy.
"""

from __future__ import annotations

import os
import uuid
from pathlib import Path


def fsync_dir(path: Path) -> None:
    """Flush a folder's entries (a rename, a link or an unlink in it) to disk."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def fsync_tree(path: Path) -> None:
    """Flush every file under a folder, then the folder itself (before the folder is renamed into place)."""
    for child in path.rglob("*"):
        if child.is_file():
            with open(child, "rb+") as fh:
                os.fsync(fh.fileno())
    fsync_dir(path)


def replace_atomically(path: Path, text: str) -> None:
    """Replace a file's whole text: a hidden temporary file, flushed, renamed over it, the folder flushed.

    A reader sees the old text or the new one, never a mix, and a crash leaves one of the two."""
    path = Path(path)
    tmp = path.with_name(f".{path.name}.{uuid.uuid4().hex}")
    with open(tmp, "w", encoding="utf-8") as fh:
        fh.write(text)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)
    fsync_dir(path.parent)
