"""What a layout is, the registry of layouts and detection from the header alone.

A layout is a class: its ``name`` (stored in reports and metadata), a Spanish ``label``,
a ``priority`` (detection order, lowest first), ``detect(header)`` and ``read(...)``, which
stages one file into the load's DuckDB connection. Built-in layouts register themselves
with ``@register_layout`` exactly like a new one would; detection asks every registered
layout of the file's kind in priority order and takes the first that claims the header.
Detection is by normalized header names, never by file name. Modules named in the
``CASANDRA_LAYOUT_MODULES`` setting (core.config.extra_layout_modules) are imported before
detection, so a deployment adds a layout without editing the project.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from core.config import extra_layout_modules
from core.errors import ValidacionError
from core.text import MONTHS, header_key

if TYPE_CHECKING:
    import duckdb

    from core.config import Limits
    from core.etl.curate import KnownEntities
    from core.etl.direct import DirectLoad
    from core.etl.sources import SourceFile

# Synonyms of header names seen in real files, mapped to one canonical column name.
ALIASES = {
    "ano": "anio",
    "a_o": "anio",  # 'Año' read with the wrong encoding
    "anio": "anio",
    "year": "anio",
    "clave_ent": "clave_ent",
    "cve_ent": "clave_ent",
    "entidad": "entidad",
    "cve_municipio": "cve_municipio",
    "cve_municipio_": "cve_municipio",
    "clave_municipio": "cve_municipio",
    "municipio": "municipio",
    "municipio_fuente": "municipio",
    "bien_juridico_afectado": "bien_juridico",
    "bien_jur_dico_afectado": "bien_juridico",
    "tipo_de_delito": "tipo",
    "subtipo_de_delito": "subtipo",
    "modalidad": "modalidad",
    "mes": "mes",
    "cantidad": "cantidad",
    "fecha": "fecha",
    "entidad_id": "entidad_id",
    "delito": "delito",
    "metodo": "metodo",
    "eventos": "eventos",
    "total_delitos": "total_delitos",
    "poblacion": "poblacion",
    "poblacion_censo2020": "poblacion_censo2020",
    "cve_mun": "cve_mun",
}
ALIASES.update({m: m for m in MONTHS})


def canonical_columns(cells: Sequence[str], aliases: dict[str, str] = ALIASES) -> tuple[str, ...]:
    """Map raw header cells to canonical names; unnamed or unknown cells get placeholders."""
    out: list[str] = []
    for i, cell in enumerate(cells):
        key = header_key(cell)
        if not key:
            out.append("_index" if i == 0 else f"_extra_{i}")
            continue
        out.append(aliases.get(key, f"_extra_{i}"))
    return tuple(out)


@dataclass(frozen=True)
class Header:
    """A file's header as detection sees it: the raw cells, their keys and their canonical names."""

    cells: tuple[str, ...]
    keys: tuple[str, ...]  # header_key of every cell ('Cve. Municipio' → 'cve_municipio')
    columns: tuple[str, ...]  # canonical names in file order ("_index" / "_extra_N" for others)
    file_name: str = ""  # for refusals that name the file

    @classmethod
    def of(cls, cells: Sequence[str], file_name: str = "") -> Header:
        """The header of a file from its raw cells."""
        cells = tuple(cells)
        return cls(cells, tuple(header_key(c) for c in cells), canonical_columns(cells), file_name)

    @property
    def present(self) -> set[str]:
        """The canonical names the header carries."""
        return set(self.columns)


@dataclass
class ReadContext:
    """What a layout needs to stage one file: the load's connection, limits and known names."""

    con: duckdb.DuckDBPyConnection
    limits: Limits
    known: KnownEntities  # municipalities of the catalog and the current store
    crimes: dict  # known crime keys (curate.keys_of)
    methods: dict  # known method keys
    work: Path  # the load's private folder
    direct: bool = True  # whether the direct path may be tried (settings.etl_direct)
    annual_cut: tuple[int, int] | None = None  # this file's declared last month of the yearly totals
    cells_into: str | None = None  # where the direct path writes the cells when they are the whole next version


@dataclass
class Staged:
    """What reading one file staged, for the file's report."""

    report: dict  # counts for the report, in report order (filas, then celdas or filas_aceptadas)
    warnings: list[str] = field(default_factory=list)
    direct: DirectLoad | None = None  # set when the direct path wrote the file's curated cells


class Layout:
    """One upload layout; a detected file gets an instance holding its canonical columns."""

    name: ClassVar[str]  # stored as the file's "formato" in reports and metadata
    label: ClassVar[str]  # Spanish description for summaries and the upload preview
    priority: ClassVar[int]  # detection order among layouts of the same kind, lowest first
    kind: ClassVar[str] = "csv"  # the source kind it reads (core.etl.sources.SourceFile.kind)
    monthly: ClassVar[bool] = False  # crime counts per month (curated cells) or a reference table
    map: ClassVar[bool] = False  # a map copied into the version as it is, never staged
    hint: ClassVar[str | None] = None  # how to write files of this layout, for the unknown-format refusal

    def __init__(self, columns: Sequence[str]) -> None:
        self.columns = tuple(columns)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.columns!r})"

    @classmethod
    def detect(cls, header: Header) -> bool:
        """Whether a file with this header has this layout (may refuse a near miss with ValidacionError)."""
        raise NotImplementedError

    @classmethod
    def column_names(cls, header: Header) -> tuple[str, ...]:
        """The names the file's columns get when read (the shared canonical names by default)."""
        return header.columns

    def has(self, column: str) -> bool:
        """Whether the file carries this canonical column."""
        return column in self.columns

    def describe(self) -> dict:
        """The layout's fields of a file report."""
        return {"formato": self.name, "formato_descripcion": self.label}

    def read(self, source: SourceFile, seq: int, ctx: ReadContext) -> Staged:
        """Stage the file into ``ctx.con`` (load sequence ``seq``) and say what was staged."""
        raise NotImplementedError


_REGISTRY: list[type[Layout]] = []


def register_layout(cls: type[Layout]) -> type[Layout]:
    """Class decorator: add a layout to detection, at its priority (a name can be taken once)."""
    for attr in ("name", "label", "priority"):
        if not hasattr(cls, attr):
            raise TypeError(f"{cls.__name__} has no {attr}")
    if any(c.name == cls.name for c in _REGISTRY):
        raise ValueError(f"layout {cls.name!r} is already registered")
    _REGISTRY.append(cls)
    # sort is stable: equal priorities keep their registration order
    _REGISTRY.sort(key=lambda c: c.priority)
    return cls


def unregister_layout(cls: type[Layout]) -> None:
    """Remove a layout from detection (tests that register a toy one)."""
    _REGISTRY.remove(cls)


def registered_layouts(kind: str | None = None) -> tuple[type[Layout], ...]:
    """The registered layouts in detection order, optionally of one source kind."""
    # The modules of the settings register theirs on first import; a module that fails to import is an error.
    for module in extra_layout_modules():
        importlib.import_module(module)
    return tuple(c for c in _REGISTRY if kind is None or c.kind == kind)


def detect_layout(cells: Sequence[str], file_name: str, kind: str = "csv") -> Layout:
    """Recognize the layout of a file from its header, or refuse it with INVALID_PAYLOAD."""
    header = Header.of(cells, file_name)
    cols = header.columns
    dupes = {c for c in cols if not c.startswith("_") and cols.count(c) > 1}
    if dupes:
        raise ValidacionError(
            f"El archivo {file_name} repite columnas en el encabezado: {', '.join(sorted(dupes))}.",
            ["Revise que el encabezado tenga cada columna una sola vez."],
        )
    candidates = registered_layouts(kind)
    for cls in candidates:
        if cls.detect(header):
            return cls(cls.column_names(header))
    shown = ", ".join(h for h in header.cells[:12] if h) or "(vacío)"
    raise ValidacionError(
        f"No se reconoce el formato del archivo {file_name}. Encabezado: {shown}.",
        list(dict.fromkeys(c.hint for c in candidates if c.hint)),
    )
