"""The query database of a version: its Parquet tables copied into one DuckDB file, opened read-only.

The Consultor (``core.dataset.store``) opens ``<version>/store.duckdb`` with ``read_only=True``,
external access off and the configuration locked. DuckDB then refuses every write (CREATE, DROP,
INSERT, COPY TO, ATTACH, EXPORT, INSTALL) by construction, where views over Parquet files in an
in-memory database left COPY TO, ATTACH and DROP VIEW open inside the version folder. The file
is written while a version is still a staging folder (``core.etl.merge.write_tables``), so it is
published with the rest; a version published before it existed gets it once, on first open.
"""

from __future__ import annotations

import contextlib
import os
import uuid
from pathlib import Path

import duckdb

from core.errors import DatosFaltantesError
from core.etl.merge import sql_literal
from core.etl.publish import TABLES

FILE = "store.duckdb"


def write(folder: Path, con: duckdb.DuckDBPyConnection | None = None) -> Path:
    """Copy the Parquet tables of ``folder`` into ``folder/store.duckdb``: same table names and columns.

    Written under a temporary name and renamed, so the file is either whole or absent. ``con``
    (the load's connection, with its memory limit and spill folder) does the copy when given."""
    folder = Path(folder)
    target = folder / FILE
    tmp = folder / f".{FILE}.{uuid.uuid4().hex}"
    own = con is None
    con = duckdb.connect(":memory:") if own else con
    alias = f"qdb_{uuid.uuid4().hex[:12]}"
    try:
        con.execute(f"ATTACH {sql_literal(tmp)} AS {alias}")
        try:
            for table in TABLES:
                source = f"read_parquet({sql_literal(folder / f'{table}.parquet')})"
                con.execute(f"CREATE TABLE {alias}.{table} AS SELECT * FROM {source}")
        finally:
            con.execute(f"DETACH {alias}")  # checkpoints: no write-ahead log is left behind
        with open(tmp, "rb+") as fh:
            os.fsync(fh.fileno())
        os.replace(tmp, target)
    finally:
        if own:
            con.close()
        for leftover in (tmp, tmp.with_name(tmp.name + ".wal")):
            with contextlib.suppress(FileNotFoundError):
                leftover.unlink()
    return target


def ensure(folder: Path, vid: str) -> Path:
    """The query database of a version, built once if the version was published without one."""
    target = Path(folder) / FILE
    if target.is_file():
        return target
    try:
        return write(folder)
    except (OSError, duckdb.Error) as exc:
        raise DatosFaltantesError(
            f"La versión {vid} se publicó sin su base de consulta y no se pudo crear ahora.",
            [
                "Dé permiso de escritura sobre la carpeta de datos al proceso de Casandra y vuelva a abrirla, "
                "o vuelva a publicar los datos con `python -m core build`.",
            ],
        ) from exc
