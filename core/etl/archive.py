"""ZIP uploads: an archive is vetted whole before a single byte is extracted, then its members are extracted
with their real byte counts.

Refuses ZIP bombs (by declared ratio, total size and bytes actually read), ZIP-slip paths, symbolic links,
encrypted and nested archives, and compression methods zipfile does not inflate in bounded steps. Members are
written only inside the call's private folder, under names of our own.
"""

from __future__ import annotations

import re
import stat
import struct
import zipfile
import zlib
from pathlib import Path, PurePosixPath

from core.config import Limits
from core.errors import LimiteRecursosError, ValidacionError
from core.etl.encoding import CHUNK
from core.etl.sources import (
    CSV_EXTS,
    GEO_EXTS,
    HINT_ZIP,
    STRUCTURED_EXTS,
    ZIP_MAGIC,
    SourceFile,
    check_size,
    describe,
    display_label,
    megabytes,
    new_work_file,
)

ARCHIVE_EXTS = {".zip", ".gz", ".tgz", ".7z", ".rar", ".tar", ".bz2", ".tbz2", ".xz", ".zst"}
# Only these methods: Deflate is inflated in bounded steps by zipfile; bzip2/LZMA are not,
# so a lying bzip2 entry could expand to gigabytes in memory before any counter sees it.
ZIP_METHODS = {zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED}
RATIO_MIN_BYTES = 64 * 1024  # tiny entries may compress 1000:1 and harm nobody

ZIP_ERRORS = (
    zipfile.BadZipFile,
    zipfile.LargeZipFile,
    NotImplementedError,
    EOFError,
    OSError,
    ValueError,
    RuntimeError,
    struct.error,
    zlib.error,
)


def open_zip(path: Path, name: str, call_dir: Path, limits: Limits) -> list[SourceFile]:
    """The CSV, GeoJSON, JSON and Parquet members of a ZIP, each described as the same file uploaded bare would be;
    the archive is vetted whole before any extraction."""
    try:
        with zipfile.ZipFile(path) as zf:
            members = _vet_zip(zf, name, limits)
            extracted = [_extract(zf, info, name, call_dir, limits) for info in members]
    except ZIP_ERRORS:
        raise ValidacionError(f"El ZIP «{name}» está dañado o no se puede leer.", [HINT_ZIP]) from None
    out = []
    for info, (target, size) in zip(members, extracted):
        ext = PurePosixPath(info.filename).suffix.lower()
        out.append(describe(target, f"{name}:{display_label(info.filename)}", ext, size, name, call_dir, limits))
    return out


def _bad_member_name(raw: str) -> bool:
    # Backslashes count as separators: Windows tools would honour them when extracting.
    norm = raw.replace("\\", "/")
    return (
        norm.startswith("/") or re.match(r"^[A-Za-z]:", norm) is not None or "\x00" in norm or ".." in norm.split("/")
    )


def _vet_zip(zf: zipfile.ZipFile, name: str, limits: Limits) -> list[zipfile.ZipInfo]:
    # Every check runs before a single byte is extracted: a bad archive is refused whole.
    infos = zf.infolist()
    if len(infos) > limits.max_zip_entries:
        raise LimiteRecursosError(
            f"El ZIP «{name}» tiene {len(infos)} entradas; el límite es {limits.max_zip_entries}.",
            ["Suba menos archivos por ZIP."],
        )
    for info in infos:
        if _bad_member_name(info.orig_filename):
            raise ValidacionError(
                f"El ZIP «{name}» contiene una ruta peligrosa ({display_label(info.orig_filename)}); no se extrajo nada.",
                [HINT_ZIP],
            )
        if stat.S_ISLNK(info.external_attr >> 16):
            raise ValidacionError(
                f"El ZIP «{name}» contiene un enlace simbólico ({display_label(info.filename)}).", [HINT_ZIP]
            )
    files = [
        i
        for i in infos
        if not i.is_dir()
        and not any(part.startswith(".") or part == "__MACOSX" for part in PurePosixPath(i.filename).parts)
    ]
    total = packed = 0
    for info in files:
        label = display_label(info.filename)
        if info.flag_bits & 0x1:
            raise ValidacionError(
                f"El ZIP «{name}» tiene archivos protegidos con contraseña ({label}).",
                ["Vuelva a comprimir sin contraseña."],
            )
        if PurePosixPath(info.filename).suffix.lower() in ARCHIVE_EXTS:
            raise ValidacionError(
                f"El ZIP «{name}»: no se admiten archivos comprimidos anidados ({label}).",
                ["Descomprima el archivo interior y suba sus CSV."],
            )
        if info.compress_type not in ZIP_METHODS:
            raise ValidacionError(f"El ZIP «{name}» usa un método de compresión no admitido ({label}).", [HINT_ZIP])
        check_size(f"{name}:{label}", info.file_size, limits)
        if info.file_size >= RATIO_MIN_BYTES and info.file_size / max(info.compress_size, 1) > limits.max_zip_ratio:
            raise _bomb(
                name, f"la entrada {label} se expande {info.file_size / max(info.compress_size, 1):.0f} veces", limits
            )
        total, packed = total + info.file_size, packed + info.compress_size
    if total > limits.max_inflated_bytes:
        raise _bomb(
            name, f"descomprimido ocuparía {megabytes(total)} (límite {megabytes(limits.max_inflated_bytes)})", limits
        )
    if total >= RATIO_MIN_BYTES and total / max(packed, 1) > limits.max_zip_ratio:
        raise _bomb(name, f"el conjunto se expande {total / max(packed, 1):.0f} veces", limits)
    members = [i for i in files if PurePosixPath(i.filename).suffix.lower() in CSV_EXTS | GEO_EXTS | STRUCTURED_EXTS]
    if not members:
        found = ", ".join(display_label(i.filename) for i in files[:5]) or "ninguno"
        raise ValidacionError(
            f"El ZIP «{name}» no contiene archivos CSV, JSON ni Parquet.", [f"Archivos encontrados: {found}."]
        )
    for info in members:
        with zf.open(info) as src:
            peek = src.read(512)  # Deflate inflates in bounded steps: this stays small
        if peek.startswith((*ZIP_MAGIC, b"\x1f\x8b", b"7z\xbc\xaf", b"Rar!")) or peek[257:262] == b"ustar":
            raise ValidacionError(
                f"El ZIP «{name}»: no se admiten archivos comprimidos anidados ({display_label(info.filename)}).",
                ["Descomprima el archivo interior y suba sus CSV."],
            )
    return members


def _bomb(name: str, why: str, limits: Limits) -> LimiteRecursosError:
    return LimiteRecursosError(
        f"El ZIP «{name}» parece una bomba de descompresión: {why}.",
        [f"La razón máxima admitida es {limits.max_zip_ratio:.0f}:1.", HINT_ZIP],
    )


def _extract(zf: zipfile.ZipFile, info: zipfile.ZipInfo, name: str, call_dir: Path, limits: Limits) -> tuple[Path, int]:
    # Declared sizes may lie: count real bytes and stop as soon as they pass any limit.
    cap = min(info.file_size, limits.max_upload_bytes, limits.max_inflated_bytes)
    out, target = new_work_file(call_dir, info.filename, PurePosixPath(info.filename).suffix.lower())
    written = 0
    try:
        with out, zf.open(info) as src:
            while chunk := src.read(CHUNK):
                written += len(chunk)
                if written > cap:
                    raise _bomb(
                        name, f"la entrada {display_label(info.filename)} da más bytes de los declarados", limits
                    )
                out.write(chunk)
    except BaseException:
        target.unlink(missing_ok=True)  # never leave a partial member behind
        raise
    return target, written
