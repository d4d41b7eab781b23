"""The versioned tool catalog (docs/contracts/001_casandra_v0.md Annex C): ToolSpecs loaded from ``catalogs/tools``.

Built-in tools are registered exactly as a new one would be: a JSON ToolSpec file whose
``implementation`` names ``module:function``. Argument schemas shared by several tools (crime,
ISO date, entity, method) live once in ``catalogs/tools/_defs.json``; a spec names one with
``{"x-def": "delito"}`` and loading inlines it. The CatalogSpec adds the entity and crime
catalogs of the current dataset, resolves ``x-enum-source`` into closed ``enum`` lists,
and carries a sha256 checksum of its canonical JSON.

A tool is its spec plus its module: the spec also says how the rest of the engine treats it
(answer ``shape``, ``calendar``, ``checks``, ``example``…), so nothing else names a tool or its
id. More tool folders can be added with ``CASANDRA_TOOL_DIRS`` (core.config.extra_tool_dirs).
"""

from __future__ import annotations

import hashlib
import importlib
import json
import sys
from collections.abc import Callable
from datetime import date
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from core.config import CATALOGS_DIR, extra_tool_dirs
from core.text import canonical_json, month_end

CATALOG_SCHEMA_VERSION = "1.0.0"
ENVELOPE_SCHEMA_VERSION = "1.0.0"
_SEMVER = r"^\d+\.\d+\.\d+$"
_FUNCTION = r"^[a-zA-Z_][\w.]*:[a-zA-Z_]\w*$"  # module:function


class Requires(BaseModel):
    """What a tool needs (C.4)."""

    model_config = ConfigDict(extra="forbid")
    dataset: bool
    entity: bool
    date_range: bool
    evidence_capable: bool


class Example(BaseModel):
    """How the Catálogo writes the example plan of a tool that does not answer alone."""

    model_config = ConfigDict(extra="forbid")
    then: str | None = None  # a filter: the example goes on with this tool, which reads what the filter narrowed
    after: str | None = None  # the example runs this tool first (evidence lists the rows behind its result)


class Explain(BaseModel):
    """How the Plan de consulta says a step in plain Spanish (core.ask.explain fills the template)."""

    model_config = ConfigDict(extra="forbid")
    text: str = Field(min_length=10)  # {delito}, {lugar}, {periodo}… or an argument's name; [ … ] drops when empty
    values: dict[str, dict[str, str]] = {}  # an argument's value → its words («desc» → «con más»)


def load_function(ref: str) -> Callable:
    """Import the function a ``module:function`` reference names."""
    module, func = ref.split(":")
    return getattr(importlib.import_module(module), func)


class ToolSpec(BaseModel):
    """One tool's contract (C.2-C.7), plus how the engine treats it.

    The fields after ``implementation`` are read instead of the tool's name or id. They are not part
    of the CatalogSpec contract, so they stay out of ``model_dump``: the catalog, its checksum and
    ``spec_hash`` are what the contract says.

    - ``shape``: the answer shape, which compose's lead and the chart dispatch on: filter, evidence,
      ranking (single when one row), series, comparison, anomalies, patterns, annual — or a new one,
      written by the spec's own ``lead`` and ``chart``.
    - ``measure``: the measure a ranking is read by first, when its rows follow it.
    - ``calendar``: ``months`` (the window is aligned to whole months and clamped to the watermark and
      each crime's coverage) or ``years`` (whole years of the annual series).
    - ``history``: the argument giving the months read before the window (counted in the estimate).
    - ``checks``: ``module:function(check)`` with the tool's own contextual checks (core.engine.validate.StepCheck).
    - ``lead`` / ``chart``: ``module:function`` writing the Spanish lead ``(env, rows, noun, per) -> [str]``
      and the chart spec ``(env, pipeline) -> dict | None`` of a new shape.
    - ``example``: the Catálogo's example plan, for a tool that does not answer alone.
    - ``explain``: the Spanish sentence the Plan de consulta says for a step of this tool.
    """

    model_config = ConfigDict(extra="forbid")
    tool_id: int = Field(ge=1)
    name: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    version: str = Field(pattern=_SEMVER)
    summary: str = Field(min_length=10)
    kind: Literal["filter", "analysis", "metricas", "patrones", "evidence"]
    status: Literal["stable", "experimental"]
    requires: Requires
    args_schema: dict[str, Any]
    output_contract: dict[str, Any]
    deterministic: bool
    implementation: str = Field(pattern=_FUNCTION)
    shape: str | None = Field(default=None, pattern=r"^[a-z_]+$", exclude=True)
    measure: str | None = Field(default=None, exclude=True)
    calendar: Literal["months", "years"] = Field(default="months", exclude=True)
    history: str | None = Field(default=None, exclude=True)
    checks: str | None = Field(default=None, pattern=_FUNCTION, exclude=True)
    lead: str | None = Field(default=None, pattern=_FUNCTION, exclude=True)
    chart: str | None = Field(default=None, pattern=_FUNCTION, exclude=True)
    example: Example | None = Field(default=None, exclude=True)
    explain: Explain | None = Field(default=None, exclude=True)

    @field_validator("args_schema")
    @classmethod
    def _closed_object(cls, value: dict) -> dict:
        if value.get("type") != "object" or value.get("additionalProperties") is not False:
            raise ValueError("args_schema must be an object schema with additionalProperties: false")
        return value

    @property
    def identity(self) -> str:
        """``name@version``."""
        return f"{self.name}@{self.version}"

    @property
    def spec_hash(self) -> str:
        """sha256 of the canonical ToolSpec: part of the tool's identity."""
        return "sha256:" + hashlib.sha256(canonical_json(self.model_dump()).encode()).hexdigest()

    @property
    def arg_names(self) -> set[str]:
        """Names of the arguments the tool accepts."""
        return set(self.args_schema.get("properties", {}))

    def load_implementation(self) -> Callable:
        """Import the function named by ``implementation``."""
        return load_function(self.implementation)

    def hook(self, name: str) -> Callable | None:
        """The function a hook field (``checks``, ``lead``, ``chart``) names; None when the spec names none."""
        ref = getattr(self, name)
        return load_function(ref) if ref else None


DEFS_FILE = "_defs.json"  # shared argument schemas; files starting with "_" are not tools


def _with_defs(schema: Any, defs: dict, where: str) -> Any:
    """Replace every ``{"x-def": name, ...}`` with a copy of ``defs[name]``, its other keys overriding."""
    if isinstance(schema, list):
        return [_with_defs(s, defs, where) for s in schema]
    if not isinstance(schema, dict):
        return schema
    name = schema.get("x-def")
    if name is None:
        return {k: _with_defs(v, defs, where) for k, v in schema.items()}
    if name not in defs:
        raise ValueError(f"{where}: x-def {name!r} is not defined in {DEFS_FILE}")
    # the definition's key order is kept: the CatalogSpec prints schemas in file order
    return _with_defs({**defs[name], **{k: v for k, v in schema.items() if k != "x-def"}}, defs, where)


@lru_cache(maxsize=8)
def _load_specs(folders: tuple[str, ...]) -> tuple[ToolSpec, ...]:
    defs: dict = {}
    for folder in folders:  # any tool folder may add shared definitions
        defs_path = Path(folder) / DEFS_FILE
        defs.update(json.loads(defs_path.read_text(encoding="utf-8"))["$defs"] if defs_path.exists() else {})
    specs = []
    for folder in folders:
        if folder != folders[0] and folder not in sys.path:
            sys.path.append(folder)  # an added tool folder holds its modules next to its specs
        for path in sorted(p for p in Path(folder).glob("*.json") if not p.name.startswith("_")):
            raw = json.loads(path.read_text(encoding="utf-8"))
            raw["args_schema"] = _with_defs(raw.get("args_schema"), defs, path.name)
            specs.append(ToolSpec.model_validate(raw))
    ids = [s.tool_id for s in specs]
    names = [s.name for s in specs]
    if len(set(ids)) != len(ids) or len(set(names)) != len(names):
        raise ValueError(f"tool_id and name must be unique across {', '.join(folders)}")
    return tuple(sorted(specs, key=lambda s: s.tool_id))


def tool_folders(catalogs_dir: Path = CATALOGS_DIR) -> tuple[str, ...]:
    """``catalogs/tools`` plus the extra tool folders of the settings (``CASANDRA_TOOL_DIRS``)."""
    return (str(Path(catalogs_dir) / "tools"), *(str(d) for d in extra_tool_dirs()))


def load_tool_specs(catalogs_dir: Path = CATALOGS_DIR) -> list[ToolSpec]:
    """Every ToolSpec of the tool folders, by tool_id."""
    return list(_load_specs(tool_folders(catalogs_dir)))


@lru_cache(maxsize=8)
def _specs_by_name(folders: tuple[str, ...]) -> dict[str, ToolSpec]:
    return {s.name: s for s in _load_specs(folders)}


def tool_spec(tool: str) -> ToolSpec | None:
    """The installed ToolSpec named ``tool`` (a name, or an envelope's ``name@version``); None when unknown."""
    return _specs_by_name(tool_folders()).get(str(tool).split("@")[0])


def tool_id(name: str) -> int:
    """The tool_id of the installed tool ``name`` (plans carry ids; code names tools)."""
    spec = tool_spec(name)
    if spec is None:
        raise KeyError(f"no tool named {name!r} in {', '.join(tool_folders())}")
    return spec.tool_id


class Catalog:
    """Tool specs plus the dataset's entities and taxonomy: what plans are validated against."""

    def __init__(
        self,
        specs: list[ToolSpec],
        entities: list[dict],
        crimes: list[dict],
        methods: list[dict],
        generated_at: str,
        dataset_version: str | None,
        rnid_only: list[dict] | None = None,
        series_ends: dict[str, date] | None = None,
    ):
        self.specs = specs
        # each state-level series' last published month («carpetas/comun/IDFC» → 2024-11-30): relative periods of
        # a national question count from it (docs/decisions/0016); not part of the checksummed body
        self.series_ends = series_ends or {}
        # subtipos only the 2026 methodology (RNID) has, by state: names the understanding knows, not plan enums
        self.rnid_only = rnid_only or []
        self.by_id = {s.tool_id: s for s in specs}
        self.by_name = {s.name: s for s in specs}
        self.entities = entities
        # Validation looks entities up by id on every plan: 2,470 of them nationally.
        self.entity_by_id = {e["entidad_id"]: e for e in entities}
        self.n_municipalities = sum(1 for e in entities if e["nivel"] == "municipio")
        self.crimes = crimes
        self.methods = methods
        self.dataset_version = dataset_version
        self.generated_at = generated_at
        self._enums = {
            "entidades": sorted(e["entidad_id"] for e in entities),
            "delitos": sorted(c["delito"] for c in crimes if c.get("granularity", "month") == "month"),
            "metodos": sorted(m["metodo"] for m in methods),
        }
        self.resolved_schemas = {s.tool_id: self._resolve(s.args_schema) for s in specs}
        body = self._body()
        self.checksum = "sha256:" + hashlib.sha256(canonical_json(body).encode()).hexdigest()
        self.catalog_version = f"cat-{self.checksum[7:19]}"

    def _resolve(self, schema: Any) -> Any:
        """Replace every ``x-enum-source`` with the closed list of current values."""
        if isinstance(schema, list):
            return [self._resolve(s) for s in schema]
        if not isinstance(schema, dict):
            return schema
        out = {k: self._resolve(v) for k, v in schema.items() if k != "x-enum-source"}
        source = schema.get("x-enum-source")
        if source:
            out["enum"] = list(self._enums[source])
        return out

    def _body(self) -> dict:
        return {
            "schema_version": CATALOG_SCHEMA_VERSION,
            "tools": [dict(s.model_dump(), args_schema=self.resolved_schemas[s.tool_id]) for s in self.specs],
            "entities": self.entities,
            "taxonomy": {"delitos": self.crimes, "metodos": self.methods},
        }

    def spec_for(self, tool: int | str) -> ToolSpec | None:
        """A spec by tool_id or name (None when unknown)."""
        if isinstance(tool, int) or (isinstance(tool, str) and tool.isdigit()):
            return self.by_id.get(int(tool))
        return self.by_name.get(str(tool))

    def enum(self, source: str) -> list[str]:
        """Current allowed values of an enum source (entidades, delitos, metodos)."""
        return list(self._enums[source])

    def as_dict(self) -> dict:
        """The CatalogSpec (C.9) as JSON-ready data."""
        body = self._body()
        return {
            "catalog_version": self.catalog_version,
            "schema_version": CATALOG_SCHEMA_VERSION,
            "generated_at": self.generated_at,
            "checksum": self.checksum,
            "dataset_version": self.dataset_version,
            **{k: v for k, v in body.items() if k != "schema_version"},
        }


def build_catalog(store, clock=None, catalogs_dir: Path = CATALOGS_DIR) -> Catalog:
    """The CatalogSpec for the store's current dataset (cached per dataset version)."""
    from core.clock import Clock, iso_utc

    vid = store.dataset_version
    key = (tool_folders(catalogs_dir), vid)
    cached = _CACHE.get(key)
    if cached is not None:
        return cached
    entities, crimes, methods, rnid_only, series_ends = [], [], [], [], {}
    if vid:
        cols = ["entidad_id", "nivel", "cve", "estado_id", "label", "nombre_corto", "aliases", "parent_id"]
        entities = [
            dict(zip(cols, r)) for r in store.query(f"SELECT {', '.join(cols)} FROM entities ORDER BY nivel DESC, cve")
        ]
        ccols = [
            "delito",
            "subtipo",
            "tipo",
            "tipo_key",
            "bien_juridico",
            "sinonimos",
            "granularity",
            "nivel",
            "incluye",
            "en_datos",
        ]
        crimes = [dict(zip(ccols, r)) for r in store.query(f"SELECT {', '.join(ccols)} FROM crimes ORDER BY delito")]
        for c in crimes:  # the modalidades each crime has in the común series (what a tipo row's metodo can mean)
            c["metodos"] = []
        if "crime_levels" in {r[0] for r in store.query("SELECT table_name FROM information_schema.tables")}:
            levels = store.query(
                """SELECT delito, list(DISTINCT metodo ORDER BY metodo) FROM crime_levels
                   WHERE fuero = 'comun' AND metodologia = 'IDFC' GROUP BY delito"""
            )
            by_key = dict(levels)
            for c in crimes:
                c["metodos"] = list(by_key.get(c["delito"]) or [])
            rows = store.query(
                """SELECT delito, any_value(subtipo), any_value(tipo_key) FROM crime_levels
                   WHERE metodologia = 'RNID' AND subtipo IS NOT NULL AND delito NOT IN (SELECT delito FROM crimes)
                   GROUP BY delito ORDER BY delito"""
            )
            rnid_only = [{"delito": d, "subtipo": s, "tipo_key": t} for d, s, t in rows]
        if "observations" in {r[0] for r in store.query("SELECT table_name FROM information_schema.tables")}:
            series_ends = _series_ends(store)
        crimes += _group_rows(crimes, catalogs_dir)
        mcols = ["metodo", "modalidad", "violencia", "sinonimos", "en_datos"]
        methods = [dict(zip(mcols, r)) for r in store.query(f"SELECT {', '.join(mcols)} FROM methods ORDER BY metodo")]
    catalog = Catalog(
        load_tool_specs(catalogs_dir),
        entities,
        crimes,
        methods,
        iso_utc((clock or Clock()).now()),
        vid,
        rnid_only,
        series_ends,
    )
    _CACHE[key] = catalog
    return catalog


def _series_ends(store) -> dict[str, date]:
    """«medida/fuero/metodologia» → the last day of the last month its state-level rows publish."""
    rows = store.query(
        """SELECT medida, fuero, metodologia, max(fecha) FROM observations
           WHERE nivel IN ('estado', 'extranjero') GROUP BY ALL"""
    )
    return {f"{m}/{f}/{s}": month_end(d.year, d.month) for m, f, s, d in rows}


def _group_rows(crimes: list[dict], catalogs_dir: Path) -> list[dict]:
    """The named sums of ``grupos.json`` as catalog rows (``nivel`` grupo): a key the engine expands to its
    subtipos like a tipo's, answerable where every member is; never a row of the store."""
    from core.dataset.taxonomy import load_groups

    by_key = {c["delito"]: c for c in crimes}
    out = []
    for g in load_groups(catalogs_dir):
        members = [by_key[k] for k in g.incluye if k in by_key]
        if len(members) != len(g.incluye):
            continue  # a store without one of its subtipos has no such sum
        out.append(
            {
                "delito": g.delito,
                "subtipo": g.subtipo,
                "tipo": g.tipo,
                "tipo_key": g.tipo_key,
                "bien_juridico": g.bien_juridico,
                "sinonimos": "|".join(g.sinonimos),
                "granularity": "month",
                "nivel": "grupo",
                "incluye": "|".join(g.incluye),
                "en_datos": all(m.get("en_datos") for m in members),
                "metodos": sorted({x for m in members for x in m.get("metodos") or []}),
            }
        )
    return out


_CACHE: dict[tuple[tuple[str, ...], str | None], Catalog] = {}
