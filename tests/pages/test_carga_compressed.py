"""Carga de datos with compressed files (issue 14, item 2): a ``.csv.bz2`` / ``.csv.gz`` is accepted and read as its
CSV; a decompression bomb or a corrupt file is refused with its contract code and a Spanish message, nothing written.

The bomb is built here, in ``tmp_path``: 62 bytes of bzip2 that inflate to 5 MB (a ratio of about 80,000:1, far
past ``Limits.max_zip_ratio``), and its gzip twin."""

from __future__ import annotations

import bz2
import dataclasses
import gzip
from pathlib import Path

import pytest

from core import api
from core.audit.log import AuditLog
from core.config import Limits
from core.errors import LimiteRecursosError, ValidacionError
from core.etl import SourceSpec
from tests.conftest import FIXTURES
from tests.markdown_check import unescape
from ui import upload

LEON = FIXTURES / "etl" / "leon_revision.csv"
BOMB_BODY = b"a,b\n" + b"0" * 5_000_000
COMPRESS = {"bz2": bz2.compress, "gz": gzip.compress}


def bomb(tmp_path: Path, ext: str) -> Path:
    """A tiny compressed CSV that inflates past every bound of the upload."""
    path = tmp_path / f"bomba.csv.{ext}"
    path.write_bytes(COMPRESS[ext](BOMB_BODY))
    return path


def leftovers(settings) -> list[Path]:
    """Whatever a load left in the store's private work folder (nothing, after a refusal)."""
    work = settings.store_dir / ".work"
    return sorted(p for p in work.rglob("*") if p.is_file()) if work.exists() else []


# --- through core -----------------------------------------------------------------------------------


@pytest.mark.parametrize("ext", ["bz2", "gz"])
@pytest.mark.parametrize("bound", ["ratio", "size"])
def test_a_compressed_bomb_is_refused_by_core_and_nothing_is_written(data_copy, tmp_path, ext, bound):
    path = bomb(tmp_path, ext)
    assert path.stat().st_size < 6_000  # a tiny file
    settings = data_copy
    if bound == "size":  # the absolute bound alone: the ratio would let it through
        limits = dataclasses.replace(Limits(), max_inflated_bytes=1_000_000, max_zip_ratio=1e9)
        settings = dataclasses.replace(data_copy, limits=limits)
    before = api.versions(data_copy)
    with pytest.raises(LimiteRecursosError, match="bomba de descompresión") as caught:
        api.load_files([SourceSpec(path, display_name=path.name)], settings=settings, user="t@x", role="steward")
    assert caught.value.code == "RESOURCE_LIMIT"
    assert ("descomprimido ocuparía" if bound == "size" else "se expande más de") in caught.value.details
    assert api.versions(data_copy) == before
    assert leftovers(data_copy) == []
    record = AuditLog.for_settings(data_copy).list(kind="etl")[0]
    assert record.status == "refused" and record.payload["error"]["code"] == "RESOURCE_LIMIT"


def test_a_corrupt_bz2_is_refused_by_core_in_spanish(data_copy, tmp_path):
    path = tmp_path / "leon.csv.bz2"
    path.write_bytes(bz2.compress(LEON.read_bytes())[:-20])
    with pytest.raises(ValidacionError, match="está dañado o no se puede leer"):
        api.load_files([SourceSpec(path, display_name=path.name)], settings=data_copy, dry_run=True)
    assert leftovers(data_copy) == []


# --- through the page ----------------------------------------------------------------------------------


def _carga(make_app, settings):
    at = make_app(settings, roles=["steward"], email="luis@example.org").run()
    return at.switch_page("pages/carga.py").run()


def _preview(at, name: str, data: bytes):
    at.file_uploader(key="carga_archivos").set_value([(name, data, "application/octet-stream")]).run()
    next(b for b in at.button if b.label == "Vista previa").click().run()
    return at


@pytest.mark.slow
def test_the_uploader_accepts_bz2_and_gz(data_copy, make_app):
    at = _carga(make_app, data_copy)
    accepted = set(at.file_uploader(key="carga_archivos").proto.type)
    assert {".bz2", ".gz", ".csv", ".zip"} <= accepted
    assert "bz2" in unescape(at.caption[0].value) and "gz" in unescape(at.caption[0].value)
    assert {"bz2", "gz"} <= set(upload.UPLOAD_TYPES)


@pytest.mark.slow
@pytest.mark.parametrize("ext", ["bz2", "gz"])
def test_a_compressed_csv_previews_through_the_page(data_copy, make_app, ext):
    at = _preview(_carga(make_app, data_copy), f"leon_revision.csv.{ext}", COMPRESS[ext](LEON.read_bytes()))
    assert not at.exception and not at.error
    files = at.dataframe[0].value
    assert files.loc[0, "archivo"] == f"leon_revision.csv.{ext}"
    assert files.loc[0, "formato"].startswith("IDM_NM") and files.loc[0, "delitos"] == "homicidio_doloso"


@pytest.mark.slow
@pytest.mark.parametrize(
    "name,make,code,message",
    [
        ("bomba.csv.bz2", lambda tmp: bomb(tmp, "bz2").read_bytes(), "RESOURCE_LIMIT", "bomba de descompresión"),
        ("bomba.csv.gz", lambda tmp: bomb(tmp, "gz").read_bytes(), "RESOURCE_LIMIT", "bomba de descompresión"),
        ("leon.csv.bz2", lambda tmp: bz2.compress(LEON.read_bytes())[:-20], "INVALID_PAYLOAD", "está dañado"),
        ("leon.csv.gz", lambda tmp: b"no es gzip", "INVALID_PAYLOAD", "no es un gz válido"),
    ],
)
def test_a_bad_compressed_file_is_refused_by_the_page_and_nothing_is_lost(
    data_copy, make_app, tmp_path, name, make, code, message
):
    before = api.versions(data_copy)
    at = _preview(_carga(make_app, data_copy), name, make(tmp_path))
    assert not at.exception
    error = unescape(at.error[0].value)
    assert message in error and code in error and upload.NOTHING_LOST in error
    assert next(b for b in at.button if b.label == "Publicar").disabled
    assert api.versions(data_copy) == before
    assert leftovers(data_copy) == []
