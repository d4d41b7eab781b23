"""The query database of a version: its Parquet tables copied into one DuckDB file, opened read-only.

The Consultor (``core.dataset.store``) opens ``<version>/store.duckdb`` with ``read_only=True``,
external access off and the configuration locked. DuckDB then refuses every write (CREATE, DROP,
INSERT, COPY TO, ATTACH, EXPORT, INSTALL) by construction, where views over Parquet files in an
in-memory database left COPY TO, ATTACH and DROP VIEW open inside the version folder. A load writes
the file in its private folder, its observations first (``attach_new``: those rows are written once,
docs/decisions/0014), then moves it into the version while that is still a staging folder
(``finish``), so it is published with the rest; a version published before it existed gets it once
(``write``, from the version's Parquet files), on first open. Its ``incidents`` is a view of the curated
cells and of the observations it already holds (``core.etl.query_cells``, docs/decisions/0015, session 21).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import uuid
from pathlib import Path

import duckdb

from core.errors import DatosFaltantesError
from core.etl import query_cells, state_sums
from core.etl.merge import sql_literal
from core.etl.precedence import coverage_sql
from core.etl.publish import TABLES

FILE = "store.duckdb"
NEW_FILE = "query.duckdb"  # the next version's query database while a load writes it (attach_new)
NEW_ALIAS = "qdb_new"


def attach_new(con: duckdb.DuckDBPyConnection, work: Path) -> str:
    """Attach the next version's query database, empty, in the load's private folder; returns its alias.

    The load writes its largest table (``observations``) straight into it (``core.etl.observations.assemble``),
    so those rows are written once, not once for the load and again for the query database; ``write`` adds
    the other tables and moves the file into the version."""
    con.execute(f"ATTACH {sql_literal(Path(work) / NEW_FILE)} AS {NEW_ALIAS}")
    return NEW_ALIAS


def attached(con: duckdb.DuckDBPyConnection) -> str | None:
    """The alias of the query database ``attach_new`` attached to ``con``, or None."""
    found = con.execute("SELECT 1 FROM duckdb_databases() WHERE database_name = ?", [NEW_ALIAS]).fetchone()
    return NEW_ALIAS if found else None


def write(folder: Path, con: duckdb.DuckDBPyConnection | None = None, obs_coverage: str | None = None) -> Path:
    """Copy the Parquet tables of ``folder`` into ``folder/store.duckdb``: same table names and columns.

    Written under a temporary name and renamed, so the file is either whole or absent. ``con``
    (the load's connection, with its memory limit and spill folder) does the copy when given, and
    ``obs_coverage`` names its table of the municipal observations' coverage runs (``new_obs_coverage``,
    which the load computed over the same rows): a national version's 20 M rows are not grouped again."""
    folder = Path(folder)
    tmp = folder / f".{FILE}.{uuid.uuid4().hex}"
    own = con is None
    con = duckdb.connect(":memory:") if own else con
    alias = f"qdb_{uuid.uuid4().hex[:12]}"
    try:
        con.execute(f"ATTACH {sql_literal(tmp)} AS {alias}")
        try:
            fill(folder, con, alias, obs_coverage)
        finally:
            con.execute(f"DETACH {alias}")  # checkpoints: no write-ahead log is left behind
        return _publish_file(tmp, folder)
    finally:
        if own:
            con.close()
        _sweep(tmp)


def fill(
    folder: Path, con: duckdb.DuckDBPyConnection, alias: str, obs_coverage: str | None = None, cells: str | None = None
) -> None:
    """Create in the attached database ``alias`` every table of the version it does not hold yet, from the
    version's Parquet files, then ``incidents``: its curated cells and a view of the observations it holds
    (``core.etl.query_cells``; ``attach_new`` wrote them there, ``write`` copies them here first). ``cells`` is
    the relation of the curated cells in ``con`` (a load's ``new_incidents``), else the version's Parquet file."""
    present = {
        r[0]
        for r in con.execute(
            """SELECT table_name FROM duckdb_tables() WHERE database_name = ?
               UNION ALL SELECT view_name FROM duckdb_views() WHERE database_name = ?""",
            [alias, alias],
        ).fetchall()
    }
    obs = f"{alias}.observations" if "observations" in present else parquet(folder, "observations")
    runs = obs_coverage or f"({coverage_sql(obs, parquet(folder, 'entities'))})"
    for table in TABLES:
        if table in present or table == "incidents":
            continue
        source = f"read_parquet({sql_literal(Path(folder) / f'{table}.parquet')})"
        if table == "coverage":  # the municipal observations' runs too (core/etl/query_cells.py: estatal)
            source = (
                f"(SELECT *, 'incidents' AS origen FROM {source} UNION ALL BY NAME "
                f"SELECT *, 'observations' AS origen FROM {runs})"
            )
        con.execute(f"CREATE TABLE {alias}.{table} AS SELECT * FROM {source}")
    if "incidents" not in present:
        query_cells.add(con, alias, cells or parquet(folder, "incidents"), parquet(folder, "crimes"))
    state_sums.add(con, alias)  # after incidents: the national tools' state sums of it (core/etl/state_sums.py)


def finish(con: duckdb.DuckDBPyConnection, alias: str, folder: Path) -> Path:
    """Detach the query database ``attach_new`` attached (a checkpoint: no write-ahead log is left behind) and
    move it into the version ``folder``, which is still a staging folder."""
    path = Path(con.execute("SELECT path FROM duckdb_databases() WHERE database_name = ?", [alias]).fetchone()[0])
    con.execute(f"DETACH {alias}")
    tmp = Path(folder) / f".{FILE}.{uuid.uuid4().hex}"
    try:
        shutil.move(path, tmp)  # the load's folder and the version are in the same store: a rename
        return _publish_file(tmp, Path(folder))
    finally:
        _sweep(tmp)


def _publish_file(tmp: Path, folder: Path) -> Path:
    """Flush a written query database and give it its name in the version: it is either whole or absent."""
    with open(tmp, "rb+") as fh:
        os.fsync(fh.fileno())
    target = folder / FILE
    os.replace(tmp, target)
    return target


def _sweep(tmp: Path) -> None:
    for leftover in (tmp, tmp.with_name(tmp.name + ".wal")):
        with contextlib.suppress(FileNotFoundError):
            leftover.unlink()


def relation(con: duckdb.DuckDBPyConnection, folder: Path, table: str) -> str | None:
    """A version's table as a relation in ``con``, or None when the version has none.

    Its Parquet file when the version has one; else the table of its query database, attached read-only: a version
    published since docs/decisions/0015's session 20 keeps ``observations`` only there (written once), and since
    session 24 its curated ``incidents`` too, as the rows of ``incidents_cells`` that come from them (the
    database's ``incidents`` is a wider view), with their keys as text, the columns of the Parquet file."""
    folder = Path(folder)
    path = folder / f"{table}.parquet"
    if path.is_file():
        return f"read_parquet({sql_literal(path)})"
    db = folder / FILE
    if not db.is_file():
        return None
    alias = "qdb_" + hashlib.md5(str(db.resolve()).encode()).hexdigest()[:12]  # one alias per file, reattach free
    con.execute(f"ATTACH IF NOT EXISTS {sql_literal(db)} AS {alias} (READ_ONLY)")
    stored = query_cells.CELLS if table == "incidents" else table
    found = con.execute(
        "SELECT 1 FROM duckdb_tables() WHERE database_name = ? AND table_name = ?", [alias, stored]
    ).fetchall()
    if not found:
        return None
    return query_cells.curated_sql(f"{alias}.{stored}") if table == "incidents" else f"{alias}.{table}"


def parquet(folder: Path, table: str) -> str:
    """A version's Parquet table as a relation."""
    return f"read_parquet({sql_literal(Path(folder) / f'{table}.parquet')})"


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
