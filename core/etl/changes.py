"""What a load changes against the current version, told per crime, month and place (the steward's preview).

The counts per crime (added, changed, removed, equal cells) come with a detail per change kind and crime: how
many cells, which months and which places, and a Spanish sentence for each (``«184 celdas de homicidio doloso de
diciembre de 2025 en 46 municipios»``). A load that would remove cells publishes only when the steward confirms
that exact number (docs/decisions/0002-upload-ownership.md: a long file owns whole slices, so one row can remove a
month); a load whose tables equal the current version's publishes nothing, even when the version's recorded
digest came from other code.
"""

from __future__ import annotations

from datetime import date

import duckdb

from core.errors import ValidacionError
from core.etl.merge import DIGEST_SQL, SUMMARY_COLUMNS, current_cells
from core.text import month_words

KINDS = ("agregadas", "cambiadas", "eliminadas")
COUNTS = ("agregadas", "eliminadas", "cambiadas", "iguales")
NAMED_PLACES = 3  # up to this many places are named; more are counted
VERB = {"agregadas": "se agregarán", "cambiadas": "cambiarán", "eliminadas": "se eliminarán"}

# The cells that differ from the current version, one row each: kind, crime, month and place.
_DIFF_CELLS = """
    SELECT coalesce(n.delito, o.delito) AS delito, coalesce(n.fecha, o.fecha) AS fecha,
           coalesce(n.entidad_id, o.entidad_id) AS entidad_id,
           CASE WHEN o.row_id IS NULL THEN 'agregadas' WHEN n.row_id IS NULL THEN 'eliminadas'
                ELSE 'cambiadas' END AS kind
    FROM new_incidents n FULL OUTER JOIN cur_incidents o ON n.row_id = o.row_id
    WHERE o.row_id IS NULL OR n.row_id IS NULL OR n.eventos <> o.eventos"""
_FIRST_LOAD_CELLS = "SELECT delito, fecha, entidad_id, 'agregadas' AS kind FROM new_incidents"


def diff(con: duckdb.DuckDBPyConnection) -> dict:
    """Cells added, changed and removed against the current version: totals, per crime, and told per crime,
    month and place (``detalle``, one item per kind and crime, each with its Spanish ``texto``)."""
    first = current_cells(con) == 0
    if first:  # every cell is new, no join needed
        rows = con.execute("SELECT delito, sum(n), 0, 0, 0 FROM new_incidents_summary GROUP BY 1 ORDER BY 1").fetchall()
    else:
        rows = _count_rows(con)
    per = {d: dict(zip(COUNTS, (int(v) for v in vals))) for d, *vals in rows}
    totals = {k: sum(v[k] for v in per.values()) for k in COUNTS}
    changed = {d: v for d, v in per.items() if v["agregadas"] or v["eliminadas"] or v["cambiadas"]}
    return {
        "totales": totals,
        "por_delito": changed,
        "detalle": _detail(con, _FIRST_LOAD_CELLS if first else _DIFF_CELLS),
    }


def _count_rows(con: duckdb.DuckDBPyConnection) -> list[tuple]:
    return con.execute(
        """SELECT coalesce(n.delito, o.delito) AS delito,
                  count(*) FILTER (WHERE o.row_id IS NULL) AS agregadas,
                  count(*) FILTER (WHERE n.row_id IS NULL) AS eliminadas,
                  count(*) FILTER (WHERE n.row_id IS NOT NULL AND o.row_id IS NOT NULL AND n.eventos <> o.eventos) AS cambiadas,
                  count(*) FILTER (WHERE n.row_id IS NOT NULL AND o.row_id IS NOT NULL AND n.eventos = o.eventos) AS iguales
           FROM new_incidents n FULL OUTER JOIN cur_incidents o ON n.row_id = o.row_id
           GROUP BY 1 ORDER BY 1"""
    ).fetchall()


def _detail(con: duckdb.DuckDBPyConnection, cells_sql: str) -> list[dict]:
    """One item per change kind and crime: cells, months (first, last, how many) and places (how many, a few names)."""
    # The cells are grouped before any name is joined: only the places of a change with at most NAMED_PLACES
    # places are named (a national first load's 29 M cells joined to their names took 2.7 s, grouped first 0.x s).
    rows = con.execute(
        f"""WITH d AS ({cells_sql}),
                 g AS (SELECT kind, delito, count(*) AS cells, min(fecha) AS first, max(fecha) AS last,
                              count(DISTINCT fecha) AS months, count(DISTINCT entidad_id) AS places,
                              list(DISTINCT entidad_id) AS ids
                       FROM d GROUP BY ALL),
                 names AS (SELECT entidad_id, any_value(label) AS label
                           FROM (SELECT entidad_id, label FROM new_entities UNION ALL
                                 SELECT entidad_id, label FROM cur_entities) GROUP BY ALL),
                 crimes AS (SELECT delito, any_value(subtipo) AS label
                            FROM (SELECT delito, subtipo FROM new_crimes UNION ALL SELECT delito, subtipo FROM cur_crimes)
                            GROUP BY ALL),
                 named AS (SELECT kind, delito, list(DISTINCT coalesce(p.label, u.id) ORDER BY coalesce(p.label, u.id))
                                  AS names
                           FROM (SELECT kind, delito, unnest(ids) AS id FROM g WHERE places <= {NAMED_PLACES}) u
                           LEFT JOIN names p ON p.entidad_id = u.id GROUP BY ALL)
            SELECT g.kind, g.delito, c.label, g.cells, g.first, g.last, g.months, g.places,
                   coalesce(n.names, [])[:{NAMED_PLACES}]
            FROM g LEFT JOIN crimes c USING (delito) LEFT JOIN named n USING (kind, delito)
            ORDER BY g.kind, g.delito"""
    ).fetchall()
    out = []
    for kind, delito, label, cells, first, last, months, places, names in rows:
        item = {
            "tipo": kind,
            "delito": delito,
            "nombre": label or delito,
            "celdas": int(cells),
            "desde": first.isoformat(),
            "hasta": last.isoformat(),
            "meses": int(months),
            "lugares": int(places),
            "nombres": list(names) if places <= NAMED_PLACES else [],
        }
        item["texto"] = cells_text(item)
        out.append(item)
    order = {"eliminadas": 0, "agregadas": 1, "cambiadas": 2}  # removals first: what a person must see
    return sorted(out, key=lambda i: (order[i["tipo"]], -i["celdas"], i["delito"]))


def _months_text(first: date, last: date, months: int) -> str:
    if first == last:
        return f"de {month_words(first)}"
    if first.year == last.year:
        span = f"de {month_words(first).split(' de ')[0]} a {month_words(last)}"
    else:
        span = f"de {month_words(first)} a {month_words(last)}"
    whole = (last.year - first.year) * 12 + last.month - first.month + 1
    return span if months == whole else f"{span} ({months} meses)"


def _places_text(item: dict) -> str:
    names = item["nombres"]
    if names:
        return "en " + (names[0] if len(names) == 1 else ", ".join(names[:-1]) + " y " + names[-1])
    return f"en {item['lugares']} municipios"


def cells_text(item: dict) -> str:
    """«184 celdas de homicidio doloso de diciembre de 2025 en 46 municipios» for one detail item."""
    first, last = date.fromisoformat(item["desde"]), date.fromisoformat(item["hasta"])
    noun = "celda" if item["celdas"] == 1 else "celdas"
    name = item["nombre"][:1].lower() + item["nombre"][1:]
    return f"{item['celdas']:,} {noun} de {name} {_months_text(first, last, item['meses'])} {_places_text(item)}"


def removals_text(cambios: dict) -> str:
    """What a load removes, in one Spanish sentence part («184 celdas de … en 46 municipios; 12 celdas de …»)."""
    return "; ".join(i["texto"] for i in cambios.get("detalle", []) if i["tipo"] == "eliminadas")


def require_confirmation(cambios: dict, confirmed: int | None) -> None:
    """Refuse a publish that removes cells unless the steward confirmed exactly that many (the preview's count)."""
    removed = int(cambios["totales"].get("eliminadas", 0))
    if not removed or confirmed == removed:
        return
    seen = "" if confirmed is None else f" (se confirmaron {confirmed:,}, pero ahora serían {removed:,})"
    raise ValidacionError(
        f"La carga eliminaría celdas que el archivo no menciona: {removals_text(cambios)}{seen}. No se publicó nada.",
        [
            "Revise la vista previa: cada celda eliminada deja de contarse en las respuestas.",
            "Si es correcto, confirme que entiende qué se elimina y vuelva a publicar.",
        ],
    )


def same_tables(con: duckdb.DuckDBPyConnection) -> bool:
    """Whether the next version's data tables equal the current version's, digest by digest.

    Asked when the recorded digest differs: a version published by other code (another digest format, a
    build with other options) still has the same tables, and loading its own files again changes nothing."""
    con.execute(
        f"""CREATE OR REPLACE TEMP VIEW cur_incidents_summary AS
            SELECT {SUMMARY_COLUMNS} FROM (SELECT 0 AS load_seq, * FROM cur_incidents) GROUP BY ALL"""
    )
    for sql in DIGEST_SQL.values():
        if con.execute(sql).fetchone() != con.execute(sql.replace("FROM new_", "FROM cur_")).fetchone():
            return False
    return True
