"""Structured uploads that are not CSV: Parquet files and JSON arrays of records (docs/decisions/0011).

``.parquet`` is recognised by its magic bytes (``PAR1`` at both ends) and described from its
schema, which DuckDB reads without touching the rows; ``.json`` is routed by content: a GeoJSON
``FeatureCollection`` is a map (``sources._inspect_geojson``), a JSON array of flat objects is a
table of records (the SESNSP IDM_NM rows of the Irapuato file, every value a string). The
header of a record file is the keys of its first object, in file order; every object must be
flat, so a layout can detect it like a CSV header.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import duckdb

from core.errors import ValidacionError
from core.etl.sources import SourceFile, check_size, inspect_file

PARQUET_MAGIC = b"PAR1"
HINT_PARQUET = "Exporte la tabla como Parquet (pyarrow, DuckDB o pandas) o como CSV UTF-8."
HINT_JSON = "Un JSON de datos debe ser una lista de objetos planos (una fila por objeto), en UTF-8."


def inspect_parquet(path: Path, name: str, size: int, container: str | None) -> SourceFile:
    """Describe one Parquet file from its magic bytes and schema (the header is its column names)."""
    with open(path, "rb") as fh:
        head = fh.read(4)
        fh.seek(max(size - 4, 0))
        tail = fh.read(4)
    if size < 12 or head != PARQUET_MAGIC or tail != PARQUET_MAGIC:
        raise ValidacionError(f"«{name}» no es un archivo Parquet válido.", [HINT_PARQUET])
    try:
        rows = duckdb.sql("SELECT name FROM parquet_schema(?) WHERE num_children IS NULL", params=[str(path)])
        header = tuple(r[0] for r in rows.fetchall())
    except duckdb.Error:
        raise ValidacionError(f"No se pudo leer el esquema de «{name}».", [HINT_PARQUET]) from None
    if not header:
        raise ValidacionError(f"«{name}» no tiene columnas.", [HINT_PARQUET])
    with open(path, "rb") as fh:
        digest = hashlib.file_digest(fh, "sha256").hexdigest()
    return SourceFile(name, path, digest, size, "parquet", "binary", "", "\n", "", header, container)


def is_record_array(head: bytes) -> bool:
    """Whether a JSON text starts as an array (records), not an object (GeoJSON)."""
    body = head.lstrip(b"\xef\xbb\xbf").lstrip()
    return body.startswith(b"[")


def inspect_json_records(
    path: Path, name: str, ext: str, size: int, container: str | None, call_dir: Path, limits
) -> SourceFile:
    """Describe a JSON array of flat records; a JSON object goes to the GeoJSON inspection."""
    with open(path, "rb") as fh:
        head = fh.read(4096)
    if not is_record_array(head):
        return inspect_file(path, name, ext, size, container, call_dir, limits)
    data = path.read_bytes()  # json needs the whole text; size is already under the upload limit
    try:
        doc = json.loads(data.decode("utf-8-sig"))
    except UnicodeDecodeError:
        raise ValidacionError(f"«{name}» no está codificado en UTF-8.", [HINT_JSON]) from None
    except (ValueError, RecursionError):
        raise ValidacionError(f"«{name}» no es un JSON válido.", [HINT_JSON]) from None
    if not doc or not all(isinstance(r, dict) for r in doc):
        raise ValidacionError(f"«{name}» no es una lista de objetos con datos.", [HINT_JSON])
    # One pass over the records (1,078 in the Irapuato file), never over their cells' values.
    header = tuple(doc[0])
    nested = any(isinstance(v, (dict, list)) for r in doc for v in r.values())
    if nested or any(tuple(r) != header for r in doc):
        raise ValidacionError(
            f"«{name}»: todos los objetos deben tener las mismas claves, sin listas ni objetos anidados.", [HINT_JSON]
        )
    first = data.split(b"\n", 1)[0]
    newline = "\r\n" if first.endswith(b"\r") else "\n"
    digest = hashlib.sha256(data).hexdigest()
    return SourceFile(name, path, digest, size, "json", "utf-8", "utf-8", newline, "", header, container)


def inspect_parquet_folder(path: Path, name: str, limits) -> SourceFile:
    """Describe a folder of Parquet parts as one source read set-wise (``read_parquet`` over ``*.parquet``).

    Every part must be a Parquet file with the same columns; the digest is over the parts' own digests in
    name order, so the same parts give the same source whatever the order the folder lists them in."""
    parts = sorted(p for p in path.iterdir() if p.is_file())
    if not parts or any(p.suffix.lower() != ".parquet" for p in parts):
        raise ValidacionError(f"La carpeta «{name}» debe contener solo archivos .parquet.", [HINT_PARQUET])
    described = [inspect_parquet(p, p.name, p.stat().st_size, name) for p in parts]
    if len({d.header for d in described}) != 1:
        raise ValidacionError(f"Las partes de «{name}» no tienen las mismas columnas.", [HINT_PARQUET])
    size = sum(d.size_bytes for d in described)
    check_size(name, size, limits)
    digest = hashlib.sha256("".join(d.sha256 for d in described).encode()).hexdigest()
    first = described[0]
    return SourceFile(name, path / "*.parquet", digest, size, "parquet", "binary", "", "\n", "", first.header, None)
