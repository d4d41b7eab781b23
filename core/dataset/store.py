"""Consultor: read-only access to the current dataset version.

One DuckDB connection per process and one cursor per thread: Streamlit sessions are threads.
A thread serving one request pins the version (``Store.pinned``): another thread following a new
publication meanwhile does not move it, so a request never validates on one version and reads another.
The connection opens the version's query database (``core.etl.query_db``) read-only, with no
access to any other file, no extensions and its settings locked, so DuckDB itself refuses every
write: COPY TO, ATTACH, EXPORT, CREATE, DROP, INSERT, INSTALL. Cursors also run only one
read statement at a time, so no temporary table can shadow a published one for a thread.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import duckdb

from core.config import Settings, load_settings
from core.errors import DatosFaltantesError
from core.etl import query_db
from core.etl.publish import Depot

# Every connection to one file in a process must share this configuration (DuckDB refuses a
# second, different one), so it is a constant.
READ_ONLY_CONFIG = {
    "enable_external_access": False,  # no file but the database itself: no COPY TO, ATTACH, read_csv
    "autoload_known_extensions": False,
    "autoinstall_known_extensions": False,
    "allow_community_extensions": False,
    "allow_persistent_secrets": False,
    # A large sort would otherwise spill into <version>/store.duckdb.tmp, inside the version.
    "temp_directory": "",
    "lock_configuration": True,  # last: nothing above can be SET back
}
READ_STATEMENTS = frozenset({duckdb.StatementType.SELECT, duckdb.StatementType.EXPLAIN})
_PARSER = duckdb.connect(":memory:")
_PARSER_LOCK = threading.Lock()


@functools.lru_cache(maxsize=1024)
def is_one_read(sql: str) -> bool:
    """Whether ``sql`` is exactly one SELECT (or EXPLAIN), by DuckDB's own parser; cached per text."""
    # Tools send a handful of distinct statement texts (values are parameters): one parse each.
    with _PARSER_LOCK:
        try:
            statements = _PARSER.extract_statements(sql)
        except duckdb.Error:
            return True  # a syntax error: executing it raises DuckDB's own error
    return len(statements) == 1 and statements[0].type in READ_STATEMENTS


class ReadCursor:
    """A thread's cursor over the version: one read statement per ``execute``, then its fetches."""

    __slots__ = ("_cur",)

    def __init__(self, cursor: duckdb.DuckDBPyConnection):
        self._cur = cursor

    def execute(self, sql: str, params: list | tuple | None = None) -> ReadCursor:
        """Run one parameterized SELECT; any other statement raises ``duckdb.PermissionException``."""
        if not is_one_read(sql):
            raise duckdb.PermissionException("the dataset store runs one read-only SELECT per call")
        self._cur.execute(sql, list(params or ()))
        return self

    def fetchall(self) -> list[tuple]:
        """Every row of the last statement."""
        return self._cur.fetchall()

    def fetchone(self) -> tuple | None:
        """The next row of the last statement."""
        return self._cur.fetchone()

    def fetchmany(self, size: int = 1) -> list[tuple]:
        """The next ``size`` rows of the last statement."""
        return self._cur.fetchmany(size)

    def fetchnumpy(self) -> dict:
        """The last statement's result as one NumPy array per column."""
        return self._cur.fetchnumpy()

    def df(self):
        """The last statement's result as a pandas DataFrame."""
        return self._cur.df()

    @property
    def description(self) -> list | None:
        """Column names and types of the last statement (DB-API)."""
        return self._cur.description


class Store:
    """The published dataset, read-only, for one data folder."""

    def __init__(self, settings: Settings):
        self.settings = settings
        self.depot = Depot(settings.store_dir)
        self._lock = threading.Lock()
        self._local = threading.local()
        self._con: duckdb.DuckDBPyConnection | None = None
        self._vid: str | None = None
        self._meta: dict | None = None
        self._memos: dict[tuple, Any] = {}
        self._pins = threading.local()  # a pinned thread's (vid, connection, metadata) and its cursor

    def _open(self, vid: str) -> None:
        folder = self.depot.version_dir(vid)
        path = query_db.ensure(folder, vid)
        con = duckdb.connect(str(path), read_only=True, config=READ_ONLY_CONFIG)
        self._con, self._vid = con, vid
        self._meta = self.depot.metadata(vid)
        self._local = threading.local()
        self._memos = {}  # facts of the previous version are dropped with it

    def refresh(self) -> str | None:
        """Follow the CURRENT pointer if another process published or rolled back."""
        vid = self.depot.current_id()
        with self._lock:
            if vid and vid != self._vid:
                self._open(vid)
            elif vid is None:
                self._con, self._vid, self._meta = None, None, None
        return vid

    @contextmanager
    def pinned(self) -> Iterator[str | None]:
        """Within the block this thread reads the version current at its start, whatever other threads refresh.

        The HTTP API pins each request: with 50 clients in flight, a publication switches the shared connection
        between a plan's validation and its tools' queries, which then read the new rows under the old version's
        name. Nested blocks keep the outer pin. Yields the pinned version."""
        outer = getattr(self._pins, "pin", None)
        if outer is None:
            self.refresh()
            with self._lock:
                self._pins.pin = (self._vid, self._con, self._meta)
        try:
            yield self._pins.pin[0]
        finally:
            if outer is None:
                self._pins.pin = self._pins.cursor = None

    @property
    def dataset_version(self) -> str | None:
        """The version this store reads (after the last refresh; the pinned one in a pinned thread)."""
        pin = getattr(self._pins, "pin", None)
        if pin is not None:
            return pin[0]
        if self._vid is None:
            self.refresh()
        return self._vid

    def metadata(self) -> dict:
        """Metadata of the version being read; DATA_QUALITY_ISSUE on an empty store."""
        pin = getattr(self._pins, "pin", None)
        if self._vid is None and pin is None:
            self.refresh()
        if (self._meta if pin is None else pin[2]) is None:
            raise DatosFaltantesError(
                "No hay datos publicados todavía.",
                ["Cargue archivos con `python -m core etl ARCHIVO` o la página Carga de datos."],
            )
        return self._meta if pin is None else pin[2]

    def is_empty(self) -> bool:
        """True when nothing has been published."""
        return self.dataset_version is None

    def cursor(self) -> ReadCursor:
        """A read-only cursor for the calling thread over the current version (or its pinned one)."""
        pin = getattr(self._pins, "pin", None)
        if pin is not None:
            if pin[1] is None:
                self.metadata()  # raises the Spanish "no data" error
            if getattr(self._pins, "cursor", None) is None:
                with self._lock:
                    self._pins.cursor = ReadCursor(pin[1].cursor())
            return self._pins.cursor
        if self._vid is None:
            self.refresh()
        if self._con is None:
            self.metadata()  # raises the Spanish "no data" error
        local = self._local
        cur = getattr(local, "cursor", None)
        if cur is None or getattr(local, "vid", None) != self._vid:
            with self._lock:
                cur = ReadCursor(self._con.cursor())
            local.cursor, local.vid = cur, self._vid
        return cur

    def query(self, sql: str, params: list | tuple = ()) -> list[tuple]:
        """Run one parameterized statement and fetch every row (DuckDB 2 needs full fetches)."""
        return self.cursor().execute(sql, list(params)).fetchall()

    def memo(self, key: tuple, compute: Callable[[], Any]) -> Any:
        """A fact derived from the open version (e.g. the months a series publishes), computed once per version."""
        full = (self.dataset_version, *key)
        if full not in self._memos:
            value = compute()
            with self._lock:
                self._memos[full] = value
        return self._memos[full]

    def geojson_path(self, key: str = "gto_municipios") -> Path | None:
        """Path of a bundled map of this version, if present."""
        meta = self.metadata()
        info = meta.get("geo", {}).get(key)
        if not info:
            return None
        path = self.depot.version_dir(meta["dataset_version"]) / info["path"]
        return path if path.is_file() else None


_STORES: dict[Path, Store] = {}
_STORES_LOCK = threading.Lock()


def get_store(settings: Settings | None = None) -> Store:
    """The process-wide Store for a data folder (one connection per process)."""
    settings = settings or load_settings()
    key = settings.store_dir.resolve()
    with _STORES_LOCK:
        store = _STORES.get(key)
        if store is None:
            store = _STORES[key] = Store(settings)
    store.refresh()
    return store
