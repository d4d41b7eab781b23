"""listar_evidencia (tool 9): the curated rows behind the previous result.

A result over ``incidents`` (or the yearly series) lists its rows with the nine columns of the spec's
``output_contract.columns``. A result over the national tables (``observations``) lists them with the columns an
observation needs to be read (``output_contract.columns_observations``): its table and row id (row ids are unique
within a table, not across tables), level, place, crime, method, sexo, rango de edad, measure, jurisdiction and
methodology. When such a result also summed municipal ``incidents`` (Guanajuato's state cells set aside for its
municipalities), those rows are listed in the same table, with ``tabla = 'incidents'``. Victims and the carpetas
they are divided by are two measures: listed together, counted apart (``metrics.medidas``), never summed.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from core.errors import ValidacionError
from core.tools import Evidence, ResolvedStep, ToolContext, ToolOutput
from core.tools.national import COMUN_IDFC, Crime, Series, Window

if TYPE_CHECKING:  # validation hands its checks a StepCheck
    from core.engine.validate import StepCheck

# What each evidence table shows; the place label comes from ``entities`` (incidents keep no labels).
# The yearly series has no month and no method: its rows show January 1st of their year and no method.
SELECT = {
    "incidents": "i.row_id, i.fecha, i.entidad_id, e.label, i.delito, i.metodo, i.eventos, i.source_file, i.source_row",
    "annual": (
        "i.row_id, make_date(i.anio, 1, 1) AS fecha, i.entidad_id, e.label, i.delito, NULL::VARCHAR AS metodo, "
        "i.eventos, i.source_file, i.source_row"
    ),
}
# Every table an observation result sums, read as observation rows (incidents are Guanajuato's municipal
# carpetas of the fuero común, series to 2025); the label comes from the national catalogue of places.
AS_OBSERVATION = {
    "observations": """SELECT 'observations' AS tabla, i.row_id, i.fecha, i.nivel, i.lugar_id, p.label, i.delito,
        i.metodo, i.sexo, i.rango_edad, i.medida, i.fuero, i.metodologia, i.eventos, i.source_file, i.source_row
        FROM observations i LEFT JOIN places p ON p.lugar_id = i.lugar_id""",
    "incidents": """SELECT 'incidents' AS tabla, i.row_id, i.fecha, 'municipio' AS nivel, i.entidad_id AS lugar_id,
        e.label, i.delito, i.metodo, NULL::VARCHAR AS sexo, NULL::VARCHAR AS rango_edad, 'carpetas' AS medida,
        'comun' AS fuero, 'IDFC' AS metodologia, i.eventos, i.source_file, i.source_row
        FROM incidents i LEFT JOIN entities e ON e.entidad_id = i.entidad_id""",
}
MEASURE_WORDS = {"victimas": "víctimas", "carpetas": "carpetas"}
OBSERVATION_COLUMNS = [
    ("tabla", "string"),
    ("row_id", "int"),
    ("fecha", "date"),
    ("nivel", "string"),
    ("lugar_id", "string"),
    ("label", "string"),
    ("delito", "string"),
    ("metodo", "string"),
    ("sexo", "string"),
    ("rango_edad", "string"),
    ("medida", "string"),
    ("fuero", "string"),
    ("metodologia", "string"),
    ("eventos", "int"),
    ("source_file", "string"),
    ("source_row", "int"),
]


def listar_evidencia(ctx: ToolContext, step: ResolvedStep) -> ToolOutput:
    """Row ids, place, month, crime, method, count and source line behind the last analysis."""
    prev = None
    for s, out in reversed(ctx.outputs):
        if out.evidence is not None:
            prev = (s, out)
            break
    if prev is None:
        raise ValidacionError(
            "No hay un resultado anterior con evidencia.", ["Ponga una herramienta de análisis antes."]
        )
    ev = prev[1].evidence
    limit = int(step.args.get("limit", 200))
    if ev.table == "observations" or ev.also:
        return _observation_rows(ctx, prev[0].spec.name, ev, limit)
    # One statement: the first rows and, on each of them, the count and sum of all of them.
    got = ctx.query(
        f"""SELECT {SELECT[ev.table]}, count(*) OVER (), sum(i.eventos) OVER ()
            FROM {ev.table} i LEFT JOIN entities e ON e.entidad_id = i.entidad_id
            WHERE {ev.where} AND i.eventos > 0
            ORDER BY 2, 3, 5, 6 LIMIT {limit + 1}""",
        ev.params,
    )
    total = (int(got[0][9]), int(got[0][10])) if got else (0, 0)
    out = ToolOutput(
        columns=[
            ("row_id", "int"),
            ("fecha", "date"),
            ("entidad_id", "string"),
            ("label", "string"),
            ("delito", "string"),
            ("metodo", "string"),
            ("eventos", "int"),
            ("source_file", "string"),
            ("source_row", "int"),
        ],
        rows=[list(r[:9]) for r in got[:limit]],
        headline=f"Evidencia de {prev[0].spec.name}: {total[0]:,} filas curadas, {total[1]:,} eventos",
        highlights=[f"Mostrando {min(limit, total[0])} de {total[0]}"],
        evidence=ev,
        metrics={"filas": total[0], "eventos": total[1]},
    )
    if total[0] > limit:
        out.warnings.append(f"Solo se listan {limit} filas; el archivo completo está en los artefactos.")
    return out


def _observation_rows(ctx: ToolContext, name: str, ev: Evidence, limit: int) -> ToolOutput:
    """The rows behind a result over the national tables, every summed table read as observation rows.

    Rows of two measures (victims and the carpetas they are divided by) are counted apart, never summed:
    ``eventos`` is the answer's own measure (that of its first table), ``medidas`` each measure's sum."""
    parts = [ev, *ev.also]
    union = " UNION ALL ".join(
        f"SELECT *, {n} AS part FROM ({AS_OBSERVATION[p.table]} WHERE ({p.where}) AND i.eventos > 0)"
        for n, p in enumerate(parts)
    )
    got = ctx.query(
        f"""WITH e AS MATERIALIZED ({union}),
                 t AS (SELECT medida, min(part) AS part, sum(eventos) AS n FROM e GROUP BY 1)
            SELECT * EXCLUDE (part), count(*) OVER (), (SELECT list((medida, n) ORDER BY part, medida) FROM t)
            FROM e ORDER BY fecha, lugar_id, delito, metodo, sexo, rango_edad, tabla, row_id LIMIT {limit + 1}""",
        [x for p in parts for x in p.params],
    )
    width = len(OBSERVATION_COLUMNS)
    rows = int(got[0][width]) if got else 0
    measures = {m: int(n) for m, n in (got[0][width + 1] if got else [])}  # in order: the answer's own first
    tables = sorted({p.table for p in parts})
    said = ", ".join(f"{n:,} {MEASURE_WORDS.get(m, m)}" for m, n in measures.items()) or "0 eventos"
    out = ToolOutput(
        columns=list(OBSERVATION_COLUMNS),
        rows=[list(r[:width]) for r in got[:limit]],
        headline=f"Evidencia de {name}: {rows:,} filas de {' y '.join(tables)}; {said}",
        highlights=[f"Mostrando {min(limit, rows)} de {rows}"],
        evidence=ev,
        metrics={"filas": rows, "eventos": next(iter(measures.values()), 0), "medidas": measures, "tablas": tables},
    )
    if len(measures) > 1:
        out.warnings.append(f"Las filas reúnen medidas distintas ({said}): se cuentan por separado, nunca sumadas.")
    if rows > limit:
        out.warnings.append(f"Solo se listan {limit} filas; el archivo completo está en los artefactos.")
    return out


# Which rows a national result read, as a condition on any alias of ``observations``: (sql, params).
Condition = Callable[[str], tuple[str, list]]


def _cells(series: Series, crime_: Crime, win: Window, lugar_id: str | None, levels: str) -> Condition:
    """The standing-or-not state-level observations of one series, crime, window and place (None: every place)."""

    def on(a: str) -> tuple[str, list]:
        cond, params = series.where(a)
        crime_sql, crime_params = crime_.where(a)
        place, place_params = (f"{a}.lugar_id = ?", [lugar_id]) if lugar_id else ("TRUE", [])
        where = f"{a}.nivel IN ({levels}) AND {cond} AND {a}.fecha BETWEEN ? AND ? AND {crime_sql} AND {place}"
        return where, [*params, win.start, win.end, *crime_params, *place_params]

    return on


def _and(first: Condition, second: Condition | None) -> Condition:
    """Both conditions on the same alias."""
    if second is None:
        return first

    def on(a: str) -> tuple[str, list]:
        (x, xp), (y, yp) = first(a), second(a)
        return f"{x} AND {y}", [*xp, *yp]

    return on


def national(
    series: Series,
    crime_: Crime,
    win: Window,
    lugar_id: str | None = None,
    states_only: bool = False,
    only: Condition | None = None,
) -> Evidence:
    """The rows a national result sums (``statecells.state_cells``): the series' standing state-level observations
    of a state (``lugar_id``) or every place (None; ``states_only`` leaves the federal file's «Extranjero» out)
    and, for the común carpetas, the municipal incidents that replace the state cells set aside for them."""
    cells = _and(_cells(series, crime_, win, lugar_id, "'estado'" if states_only else "'estado', 'extranjero'"), only)
    where, params = cells("i")
    out = Evidence(f"{where} AND i.vigente", params, table="observations")
    if series == COMUN_IDFC:
        aside, aside_params = cells("o")
        out.also.append(
            Evidence(
                f"""EXISTS (SELECT 1 FROM observations o WHERE {aside} AND NOT o.vigente
                    AND o.sustituida_por = 'municipal' AND o.lugar_id = i.estado_id AND o.fecha = i.fecha
                    AND o.delito = i.delito AND o.metodo = i.metodo)""",
                aside_params,
            )
        )
    return out


def victims(crime_: Crime, win: Window, lugar_id: str | None, beyond: bool) -> Evidence:
    """The rows of victimas_sexo_edad: its victims and the carpetas they are divided by (victims per carpeta).

    The carpetas are the same place's común series (IDFC) of the crimes with victims in the window, in the months
    the victims publish; ``beyond`` adds a single subtipo's months only the municipal files publish, as
    ``statecells.state_cells`` does for one state."""
    victim_series = Series("victimas", "comun", "IDFC")
    out = national(victim_series, crime_, win, lugar_id, states_only=True)  # the tool sums nivel = 'estado'
    vwhere, vparams = _cells(victim_series, crime_, win, lugar_id, "'estado'")("v")

    def with_victims(a: str) -> tuple[str, list]:
        return (
            f"""{a}.delito IN (SELECT v.delito FROM observations v WHERE {vwhere} AND v.vigente)
                AND {a}.fecha IN (SELECT v.fecha FROM observations v WHERE {vwhere} AND v.vigente)""",
            [*vparams, *vparams],
        )

    divided = national(COMUN_IDFC, crime_, win, lugar_id, only=with_victims)
    out.also += [divided, *divided.also]
    divided.also = []
    if beyond and lugar_id and crime_.level == "delito":
        cond, params = COMUN_IDFC.where("s")
        out.also.append(
            Evidence(
                f"""i.delito = ? AND i.estado_id = ? AND i.fecha BETWEEN ? AND ?
                    AND EXISTS (SELECT 1 FROM coverage k WHERE k.granularity = 'month' AND k.delito = i.delito
                                AND k.estado_id = i.estado_id AND i.fecha BETWEEN k.desde AND k.hasta)
                    AND NOT EXISTS (SELECT 1 FROM observations s WHERE s.nivel = 'estado' AND s.lugar_id = i.estado_id
                                    AND s.fecha = i.fecha AND s.delito = i.delito AND {cond})
                    AND i.fecha IN (SELECT v.fecha FROM observations v WHERE {vwhere} AND v.vigente)""",
                [crime_.key, lugar_id, win.start, win.end, *params, *vparams],
            )
        )
    return out


def check_listar_evidencia(check: StepCheck) -> None:
    """Validation: the evidence lists the rows behind an earlier analysis, so the plan needs one before it."""
    if not any(s.kind not in ("filter", "evidence") for s in check.earlier):
        example = check.catalog.by_name.get("rank_por_delito", check.spec)
        check.problem(
            "INVALID_PAYLOAD",
            f"{check.spec.name} necesita antes una herramienta de análisis.",
            [f"Ejemplo: [{example.tool_id},{check.spec.tool_id}]"],
        )
