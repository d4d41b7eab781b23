"""Single-file compressed uploads (``.csv.bz2``, ``.csv.gz``): inflated in bounded steps, then read as their CSV.

DuckDB reads gzip but not bzip2 (its 2.0 reader refuses ``compression='bz2'``), and a CSV's
encoding and header must be checked before DuckDB sees it anyway, so both are inflated here,
chunk by chunk, into the call's private folder. The real byte count is checked against the
upload and inflation limits and the expansion ratio as it grows: a decompression bomb stops
at the first chunk past a limit and leaves nothing behind. The file keeps its own name and
its own SHA-256 (the compressed bytes, the ones the provenance names).
"""

from __future__ import annotations

import bz2
import dataclasses
import gzip
import zlib
from pathlib import Path, PurePosixPath

from core.config import Limits
from core.errors import LimiteRecursosError, ValidacionError
from core.etl.encoding import CHUNK
from core.etl.sources import CSV_EXTS, SourceFile, inspect_file, megabytes, new_work_file, sha256_file

OPENERS = {".bz2": (bz2.open, b"BZh"), ".gz": (gzip.open, b"\x1f\x8b")}
COMPRESSED_EXTS = frozenset(OPENERS)
HINT = "Comprima un solo archivo CSV con bzip2 (.csv.bz2) o gzip (.csv.gz), o súbalo sin comprimir."
_ERRORS = (OSError, EOFError, ValueError, zlib.error)


def inner_ext(name: str) -> str:
    """The extension under the compression one: ``victimas.csv.bz2`` → ``.csv``."""
    return PurePosixPath(PurePosixPath(name.replace("\\", "/")).stem).suffix.lower()


def open_compressed(path: Path, name: str, ext: str, size: int, call_dir: Path, limits: Limits) -> SourceFile:
    """Inflate one compressed CSV into ``call_dir`` and describe it like any CSV."""
    opener, magic = OPENERS[ext]
    if inner_ext(name) not in CSV_EXTS:
        raise ValidacionError(f"«{name}»: solo se admite un CSV comprimido (archivo.csv{ext}).", [HINT])
    with open(path, "rb") as fh:
        if not fh.read(len(magic)).startswith(magic):  # trust the magic number, not the extension
            raise ValidacionError(f"El archivo «{name}» no es un {ext[1:]} válido.", [HINT])
    target, inflated = _inflate(path, name, opener, size, call_dir, limits)
    source = inspect_file(target, name, inner_ext(name), inflated, None, call_dir, limits)
    if source.path != target:  # a UTF-8 copy was made: the inflated text is no longer needed
        target.unlink(missing_ok=True)
    return dataclasses.replace(source, sha256=sha256_file(path), size_bytes=size)


def _inflate(path: Path, name: str, opener, size: int, call_dir: Path, limits: Limits) -> tuple[Path, int]:
    """Write the inflated bytes, stopping at the first limit passed; returns (path, bytes)."""
    cap = min(limits.max_upload_bytes, limits.max_inflated_bytes)
    out, target = new_work_file(call_dir, name, ".csv")
    written = 0
    try:
        with out, opener(path, "rb") as src:
            while chunk := src.read(CHUNK):
                written += len(chunk)
                if written > cap:
                    raise _bomb(name, f"descomprimido ocuparía más de {megabytes(cap)}", limits)
                if written >= 64 * 1024 and written / max(size, 1) > limits.max_zip_ratio:
                    raise _bomb(name, f"se expande más de {limits.max_zip_ratio:.0f} veces", limits)
                out.write(chunk)
    except _ERRORS:
        target.unlink(missing_ok=True)
        raise ValidacionError(f"El archivo comprimido «{name}» está dañado o no se puede leer.", [HINT]) from None
    except BaseException:
        target.unlink(missing_ok=True)  # never leave a partial file behind
        raise
    return target, written


def _bomb(name: str, why: str, limits: Limits) -> LimiteRecursosError:
    return LimiteRecursosError(
        f"«{name}» parece una bomba de descompresión: {why}.",
        [f"La razón máxima admitida es {limits.max_zip_ratio:.0f}:1.", HINT],
    )
