"""A fitted selection → the chat's own tool plan, run through the audited Plan API, composed like a chat answer.

The selection becomes the ``Understanding`` the chat would have read from the equivalent question (a crime, its
places, a window, a kind of question, a measure) and goes through the offline planner's own steps — the
granularity fallback, the national tables for victims, the rules — so the same slicers give the same plan and
``query_hash`` as the question typed in Consultar. The plan is then validated, run and audited by
``core.api.execution`` (kind ``explore``, the selection in the record) and the answer written by the chat's
composer, in a ``Turn`` the house renderers already draw.
"""

from __future__ import annotations

from datetime import date

from core.ask.plan import granularity, rules, strategy
from core.ask.understand import CrimeMatch, PlaceMatch, Understanding
from core.ask.wording import join_y, period_words
from core.explore.options import Options
from core.explore.selection import BASES, ORDERS, SHAPES, Selection, to_params
from core.text import fold, month_end

KINDS = {
    "total": "single_value",
    "serie": "series",
    "serie_anual": "annual_series",
    "ranking": "ranking",
    "comparacion": "comparison",
    "lugares": "places",
    "desglose": "breakdown",
}
AUDIT_KIND = "explore"


def window(selection: Selection) -> tuple[date, date]:
    """The selection's months as whole days: the first day of ``desde`` to the last day of ``hasta``."""
    y1, m1 = map(int, selection.desde.split("-"))
    y2, m2 = map(int, selection.hasta.split("-"))
    return date(y1, m1, 1), month_end(y2, m2)


def _year_back(d: date) -> date:
    return d.replace(year=d.year - 1, day=min(d.day, 28)) if d.month == 2 else d.replace(year=d.year - 1)


def describe(selection: Selection, options: Options) -> str:
    """The selection in words, as an analyst would ask it (the audit record's question and the tile's title)."""
    crimes = options.crime_labels
    places = options.place_labels
    what = " y ".join(crimes.get(k, k).lower() for k in selection.delitos)
    start, end = window(selection)
    period = period_words(start.isoformat(), end.isoformat())
    where = join_y([places.get(p, p) for p in selection.lugares]) or "Guanajuato (todo el estado)"
    measure = {"conteo": "", "tasa": " (tasa por 100 mil habitantes)", "victimas": " (víctimas)"}[selection.medida]
    if selection.forma == "ranking":
        head = f"Ranking de los {selection.top_k} municipios con {ORDERS[selection.orden]} casos de {what}"
        return f"{head}{measure}, {period}"
    if selection.forma == "comparacion":
        return f"{SHAPES['comparacion']} de {what} en {where}: {period} frente al {BASES[selection.base].lower()}"
    return f"{SHAPES[selection.forma]} de {what}{measure} en {where}, {period}"


def understanding(selection: Selection, options: Options) -> Understanding:
    """The slots the chat would have read from the equivalent question."""
    crimes = options.crime_labels
    places = options.place_labels
    text = describe(selection, options)
    matches = [
        CrimeMatch(delito=k, label=crimes.get(k, k), text=fold(crimes.get(k, k)), score=100.0, in_data=True)
        for k in selection.delitos
    ]
    towns = [
        PlaceMatch(entidad_id=p, label=places[p], nivel="municipio", text=fold(places[p]), score=100.0)
        for p in selection.lugares
        if p in places and "." in p
    ]
    states = [p for p in selection.lugares if p in places and "." not in p]
    state_matches = [
        PlaceMatch(entidad_id=p, label=places[p], nivel="estado", text=fold(places[p]), score=100.0) for p in states
    ]
    win = window(selection)
    compare = None
    signals: list[str] = []
    if selection.forma == "comparacion" and selection.base == "anio_anterior":
        compare = (_year_back(win[0]), _year_back(win[1]))
        signals.append("time:base_prev_year")
    if selection.medida == "victimas":
        signals.append("national:victims")
    return Understanding(
        question=text,
        normalized=fold(text),
        places=towns + state_matches,
        whole_state=bool(states) or selection.medida == "victimas",
        crimes=matches,
        window=win,
        window_text=period_words(win[0].isoformat(), win[1].isoformat()),
        compare_window=compare,
        kind=KINDS[selection.forma],
        top_k=selection.top_k if selection.forma == "ranking" else None,
        order=selection.orden if selection.forma == "ranking" else "desc",
        medida="tasa_per_100k" if selection.medida == "tasa" else "conteo",
        group_by_municipio=selection.forma == "ranking",
        signals=signals,
    )


def tool_plan(selection: Selection, options: Options, catalog) -> rules.ToolPlan:
    """The tool plan of a fitted selection, by the chat's own offline planner (``strategy.offline_plan``)."""
    return strategy.offline_plan(understanding(selection, options), catalog, options.metadata, options.includes)


def run(selection: Selection, options: Options, catalog, *, settings=None, user: str = "local", role: str = "analista"):
    """Plan, validate, run, audit and compose one selection: a ``Turn`` like the chat's (its answer, plan, envelopes)."""
    built = tool_plan(selection, options, catalog)
    return answer(
        built.plan,
        describe(selection, options),
        built.notes,
        options.metadata,
        settings=settings,
        user=user,
        role=role,
        kind=AUDIT_KIND,
        audit_extra={"selection": to_params(selection)},
    )


def answer(
    plan: dict,
    question: str,
    notes: list[str],
    metadata: dict,
    *,
    settings=None,
    user: str = "local",
    role: str = "analista",
    kind: str = AUDIT_KIND,
    audit_extra: dict | None = None,
):
    """Validate, run and audit a tool plan (``core.api.execution``) and compose its answer: a ``Turn`` like the chat's.

    ``notes`` are the planner's notes (said in the answer); ``metadata`` the data version's, which the composer
    reads for «datos hasta» and the version."""
    from core.api import execution
    from core.ask.compose import compose
    from core.ask.pipeline import Turn
    from core.engine.catalog import tool_spec

    turn = Turn(question=question, planner_requested="explorar")
    result = execution(
        plan,
        settings=settings,
        user=user,
        role=role,
        question=question,
        kind=kind,
        audit_extra={**(audit_extra or {}), "notes": list(notes)},
    )
    vp = result.validated
    turn.plan_notes = list(notes)
    turn.envelopes = result.envelopes
    turn.timings_ms = dict(result.timings_ms)
    if vp is not None:
        turn.validated = vp
        turn.plan = {
            "plan": [{"tool_id": s.tool_id, "tool_version": s.tool_version, "args": s.args} for s in vp.plan.plan],
            "meta": vp.plan.meta.model_dump(),
        }
        turn.validation = {"ok": True, "query_hash": vp.query_hash, "warnings": vp.warnings}
    else:
        turn.plan = plan
        problems = [p for e in result.errors for p in (e.get("problems") or [e])]
        turn.validation = {"ok": False, "problems": problems}
    # the answering envelope, picked as the chat's execute stage does (evidence steps never answer)
    answers = [i for i, e in enumerate(turn.envelopes) if getattr(tool_spec(e["tool"]), "kind", None) != "evidence"]
    turn.result_index = answers[-1] if answers else None
    said = [n for n in notes if not n.startswith(("focus:", granularity.LEAD, granularity.ALSO))]
    context = {
        **metadata,
        "notes": said,
        "plan": turn.plan,
        "focus": next((n.split(":", 1)[1] for n in notes if n.startswith("focus:")), None),
        "lead_note": " ".join(n[len(granularity.LEAD) :] for n in notes if n.startswith(granularity.LEAD)),
        "also": [int(n[len(granularity.ALSO) :]) for n in notes if n.startswith(granularity.ALSO)],
    }
    composed = compose(question, turn.envelopes, metadata=context)
    turn.answer = composed.model_copy(update={"warnings": list(dict.fromkeys(said + composed.warnings))})
    return turn
