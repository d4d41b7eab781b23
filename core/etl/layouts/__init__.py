"""Upload layouts: one registered class per layout (detect by header, read, describe).

``base`` defines a layout and the registry; ``monthly`` and ``reference`` hold the
built-in layouts of Guanajuato's files, ``statewide`` and ``places`` those of the national
ones, ``municipal`` (``parquet_tipo``, ``idm_nm_json``) the national municipal ones; all register themselves with ``@register_layout`` like any new one.
A new layout is a subclass of ``Layout`` (or of ``MonthlyLayout`` / ``LongLayout`` /
``ReferenceLayout`` to reuse their reading) decorated with ``@register_layout`` in a module
that is imported before the load; nothing else in the ETL names a layout.
"""

from __future__ import annotations

from core.etl.layouts.base import (
    Header,
    Layout,
    ReadContext,
    Staged,
    canonical_columns,
    detect_layout,
    register_layout,
    registered_layouts,
    unregister_layout,
)
from core.etl.layouts.idm_nm_json import IdmNmJson
from core.etl.layouts.monthly import LongLayout, MonthlyLayout, WideLayout
from core.etl.layouts.municipal import MunicipalLayout
from core.etl.layouts.parquet_tipo import MunicipalTipoParquet
from core.etl.layouts.places import PlaceLayout
from core.etl.layouts.reference import ReferenceLayout
from core.etl.layouts.statewide import StateLayout, StateWideLayout

__all__ = [
    "Header",
    "IdmNmJson",
    "Layout",
    "LongLayout",
    "MonthlyLayout",
    "MunicipalLayout",
    "MunicipalTipoParquet",
    "PlaceLayout",
    "ReadContext",
    "ReferenceLayout",
    "Staged",
    "StateLayout",
    "StateWideLayout",
    "WideLayout",
    "canonical_columns",
    "detect_layout",
    "register_layout",
    "registered_layouts",
    "unregister_layout",
]
