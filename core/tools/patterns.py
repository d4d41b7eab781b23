"""detectar_patrones (tool 8): crime co-occurrence in municipality-months, or seasonality.

Co-occurrence (``tipo: coocurrencia``) treats every municipality-month of the window as a
transaction and every crime with events that month as an item. A pair (A, B) is only
evaluated on the months where *both* crimes are published (inside both coverages: an
absent cell there is a zero, a month outside it has no number). With N those
transactions::

    support    = n(A∧B) / N
    confidence = n(A∧B) / n(A)
    lift       = support / (P(A) · P(B)),   P(X) = n(X) / N
    score      = round(support × lift, 4)

Pairs with ``support >= min_support`` are kept, those with ``lift > 1`` first, by score. A is the
first crime of the pair by key, or the asked crime when exactly one was asked (then it
is paired with every other monthly crime published in the window).

Seasonality (``tipo: estacionalidad``): for each crime, the month-of-year index is the
mean monthly count of that calendar month over the mean monthly count of every month,
both over the crime's published months in the window (at least 24 of them).

Counts are computed in SQL over the per-month presence table; values travel as parameters.
"""

from __future__ import annotations

from core.errors import ValidacionError
from core.text import MONTHS, month_index
from core.tools import EVIDENCE_IDS, ResolvedStep, Scope, ToolContext, ToolOutput
from core.tools.items import BASE_CTES, Item, evidence, item_params, select, unfiltered
from core.tools.scope import period_label, where

MIN_SEASON_MONTHS = 24

COOC_COLUMNS = [
    ("patron", "string"),
    ("delito_a", "string"),
    ("delito_b", "string"),
    ("support", "float"),
    ("confidence", "float"),
    ("lift", "float"),
    ("score", "float"),
    ("n", "int"),
    ("transacciones", "int"),
]
SEASON_COLUMNS = [
    ("patron", "string"),
    ("delito_a", "string"),
    ("mes", "int"),
    ("indice", "float"),
    ("promedio", "float"),
    ("score", "float"),
    ("support", "float"),
]

# -- co-occurrence ---------------------------------------------------------------------


def _cooccurrence_counts(ctx: ToolContext, scope: Scope, items: list[Item], anchor: str | None):
    """Per pair: months both published, N, n(A), n(B), n(A∧B); plus months with any pair."""
    entity = scope.entity
    if entity.nivel == "estado":
        ent_cond, ent_params = "nivel = 'municipio' AND estado_id = ?", [entity.estado_id]
    else:
        ent_cond, ent_params = "entidad_id = ?", [entity.entidad_id]
    cond, params = where(unfiltered(scope), with_window=True)
    anchor_cond = "AND (a.item = ? OR b.item = ?)" if anchor else ""
    sql = f"""
        WITH {BASE_CTES},
        munis AS (SELECT entidad_id FROM entities WHERE {ent_cond}),
        pres AS (
            SELECT s.item, i.entidad_id, i.fecha
            FROM incidents i
            JOIN sel s ON s.delito = i.delito
            JOIN munis m ON m.entidad_id = i.entidad_id
            JOIN item_months im ON im.item = s.item AND im.fecha = i.fecha
            WHERE {cond}
            GROUP BY ALL
            HAVING sum(i.eventos) > 0),
        pair_months AS (
            SELECT a.item AS ia, b.item AS ib, a.fecha
            FROM item_months a JOIN item_months b ON a.fecha = b.fecha AND a.item < b.item {anchor_cond}),
        tm AS (SELECT ia, ib, count(*) AS meses FROM pair_months GROUP BY ALL),
        na AS (SELECT pm.ia, pm.ib, count(*) AS n FROM pair_months pm
               JOIN pres p ON p.item = pm.ia AND p.fecha = pm.fecha GROUP BY ALL),
        nb AS (SELECT pm.ia, pm.ib, count(*) AS n FROM pair_months pm
               JOIN pres p ON p.item = pm.ib AND p.fecha = pm.fecha GROUP BY ALL),
        nab AS (SELECT a.item AS ia, b.item AS ib, count(*) AS n FROM pres a
                JOIN pres b ON a.entidad_id = b.entidad_id AND a.fecha = b.fecha AND a.item < b.item
                GROUP BY ALL)
        SELECT tm.ia, tm.ib, tm.meses, tm.meses * (SELECT count(*) FROM munis) AS transacciones,
               coalesce(na.n, 0), coalesce(nb.n, 0), coalesce(nab.n, 0),
               (SELECT count(DISTINCT fecha) FROM pair_months) * (SELECT count(*) FROM munis) AS union_tx
        FROM tm LEFT JOIN na USING (ia, ib) LEFT JOIN nb USING (ia, ib) LEFT JOIN nab USING (ia, ib)
        ORDER BY tm.ia, tm.ib"""
    all_params = item_params(items) + ent_params + params + ([anchor, anchor] if anchor else [])
    return ctx.query(sql, all_params)


def _cooccurrence(ctx: ToolContext, step: ResolvedStep) -> ToolOutput:
    scope = step.scope
    items, anchor, warnings = select(ctx, step, "coocurrencia")
    if len(items) < 2:
        warnings.append("La co-ocurrencia necesita al menos dos delitos con meses publicados en la ventana.")
    by_key = {i.key: i for i in items}
    min_support = float(step.args.get("min_support", 0.01))
    top_k = int(step.args.get("top_k", 10))
    rows: list[list] = []
    evaluated = 0
    union_tx = 0
    overlapping = 0
    if len(items) >= 2:
        for ia, ib, _meses, n_tx, n_a, n_b, n_ab, union in _cooccurrence_counts(ctx, scope, items, anchor):
            union_tx = int(union)
            if set(by_key[ia].delitos) & set(by_key[ib].delitos):
                overlapping += 1  # a tipo and one of its subtipos: trivially together
                continue
            if anchor and ib == anchor:  # the asked crime is always A
                ia, ib, n_a, n_b = ib, ia, n_b, n_a
            evaluated += 1
            if not n_tx or not n_a or not n_b:
                continue
            support = n_ab / n_tx
            lift = support / ((n_a / n_tx) * (n_b / n_tx))
            if support < min_support or not n_ab:  # never together: not a pattern
                continue
            a, b = by_key[ia], by_key[ib]
            rows.append(
                [
                    f"{a.label} + {b.label}",
                    a.key,
                    b.key,
                    round(support, 4),
                    round(n_ab / n_a, 4),
                    round(lift, 4),
                    round(support * lift, 4),
                    int(n_ab),
                    int(n_tx),
                ]
            )
    if overlapping:
        warnings.append("Se omitieron pares de un tipo de delito con sus propios subtipos.")
    # Pairs that co-occur more than chance (lift > 1) first; the rest still answer "¿qué se asocia con X?".
    rows.sort(key=lambda r: (r[5] <= 1, -r[6], -r[3], r[0]))
    rows = rows[:top_k]
    if items and len(items) >= 2 and not rows:
        warnings.append(f"Ningún par alcanza support ≥ {min_support} en la ventana.")
    elif rows and rows[0][5] <= 1:
        warnings.append("Ningún par coincide más de lo esperado por azar (lift ≤ 1): no hay asociación marcada.")
    where_txt = scope.entity.label
    unit = "municipio-mes" if scope.entity.nivel == "estado" else "meses del municipio"
    highlights = []
    if rows:
        highlights.append(f"Top-1: {rows[0][0]} (lift {rows[0][5]}, support {rows[0][3]})")
    highlights += [f"{union_tx:,} transacciones ({unit})", f"Ventana {scope.date_from}..{scope.date_to}"]
    return ToolOutput(
        columns=list(COOC_COLUMNS),
        rows=rows,
        headline=f"Co-ocurrencia de delitos por {unit} — {where_txt}, {period_label(scope)}",
        highlights=highlights,
        evidence=evidence(scope, items, {r[1] for r in rows} | {r[2] for r in rows}),
        warnings=warnings,
        metrics={"transacciones": union_tx, "pares_evaluados": evaluated, "patrones": len(rows)},
        extra_meta={
            "definiciones": {
                "support": "n(A∧B)/N",
                "confidence": "n(A∧B)/n(A)",
                "lift": "support/(P(A)·P(B))",
                "score": "round(support×lift, 4)",
                "transaccion": "municipio-mes en que ambos delitos están publicados",
            }
        },
    )


# -- seasonality -----------------------------------------------------------------------


def _seasonality(ctx: ToolContext, step: ResolvedStep) -> ToolOutput:
    scope = step.scope
    items, _, warnings = select(ctx, step, "estacionalidad")
    top_k = int(step.args.get("top_k", 10))
    short = [i for i in items if i.months < MIN_SEASON_MONTHS]
    if short:
        warnings.append(
            f"La estacionalidad requiere al menos {MIN_SEASON_MONTHS} meses publicados; se omiten: "
            + ", ".join(f"{i.label} ({i.months} meses)" for i in short)
            + "."
        )
    items = [i for i in items if i.months >= MIN_SEASON_MONTHS]
    rows: list[list] = []
    used: list[Item] = []
    months_seen: set[int] = set()
    found: dict[str, tuple[int, list[int]]] = {}
    if items:
        cond, params = where(unfiltered(scope), with_window=True)
        # One read of the rows: the seasonal rows, then per crime (mes NULL) its evidence. Only
        # rows with events are kept: a zero adds nothing to a sum (months without rows are zeros
        # in ``series``) and is not evidence. Sums per crime and month come first, so items
        # (a tipo sums its subtipos) join a few thousand sums rather than every row.
        delitos = sorted({d for i in items for d in i.delitos})
        sql = f"""
            WITH {BASE_CTES},
            f AS (SELECT i.delito, i.fecha, i.eventos, i.row_id FROM incidents i
                  WHERE {cond} AND i.delito IN ({", ".join("?" for _ in delitos)}) AND i.eventos > 0),
            d AS (SELECT delito, fecha, sum(eventos) AS n FROM f GROUP BY ALL),
            counts AS (SELECT s.item, d.fecha, sum(d.n) AS n FROM d JOIN sel s USING (delito) GROUP BY ALL),
            series AS (SELECT im.item, im.fecha, coalesce(c.n, 0) AS n
                       FROM item_months im LEFT JOIN counts c USING (item, fecha)),
            tot AS (SELECT item, count(*) AS meses, avg(n) AS media, sum(n) AS total FROM series GROUP BY item)
            SELECT s.item, month(s.fecha) AS mes, avg(s.n) AS promedio, sum(s.n) AS eventos,
                   t.meses, t.media, t.total, NULL AS ids
            FROM series s JOIN tot t USING (item)
            GROUP BY ALL
            UNION ALL
            SELECT delito, NULL, NULL, NULL, NULL, NULL, count(*), min(row_id, {EVIDENCE_IDS + 1})
            FROM f GROUP BY delito"""
        got = ctx.query(sql, item_params(items) + params + delitos)
        result = [r[:7] for r in got if r[1] is not None]
        found = {r[0]: (int(r[6]), r[7]) for r in got if r[1] is None}
        by_key = {i.key: i for i in items}
        silent = set()
        for item, mes, promedio, eventos, _meses, media, total in result:
            if not total:
                silent.add(by_key[item].label)
                continue
            it = by_key[item]
            indice = round(float(promedio) / float(media), 3)
            rows.append(
                [
                    f"{it.label} — {MONTHS[int(mes) - 1]}",
                    it.key,
                    int(mes),
                    indice,
                    round(float(promedio), 3),
                    indice,
                    round(float(eventos) / float(total), 4),
                ]
            )
        used = [i for i in items if i.label not in silent]
        if silent:
            warnings.append(
                "Sin eventos en la ventana (no hay estacionalidad que medir): " + ", ".join(sorted(silent)) + "."
            )
        for i in used:  # months as integers (month_index): 120 a crime, no date objects
            for a, b in i.runs:
                months_seen.update(range(month_index(a), month_index(b) + 1))
    rows.sort(key=lambda r: (-r[3], r[1], r[2]))
    rows = rows[:top_k]
    crimes = ", ".join(i.label for i in used) if used else f"ningún delito con {MIN_SEASON_MONTHS} meses publicados"
    highlights = [f"Pico: {rows[0][0]} (índice {rows[0][3]})"] if rows else []
    highlights.append(f"Ventana {scope.date_from}..{scope.date_to}")
    return ToolOutput(
        columns=list(SEASON_COLUMNS),
        rows=rows,
        headline=f"Estacionalidad por mes del año: {crimes} — {scope.entity.label}, {period_label(scope)}",
        highlights=highlights,
        evidence=evidence(scope, used, {r[1] for r in rows}, found),
        warnings=warnings,
        metrics={"meses": len(months_seen), "delitos": len(used), "patrones": len(rows)},
        extra_meta={
            "definiciones": {
                "indice": "promedio del mes calendario / promedio mensual de toda la ventana publicada",
                "support": "proporción de los eventos del delito en ese mes calendario",
            }
        },
    )


# -- entry point -----------------------------------------------------------------------


def detectar_patrones(ctx: ToolContext, step: ResolvedStep) -> ToolOutput:
    """Co-occurrence of crimes in municipality-months, or month-of-year seasonality."""
    if step.scope.entity is None or step.scope.date_from is None:
        raise ValidacionError("detectar_patrones necesita entidad y ventana.", ["Ejemplo: entidad_id: GTO"])
    tipo = step.args.get("tipo", "coocurrencia")
    if tipo == "estacionalidad":
        return _seasonality(ctx, step)
    return _cooccurrence(ctx, step)
