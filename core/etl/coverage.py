"""The coverage of a monthly file: the months it answers for, declared by the steward or inferred from its cells.

A file owns the (state, crime, month) slices of its coverage (docs/decisions/0002-upload-ownership.md): a wide
file its observed cells, a long file every month of its declared or inferred coverage, where an absent cell is
a zero. Cells outside a declared coverage go to quarantine, and the load's report says where each coverage came
from and which new months will count absent municipalities as zero.
"""

from __future__ import annotations

import re
from datetime import date

from core.errors import ValidacionError
from core.etl import merge
from core.etl.layouts import Layout
from core.text import month_words

_MONTH_RE = re.compile(r"^\s*(\d{4})-(\d{1,2})\s*$")


def parse_month(text: str) -> tuple[int, int]:
    """'2015-01' → (2015, 1); refuses anything else with INVALID_PAYLOAD."""
    m = _MONTH_RE.match(text or "")
    if not m or not 1 <= int(m.group(2)) <= 12:
        raise ValidacionError(f"Mes inválido: {text!r}; use AAAA-MM.", ["Ejemplo: 2015-01"])
    return int(m.group(1)), int(m.group(2))


def parse_coverage(text: str | None) -> tuple[date, date] | None:
    """'2015-01:2024-12' → (2015-01-01, 2024-12-01)."""
    if not text:
        return None
    parts = text.split(":")
    if len(parts) != 2:
        raise ValidacionError(f"Cobertura inválida: {text!r}; use AAAA-MM:AAAA-MM.", ["Ejemplo: 2015-01:2024-12"])
    (y1, m1), (y2, m2) = parse_month(parts[0]), parse_month(parts[1])
    first, last = date(y1, m1, 1), date(y2, m2, 1)
    if first > last:
        raise ValidacionError(f"Cobertura invertida: {text!r}.", ["El primer mes debe ser anterior o igual al último."])
    return first, last


def own_slices(con, seq: int, layout: Layout, declared_coverage: str | None, report: dict) -> None:
    """Record the slices a monthly file owns and report its coverage (declared as 'AAAA-MM:AAAA-MM' or inferred)."""
    if layout.owns_observed_cells:
        merge.add_owned_observed(con, seq)
        first, last = con.execute(
            "SELECT min(fecha), max(fecha) FROM cell_summary WHERE load_seq = ?", [seq]
        ).fetchone()
        report["cobertura"] = {"origen": "observada", "desde": iso_date(first), "hasta": iso_date(last)}
        _warn_partial_extension(con, seq, report)
        return
    declared = parse_coverage(declared_coverage)
    if declared:
        first, last = declared
        outside = con.execute(
            """SELECT count(*) FROM curated_batch WHERE load_seq = ? AND (fecha < ? OR fecha > ?)""", [seq, first, last]
        ).fetchone()[0]
        if outside:
            con.execute(
                """INSERT INTO quarantine_batch SELECT load_seq, source_file, source_row,
                   'fuera de la cobertura declarada', eventos::VARCHAR FROM curated_batch
                   WHERE load_seq = ? AND (fecha < ? OR fecha > ?)""",
                [seq, first, last],
            )
            con.execute("DELETE FROM curated_batch WHERE load_seq = ? AND (fecha < ? OR fecha > ?)", [seq, first, last])
            merge.summarize_cells(con, seq)
        origin = "declarada"
    else:
        if layout.whole_years:
            # These files hold whole years: the coverage runs from January of the first
            # year to December of the last one seen.
            y1, y2 = con.execute(
                "SELECT min(year(fecha)), max(year(fecha)) FROM curated_batch WHERE load_seq = ?", [seq]
            ).fetchone()
            first, last = (date(y1, 1, 1), date(y2, 12, 1)) if y1 else (None, None)
        else:
            first, last = con.execute(
                "SELECT min(fecha), max(fecha) FROM curated_batch WHERE load_seq = ?", [seq]
            ).fetchone()
        origin = "inferida"
        if first:
            report["advertencias"].append(
                f"Cobertura inferida {first:%Y-%m}..{last:%Y-%m}: los meses ausentes dentro de ella cuentan como 0. "
                "Si el archivo cubre otro periodo, declare su cobertura."
            )
    if first:
        merge.add_owned_range(con, seq, first, last)
    report["cobertura"] = {"origen": origin, "desde": iso_date(first), "hasta": iso_date(last)}


def _warn_partial_extension(con, seq: int, report: dict) -> None:
    """Months new to a crime's coverage count as 0 for every municipality the file lacks."""
    if not con.execute("SELECT count(*) FROM cur_entities_known").fetchone()[0]:
        return  # a first load: no municipality is known yet, so none can be missing
    rows = con.execute(
        """WITH f AS (SELECT estado_id, delito, fecha, count(DISTINCT cve_municipio) AS n
                      FROM curated_all WHERE load_seq = ? GROUP BY ALL),
                known AS (SELECT estado_id, count(*) AS n FROM cur_entities_known GROUP BY estado_id),
                cov AS (SELECT estado_id, delito, desde, hasta FROM cur_coverage_known)
           SELECT f.delito, count(*) FROM f JOIN known k USING (estado_id)
           WHERE f.n < k.n AND NOT EXISTS (SELECT 1 FROM cov c WHERE c.estado_id = f.estado_id
                 AND c.delito = f.delito AND f.fecha BETWEEN c.desde AND c.hasta)
           GROUP BY f.delito""",
        [seq],
    ).fetchall()
    for delito, months in rows:
        report["advertencias"].append(
            f"{delito}: {months} meses nuevos con menos municipios que los conocidos; "
            "los municipios ausentes contarán como 0 en esos meses (si falta más de la mitad de los habituales, "
            "esos meses no contarán como total del estado)."
        )


def mark_partial_months(con) -> None:
    """``partial_months``: the months this load owns where the next version carries fewer than half the
    municipalities that crime's months usually carry in that state; they leave the state's coverage.

    A one-row file of León for December would otherwise make December a state month whose total is León's
    (a long file's absent cells are zeros). Usual = the median count of the current version's covered months,
    and only crimes whose usual month carries at least half the state's municipalities are judged: a sparse
    crime (trata de personas) has months with one municipality or none. The cells stay, as their places' own
    coverage (``core.etl.metadata``). Called once ``new_incidents`` is assembled, before the coverage runs."""
    # Only crimes with a usual month are judged, so they are found first (from the current version's coverage,
    # usually small) and the next version's cells are counted only in their owned months: a first load, or one
    # whose crimes no version covered yet, counts nothing (the national file's 29 M cells: 11 s -> 0).
    con.execute(
        """CREATE OR REPLACE TEMP TABLE partial_dense AS
           WITH cov AS (SELECT estado_id, delito, unnest(generate_series(desde, hasta, INTERVAL 1 MONTH))::DATE AS fecha
                        FROM cur_coverage SEMI JOIN (SELECT DISTINCT estado_id, delito FROM owned) USING (estado_id, delito)
                        WHERE granularity = 'month'),
                per_month AS (SELECT estado_id, delito, fecha, count(DISTINCT cve_municipio) AS n
                              FROM cur_incidents JOIN cov USING (estado_id, delito, fecha) GROUP BY ALL),
                mun AS (SELECT estado_id, count(*) AS n FROM cur_entities WHERE nivel = 'municipio' GROUP BY ALL)
           SELECT p.estado_id, p.delito, median(p.n) AS usual FROM per_month p JOIN mun m USING (estado_id)
           GROUP BY ALL HAVING median(p.n) * 2 >= any_value(m.n)"""
    )
    if not con.execute("SELECT count(*) FROM partial_dense").fetchone()[0]:
        con.execute(
            """CREATE OR REPLACE TEMP TABLE partial_months (estado_id VARCHAR, delito VARCHAR, fecha DATE,
               municipios BIGINT, habituales INTEGER)"""
        )
        return
    con.execute(
        """CREATE OR REPLACE TEMP TABLE partial_months AS
           WITH months AS (SELECT DISTINCT estado_id, delito, fecha FROM owned
                           SEMI JOIN partial_dense USING (estado_id, delito)),
                after AS (SELECT estado_id, delito, fecha, count(DISTINCT cve_municipio) AS n
                          FROM new_incidents JOIN months USING (estado_id, delito, fecha) GROUP BY ALL)
           SELECT m.estado_id, m.delito, m.fecha, coalesce(w.n, 0) AS municipios, d.usual::INTEGER AS habituales
           FROM months m JOIN partial_dense d USING (estado_id, delito) LEFT JOIN after w USING (estado_id, delito, fecha)
           WHERE coalesce(w.n, 0) * 2 < d.usual"""
    )


def partial_months(con) -> list[dict]:
    """The months ``mark_partial_months`` kept out of the state's coverage, for the load's report."""
    rows = con.execute(
        """SELECT p.estado_id, p.delito, any_value(c.subtipo), p.fecha, p.municipios, p.habituales
           FROM partial_months p LEFT JOIN new_crimes c USING (delito) GROUP BY ALL ORDER BY p.delito, p.fecha"""
    ).fetchall()
    return [
        {
            "estado_id": e,
            "delito": d,
            "nombre": label or d,
            "fecha": f.isoformat(),
            "municipios": int(n),
            "habituales": int(u),
        }
        for e, d, label, f, n, u in rows
    ]


def partial_warnings(months: list[dict]) -> list[str]:
    """One Spanish warning per crime whose months a load leaves incomplete for the state."""
    by_crime: dict[str, list[dict]] = {}
    for m in months:
        by_crime.setdefault(m["delito"], []).append(m)
    out = []
    for items in by_crime.values():
        first, last = date.fromisoformat(items[0]["fecha"]), date.fromisoformat(items[-1]["fecha"])
        when = month_words(first) if first == last else f"{month_words(first)} a {month_words(last)}"
        most = max(i["municipios"] for i in items)
        out.append(
            f"{items[0]['nombre']}: {when} quedaría con {most} de {items[0]['habituales']} municipios habituales; "
            "ese periodo no contará como total del estado (solo como dato de esos municipios) hasta que llegue el resto."
        )
    return out


def iso_date(value) -> str | None:
    """A date as '2024-01-01' (None for no date), for the load's reports."""
    return value.isoformat() if value else None
