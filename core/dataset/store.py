"""Consultor: read-only access to the current dataset version.

One DuckDB connection per process (in memory, with views over the version's Parquet
files) and one cursor per thread: Streamlit sessions are threads. Nothing here writes;
once the views exist the connection can reach no other file and its settings are locked.
"""

from __future__ import annotations

import threading
from pathlib import Path

import duckdb

from core.config import Settings, load_settings
from core.errors import DatosFaltantesError
from core.etl.merge import sql_literal
from core.etl.publish import TABLES, Depot


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

    def _open(self, vid: str) -> None:
        con = duckdb.connect(":memory:")
        # A published version's files never change (a new version is a new folder), so their
        # Parquet footers can be cached: every tool query skips re-reading them (~1 ms each).
        # GLOBAL: a plain SET holds for this connection only, not for the cursors tools use.
        con.execute("SET GLOBAL parquet_metadata_cache = true")
        folder = self.depot.version_dir(vid)
        for table in TABLES:
            path = folder / f"{table}.parquet"
            con.execute(f"CREATE VIEW {table} AS SELECT * FROM read_parquet({sql_literal(path)})")
        # Read-only by construction: only this version's folder is reachable, no other
        # file, extension or database can be opened, and the settings are frozen.
        con.execute(f"SET allowed_directories = [{sql_literal(str(folder) + '/')}]")
        con.execute("SET enable_external_access = false")
        con.execute("SET lock_configuration = true")
        self._con, self._vid = con, vid
        self._meta = self.depot.metadata(vid)
        self._local = threading.local()

    def refresh(self) -> str | None:
        """Follow the CURRENT pointer if another process published or rolled back."""
        vid = self.depot.current_id()
        with self._lock:
            if vid and vid != self._vid:
                self._open(vid)
            elif vid is None:
                self._con, self._vid, self._meta = None, None, None
        return vid

    @property
    def dataset_version(self) -> str | None:
        """The version this store reads (after the last refresh)."""
        if self._vid is None:
            self.refresh()
        return self._vid

    def metadata(self) -> dict:
        """Metadata of the version being read; DATA_QUALITY_ISSUE on an empty store."""
        if self._vid is None:
            self.refresh()
        if self._meta is None:
            raise DatosFaltantesError(
                "No hay datos publicados todavía.",
                ["Cargue archivos con `python -m core etl ARCHIVO` o la página Carga de datos."],
            )
        return self._meta

    def is_empty(self) -> bool:
        """True when nothing has been published."""
        return self.dataset_version is None

    def cursor(self) -> duckdb.DuckDBPyConnection:
        """A cursor for the calling thread over the current version."""
        if self._vid is None:
            self.refresh()
        if self._con is None:
            self.metadata()  # raises the Spanish "no data" error
        local = self._local
        cur = getattr(local, "cursor", None)
        if cur is None or getattr(local, "vid", None) != self._vid:
            with self._lock:
                cur = self._con.cursor()
            local.cursor, local.vid = cur, self._vid
        return cur

    def query(self, sql: str, params: list | tuple = ()) -> list[tuple]:
        """Run one parameterized statement and fetch every row (DuckDB 2 needs full fetches)."""
        return self.cursor().execute(sql, list(params)).fetchall()

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
