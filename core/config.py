"""Central settings: where the data lives and the ETL's safety limits.

Values come from defaults, then environment variables (``CASANDRA_*``), then explicit
arguments. Nothing here reads Streamlit; the app passes its own values in.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parent.parent
CATALOGS_DIR = PROJECT_ROOT / "catalogs"
DEFAULT_DATA_DIR = PROJECT_ROOT / "data"

MiB = 1024 * 1024


@dataclass(frozen=True)
class Limits:
    """Upload and archive limits that protect the ETL from hostile files."""

    max_upload_bytes: int = 600 * MiB  # the national SESNSP file is ~380 MB
    max_inflated_bytes: int = 2048 * MiB  # total uncompressed size of one ZIP
    max_zip_ratio: float = 200.0  # uncompressed / compressed, per entry and in total
    max_zip_entries: int = 200
    max_field_chars: int = 4096  # longest CSV field we accept
    max_line_bytes: int = 64 * 1024

    @classmethod
    def from_env(cls) -> "Limits":
        """Limits with any ``CASANDRA_MAX_*`` environment overrides applied."""
        env = os.environ
        names = {
            "max_upload_bytes": "CASANDRA_MAX_UPLOAD_BYTES",
            "max_inflated_bytes": "CASANDRA_MAX_INFLATED_BYTES",
            "max_zip_ratio": "CASANDRA_MAX_ZIP_RATIO",
            "max_zip_entries": "CASANDRA_MAX_ZIP_ENTRIES",
            "max_field_chars": "CASANDRA_MAX_FIELD_CHARS",
            "max_line_bytes": "CASANDRA_MAX_LINE_BYTES",
        }
        values = {}
        for attr, var in names.items():
            if var in env:
                kind = type(getattr(cls, attr))
                values[attr] = kind(env[var])
        return cls(**values)


@dataclass(frozen=True)
class Settings:
    """Paths and limits for one process."""

    data_dir: Path = DEFAULT_DATA_DIR
    catalogs_dir: Path = CATALOGS_DIR
    limits: Limits = field(default_factory=Limits)
    etl_memory_limit: str = "1GB"  # DuckDB's budget during a load; keeps RSS under 2 GB
    etl_threads: int = 2
    etl_direct: bool = True  # clean IDM_NM files skip the cell-by-cell text path (same result, faster)

    @property
    def store_dir(self) -> Path:
        """Folder with the published dataset versions."""
        return self.data_dir / "store"

    @property
    def raw_dir(self) -> Path:
        """Folder with the bundled raw files and their manifest."""
        return self.data_dir / "raw"

    @property
    def artifacts_dir(self) -> Path:
        """Folder where tools write their full result tables."""
        return self.data_dir / "artifacts"

    @property
    def audit_dir(self) -> Path:
        """Folder with the audit log database."""
        return self.data_dir / "audit"

    def with_data_dir(self, data_dir: str | Path | None) -> "Settings":
        """A copy pointing at another data folder (``None`` keeps this one)."""
        if data_dir is None:
            return self
        return replace(self, data_dir=Path(data_dir).resolve())


def load_settings(data_dir: str | Path | None = None) -> Settings:
    """Settings from the environment; ``data_dir`` beats ``CASANDRA_DATA_DIR``."""
    base = Settings(limits=Limits.from_env())
    env_dir = os.environ.get("CASANDRA_DATA_DIR")
    chosen = data_dir if data_dir is not None else env_dir
    if os.environ.get("CASANDRA_ETL_MEMORY_LIMIT"):
        base = replace(base, etl_memory_limit=os.environ["CASANDRA_ETL_MEMORY_LIMIT"])
    if os.environ.get("CASANDRA_ETL_DIRECT"):
        base = replace(base, etl_direct=os.environ["CASANDRA_ETL_DIRECT"].strip().lower() not in ("0", "false", "no"))
    return base.with_data_dir(chosen)
