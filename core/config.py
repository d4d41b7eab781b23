"""Central settings: where the data lives, the ETL's safety limits and the LLM endpoint.

Values come from defaults, then environment variables (``CASANDRA_*``), then explicit
arguments. This is the one module of ``core`` that reads the environment or a settings file
(the LLM endpoint may also sit in ``.streamlit/secrets.toml``); it never imports Streamlit.
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

PROJECT_ROOT = Path(__file__).resolve().parent.parent
CATALOGS_DIR = PROJECT_ROOT / "catalogs"
DEFAULT_DATA_DIR = PROJECT_ROOT / "data"
# The 36 national municipal Parquet parts are not bundled: `build --nacional` reads them from here.
DEFAULT_NATIONAL_PARTS = (
    PROJECT_ROOT.parent / "shared" / "data" / "nacional" / "municipal_tipo_modalidad_2015-01_2025-05"
)
SECRETS_FILE = PROJECT_ROOT / ".streamlit" / "secrets.toml"  # the app's secrets; may hold the LLM endpoint
LLM_LOCAL_KEY = "sk-local"  # local OpenAI-compatible servers want some key, never a real one
LLM_NAMES = (
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "CASANDRA_LLM_MODEL",
    "CASANDRA_LLM_TIMEOUT",
    "CASANDRA_LLM_MAX_TOKENS",
    "CASANDRA_LLM_MAX_RESPONSE_BYTES",
)

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
    def from_env(cls) -> Limits:
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
class ApiSettings:
    """The HTTP API (``core.expositor``): where it listens, its per-token rate, body cap and CORS origins."""

    host: str = "127.0.0.1"  # CASANDRA_API_HOST: loopback unless the operator chooses otherwise
    port: int = 8000  # CASANDRA_API_PORT
    rate: str = "120/minute"  # CASANDRA_API_RATE: per token, the ``limits`` library's notation
    max_body_bytes: int = 256 * 1024  # CASANDRA_API_MAX_BODY_BYTES: a plan is a few KiB (uploads use max_upload_bytes)
    cors_origins: tuple[str, ...] = ()  # CASANDRA_API_CORS_ORIGINS: comma-separated; none means no CORS headers

    @classmethod
    def from_env(cls) -> ApiSettings:
        """API settings with any ``CASANDRA_API_*`` environment overrides applied."""
        env, base = os.environ, cls()
        origins = env.get("CASANDRA_API_CORS_ORIGINS", "")
        return cls(
            host=env.get("CASANDRA_API_HOST") or base.host,
            port=_number(env.get("CASANDRA_API_PORT"), int, base.port),
            rate=env.get("CASANDRA_API_RATE") or base.rate,
            max_body_bytes=_number(env.get("CASANDRA_API_MAX_BODY_BYTES"), int, base.max_body_bytes),
            cors_origins=tuple(o.strip() for o in origins.split(",") if o.strip()),
        )


@dataclass(frozen=True)
class Settings:
    """Paths and limits for one process."""

    data_dir: Path = DEFAULT_DATA_DIR
    catalogs_dir: Path = CATALOGS_DIR
    limits: Limits = field(default_factory=Limits)
    etl_memory_limit: str = "1GB"  # DuckDB's budget during a load; keeps RSS under 2 GB
    etl_threads: int = 2
    etl_direct: bool = True  # clean IDM_NM files skip the cell-by-cell text path (same result, faster)
    audit_keys: Path | None = None  # CASANDRA_AUDIT_KEYS_DIR; None = <data_dir>/keys
    national_parts: Path = DEFAULT_NATIONAL_PARTS  # CASANDRA_NATIONAL_PARTS: folder of the national Parquet parts
    api: ApiSettings = field(default_factory=ApiSettings)  # the HTTP API (core.expositor)

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

    @property
    def audit_keys_dir(self) -> Path:
        """Folder with the audit log's key and anchor, outside the audit folder (``<data_dir>/keys`` by default)."""
        return self.audit_keys or self.data_dir / "keys"

    def with_data_dir(self, data_dir: str | Path | None) -> Settings:
        """A copy pointing at another data folder (``None`` keeps this one)."""
        if data_dir is None:
            return self
        return replace(self, data_dir=Path(data_dir).resolve())


def load_settings(data_dir: str | Path | None = None) -> Settings:
    """Settings from the environment; ``data_dir`` beats ``CASANDRA_DATA_DIR``."""
    base = Settings(limits=Limits.from_env(), api=ApiSettings.from_env())
    env_dir = os.environ.get("CASANDRA_DATA_DIR")
    chosen = data_dir if data_dir is not None else env_dir
    if os.environ.get("CASANDRA_ETL_MEMORY_LIMIT"):
        base = replace(base, etl_memory_limit=os.environ["CASANDRA_ETL_MEMORY_LIMIT"])
    if os.environ.get("CASANDRA_ETL_DIRECT"):
        base = replace(base, etl_direct=os.environ["CASANDRA_ETL_DIRECT"].strip().lower() not in ("0", "false", "no"))
    if os.environ.get("CASANDRA_NATIONAL_PARTS"):
        base = replace(base, national_parts=Path(os.environ["CASANDRA_NATIONAL_PARTS"]).resolve())
    if os.environ.get("CASANDRA_AUDIT_KEYS_DIR"):
        base = replace(base, audit_keys=Path(os.environ["CASANDRA_AUDIT_KEYS_DIR"]).resolve())
    return base.with_data_dir(chosen)


def extra_tool_dirs() -> tuple[Path, ...]:
    """Tool folders besides ``catalogs/tools`` (``CASANDRA_TOOL_DIRS``, separated by ``os.pathsep``): a tool
    is added as its ToolSpec JSON plus its module in such a folder, without editing the project."""
    raw = os.environ.get("CASANDRA_TOOL_DIRS", "")
    return tuple(Path(part).resolve() for part in raw.split(os.pathsep) if part.strip())


def extra_layout_modules() -> tuple[str, ...]:
    """Modules that register upload layouts besides the built-in ones (``CASANDRA_LAYOUT_MODULES``, dotted
    names separated by commas): a layout is one ``@register_layout`` class in such a module, no project edit."""
    raw = os.environ.get("CASANDRA_LAYOUT_MODULES", "")
    return tuple(part.strip() for part in raw.split(",") if part.strip())


def extra_cli_modules() -> tuple[str, ...]:
    """Modules that add commands besides the built-in ones (``CASANDRA_CLI_MODULES``, dotted names separated
    by commas): a command is a ``register_cli(subparsers)`` function in such a module, no project edit."""
    raw = os.environ.get("CASANDRA_CLI_MODULES", "")
    return tuple(part.strip() for part in raw.split(",") if part.strip())


@dataclass(frozen=True)
class LlmSettings:
    """How to reach the LLM planner's endpoint; the key never shows in repr."""

    api_key: str = field(repr=False)
    base_url: str | None
    model: str
    timeout_s: float = 20.0
    max_retries: int = 2
    max_tokens: int | None = None
    max_response_bytes: int = 1_048_576  # a plan is a few KB: a bigger answer is refused unread


def _number(text: Any, kind: type, default):
    try:
        return kind(text) if text else default
    except (TypeError, ValueError):
        return default


def llm_settings(secrets_path: str | Path | None = None) -> LlmSettings | None:
    """The endpoint from the environment, else the secrets file (top level or ``[llm]``); None when not set."""
    path, data = Path(secrets_path) if secrets_path is not None else SECRETS_FILE, {}
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError):
        pass  # an unreadable secrets file means no endpoint, like a missing one
    section = data.get("llm") if isinstance(data.get("llm"), dict) else {}
    values = {n: os.environ.get(n) or section.get(n) or data.get(n) or None for n in LLM_NAMES}
    model, base_url, key = values["CASANDRA_LLM_MODEL"], values["OPENAI_BASE_URL"], values["OPENAI_API_KEY"]
    if not model or not (base_url or key):
        return None
    return LlmSettings(
        api_key=str(key or LLM_LOCAL_KEY),
        base_url=str(base_url) if base_url else None,
        model=str(model),
        timeout_s=_number(values["CASANDRA_LLM_TIMEOUT"], float, 20.0),
        max_tokens=_number(values["CASANDRA_LLM_MAX_TOKENS"], int, None),
        max_response_bytes=_number(values["CASANDRA_LLM_MAX_RESPONSE_BYTES"], int, 1_048_576),
    )
