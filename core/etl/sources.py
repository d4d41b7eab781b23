"""The Cargador's front door: every uploaded path is checked here before any parsing.

Refuses hostile input (binaries renamed ``.csv``, ZIP bombs, ZIP-slip, nested archives,
oversized lines) with a Spanish message, detects encoding, newline and delimiter, and
writes only inside ``work_dir`` (extracted ZIP members and UTF-8 copies of cp1252 files).
A ZIP is vetted whole and extracted by ``core.etl.archive``; its members come back here to be described.
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
import tempfile
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
STRUCTURED_EXTS = {".parquet", ".json"}  # routed by content (core.etl.structured), bare or inside a ZIP
DELIMITERS = (",", ";", "|", "\t")  # order breaks ties: comma is the SESNSP default
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
            out.extend(_open_one(Path(path), display_label(name), call_dir, limits))
    except BaseException:
        shutil.rmtree(call_dir, ignore_errors=True)
        raise
    if not any(call_dir.iterdir()):
        call_dir.rmdir()
    return out


def display_label(name: str) -> str:
    """A file name fit for a Spanish message: control characters replaced, at most 200 characters."""
    # Names end up in messages: no control characters, bounded length.
    clean = "".join(ch if ch.isprintable() else "?" for ch in str(name))
    return clean if len(clean) <= 200 else clean[:197] + "..."


def megabytes(n: float) -> str:
    """A byte count as «1.5 MB» (four decimals below 0.1 MB, so a tiny limit never reads as zero)."""
    value = n / MiB
    return f"{value:.1f} MB" if value >= 0.1 else f"{value:.4f} MB"


def _open_one(path: Path, name: str, call_dir: Path, limits: Limits) -> list[SourceFile]:
    if path.is_dir():  # a folder of Parquet parts (the national municipal file) is one source
        from core.etl import structured  # it imports this module

        return [structured.inspect_parquet_folder(path, name, limits)]
    ext = PurePosixPath(name.replace("\\", "/")).suffix.lower() or path.suffix.lower()
    if ext not in CSV_EXTS | GEO_EXTS | {".zip", ".bz2", ".gz", ".parquet"}:
        hints = [HINT_XLS] if ext in {".xlsx", ".xls", ".ods"} else [HINT_CSV]
        raise ValidacionError(f"Tipo de archivo no admitido: «{name}» (use CSV, ZIP o GeoJSON).", hints)
    try:
        st = os.stat(path)
    except OSError:
        raise ValidacionError(f"No se encontró el archivo «{name}».") from None
    if not stat.S_ISREG(st.st_mode):  # a FIFO or device would block or never end
        raise ValidacionError(f"«{name}» no es un archivo regular.")
    check_size(name, st.st_size, limits)
    if ext in {".bz2", ".gz"}:
        from core.etl import compressed  # it imports this module

        return [compressed.open_compressed(path, name, ext, st.st_size, call_dir, limits)]
    if ext != ".zip":
        return [describe(path, name, ext, st.st_size, None, call_dir, limits)]
    with open(path, "rb") as fh:
        magic = fh.read(4)
    if not magic.startswith(ZIP_MAGIC):  # trust the magic number, not the extension
        what = "no es un ZIP válido" if magic else "está vacío"
        raise ValidacionError(f"El archivo «{name}» {what}.", [HINT_ZIP])
    from core.etl import archive  # it imports this module

    return archive.open_zip(path, name, call_dir, limits)


def describe(
    path: Path, name: str, ext: str, size: int, container: str | None, call_dir: Path, limits: Limits
) -> SourceFile:
    """Describe one plain file by its extension and content, bare or extracted from a ZIP: a ``.parquet`` by its
    magic bytes and schema, a ``.json`` as records or GeoJSON by what it holds, anything else as CSV or GeoJSON."""
    if ext in STRUCTURED_EXTS:
        from core.etl import structured  # it imports this module

        if ext == ".parquet":
            return structured.inspect_parquet(path, name, size, container)
        return structured.inspect_json_records(path, name, ext, size, container, call_dir, limits)
    return inspect_file(path, name, ext, size, container, call_dir, limits)


def check_size(name: str, size: int, limits: Limits) -> None:
    """Refuse a file (or a ZIP member) larger than the upload limit."""
    if size > limits.max_upload_bytes:
        raise LimiteRecursosError(
            f"El archivo «{name}» pesa {megabytes(size)} y el límite es {megabytes(limits.max_upload_bytes)}.",
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


def inspect_file(
    path: Path, name: str, ext: str, size: int, container: str | None, call_dir: Path, limits: Limits
) -> SourceFile:
    """Describe one CSV or GeoJSON file (encoding, newline, delimiter, header), refusing what cannot be read."""
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


def new_work_file(call_dir: Path, name: str, suffix: str):
    """A new file in the call's private folder, opened for writing: (handle, path)."""
    # Never the entry's own name as a path: a slug prefix plus a random part, created O_EXCL.
    stem = slug_key(PurePosixPath(name.replace("\\", "/")).stem)[:40] or "archivo"
    fd, tmp = tempfile.mkstemp(prefix=stem + "-", suffix=suffix, dir=call_dir)
    return os.fdopen(fd, "wb"), Path(tmp)


def _utf8_copy(path: Path, call_dir: Path, name: str, write) -> Path:
    """A UTF-8 copy of a file, written by ``write(path, out)``; newlines are kept, so line numbers hold."""
    out, target = new_work_file(call_dir, name, ".utf8.csv")
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
