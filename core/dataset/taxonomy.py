"""Crime and modality taxonomy of SESNSP, loaded from ``catalogs/taxonomy``.

``delitos.json`` lists the SESNSP municipal catalogue (IDM_NM, 2015-2025 methodology) at
subtipo level, plus a few tipo-level entries (``nivel == "tipo"``) for files that carry
only the Tipo (``violacion``, ``homicidio``...), plus yearly ``series`` such as
``total_delitos``. ``metodos.json`` lists every Modalidad. Labels are matched with
``normalize_text`` so case and accents in a data file do not create new crimes.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from core.config import CATALOGS_DIR
from core.text import normalize_text, slug_key

CRIMES_FILE = Path("taxonomy") / "delitos.json"
METHODS_FILE = Path("taxonomy") / "metodos.json"
GROUPS_FILE = Path("taxonomy") / "grupos.json"
VIOLENCE_VALUES = ("con", "sin", None)


@dataclass(frozen=True)
class Crime:
    """One crime key with its SESNSP labels; ``incluye`` lists the keys a tipo-level entry sums."""

    delito: str
    subtipo: str
    tipo: str
    tipo_key: str
    bien_juridico: str | None
    sinonimos: tuple[str, ...]
    descripcion: str
    nivel: str = "subtipo"
    incluye: tuple[str, ...] = ()


@dataclass(frozen=True)
class Method:
    """One SESNSP Modalidad; ``violencia`` is "con"/"sin" only where the label says so."""

    metodo: str
    modalidad: str
    violencia: str | None
    sinonimos: tuple[str, ...]


@dataclass(frozen=True)
class Series:
    """A derived series (e.g. yearly total of all crimes) and its methodology by year."""

    delito: str
    label: str
    granularity: str
    sinonimos: tuple[str, ...]
    metodologia_por_anio: tuple[dict, ...]
    descripcion: str


def _path(catalogs_dir: str | Path, relative: Path) -> Path:
    """Absolute path, so the cache key does not depend on how the folder was spelled."""
    return (Path(catalogs_dir) / relative).resolve()


def _read_json(path: Path) -> dict:
    """A catalog document, UTF-8."""
    with path.open(encoding="utf-8") as fh:
        return json.load(fh)


def _check_unique(what: str, keys: list[str]) -> None:
    """Raise naming the repeated keys, if any."""
    dupes = sorted({k for k in keys if keys.count(k) > 1})
    if dupes:
        raise ValueError(f"{what}: claves repetidas {dupes}")


def _check_synonyms(what: str, entries: list[tuple[str, str, tuple[str, ...]]]) -> None:
    """A synonym (or label) must lead to one key only, or a question becomes ambiguous."""
    owner: dict[str, str] = {normalize_text(label): key for key, label, _ in entries}
    for key, _, synonyms in entries:
        for syn in synonyms:
            norm = normalize_text(syn)
            if owner.setdefault(norm, key) != key:
                raise ValueError(f"{what}: el sinónimo '{syn}' de {key} ya nombra a {owner[norm]}")


@lru_cache(maxsize=8)
def _crimes_and_series_at(path: Path) -> tuple[tuple[Crime, ...], tuple[Series, ...]]:
    """Parse and validate ``delitos.json`` once per path."""
    doc = _read_json(path)
    crimes = tuple(
        Crime(
            d["delito"],
            d["subtipo"],
            d["tipo"],
            d["tipo_key"],
            d.get("bien_juridico"),
            tuple(d.get("sinonimos", ())),
            d.get("descripcion", ""),
            d.get("nivel", "subtipo"),
            tuple(d.get("incluye", ())),
        )
        for d in doc["delitos"]
    )
    series = tuple(
        Series(
            d["delito"],
            d["label"],
            d["granularity"],
            tuple(d.get("sinonimos", ())),
            tuple(dict(m) for m in d.get("metodologia_por_anio", ())),
            d.get("descripcion", ""),
        )
        for d in doc.get("series", ())
    )
    keys = [c.delito for c in crimes] + [s.delito for s in series]
    _check_unique(str(path), keys)
    for c in crimes:
        # Keys are derived from labels (docs/contracts/design.md §2); a hand-typed key would drift from the data.
        if c.delito != slug_key(c.subtipo) or c.tipo_key != slug_key(c.tipo):
            raise ValueError(f"{path}: {c.delito} no es el slug de '{c.subtipo}' / '{c.tipo}'")
        if c.nivel not in ("subtipo", "tipo") or set(c.incluye) - set(keys):
            raise ValueError(f"{path}: {c.delito} tiene nivel o incluye inválidos")
    _check_synonyms(
        str(path),
        [(c.delito, c.subtipo, c.sinonimos) for c in crimes] + [(s.delito, s.label, s.sinonimos) for s in series],
    )
    return crimes, series


@lru_cache(maxsize=8)
def _methods_at(path: Path) -> tuple[Method, ...]:
    """Parse and validate ``metodos.json`` once per path."""
    methods = tuple(
        Method(d["metodo"], d["modalidad"], d.get("violencia"), tuple(d.get("sinonimos", ())))
        for d in _read_json(path)["metodos"]
    )
    _check_unique(str(path), [m.metodo for m in methods])
    for m in methods:
        if m.metodo != slug_key(m.modalidad) or m.violencia not in VIOLENCE_VALUES:
            raise ValueError(f"{path}: {m.metodo} no es el slug de '{m.modalidad}' o violencia inválida")
    _check_synonyms(str(path), [(m.metodo, m.modalidad, m.sinonimos) for m in methods])
    return methods


def load_crimes(catalogs_dir: str | Path = CATALOGS_DIR) -> list[Crime]:
    """Every crime of ``delitos.json`` (subtipo- and tipo-level), in file order."""
    return list(_crimes_and_series_at(_path(catalogs_dir, CRIMES_FILE))[0])


@lru_cache(maxsize=8)
def _groups_at(path: Path, crimes_path: Path) -> tuple[Crime, ...]:
    """Parse and validate ``grupos.json``: each a named sum of subtipos of one tipo (``nivel == "grupo"``)."""
    crimes, _series = _crimes_and_series_at(crimes_path)
    by_key = {c.delito: c for c in crimes}
    groups = tuple(
        Crime(
            d["delito"],
            d["subtipo"],
            d["tipo"],
            d["tipo_key"],
            by_key[d["incluye"][0]].bien_juridico if d.get("incluye") and d["incluye"][0] in by_key else None,
            tuple(d.get("sinonimos", ())),
            d.get("descripcion", ""),
            "grupo",
            tuple(d.get("incluye", ())),
        )
        for d in (_read_json(path).get("grupos", ()) if path.exists() else ())
    )
    _check_unique(str(path), [c.delito for c in crimes] + [g.delito for g in groups])
    for g in groups:
        members = [by_key.get(k) for k in g.incluye]
        if g.delito != slug_key(g.subtipo) or g.tipo_key != slug_key(g.tipo) or len(members) < 2:
            raise ValueError(f"{path}: {g.delito} no es el slug de '{g.subtipo}' / '{g.tipo}' o suma menos de dos")
        if any(m is None or m.nivel != "subtipo" or m.tipo_key != g.tipo_key for m in members):
            raise ValueError(f"{path}: {g.delito} incluye algo que no es un subtipo de {g.tipo}")
    _check_synonyms(str(path), [(c.delito, c.subtipo, c.sinonimos) for c in (*crimes, *groups)])
    return groups


def load_groups(catalogs_dir: str | Path = CATALOGS_DIR) -> list[Crime]:
    """The named sums of ``grupos.json`` («robo a transeúnte» = its two subtipos): catalog keys, never data."""
    return list(_groups_at(_path(catalogs_dir, GROUPS_FILE), _path(catalogs_dir, CRIMES_FILE)))


def load_series(catalogs_dir: str | Path = CATALOGS_DIR) -> list[Series]:
    """The derived series of ``delitos.json`` (e.g. ``total_delitos``)."""
    return list(_crimes_and_series_at(_path(catalogs_dir, CRIMES_FILE))[1])


def load_methods(catalogs_dir: str | Path = CATALOGS_DIR) -> list[Method]:
    """Every modalidad of ``metodos.json``, in file order."""
    return list(_methods_at(_path(catalogs_dir, METHODS_FILE)))


def crime_by_key(key: str, catalogs_dir: str | Path = CATALOGS_DIR) -> Crime | None:
    """The catalog crime with ``delito == key``, or None."""
    return next((c for c in load_crimes(catalogs_dir) if c.delito == key), None)


def _clean(label: str | None) -> str:
    """A label with outer spaces removed; None becomes ""."""
    return (label or "").strip()


def _find(items: list, label: str, attr: str, key_attr: str):
    """The item whose label matches ``label`` (normalized text, then slug), or None."""
    norm, slug = normalize_text(label), slug_key(label)
    exact = next((i for i in items if normalize_text(getattr(i, attr)) == norm), None)
    return exact or next((i for i in items if getattr(i, key_attr) == slug), None)


def crime_for_labels(
    bien: str | None, tipo: str, subtipo: str | None, catalogs_dir: str | Path = CATALOGS_DIR
) -> Crime:
    """The crime for a file's labels; the subtipo decides, the tipo stands in when it is missing."""
    label = _clean(subtipo) or _clean(tipo)
    if not label:
        raise ValueError("se necesita al menos el tipo de delito")
    crimes = load_crimes(catalogs_dir)
    found = _find(crimes, label, "subtipo", "delito")
    if found is not None:
        return found
    # Unknown label: the file extends the catalog instead of being rejected (e.g. RNID subtypes).
    tipo_label = _clean(tipo) or label
    same_tipo = next((c for c in crimes if normalize_text(c.tipo) == normalize_text(tipo_label)), None)
    return Crime(
        delito=slug_key(label),
        subtipo=label,
        tipo=tipo_label,
        tipo_key=slug_key(tipo_label),
        bien_juridico=_clean(bien) or (same_tipo.bien_juridico if same_tipo else None),
        sinonimos=(),
        descripcion=f"Delito leído de un archivo y ausente del catálogo (tipo: {tipo_label}; subtipo: {label}).",
    )


def method_for_label(modalidad: str | None, subtipo: str, catalogs_dir: str | Path = CATALOGS_DIR) -> Method:
    """The method for a file's Modalidad; a missing one means the subtipo label, as SESNSP does."""
    label = _clean(modalidad) or _clean(subtipo)
    if not label:
        raise ValueError("se necesita la modalidad o el subtipo de delito")
    found = _find(load_methods(catalogs_dir), label, "modalidad", "metodo")
    if found is not None:
        return found
    norm = normalize_text(label)
    # SESNSP puts the qualifier at the end ("Robo de ... Con violencia"); keep it for new labels.
    violencia = "con" if norm.endswith("con violencia") else "sin" if norm.endswith("sin violencia") else None
    return Method(metodo=slug_key(label), modalidad=label, violencia=violencia, sinonimos=())


def methodology_for_year(series_key: str, year: int, catalogs_dir: str | Path = CATALOGS_DIR) -> str:
    """The SESNSP methodology ("IDFC", "RNID") of a series in a given year."""
    series = next((s for s in load_series(catalogs_dir) if s.delito == series_key), None)
    if series is None:
        raise KeyError(f"serie desconocida: {series_key}")
    for span in series.metodologia_por_anio:
        end = span.get("hasta")
        if span["desde"] <= int(year) and (end is None or int(year) <= end):
            return span["metodologia"]
    raise ValueError(f"la serie {series_key} no tiene metodología para {year}")
