"""The first screen of the chat: example questions taken from the data that exists, and a one-line summary of
what is loaded (crimes, places, months) from the version's metadata (issue 15, item 9).

The examples are built from the published version, never written by hand: the crimes with the most cases in the
last complete year (among the crimes a question may name by month, the same list the «¿Sobre qué delito?»
clarification offers), and the municipality with the most cases. A residual category («Otros delitos …») makes
a poor example and is skipped. ``tests/core/ask/test_examples.py`` runs every example through the pipeline.
"""

from __future__ import annotations

from datetime import date

from core.ask.wording import fmt_int, month_words

MUNICIPAL = "GTO.MUN.%"
HOME_LABEL = "Guanajuato"


def monthly_crimes(catalog) -> list[dict]:
    """The crimes a question may name month by month (the clarification's list): in the data, monthly, subtipo."""
    return [
        c
        for c in catalog.crimes
        if c.get("en_datos") and c.get("granularity") == "month" and c.get("nivel") == "subtipo"
    ]


def last_full_year(metadata: dict) -> int | None:
    """The last calendar year the data cover completely (None on an empty store)."""
    until = metadata.get("data_available_until") or metadata.get("max_date")
    if not until:
        return None
    end = date.fromisoformat(str(until)[:10])
    return end.year if end.month == 12 else end.year - 1


def coverage_line(metadata: dict | None, catalog) -> str:
    """«Datos de 40 delitos en 46 municipios de Guanajuato, de enero de 2015 a noviembre de 2025 (131 meses).»"""
    if not metadata or not metadata.get("min_date"):
        return "Todavía no hay datos publicados."
    start, end = str(metadata["min_date"]), str(metadata.get("data_available_until") or metadata["max_date"])
    months = (int(end[:4]) - int(start[:4])) * 12 + int(end[5:7]) - int(start[5:7]) + 1
    crimes = len(monthly_crimes(catalog))
    places = sum(1 for e in catalog.entities if e.get("nivel") == "municipio")
    return (
        f"Datos de {fmt_int(crimes)} delitos en {fmt_int(places)} municipios de {HOME_LABEL}, "
        f"de {month_words(start)} a {month_words(end)} ({fmt_int(months)} meses)."
    )


def _usable(crime: dict, coverage: dict, year: int) -> bool:
    """A crime worth an example: not a residual category, published through the example's year."""
    covered = (coverage.get(crime["delito"]) or {}).get("hasta") or ""
    return not str(crime.get("subtipo", "")).lower().startswith("otros") and covered >= f"{year}-12-31"


def _facts(store, catalog, metadata: dict, year: int) -> tuple[list[str], str | None]:
    """(the crimes with the most cases in ``year``, most first; the municipality with the most cases)."""
    coverage = metadata.get("coverage") or {}
    keys = [c["delito"] for c in monthly_crimes(catalog) if _usable(c, coverage, year)]
    if not keys:
        return [], None
    window = (date(year, 1, 1), date(year, 12, 31))
    marks = ", ".join("?" for _ in keys)
    crimes = store.query(
        f"SELECT delito FROM incidents WHERE fecha BETWEEN ? AND ? AND entidad_id LIKE ? AND delito IN ({marks}) "
        "GROUP BY delito ORDER BY sum(eventos) DESC, delito LIMIT 2",
        [*window, MUNICIPAL, *keys],
    )
    place = store.query(
        "SELECT entidad_id FROM incidents WHERE fecha BETWEEN ? AND ? AND entidad_id LIKE ? "
        "GROUP BY entidad_id ORDER BY sum(eventos) DESC, entidad_id LIMIT 1",
        [*window, MUNICIPAL],
    )
    return [r[0] for r in crimes], (place[0][0] if place else None)


def example_questions(store, catalog, metadata: dict | None) -> list[str]:
    """Four questions the data can answer (a ranking, a monthly series, a count, a comparison of years)."""
    year = last_full_year(metadata or {})
    if year is None:
        return []
    crimes, place_id = store.memo(("examples", year), lambda: _facts(store, catalog, metadata, year))
    if not crimes or place_id is None:
        return []
    names = {c["delito"]: str(c["subtipo"]).lower() for c in catalog.crimes}
    first, second = names[crimes[0]], names[crimes[-1]]
    place = (catalog.entity_by_id.get(place_id) or {}).get("label") or HOME_LABEL
    return [
        f"¿Cuáles son los 10 municipios con más casos de {first} en {year}?",
        f"Serie mensual de {first} en {place} en {year}",
        f"¿Cuántos casos de {second} hubo en {place} en {year}?",
        f"Compara {second} en {year} contra {year - 1} en {HOME_LABEL}",
    ]
