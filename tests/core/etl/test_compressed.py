"""Single compressed CSVs (core/etl/compressed.py): inflated in bounded steps, refused when hostile or broken."""

from __future__ import annotations

import bz2
import dataclasses
import gzip
import hashlib

import pytest

from core.config import Limits
from core.errors import LimiteRecursosError, ValidacionError
from core.etl.compressed import inner_ext, open_compressed
from tests.conftest import FIXTURES

VICTIMS = (FIXTURES / "etl" / "nacional" / "victimas_mini.csv").read_bytes()


def _open(tmp_path, name: str, data: bytes, limits: Limits | None = None):
    path = tmp_path / name
    path.write_bytes(data)
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    ext = "." + name.rsplit(".", 1)[1]
    return open_compressed(path, name, ext, len(data), work, limits or Limits()), work


@pytest.mark.parametrize("name,compress", [("v.csv.bz2", bz2.compress), ("v.csv.gz", gzip.compress)])
def test_a_compressed_csv_reads_as_its_csv(tmp_path, name, compress):
    packed = compress(VICTIMS)
    source, _ = _open(tmp_path, name, packed)
    assert source.name == name and source.container is None
    assert source.path.read_bytes() == VICTIMS
    assert source.header[-1] == "n_victimas" and source.encoding == "utf-8"
    # The provenance names the file as bundled: the compressed bytes' hash and size.
    assert (source.sha256, source.size_bytes) == (hashlib.sha256(packed).hexdigest(), len(packed))


@pytest.mark.parametrize(
    "name,data,error,message",
    [
        ("v.csv.bz2", b"esto no es bzip2", ValidacionError, "no es un bz2 válido"),
        ("v.csv.gz", bz2.compress(VICTIMS), ValidacionError, "no es un gz válido"),
        ("v.csv.bz2", bz2.compress(VICTIMS)[:-20], ValidacionError, "dañado"),
        ("v.xlsx.bz2", bz2.compress(VICTIMS), ValidacionError, "solo se admite un CSV"),
        ("bomba.csv.bz2", bz2.compress(b"a,b\n" + b"0" * 5_000_000), LimiteRecursosError, "bomba"),
    ],
)
def test_hostile_or_broken_files_are_refused_and_leave_nothing(tmp_path, name, data, error, message):
    with pytest.raises(error, match=message):
        _open(tmp_path, name, data)
    assert list((tmp_path / "work").iterdir()) == []


def test_the_inflated_size_is_capped(tmp_path):
    limits = dataclasses.replace(Limits(), max_inflated_bytes=len(VICTIMS) // 2, max_zip_ratio=1e9)
    with pytest.raises(LimiteRecursosError, match="descomprimido ocuparía"):
        _open(tmp_path, "v.csv.bz2", bz2.compress(VICTIMS), limits)


@pytest.mark.parametrize("name,ext", [("a.csv.bz2", ".csv"), ("dir/b.CSV.gz", ".csv"), ("c.bz2", "")])
def test_inner_ext(name, ext):
    assert inner_ext(name) == ext
