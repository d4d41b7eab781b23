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
from core.etl.sources import SourceFile, inspect_file

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
