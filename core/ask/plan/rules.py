"""The offline planner's last step: typed slots (Understanding) → a tool plan
(docs/contracts/001_casandra_v0.md §4.3).

Deterministic: the same slots give the same plan, hence the same query_hash. Windows are
absolute dates; when the question gives none, the default is the crime's last 12
published months (said in a warning), never the wall clock.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date, timedelta

from core.ask.understand import Understanding
from core.engine.catalog import tool_id
from core.text import month_count, shift_months

STATE_DEFAULT = "GTO"
# "¿Cuántos delitos hubo…?", "incidencia delictiva", "denuncias": every crime, i.e. the yearly series.
_ALL_CRIMES = re.compile(
    r"\b(delitos?|denuncias?|incidencia|carpetas de investigacion|fuero comun|criminalidad|"
    r"delincuencia)\b"
)


def asks_all_crimes(u: Understanding) -> bool:
    """No specific crime, but the question is about crime in general."""
    return not [c for c in u.crimes if c.delito != "total_delitos"] and (
        any(c.delito == "total_delitos" for c in u.crimes) or bool(_ALL_CRIMES.search(u.normalized))
    )


@dataclass
class ToolPlan:
    """A plan dict plus the notes the answer must carry."""

    plan: dict | None
    notes: list[str] = field(default_factory=list)
    kind: str = "unknown"


def _step(tool: str, args: dict) -> dict:
    """A plan step for the tool named ``tool`` (plans carry its tool_id)."""
    return {"tool_id": tool_id(tool), "args": args}


def _iso(d: date) -> str:
    return d.isoformat()


def crime_end(metadata: dict, keys: list[str], includes: dict[str, list[str]], place: str | None = None) -> date | None:
    """Last published day of the selected crimes (their latest coverage end); with ``place``, also that
    municipality's own finer file (Irapuato's subtipos run to 2025-12, after the store)."""
    ends = []
    for k in keys:
        for key in [k, *includes.get(k, [])]:
            info = metadata.get("coverage", {}).get(key)
            if info and info.get("granularity", "month") == "month":
                ends.append(date.fromisoformat(info["hasta"]))
            own = ((metadata.get("coverage_municipal") or {}).get(key) or {}).get(place or "", [])
            ends += [date.fromisoformat(r["hasta"]) for r in own]
    return max(ends) if ends else None


def _default_window(
    u: Understanding, metadata: dict, includes: dict, months: int, notes: list[str]
) -> tuple[date, date]:
    keys = [c.delito for c in u.crimes]
    place = next((p.entidad_id for p in u.places if p.nivel == "municipio"), None)
    end = crime_end(metadata, keys, includes, place) or date.fromisoformat(metadata["max_date"])
    start = shift_months(end, 1 - months)  # the window ends with end's month
    label = ", ".join(c.label for c in u.crimes) or "los delitos"
    notes.append(
        f"Sin periodo en la pregunta: se usan los últimos {months} meses publicados de {label} "
        f"({start:%Y-%m}..{end:%Y-%m})."
    )
    return start, end


def _entity(u: Understanding) -> tuple[str, str]:
    """(entidad_id, nivel) for a single-place question."""
    municipalities = [p for p in u.places if p.nivel == "municipio"]
    if municipalities:
        return municipalities[0].entidad_id, "actual"
    states = [p for p in u.places if p.nivel == "estado"]
    return (states[0].entidad_id if states else STATE_DEFAULT), "actual"


def _state_of(u: Understanding) -> str:
    states = [p.entidad_id for p in u.places if p.nivel == "estado"]
    if states:
        return states[0]
    municipalities = [p.entidad_id for p in u.places if p.nivel == "municipio"]
    return municipalities[0].split(".")[0] if municipalities else STATE_DEFAULT


def build(u: Understanding, metadata: dict, includes: dict[str, list[str]]) -> ToolPlan:
    """The tool plan for a relevant question whose blocking slots are filled."""
    notes: list[str] = []
    crimes = [c.delito for c in u.crimes if c.in_data]
    delito: str | list[str] | None = (crimes[0] if len(crimes) == 1 else sorted(crimes)) if crimes else None
    if "share:part_of_tipo" in u.signals and len(crimes) == 1:
        # «de los robos en Irapuato, ¿qué porcentaje fueron a negocio?»: every subtipo of the tipo with its share
        tipo = next((t for t, members in includes.items() if crimes[0] in members), None)
        delito = sorted(includes[tipo]) if tipo else delito
    kind = u.kind if u.kind != "unknown" else ("ranking" if u.group_by_municipio else "single_value")
    if kind in ("single_value", "ranking", "unknown") and not crimes and asks_all_crimes(u):
        kind = "annual_total"
    steps: list[dict] = []
    if kind == "composition":
        return _composition_plan(u, metadata, includes, notes)
    if kind in SHAPE_KINDS and crimes and all(c == "total_delitos" for c in crimes):
        # the total of every crime is published by year only: no months, modalidades or monthly zeros
        notes.append("El total de todos los delitos se publica solo por año (sin meses ni modalidades): se da por año.")
        kind = "annual_total"
    if kind == "annual_total":
        eid, _ = _entity(u)
        start, end = u.window or (date(2015, 1, 1), date.fromisoformat(metadata["max_date"]))
        nivel = "hijos" if (u.group_by_municipio or u.kind == "ranking") else "actual"
        args = {
            "entidad_id": eid if nivel == "actual" else _state_of(u),
            "nivel": nivel,
            "from": _iso(start),
            "to": _iso(end),
        }
        if nivel == "hijos":
            args.update(top_k=u.top_k or 10, orden=u.order)
        steps.append(_step("total_anual", args))
        return ToolPlan({"plan": steps}, notes, kind)
    municipalities = [p for p in u.places if p.nivel == "municipio"]
    if kind == "single_value" and municipalities and u.whole_state:
        kind = "places"  # "León y el estado": the municipality beside the state
    if kind == "single_value" and len(municipalities) >= 2:
        kind = "places"  # "Celaya contra Salamanca": every place asked, side by side, with the state
    if (
        kind == "comparison"
        and u.compare_window is None
        and municipalities
        and (len(municipalities) >= 2 or u.whole_state)
    ):
        kind = "places"  # «Silao vs el total del estado en 2024»: the places compared, not two periods
    if kind in SHAPE_KINDS:
        return _shape_plan(u, kind, delito, metadata, includes, notes)
    if u.window is None and kind == "patterns":
        # Patterns need history: the whole published span (the tool keeps each crime's coverage).
        window = (date.fromisoformat(metadata["min_date"]), date.fromisoformat(metadata["max_date"]))
    else:
        window = u.window or _default_window(
            u, metadata, includes, 24 if kind in ("series", "anomalies") else 12, notes
        )
    base = {"from": _iso(window[0]), "to": _iso(window[1])}
    if delito is not None:
        base["delito"] = delito
    method_args = {}
    if u.methods:
        method_args["metodo"] = u.methods[0] if len(u.methods) == 1 else sorted(u.methods)
    if kind == "ranking":
        args = {
            "entidad_id": _state_of(u),
            "nivel": "hijos",
            "medida": u.medida,
            "top_k": u.top_k or 10,
            "orden": u.order,
            **base,
            **method_args,
        }
        steps.append(_step("rank_por_delito", args))
    elif kind == "series" and u.medida == "tasa_per_100k":
        # CONAPO population is yearly: a monthly series is given in counts, so a rate asked for a
        # series (or "¿y la tasa?" after one) is the rate of the whole window, said as such.
        eid, _ = _entity(u)
        notes.append(
            "La serie mes por mes se da en conteos (la población CONAPO es anual); "
            "la tasa por 100 mil habitantes se calcula para todo el periodo."
        )
        steps.append(
            _step("rank_por_delito", {"entidad_id": eid, "nivel": "actual", "medida": u.medida, **base, **method_args})
        )
        kind = "single_value"
    elif kind == "series":
        eid, _ = _entity(u)
        steps.append(_step("serie_temporal", {"entidad_id": eid, **base, **method_args}))
    elif kind == "comparison":
        eid, _ = _entity(u)
        two_years = window[0] == date(window[0].year, 1, 1) and window[1] == date(window[0].year + 1, 12, 31)
        if u.compare_window is None and u.group_by_municipio and two_years:
            # "¿dónde cayó más … entre 2019 y 2020?": the second year against the first
            cw = (window[0], date(window[0].year, 12, 31))
            window = (date(window[1].year, 1, 1), window[1])
            base = {**base, "from": _iso(window[0]), "to": _iso(window[1])}
            notes.append(f"Se compara {window[0].year} con {cw[0].year}.")
        elif u.compare_window is None:
            months = month_count(*window)
            prev_end = window[0] - timedelta(days=1)  # the same length, just before the window
            cw = (shift_months(prev_end, 1 - months), prev_end)
            notes.append(f"Se compara con el periodo anterior de la misma duración ({cw[0]:%Y-%m}..{cw[1]:%Y-%m}).")
        else:
            cw = u.compare_window
            window, cw = _same_period(u, metadata, includes, window, cw, notes)
            base = {**base, "from": _iso(window[0]), "to": _iso(window[1])}
        args = {
            "entidad_id": eid if not u.group_by_municipio else _state_of(u),
            "nivel": "hijos" if u.group_by_municipio else "actual",
            **base,
            "base_from": _iso(cw[0]),
            "base_to": _iso(cw[1]),
            **method_args,
        }
        if u.medida == "tasa_per_100k":  # «en tasa, 2024 contra 2023»: the answer leads with the two rates
            args["medida"] = u.medida
        if u.group_by_municipio:
            args["top_k"] = u.top_k or 10
            direction = next((g.split(":")[1] for g in u.signals if g.startswith("direction:")), None)
            if direction or u.order == "asc":  # "¿dónde bajaron más…?": the biggest falls first, said in the answer
                args["orden"] = direction or "asc"
        steps.append(_step("comparar_periodos", args))
    elif kind == "share":
        if method_args:  # agrupar_por_entidad has no method argument: a filter step carries it
            steps.append(_step("filtro_metodo", dict(method_args)))
        municipalities = [p for p in u.places if p.nivel == "municipio"]
        args = {
            "entidad_id": _state_of(u),
            "nivel": "hijos",
            "aggregate_by": "porcentaje",
            "top_k": 46 if municipalities else (u.top_k or 10),
            **base,
        }
        steps.append(_step("agrupar_por_entidad", args))
        if municipalities:
            notes.append(f"focus:{municipalities[0].entidad_id}")
    elif kind == "anomalies":
        if method_args:
            steps.append(_step("filtro_metodo", dict(method_args)))
        municipalities = [p for p in u.places if p.nivel == "municipio"]
        eid = municipalities[0].entidad_id if municipalities else _state_of(u)
        args = {"entidad_id": eid, "nivel": "actual" if (municipalities or u.whole_state) else "hijos", **base}
        if u.top_k:
            args["top_k"] = u.top_k
        steps.append(_step("detectar_anomalias", args))
    elif kind == "patterns":
        if method_args:
            steps.append(_step("filtro_metodo", dict(method_args)))
        eid, _ = _entity(u)
        tipo = "estacionalidad" if any(s.startswith("kind:seasonality") for s in u.signals) else "coocurrencia"
        args = {"entidad_id": eid, "from": base["from"], "to": base["to"], "tipo": tipo}
        if delito is not None:
            args["delito"] = delito
        steps.append(_step("detectar_patrones", args))
    elif isinstance(delito, list) and u.medida == "conteo" and len(municipalities) <= 1:
        # several crimes summed («homicidios dolosos y culposos», «ambos»): the sum with each crime's part
        eid, _ = _entity(u)
        steps.append(_step("desglose_delito", {"entidad_id": eid, **base, **method_args}))
        kind = "single_value"
    else:  # single value (one or several places)
        places = [p for p in u.places if p.nivel == "municipio"] or [None]
        for place in places:
            eid = place.entidad_id if place else _entity(u)[0]
            steps.append(
                _step(
                    "rank_por_delito", {"entidad_id": eid, "nivel": "actual", "medida": u.medida, **base, **method_args}
                )
            )
        kind = "single_value"
    if u.wants_evidence:
        steps.append(_step("listar_evidencia", {}))
    return ToolPlan({"plan": steps}, notes, kind)


SHAPE_KINDS = ("extremes", "average", "presence", "breakdown", "annual_series", "places")


def _same_period(
    u: Understanding, metadata: dict, includes: dict, window: tuple[date, date], cw: tuple[date, date], notes: list[str]
) -> tuple[tuple[date, date], tuple[date, date]]:
    """«mismo periodo del año anterior»: both windows end with the crime's last published month, a year apart."""
    same = {"time:base_prev_year", "time:same_period_prev"} & set(u.signals)
    if not same and cw != (_year_back(window[0]), _year_back(window[1])):
        return window, cw
    towns = [p.entidad_id for p in u.places if p.nivel == "municipio"]
    # one municipality's own file may run past the store (Irapuato to 2025-12): its months, as the window's
    end = crime_end(metadata, [c.delito for c in u.crimes], includes, towns[0] if len(towns) == 1 else None)
    if end is None or window[1] <= end:
        return window, cw
    start = window[0] if window[0] <= end else date(end.year, 1, 1)
    aligned = (start, end)
    base = (date(start.year - 1, start.month, 1), shift_months(date(end.year - 1, end.month, 1), 1) - timedelta(days=1))
    notes.append(
        f"Mismo periodo: los meses se alinean al último mes publicado del delito ({start:%Y-%m}..{end:%Y-%m} "
        f"frente a {base[0]:%Y-%m}..{base[1]:%Y-%m})."
    )
    return aligned, base


def _coverage_window(u: Understanding, metadata: dict, includes: dict) -> tuple[date, date]:
    """The whole published span of the selected crimes (every crime loaded when none is named)."""
    keys = [c.delito for c in u.crimes] or list(metadata.get("coverage", {}))
    starts = [
        date.fromisoformat(info["desde"])
        for k in keys
        for key in [k, *includes.get(k, [])]
        if (info := metadata.get("coverage", {}).get(key)) and info.get("granularity", "month") == "month"
    ]
    end = crime_end(metadata, keys, includes) or date.fromisoformat(metadata["max_date"])
    return (min(starts) if starts else date.fromisoformat(metadata["min_date"])), end


def _shape_plan(u: Understanding, kind: str, delito, metadata: dict, includes: dict, notes: list[str]) -> ToolPlan:
    """The plan of an everyday shape (issue 13 §2): one step of the tool that answers it."""
    signals = set(u.signals)
    por = next((u for u in ("anio", "trimestre", "semestre") if f"extreme:{u}" in signals), "mes")
    if u.window is not None and u.compare_window is not None and kind == "annual_series":
        window = (min(u.window[0], u.compare_window[0]), max(u.window[1], u.compare_window[1]))  # "2020 a 2024"
    elif u.window is not None:
        window = u.window
    elif kind == "annual_series" or (kind == "extremes" and por == "anio"):
        window = _coverage_window(u, metadata, includes)
        notes.append(f"Sin periodo en la pregunta: se usa todo lo publicado ({window[0]:%Y-%m}..{window[1]:%Y-%m}).")
        if kind == "extremes" and window[1].month != 12 and window[1].year > window[0].year:
            # «¿cuál fue el peor año?»: eleven months of a year are no year to rank against whole ones
            notes.append(f"{window[1].year} está incompleto: el año se busca entre los años completos.")
            window = (window[0], date(window[1].year - 1, 12, 31))
    else:
        window = _default_window(u, metadata, includes, 12, notes)
    base = {"from": _iso(window[0]), "to": _iso(window[1])}
    if delito is not None:
        base["delito"] = delito
    if u.methods and kind != "breakdown":
        base["metodo"] = u.methods[0] if len(u.methods) == 1 else sorted(u.methods)
    if delito is None:  # no crime named: every monthly crime loaded is summed, and the answer says so
        loaded = sorted(k for k, v in metadata.get("coverage", {}).items() if v.get("granularity", "month") == "month")
        notes.append(f"Sin delito en la pregunta: se suman los {len(loaded)} delitos con datos mensuales cargados.")
    eid, _ = _entity(u)
    if kind in ("extremes", "average"):
        enfoque = "promedio" if kind == "average" else ("minimo" if "extreme:min" in signals else "maximo")
        step = _step("resumen_periodo", {"entidad_id": eid, **base, "por": por, "enfoque": enfoque})
    elif kind == "presence":
        condicion = "sin" if "presence:sin" in signals else "con"
        step = _step("municipios_por_presencia", {"entidad_id": _state_of(u), **base, "condicion": condicion})
    elif kind == "breakdown":
        args = {"entidad_id": eid, **base}
        suffix = f"{u.violencia}_violencia" if u.violencia else None
        if suffix and len(u.methods) > 1 and all(m.endswith(suffix) for m in u.methods):
            # «robos con violencia por modalidad»: the kinds with that violence only, vehicles included
            args["metodo"] = sorted(u.methods)
        elif len(u.methods) == 1:  # several modalidades asked: every share is shown, none singled out
            args["foco"] = u.methods[0]
        step = _step("desglose_modalidad", args)
    elif kind == "annual_series":
        step = _step("serie_anual", {"entidad_id": eid, **base})
    else:  # places side by side, and against the state
        places = list(dict.fromkeys(p.entidad_id for p in u.places if p.nivel == "municipio"))
        if not places:  # "¿está el estado por encima del promedio estatal?": nothing to set beside it
            step = _step("rank_por_delito", {"entidad_id": eid, "nivel": "actual", "medida": u.medida, **base})
            return ToolPlan({"plan": [step]}, notes, "single_value")
        step = _step("comparar_lugares", {"entidad_id": _state_of(u), "entidades": places, **base})
    steps = [step] + ([_step("listar_evidencia", {})] if u.wants_evidence else [])
    return ToolPlan({"plan": steps}, notes, kind)


def _composition_plan(u: Understanding, metadata: dict, includes: dict, notes: list[str]) -> ToolPlan:
    """Every crime of the place by tipo with its share (tool 20 with no crime), the named crime as its focus; with
    no period, the last 12 months in which every crime is published for the place."""
    eid, _ = _entity(u)
    window = u.window
    if window is None:
        place = eid if eid.count(".") else None
        parts = {k for members in includes.values() for k in members}
        keys = [
            k
            for k, v in metadata.get("coverage", {}).items()
            if v.get("granularity", "month") == "month" and k not in parts
        ]
        ends = [e for k in keys if (e := crime_end(metadata, [k], includes, place))]
        end = min([*ends, date.fromisoformat(metadata["max_date"])])
        start = shift_months(end, -11)
        window = (start, end)
        notes.append(
            f"Sin periodo en la pregunta: se usan los últimos 12 meses con todos los delitos publicados "
            f"({start:%Y-%m}..{end:%Y-%m})."
        )
    args: dict = {"entidad_id": eid, "from": _iso(window[0]), "to": _iso(window[1])}
    focus = [c.delito for c in u.crimes if c.in_data or c.delito in includes]
    if focus:
        args["foco"] = focus[0]
    if u.top_k:
        args["top_k"] = u.top_k
    steps = [_step("desglose_delito", args)] + ([_step("listar_evidencia", {})] if u.wants_evidence else [])
    return ToolPlan({"plan": steps}, notes, "composition")


def _year_back(d: date) -> date:
    """The same day a year before (28 February for a 29th)."""
    return d.replace(year=d.year - 1, day=min(d.day, 28)) if d.month == 2 else d.replace(year=d.year - 1)
