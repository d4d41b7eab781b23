"""Several crimes or municipalities published at uneven levels (issue 14 §5, extended to more than one cell):
«robo a casa habitación y robo a negocio en Silao», «asaltos a negocios en Irapuato y en Silao».

Each crime × municipality cell is read alone by ``granularity.find``. When one of them lacks the level asked, the
plan gives every figure that exists: the published cells as the usual plan does (Irapuato's own file publishes
every subtipo, several crimes of one place summed with their parts), the others as their granularity fallback says
(each subtipo's state figure and the municipality's tipo by modalidad), said before the numbers — never «no está
cargado» for a crime loaded at another level.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from core.ask.plan import granularity, splits
from core.ask.plan.granularity import ALSO, LEAD, SPLIT, Fallback
from core.ask.plan.rules import STATE_DEFAULT, ToolPlan, _step
from core.ask.understand import CrimeMatch, PlaceMatch, Understanding
from core.ask.understand.national import is_national

# the kinds a cell answers as one figure; a series, ranking or comparison of mixed levels keeps its usual plan
_KINDS = ("single_value", "unknown")


@dataclass(frozen=True)
class Cell:
    """One crime in one municipality (or the state), and its granularity fallback (None: published as asked)."""

    crime: CrimeMatch
    place: PlaceMatch | None
    fallback: Fallback | None

    @property
    def direct(self) -> bool:
        """Published for the place as asked (Irapuato's own file counts)."""
        return self.fallback is None or self.fallback.case == "municipio"


def _narrowed(u: Understanding, crimes: list[CrimeMatch], place: PlaceMatch | None) -> Understanding:
    """The understanding of some crimes in one place (the other municipalities left out)."""
    others = [p for p in u.places if p.nivel != "municipio"]
    return replace(u, crimes=crimes, places=[*others, *([place] if place else [])])


def find(u: Understanding | None, catalog, metadata: dict | None) -> list[Cell] | None:
    """The cells of a question over several crimes or municipalities when one of them needs a fallback, or None."""
    if u is None or not metadata or u.kind not in _KINDS or is_national(u) or u.compare_window is not None:
        return None
    municipalities = [p for p in u.places if p.nivel == "municipio"]
    if len(u.crimes) * max(1, len(municipalities)) < 2 or (municipalities and u.whole_state):
        return None
    if any(c.note or c.delito == "total_delitos" for c in u.crimes):
        return None
    out = [
        Cell(c, p, granularity.find(_narrowed(u, [c], p), catalog, metadata))
        for c in u.crimes
        for p in municipalities or [None]
    ]
    if all(c.fallback is None for c in out) or any(c.fallback is None and not c.crime.in_data for c in out):
        return None  # all published (the usual plan), or a crime not loaded at any level (said as such)
    return out


def build(u: Understanding, cells: list[Cell], catalog, metadata: dict, municipal_plan: Callable) -> ToolPlan:
    """One plan for every cell: the published ones first (their figure leads), then what exists for the others."""
    plans: list[ToolPlan] = []
    for place in dict.fromkeys(c.place for c in cells if c.direct):
        crimes = [replace(c.crime, in_data=True) for c in cells if c.direct and c.place == place]
        built = municipal_plan(_narrowed(u, crimes, place))
        plans.append(splits.tipo_split(built, catalog, metadata))
    rest = [c for c in cells if not c.direct]
    by_state = [c for c in rest if c.fallback.case == "subtipo" and c.place is not None]
    for tipo in dict.fromkeys(c.fallback.tipo["delito"] for c in by_state):
        plans.append(_subtipos(u, [c for c in by_state if c.fallback.tipo["delito"] == tipo], metadata, municipal_plan))
    for c in rest:
        if c not in by_state:
            plans.append(granularity.build(_narrowed(u, [c.crime], c.place), c.fallback, metadata, municipal_plan))
    return _merge(plans)


def _subtipos(u: Understanding, group: list[Cell], metadata: dict, municipal_plan: Callable) -> ToolPlan:
    """Subtipos of one tipo no municipality publishes, in one or more places: each subtipo's state figure, each
    place's tipo by modalidad, and one sentence that says so for all of them."""
    tipo = group[0].fallback.tipo
    asked = list({c.fallback.asked["delito"]: c.fallback.asked for c in group}.values())
    places = list({c.place.entidad_id: c.place for c in group}.values())
    national_win, municipal_win = granularity.window_args(u)
    as_tipo = replace(u, crimes=[CrimeMatch(tipo["delito"], tipo["subtipo"], tipo["subtipo"].lower(), 100.0, True)])
    municipal_win, defaulted = granularity.municipal_window(as_tipo, municipal_win, municipal_plan)
    states = [
        _step(
            "ranking_estados",
            {"lugar_id": STATE_DEFAULT, "clave_delito": a["delito"], "ordenar_por": "conteo"} | national_win,
        )
        for a in asked
    ]
    breakdowns = [
        _step("desglose_modalidad", {"entidad_id": p.entidad_id, "delito": tipo["delito"], **municipal_win})
        for p in places
    ]
    note = granularity.subtipo_note(asked, group[0].fallback, places, metadata)
    steps = [*states[1:], *breakdowns, states[0]]  # the first subtipo's state figure answers; the rest follow it
    also = [f"{ALSO}{i}" for i in range(len(steps) - 1)]
    return ToolPlan({"plan": steps}, [LEAD + note, *also, *defaulted], "national")


def by_method(u: Understanding, catalog) -> list[Understanding] | None:
    """«robo con violencia y homicidios dolosos»: one understanding per crime when a modalidad asked belongs to only
    some of the crimes (each keeps the modalidades its catalog row or subtipos publish); None when all share them."""
    if len(u.crimes) < 2 or not u.methods:
        return None
    rows = {c["delito"]: c for c in catalog.crimes}

    def own(key: str) -> set[str]:
        row = rows.get(key) or {}
        keys = [key, *[k for k in (row.get("incluye") or "").split("|") if k]]
        return {m for k in keys for m in (rows.get(k) or {}).get("metodos") or []}

    kept = {c.delito: [m for m in u.methods if m in own(c.delito)] for c in u.crimes}
    if all(len(ms) == len(u.methods) for ms in kept.values()):
        return None
    return [
        replace(u, crimes=[c], methods=kept[c.delito], violencia=u.violencia if kept[c.delito] else None)
        for c in u.crimes
    ]


def merge(plans: list[ToolPlan]) -> ToolPlan:
    """Plans of one question's parts as one (see ``_merge``); a part's «De ellos: …» split goes, since in one
    answer it would follow the last part's figure, not its own."""
    if len(plans) > 1:
        plans = [replace(p, notes=[n for n in p.notes if not n.startswith(SPLIT)]) for p in plans]
    return _merge(plans)


def _merge(plans: list[ToolPlan]) -> ToolPlan:
    """Plans as one: each step once (two cells may share a state figure or a breakdown), the first plan's answer
    last (the composer answers with the last step), every other step said after it in order (``also``)."""
    steps: list[dict] = []
    notes: list[str] = []
    answers: list[int] = []
    context: list[int] = []

    def at(step: dict) -> int:
        if step not in steps:
            steps.append(step)
        return steps.index(step)

    for plan in plans:
        own = [at(s) for s in (plan.plan or {}).get("plan") or []]
        if not own:
            continue
        answers.append(own[-1])
        context += [own[int(n[len(ALSO) :])] for n in plan.notes if n.startswith(ALSO)]
        notes += [n for n in plan.notes if not n.startswith(ALSO) and n not in notes]
    said = list(dict.fromkeys(i for i in [*answers[1:], *context] if i != answers[0]))
    order = [i for i in range(len(steps)) if i != answers[0]] + [answers[0]]
    where = {old: new for new, old in enumerate(order)}
    merged = [steps[i] for i in order]
    kind = plans[0].kind if len(plans) == 1 else "single_value"
    return ToolPlan({"plan": merged}, [*notes, *[f"{ALSO}{where[i]}" for i in said]], kind)
