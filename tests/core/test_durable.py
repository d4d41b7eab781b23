"""Durable writes (core.durable): whole files or none, folders flushed after a rename."""

from __future__ import annotations

import os

import pytest

from core import durable


@pytest.mark.parametrize(("before", "after"), [(None, "gx-2026.01.01-abcd\n"), ("viejo\n", "nuevo\n"), ("x", "")])
def test_a_replaced_file_holds_the_new_text_and_no_temporary_is_left(tmp_path, before, after):
    path = tmp_path / "CURRENT"
    if before is not None:
        path.write_text(before, encoding="utf-8")
    durable.replace_atomically(path, after)
    assert path.read_text(encoding="utf-8") == after
    assert [p.name for p in tmp_path.iterdir()] == ["CURRENT"]


def test_a_failed_write_leaves_the_old_text(tmp_path, monkeypatch):
    path = tmp_path / "PENDING"
    path.write_text("antes", encoding="utf-8")

    def crash(*args):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", crash)
    with pytest.raises(OSError):
        durable.replace_atomically(path, "después")
    assert path.read_text(encoding="utf-8") == "antes"


def test_every_file_of_a_tree_and_every_folder_named_are_flushed(tmp_path, monkeypatch):
    (tmp_path / "v" / "sub").mkdir(parents=True)
    for name in ("v/a.parquet", "v/sub/b.parquet"):
        (tmp_path / name).write_bytes(b"datos")
    flushed = []
    real = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: flushed.append(os.readlink(f"/proc/self/fd/{fd}")) or real(fd))
    durable.fsync_tree(tmp_path / "v")
    assert sorted(flushed) == sorted(str(tmp_path / p) for p in ("v/a.parquet", "v/sub/b.parquet", "v"))
