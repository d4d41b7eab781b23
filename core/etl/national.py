"""The optional national store: the bundled files plus the 36 national municipal Parquet parts (issue 14, item 8).

The default store stays Guanajuato + the state-level national files. ``python -m core build --nacional``
builds a second store in ``<data_dir>/nacional/`` from the same manifest plus the folder of parts
(setting ``CASANDRA_NATIONAL_PARTS``), read as one source: DuckDB scans the parts set-wise
(``read_parquet`` over ``*.parquet``) and the municipal layout stages their 20 M rows into
``observations`` with SQL only. Point ``CASANDRA_DATA_DIR`` at that folder to serve it.
"""

from __future__ import annotations

from core.config import Settings
from core.errors import ValidacionError
from core.etl.pipeline import SourceSpec

NATIONAL_DIR = "nacional"
PROVENANCE = (
    "SESNSP IDM_NM reducido a tipo × modalidad, todos los municipios del país, corte con datos a may 2025 "
    "(Roberto13-Vil/Interactive-Dashboard @ 2fc9e54a, 36 partes Parquet). Ver data/raw/README.md"
)


def national_settings(settings: Settings) -> Settings:
    """The settings of the national store: the same ones over ``<data_dir>/nacional``."""
    return settings.with_data_dir(settings.data_dir / NATIONAL_DIR)


def national_specs(settings: Settings, bundled: list[SourceSpec]) -> list[SourceSpec]:
    """The bundled files then the folder of national parts (after the catalogues, so its names resolve)."""
    parts = settings.national_parts
    if not parts.is_dir():
        raise ValidacionError(
            f"No existe la carpeta de partes nacionales {parts.name}.",
            ["Indique la carpeta con CASANDRA_NATIONAL_PARTS (las 36 partes part.N.parquet)."],
        )
    return [*bundled, SourceSpec(parts, display_name=parts.name, procedencia=PROVENANCE)]
