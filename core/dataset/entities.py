"""Geographic entities: INEGI states and municipalities, loaded from ``catalogs/entities``.

The catalogs are data (CSV), so a steward can add a state's municipalities without code
changes. Codes are kept as zero-padded text ("09", "11020"): SESNSP writes them as
integers, which loses the leading zero of states 01-09 (docs/contracts/design.md §2, data README).
"""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from core.config import CATALOGS_DIR
from core.text import municipality_id, normalize_text

STATES_FILE = Path("entities") / "estados.csv"
MUNICIPALITIES_FILE = Path("entities") / "municipios.csv"

_DIGITS = re.compile(r"^\d+$")
_INTEGRAL_FLOAT = re.compile(r"^(\d+)\.0*$")  # pandas writes integer columns with gaps as 11020.0


@dataclass(frozen=True)
class State:
    """One of the 32 federal entities, keyed by its two-digit INEGI code."""

    cve_ent: str
    abreviatura: str
    nombre: str
    aliases: tuple[str, ...] = ()


@dataclass(frozen=True)
class Municipality:
    """A municipality with its INEGI code and the ``entidad_id`` of docs/contracts/design.md §2."""

    cve_municipio: str
    cve_ent: str
    entidad_id: str
    nombre: str
    nombre_corto: str
    aliases: tuple[str, ...] = ()


def _split_aliases(raw: str | None) -> tuple[str, ...]:
    """Pipe-separated aliases, blanks dropped."""
    return tuple(a.strip() for a in (raw or "").split("|") if a.strip())


def _read_rows(path: Path) -> list[dict[str, str]]:
    """Rows of a UTF-8 catalog CSV; a BOM written by a spreadsheet is tolerated."""
    with path.open(encoding="utf-8-sig", newline="") as fh:
        return list(csv.DictReader(fh))


def _catalog_path(catalogs_dir: str | Path, relative: Path) -> Path:
    """Absolute path, so the cache key is the same however the folder was spelled."""
    return (Path(catalogs_dir) / relative).resolve()


@lru_cache(maxsize=8)
def _states_at(path: Path) -> tuple[State, ...]:
    """Parse and validate ``estados.csv`` once per path."""
    states = tuple(
        State(
            cve_ent=_pad_state(row["cve_ent"]) or row["cve_ent"],
            abreviatura=row["abreviatura"].strip(),
            nombre=row["nombre"].strip(),
            aliases=_split_aliases(row.get("aliases")),
        )
        for row in _read_rows(path)
    )
    for attr in ("cve_ent", "abreviatura"):
        values = [getattr(s, attr) for s in states]
        dupes = sorted({v for v in values if values.count(v) > 1})
        if dupes:
            raise ValueError(f"{path}: {attr} repetido: {dupes}")
    return states


@lru_cache(maxsize=8)
def _municipalities_at(path: Path, states_path: Path) -> tuple[Municipality, ...]:
    """Parse and validate ``municipios.csv`` once per path."""
    abbr = {s.cve_ent: s.abreviatura for s in _states_at(states_path)}
    items = []
    for row in _read_rows(path):
        code = pad_municipality_code(row["cve_municipio"])
        if code is None:
            raise ValueError(f"{path}: clave de municipio inválida {row['cve_municipio']!r}")
        cve_ent = state_of_municipality_code(code)
        nombre = row["nombre"].strip()
        # The id is derived, never typed by hand: a stale id would split one municipality in two.
        expected = municipality_id(abbr.get(cve_ent, ""), nombre)
        if row["entidad_id"].strip() != expected or _pad_state(row["cve_ent"]) != cve_ent:
            raise ValueError(f"{path}: {code} debería tener entidad_id {expected} y cve_ent {cve_ent}")
        items.append(
            Municipality(
                code,
                cve_ent,
                expected,
                nombre,
                row.get("nombre_corto", "").strip() or nombre,
                _split_aliases(row.get("aliases")),
            )
        )
    _check_municipality_names(path, items)
    return tuple(items)


def _check_municipality_names(path: Path, items: list[Municipality]) -> None:
    """Every name, short name and alias must point to one municipality within its state."""
    codes = [m.cve_municipio for m in items]
    dupes = sorted({c for c in codes if codes.count(c) > 1})
    if dupes:
        raise ValueError(f"{path}: clave repetida {dupes}")
    # Names may repeat across states (Victoria, Gto. and Victoria, Tamps.), not within one.
    seen: dict[tuple[str, str], str] = {}
    for m in items:
        for name in {normalize_text(n) for n in (m.nombre, m.nombre_corto, *m.aliases)}:
            key = (m.cve_ent, name)
            if key in seen and seen[key] != m.cve_municipio:
                raise ValueError(f"{path}: '{name}' nombra a {seen[key]} y a {m.cve_municipio}")
            seen[key] = m.cve_municipio


def load_states(catalogs_dir: str | Path = CATALOGS_DIR) -> list[State]:
    """The 32 states of ``catalogs/entities/estados.csv``, in file order."""
    return list(_states_at(_catalog_path(catalogs_dir, STATES_FILE)))


def load_municipalities(catalogs_dir: str | Path = CATALOGS_DIR) -> list[Municipality]:
    """The municipalities of ``catalogs/entities/municipios.csv``, in file order."""
    return list(
        _municipalities_at(_catalog_path(catalogs_dir, MUNICIPALITIES_FILE), _catalog_path(catalogs_dir, STATES_FILE))
    )


def state_by_code(code: str | int, catalogs_dir: str | Path = CATALOGS_DIR) -> State | None:
    """The state with INEGI code ``code`` ("11", 11, "09", 9), or None."""
    padded = _pad_state(code)
    return next((s for s in load_states(catalogs_dir) if s.cve_ent == padded), None)


def municipality_by_code(code: str | int, catalogs_dir: str | Path = CATALOGS_DIR) -> Municipality | None:
    """The municipality with INEGI code ``code`` (11020, "11020", "11020.0"), or None."""
    padded = pad_municipality_code(code)
    return next((m for m in load_municipalities(catalogs_dir) if m.cve_municipio == padded), None)


def pad_municipality_code(code: str | int | float | None) -> str | None:
    """Five-digit text for a 4-5 digit positive code (9002 → "09002"), else None."""
    number = _as_int(code)
    if number is None or not 1000 <= number <= 99999:
        return None
    return f"{number:05d}"


def state_of_municipality_code(code: str | int) -> str:
    """Two-digit state code of a municipality code: 11020 → "11", 9002 → "09"."""
    padded = pad_municipality_code(code)
    if padded is None:
        raise ValueError(f"clave de municipio inválida: {code!r}")
    return padded[:2]


def _pad_state(code: str | int | float | None) -> str | None:
    """Two-digit text for a state code 1-99, else None."""
    number = _as_int(code)
    if number is None or not 1 <= number <= 99:
        return None
    return f"{number:02d}"


def _as_int(value: str | int | float | None) -> int | None:
    """A non-negative integer from int, integral float or digit text; None otherwise."""
    if isinstance(value, bool) or value is None:
        return None  # bool is an int subclass; True is not a code
    if isinstance(value, int):
        return value if value >= 0 else None
    if isinstance(value, float):
        return int(value) if value.is_integer() and value >= 0 else None
    text = str(value).strip()
    if _DIGITS.match(text):
        return int(text)
    match = _INTEGRAL_FLOAT.match(text)
    return int(match.group(1)) if match else None
