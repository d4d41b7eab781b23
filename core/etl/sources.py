"""The Cargador's front door: every uploaded path is checked here before any parsing.

Refuses hostile input (binaries renamed ``.csv``, ZIP bombs, ZIP-slip, nested archives,
oversized lines) with a Spanish message, detects encoding, newline and delimiter, and
writes only inside ``work_dir`` (extracted ZIP members and UTF-8 copies of cp1252 files).
Large files are read in chunks: a 400 MB SESNSP file is never held in memory.
"""

from __future__ import annotations

import csv
import hashlib
import json
import os
import re
import shutil
import stat
import struct
import tempfile
import zipfile
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from core.config import Limits, MiB
from core.errors import DatosFaltantesError, LimiteRecursosError, ValidacionError
from core.etl import encoding as enc
from core.etl.encoding import BOM, CHUNK
from core.text import slug_key

HEAD_BYTES = 64 * 1024
CSV_EXTS = {".csv", ".txt"}
GEO_EXTS = {".geojson", ".json"}
ARCHIVE_EXTS = {".zip", ".gz", ".tgz", ".7z", ".rar", ".tar", ".bz2", ".tbz2", ".xz", ".zst"}
DELIMITERS = (",", ";", "|", "\t")  # order breaks ties: comma is the SESNSP default
# Only these methods: Deflate is inflated in bounded steps by zipfile; bzip2/LZMA are not,
# so a lying bzip2 entry could expand to gigabytes in memory before any counter sees it.
ZIP_METHODS = {zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED}
RATIO_MIN_BYTES = 64 * 1024  # tiny entries may compress 1000:1 and harm nobody
HINT_CSV = "Guarde el archivo como «CSV UTF-8 (delimitado por comas)» y vuelva a subirlo."
HINT_XLS = "Abra el libro en Excel y exporte la hoja a CSV (Archivo → Guardar como → CSV UTF-8)."
HINT_ZIP = "Comprima solo los archivos CSV con el compresor estándar (ZIP, método Deflate)."

ZIP_MAGIC = (b"PK\x03\x04", b"PK\x05\x06", b"PK\x07\x08")
MAGICS = (  # (prefix, what it looks like, hint)
    (b"%PDF-", "un documento PDF", HINT_CSV),
    (b"\x89PNG\r\n\x1a\n", "una imagen PNG", HINT_CSV),
    (b"\xff\xd8\xff", "una imagen JPEG", HINT_CSV),
    (b"\x1f\x8b", "un archivo GZIP", HINT_ZIP),
    (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", "un libro de Excel antiguo (.xls) u otro documento de Office", HINT_XLS),
    (b"\x7fELF", "un ejecutable ELF", HINT_CSV),
    (b"SQLite format 3\x00", "una base de datos SQLite", HINT_CSV),
    (b"7z\xbc\xaf\x27\x1c", "un archivo 7-Zip", HINT_ZIP),
    (b"Rar!\x1a\x07", "un archivo RAR", HINT_ZIP),
    (b"\xff\xfe", "texto UTF-16", HINT_CSV),
    (b"\xfe\xff", "texto UTF-16", HINT_CSV),
)


@dataclass(frozen=True)
class SourceFile:
    """One accepted input file, ready for DuckDB (see the module docstring)."""

    name: str
    path: Path
    sha256: str
    size_bytes: int
    kind: str
    encoding: str
    duckdb_encoding: str
    newline: str
    delimiter: str  # "" for geojson
    header: tuple[str, ...]
    container: str | None
    warnings: tuple[str, ...] = ()  # for the file's report (a repaired mix of encodings)
    underscore: bool = False  # an underscore after the header: the direct path leaves counts to curation


def sha256_file(path: Path) -> str:
    """Hex SHA-256 of a file, read in chunks."""
    with open(path, "rb") as fh:
        return hashlib.file_digest(fh, "sha256").hexdigest()


def open_sources(
    paths: Sequence[Path | str], work_dir: Path, limits: Limits, display_names: Sequence[str] | None = None
) -> list[SourceFile]:
    """Check every path and describe it; refuse the whole call on the first bad file."""
    names = list(display_names) if display_names is not None else [Path(p).name for p in paths]
    if len(names) != len(paths):
        raise ValueError("display_names must have one name per path")
    work_dir = Path(work_dir)
    work_dir.mkdir(parents=True, exist_ok=True)
    # One private folder per call: cleaning up after a refusal is one rmtree, and names
    # written here can never collide with another upload's.
    call_dir = Path(tempfile.mkdtemp(prefix="carga-", dir=work_dir))
    try:
        out: list[SourceFile] = []
        for path, name in zip(paths, names):
            out.extend(_open_one(Path(path), _label(name), call_dir, limits))
    except BaseException:
        shutil.rmtree(call_dir, ignore_errors=True)
        raise
    if not any(call_dir.iterdir()):
        call_dir.rmdir()
    return out


def _label(name: str) -> str:
    # Names end up in messages: no control characters, bounded length.
    clean = "".join(ch if ch.isprintable() else "?" for ch in str(name))
    return clean if len(clean) <= 200 else clean[:197] + "..."


def _mb(n: float) -> str:
    value = n / MiB
    return f"{value:.1f} MB" if value >= 0.1 else f"{value:.4f} MB"


def _open_one(path: Path, name: str, call_dir: Path, limits: Limits) -> list[SourceFile]:
    ext = PurePosixPath(name.replace("\\", "/")).suffix.lower() or path.suffix.lower()
    if ext not in CSV_EXTS | GEO_EXTS | {".zip"}:
        hints = [HINT_XLS] if ext in {".xlsx", ".xls", ".ods"} else [HINT_CSV]
        raise ValidacionError(f"Tipo de archivo no admitido: «{name}» (use CSV, ZIP o GeoJSON).", hints)
    try:
        st = os.stat(path)
    except OSError:
        raise ValidacionError(f"No se encontró el archivo «{name}».") from None
    if not stat.S_ISREG(st.st_mode):  # a FIFO or device would block or never end
        raise ValidacionError(f"«{name}» no es un archivo regular.")
    _check_size(name, st.st_size, limits)
    if ext != ".zip":
        return [_inspect(path, name, ext, st.st_size, None, call_dir, limits)]
    with open(path, "rb") as fh:
        magic = fh.read(4)
    if not magic.startswith(ZIP_MAGIC):  # trust the magic number, not the extension
        what = "no es un ZIP válido" if magic else "está vacío"
        raise ValidacionError(f"El archivo «{name}» {what}.", [HINT_ZIP])
    return _open_zip(path, name, call_dir, limits)


def _check_size(name: str, size: int, limits: Limits) -> None:
    if size > limits.max_upload_bytes:
        raise LimiteRecursosError(
            f"El archivo «{name}» pesa {_mb(size)} y el límite es {_mb(limits.max_upload_bytes)}.",
            ["Suba el archivo en ZIP o divídalo por años."],
        )


def _check_not_blank_or_binary(path: Path, name: str, head: bytes, size: int, what: str) -> None:
    body = head[len(BOM) :] if head.startswith(BOM) else head
    if not body.strip() and (size <= len(head) or _rest_is_blank(path, len(head))):
        raise ValidacionError(f"El archivo «{name}» está vacío.", ["Revise que subió el archivo correcto."])
    looks = hint = None
    for magic, desc, magic_hint in MAGICS:
        if head.startswith(magic):
            looks, hint = desc, magic_hint
            break
    else:
        if head.startswith(ZIP_MAGIC):
            excel = b"xl/" in head or b"[Content_Types].xml" in head
            looks = "un libro de Excel (.xlsx)" if excel else "un archivo ZIP"
            hint = HINT_XLS if excel else "Si es un ZIP, súbalo con la extensión .zip."
        elif b"\x00" in head:
            looks, hint = "contiene bytes nulos", HINT_CSV
    if looks:
        raise ValidacionError(f"«{name}» no es un archivo de texto {what} (parece binario: {looks}).", [hint])


def _rest_is_blank(path: Path, offset: int) -> bool:
    # Only reached when the first 64 KiB are blank: stops at the first visible byte.
    with open(path, "rb") as fh:
        fh.seek(offset)
        while chunk := fh.read(CHUNK):
            if chunk.strip():
                return False
    return True


def _inspect(
    path: Path, name: str, ext: str, size: int, container: str | None, call_dir: Path, limits: Limits
) -> SourceFile:
    with open(path, "rb") as fh:
        head = fh.read(max(HEAD_BYTES, limits.max_line_bytes + 8))
    if ext in GEO_EXTS:
        return _inspect_geojson(path, name, head, size, container)
    _check_not_blank_or_binary(path, name, head, size, "CSV")
    bom = head.startswith(BOM)
    scan = _scan(path, bom)
    warnings: tuple[str, ...] = ()
    # Only a single-byte file with UTF-8-looking pairs is read line by line (rare, and slower).
    mixed = enc.mixed_lines(path, name) if scan.utf8_pairs and not (scan.utf8 or bom) else None
    if scan.utf8:
        encoding, duck = ("utf-8-sig" if bom else "utf-8"), "utf-8"  # DuckDB drops the BOM itself
    elif bom:
        raise DatosFaltantesError(
            f"«{name}» empieza como UTF-8 (con BOM) pero contiene bytes que no son UTF-8: mezcla codificaciones.",
            [HINT_CSV],
        )
    elif mixed:
        encoding, duck = enc.MIXED, "utf-8"
        warnings = (enc.mixed_warning(name, *mixed),)
    else:
        # DuckDB's latin-1 reader refuses 0x80-0x9F, so those files become a UTF-8 copy.
        encoding, duck = ("cp1252", "utf-8") if scan.c1 else ("latin-1", "latin-1")
    newline, delimiter, header = _read_header(name, head, size, encoding, limits)
    read_path = path
    if encoding in ("cp1252", enc.MIXED):
        read_path = _utf8_copy(path, call_dir, name, enc.transcode_cp1252 if encoding == "cp1252" else enc.repair_mixed)
        if container is not None:
            path.unlink()  # the raw extracted member is no longer needed
    return SourceFile(
        name,
        read_path,
        scan.sha256,
        size,
        "csv",
        encoding,
        duck,
        newline,
        delimiter,
        header,
        container,
        warnings,
        scan.underscore,
    )


def _scan(path: Path, bom: bool) -> enc.Scan:
    # A module attribute, so that bench.etl_profile can time it.
    return enc.scan(path, bom)


def _read_header(name: str, head: bytes, size: int, encoding: str, limits: Limits):
    body = head[len(BOM) :] if head.startswith(BOM) else head
    end = body.find(b"\n")
    line = body if end < 0 else body[:end]
    newline = "\r\n" if line.endswith(b"\r") else "\n"
    line = line.rstrip(b"\r")
    # No newline within the bytes read (more than the limit) also means a line too long.
    if len(line) > limits.max_line_bytes or (end < 0 and size > len(head)):
        raise LimiteRecursosError(
            f"La primera línea de «{name}» supera el límite de {limits.max_line_bytes} bytes.",
            ["Revise que el archivo tenga saltos de línea y encabezados."],
        )
    if b"\r" in line:  # classic Mac line endings: DuckDB would see one giant line
        raise ValidacionError(f"«{name}» usa saltos de línea CR sin LF; no se reconocen sus filas.", [HINT_CSV])
    text = enc.decode(line, encoding)
    unquoted = re.sub(r'"[^"]*"', "", text)  # a delimiter inside quotes does not count
    counts = {d: unquoted.count(d) for d in DELIMITERS}
    delimiter = max(DELIMITERS, key=lambda d: counts[d])
    try:
        cells = next(csv.reader([text], delimiter=delimiter))
    except (csv.Error, StopIteration):
        cells = text.split(delimiter)
    header = tuple(c.strip().strip('"').strip() for c in cells)
    if counts[delimiter] == 0 or not any(header):
        raise ValidacionError(
            f"No se reconoce una fila de encabezados CSV en «{name}».",
            ["La primera línea debe traer los nombres de columna separados por comas (Año,Clave_Ent,...).", HINT_CSV],
        )
    longest = max(header, key=len)
    if len(longest) > limits.max_field_chars:
        raise LimiteRecursosError(
            f"Un encabezado de «{name}» mide {len(longest)} caracteres; el límite es {limits.max_field_chars}.",
            ["Revise que la primera línea sea de encabezados."],
        )
    return newline, delimiter, header


def _new_file(call_dir: Path, name: str, suffix: str):
    # Never the entry's own name as a path: a slug prefix plus a random part, created O_EXCL.
    stem = slug_key(PurePosixPath(name.replace("\\", "/")).stem)[:40] or "archivo"
    fd, tmp = tempfile.mkstemp(prefix=stem + "-", suffix=suffix, dir=call_dir)
    return os.fdopen(fd, "wb"), Path(tmp)


def _utf8_copy(path: Path, call_dir: Path, name: str, write) -> Path:
    """A UTF-8 copy of a file, written by ``write(path, out)``; newlines are kept, so line numbers hold."""
    out, target = _new_file(call_dir, name, ".utf8.csv")
    try:
        with out:
            write(path, out)
    except BaseException:
        target.unlink(missing_ok=True)
        raise
    return target


def _inspect_geojson(path: Path, name: str, head: bytes, size: int, container: str | None) -> SourceFile:
    _check_not_blank_or_binary(path, name, head, size, "GeoJSON")
    data = path.read_bytes()  # json needs the whole text; size is already under the upload limit
    try:
        doc = json.loads(data.decode("utf-8-sig"))
    except UnicodeDecodeError:
        raise ValidacionError(
            f"«{name}» no está codificado en UTF-8, como exige GeoJSON.", ["Exporte el mapa como GeoJSON UTF-8."]
        ) from None
    except (ValueError, RecursionError):
        raise ValidacionError(f"«{name}» no es un JSON válido.", ["Exporte el mapa como GeoJSON."]) from None
    if not isinstance(doc, dict) or doc.get("type") != "FeatureCollection" or not isinstance(doc.get("features"), list):
        raise ValidacionError(
            f"«{name}» no es un GeoJSON FeatureCollection con una lista de features.",
            ["Exporte los municipios como FeatureCollection (GeoJSON)."],
        )
    if not doc["features"]:
        raise ValidacionError(f"El GeoJSON «{name}» no contiene ninguna feature.")
    first = data.split(b"\n", 1)[0]
    newline = "\r\n" if first.endswith(b"\r") and len(first) < len(data) else "\n"
    return SourceFile(
        name, path, hashlib.sha256(data).hexdigest(), size, "geojson", "utf-8", "utf-8", newline, "", (), container
    )


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


def _open_zip(path: Path, name: str, call_dir: Path, limits: Limits) -> list[SourceFile]:
    try:
        with zipfile.ZipFile(path) as zf:
            members = _vet_zip(zf, name, limits)
            extracted = [_extract(zf, info, name, call_dir, limits) for info in members]
    except ZIP_ERRORS:
        raise ValidacionError(f"El ZIP «{name}» está dañado o no se puede leer.", [HINT_ZIP]) from None
    out = []
    for info, (target, size) in zip(members, extracted):
        ext = PurePosixPath(info.filename).suffix.lower()
        out.append(_inspect(target, f"{name}:{_label(info.filename)}", ext, size, name, call_dir, limits))
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
                f"El ZIP «{name}» contiene una ruta peligrosa ({_label(info.orig_filename)}); no se extrajo nada.",
                [HINT_ZIP],
            )
        if stat.S_ISLNK(info.external_attr >> 16):
            raise ValidacionError(
                f"El ZIP «{name}» contiene un enlace simbólico ({_label(info.filename)}).", [HINT_ZIP]
            )
    files = [
        i
        for i in infos
        if not i.is_dir()
        and not any(part.startswith(".") or part == "__MACOSX" for part in PurePosixPath(i.filename).parts)
    ]
    total = packed = 0
    for info in files:
        label = _label(info.filename)
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
        _check_size(f"{name}:{label}", info.file_size, limits)
        if info.file_size >= RATIO_MIN_BYTES and info.file_size / max(info.compress_size, 1) > limits.max_zip_ratio:
            raise _bomb(
                name, f"la entrada {label} se expande {info.file_size / max(info.compress_size, 1):.0f} veces", limits
            )
        total, packed = total + info.file_size, packed + info.compress_size
    if total > limits.max_inflated_bytes:
        raise _bomb(name, f"descomprimido ocuparía {_mb(total)} (límite {_mb(limits.max_inflated_bytes)})", limits)
    if total >= RATIO_MIN_BYTES and total / max(packed, 1) > limits.max_zip_ratio:
        raise _bomb(name, f"el conjunto se expande {total / max(packed, 1):.0f} veces", limits)
    members = [i for i in files if PurePosixPath(i.filename).suffix.lower() in CSV_EXTS | GEO_EXTS]
    if not members:
        found = ", ".join(_label(i.filename) for i in files[:5]) or "ninguno"
        raise ValidacionError(f"El ZIP «{name}» no contiene archivos CSV.", [f"Archivos encontrados: {found}."])
    for info in members:
        with zf.open(info) as src:
            peek = src.read(512)  # Deflate inflates in bounded steps: this stays small
        if (
            peek.startswith(ZIP_MAGIC)
            or peek.startswith((b"\x1f\x8b", b"7z\xbc\xaf", b"Rar!"))
            or peek[257:262] == b"ustar"
        ):
            raise ValidacionError(
                f"El ZIP «{name}»: no se admiten archivos comprimidos anidados ({_label(info.filename)}).",
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
    out, target = _new_file(call_dir, info.filename, PurePosixPath(info.filename).suffix.lower())
    written = 0
    try:
        with out, zf.open(info) as src:
            while chunk := src.read(CHUNK):
                written += len(chunk)
                if written > cap:
                    raise _bomb(name, f"la entrada {_label(info.filename)} da más bytes de los declarados", limits)
                out.write(chunk)
    except BaseException:
        target.unlink(missing_ok=True)  # never leave a partial member behind
        raise
    return target, written
