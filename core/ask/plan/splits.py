"""A crime's figure split into its parts where the parts are what was asked: robbery with violence over every kind
that carries it in its name, the tipo by modalidad beside it, and a tipo of two or three subtipos as its sum with
each part (issue 14; used by the offline planner, core/ask/plan/strategy.py)."""

from __future__ import annotations

from dataclasses import replace
from datetime import date

from core.ask.plan.granularity import SPLIT, covers
from core.ask.plan.rules import ToolPlan, _step
from core.ask.understand import Understanding


def violence_methods(u: Understanding, catalog) -> Understanding:
    """«robos con violencia»: every modalidad of the crime with that violence, not only the one called so.

    The parquet's robo kinds carry their violence in their names («Robo de coche de 4 ruedas Con violencia»), so
    the generic «Con violencia» row alone would leave violent vehicle thefts out (shared data README: «robo con
    violencia incl. vehicles»)."""
    if not u.violencia or u.methods != [f"{u.violencia}_violencia"]:
        return u
    rows = {c["delito"]: c for c in catalog.crimes}
    keys = [k for c in u.crimes for k in [c.delito, *((rows.get(c.delito) or {}).get("incluye") or "").split("|")] if k]
    suffix = f"{u.violencia}_violencia"
    found = sorted({m for k in keys for m in (rows.get(k) or {}).get("metodos") or [] if m.endswith(suffix)})
    return replace(u, methods=found) if len(found) > 1 else u


def violence_split(u: Understanding, built: ToolPlan) -> ToolPlan:
    """«robo con violencia en Silao»: the count of every kind with that violence, and before it the tipo by
    modalidad, so the answer also says the SESNSP's own «Con violencia» row (README: both figures are cited)."""
    steps = (built.plan or {}).get("plan") or []
    args = steps[0].get("args", {}) if len(steps) == 1 else {}
    methods = args.get("metodo")
    suffix = f"{u.violencia}_violencia" if u.violencia else None
    split = suffix and isinstance(methods, list) and len(methods) > 1 and all(m.endswith(suffix) for m in methods)
    if not split or built.kind != "single_value" or not isinstance(args.get("entidad_id"), str):
        return built
    window = {k: args[k] for k in ("from", "to") if k in args}
    by_method = _step("desglose_modalidad", {"entidad_id": args["entidad_id"], "delito": args["delito"], **window})
    return ToolPlan({**built.plan, "plan": [by_method, *steps]}, [*built.notes, f"{SPLIT}{suffix}"], built.kind)


def tipo_split(built: ToolPlan, catalog, metadata: dict) -> ToolPlan:
    """«homicidios totales en León», «lesiones en Irapuato»: a tipo of two or three subtipos, each published for the
    place and window, is answered as its sum with its parts (desglose_delito), never one figure that hides them."""
    steps = (built.plan or {}).get("plan") or []
    args = steps[0].get("args", {}) if len(steps) == 1 else {}
    rows = {c["delito"]: c for c in catalog.crimes}
    tipo = rows.get(args.get("delito")) if isinstance(args.get("delito"), str) else None
    keys = [k for k in ((tipo or {}).get("incluye") or "").split("|") if k]
    place = args.get("entidad_id")
    plain = args.get("nivel") == "actual" and args.get("medida", "conteo") == "conteo" and not args.get("metodo")
    if built.kind != "single_value" or tipo is None or tipo.get("nivel") != "tipo" or not 2 <= len(keys) <= 3:
        return built
    if not (plain and isinstance(place, str) and args.get("from") and args.get("to")):
        return built
    window = (date.fromisoformat(args["from"]), date.fromisoformat(args["to"]))
    own = place if ".MUN." in place else None
    if not all(covers(metadata, k, place.split(".")[0], window, own) for k in keys):
        return built  # a part not published there (municipal homicides before 2020): the tipo total stands
    step = _step("desglose_delito", {"entidad_id": place, "from": args["from"], "to": args["to"], "delito": keys})
    return ToolPlan({**built.plan, "plan": [step]}, built.notes, built.kind)
