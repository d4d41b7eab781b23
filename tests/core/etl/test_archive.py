"""ZIP uploads (core.etl.archive): vetted whole before extraction, members described by core.etl.sources."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import pytest

from core.config import Limits
from core.errors import LimiteRecursosError, ValidacionError
from core.etl.archive import open_zip


def _zip(tmp_path: Path, entries: list[tuple[str, bytes]], method: int = zipfile.ZIP_DEFLATED) -> Path:
    """A ZIP file written under tmp_path; entries are (member name, bytes)."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=method) as zf:
        for name, data in entries:
            zf.writestr(name, data)
    path = tmp_path / "bundle.zip"
    path.write_bytes(buf.getvalue())
    return path


def test_members_are_extracted_into_the_call_folder_and_described(tmp_path):
    call_dir = tmp_path / "call"
    call_dir.mkdir()
    path = _zip(tmp_path, [("datos/a.csv", b"a,b\n1,2\n"), ("__MACOSX/._a.csv", b"x"), ("LEAME.pdf", b"%PDF-")])
    found = open_zip(path, "bundle.zip", call_dir, Limits())
    assert [(s.name, s.container, s.header) for s in found] == [("bundle.zip:datos/a.csv", "bundle.zip", ("a", "b"))]
    assert found[0].path.parent == call_dir


# (members, limits, error, fragment of the Spanish message): nothing is extracted from a refused archive
REFUSED = [
    ([("../evil.csv", b"a,b\n1,2\n")], Limits(), ValidacionError, "ruta peligrosa"),
    ([("C:/evil.csv", b"a,b\n1,2\n")], Limits(), ValidacionError, "ruta peligrosa"),
    ([("a.csv", b"a,b\n1,2\n"), ("b.zip", b"PK\x03\x04")], Limits(), ValidacionError, "anidados"),
    ([("a.csv", b"a,b\n" + b"0" * 200_000)], Limits(max_zip_ratio=10), LimiteRecursosError, "bomba"),
    ([(f"{n}.csv", b"a,b\n1,2\n") for n in "abc"], Limits(max_zip_entries=2), LimiteRecursosError, "entradas"),
    ([("notas.pdf", b"%PDF-")], Limits(), ValidacionError, "no contiene archivos CSV"),
]


@pytest.mark.parametrize(("members", "limits", "error", "fragment"), REFUSED)
def test_a_hostile_archive_is_refused_whole(tmp_path, members, limits, error, fragment):
    call_dir = tmp_path / "call"
    call_dir.mkdir()
    with pytest.raises(error, match=fragment):
        open_zip(_zip(tmp_path, members), "bundle.zip", call_dir, limits)
    assert list(call_dir.iterdir()) == []
