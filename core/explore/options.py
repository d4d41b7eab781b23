"""What the explorer's slicers offer, read from the catalog and the published data, and how a selection is fitted.

Nothing here is a hard-coded list: the crimes are the catalog's crimes with monthly data, the places its
entities, the months the published span, and the victims measure is offered only for the crimes whose victims the
store holds (and only when the catalog has a victims tool). ``fit`` turns any selection — a URL typed by hand, a
link from an older version — into one the planner can take, saying in Spanish what it changed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date

from core.ask.plan.rules import STATE_DEFAULT, crime_end
from core.explore.selection import MAX_PLACES, MEASURES, SHAPES, Selection
from core.text import month_count, shift_months

# Shapes by how many places they take: none (every municipality), one, or several.
NO_PLACE = ("ranking",)
ONE_PLACE = ("serie", "serie_anual", "comparacion", "desglose")
ONE_CRIME = ("desglose",)
RATE_SHAPES = ("total", "ranking")  # the only shapes whose tool computes a rate (rank_por_delito)
VICTIM_SHAPES = ("total",)
VICTIMS_TOOL = "victimas_sexo_edad"
DEFAULT_CRIME = "homicidio_doloso"
DEFAULT_MONTHS = 12


def _month(iso: str) -> str:
    return iso[:7]


def _months(first: str, last: str) -> list[str]:
    """Every ``AAAA-MM`` from the first month to the last, both included."""
    start, end = date.fromisoformat(first[:7] + "-01"), date.fromisoformat(last[:7] + "-01")
    return [shift_months(start, i).strftime("%Y-%m") for i in range(month_count(start, end))]


def victim_crimes(store) -> frozenset[str]:
    """Crime keys (subtipo and tipo) whose victims the store publishes for Guanajuato (empty when none)."""
    from core.tools.victims import VICTIMS

    cond, params = VICTIMS.where()
    try:
        rows = store.query(
            f"SELECT DISTINCT delito, tipo_key FROM observations o WHERE {cond} AND o.lugar_id = ?",
            [*params, STATE_DEFAULT],
        )
    except Exception:  # noqa: BLE001 - a store without the national tables simply offers no victims
        return frozenset()
    return frozenset(k for row in rows for k in row if k)


@dataclass(frozen=True)
class Options:
    """The slicers' choices: crimes and places as (key, label), months ``AAAA-MM``, victims' crimes."""

    crimes: tuple[tuple[str, str], ...]
    places: tuple[tuple[str, str], ...]
    months: tuple[str, ...]
    victims: frozenset[str] = frozenset()
    includes: dict[str, list[str]] = field(default_factory=dict)
    metadata: dict = field(default_factory=dict)

    @property
    def crime_labels(self) -> dict[str, str]:
        """Crime key → its label."""
        return dict(self.crimes)

    @property
    def place_labels(self) -> dict[str, str]:
        """Entity id → its label."""
        return dict(self.places)

    def measures(self, selection: Selection) -> list[str]:
        """The measures this selection's crimes and shape admit (carpetas always)."""
        out = ["conteo"]
        if selection.forma in RATE_SHAPES:
            out.append("tasa")
        if (
            self.victims
            and selection.forma in VICTIM_SHAPES
            and selection.delitos
            and self._has_victims(selection.crime)
        ):
            out.append("victimas")
        return out

    def _has_victims(self, key: str) -> bool:
        return key in self.victims or any(k in self.victims for k in self.includes.get(key, []))

    def default_period(self, delitos: tuple[str, ...]) -> tuple[str, str]:
        """The chat's default: the crimes' last 12 published months."""
        end = crime_end(self.metadata, list(delitos), self.includes)
        last = end.strftime("%Y-%m") if end else self.months[-1]
        first = shift_months(date.fromisoformat(last + "-01"), 1 - DEFAULT_MONTHS).strftime("%Y-%m")
        return max(first, self.months[0]), last

    def default(self) -> Selection:
        """The first screen: homicidio doloso (or the first crime) in the state, its last 12 months."""
        keys = self.crime_labels
        crime = DEFAULT_CRIME if DEFAULT_CRIME in keys else self.crimes[0][0]
        desde, hasta = self.default_period((crime,))
        return Selection(delitos=(crime,), desde=desde, hasta=hasta)

    def fit(self, selection: Selection) -> tuple[Selection, list[str]]:
        """The selection made plannable (known crimes and places, a period inside the data, a measure the shape
        admits, as many places as the shape takes) and a Spanish note per change."""
        notes: list[str] = []
        crimes, places = self.crime_labels, self.place_labels
        unknown = [k for k in selection.delitos if k not in crimes]
        if unknown:
            notes.append(f"Se omiten delitos que no están en los datos: {', '.join(unknown)}.")
        delitos = tuple(k for k in selection.delitos if k in crimes) or self.default().delitos
        if selection.forma in ONE_CRIME and len(delitos) > 1:
            notes.append(f"El {SHAPES[selection.forma].lower()} es de un delito: se usa {crimes[delitos[0]]}.")
            delitos = delitos[:1]
        lost = [p for p in selection.lugares if p not in places]
        if lost:
            notes.append(f"Se omiten lugares que no están en el catálogo: {', '.join(lost)}.")
        lugares = tuple(p for p in selection.lugares if p in places)[:MAX_PLACES]
        if selection.forma in NO_PLACE and lugares:
            notes.append("El ranking abarca todos los municipios del estado: se ignoran los lugares elegidos.")
            lugares = ()
        elif selection.forma in ONE_PLACE and len(lugares) > 1:
            notes.append(f"La {SHAPES[selection.forma].lower()} es de un lugar: se usa {places[lugares[0]]}.")
            lugares = lugares[:1]
        desde, hasta = selection.desde, selection.hasta
        if desde is None or hasta is None:
            desde, hasta = self.default_period(delitos)
        if desde > hasta:
            desde, hasta = hasta, desde
        if desde < self.months[0] or hasta > self.months[-1]:
            notes.append(f"El periodo se ajusta a los meses publicados ({self.months[0]} a {self.months[-1]}).")
            desde, hasta = max(desde, self.months[0]), min(hasta, self.months[-1])
            desde, hasta = min(desde, hasta), max(desde, hasta)
        fitted = selection.model_copy(update={"delitos": delitos, "lugares": lugares, "desde": desde, "hasta": hasta})
        if fitted.medida not in self.measures(fitted):
            notes.append(
                f"«{MEASURES[fitted.medida]}» no está disponible para esta forma o este delito: "
                "se muestran carpetas de investigación."
            )
            fitted = fitted.model_copy(update={"medida": "conteo"})
        if fitted.medida == "victimas" and (fitted.lugares not in ((), (STATE_DEFAULT,)) or len(delitos) > 1):
            notes.append("Las víctimas se publican por estado y de un delito a la vez: se usa el estado.")
            fitted = fitted.model_copy(update={"lugares": (), "delitos": delitos[:1]})
        return fitted, notes


def build_options(catalog, metadata: dict, store=None) -> Options:
    """The options of the current version: the catalog's monthly crimes and entities, the published months."""
    crimes = sorted(
        ((c["delito"], c["subtipo"]) for c in catalog.crimes if c.get("en_datos") and c.get("granularity") == "month"),
        key=lambda kv: kv[1],
    )
    entities = catalog.entities
    states = [(e["entidad_id"], f"{e['label']} (todo el estado)") for e in entities if e["nivel"] == "estado"]
    towns = sorted(((e["entidad_id"], e["label"]) for e in entities if e["nivel"] == "municipio"), key=lambda kv: kv[1])
    includes = {c["delito"]: [x for x in (c.get("incluye") or "").split("|") if x] for c in catalog.crimes}
    has_victims_tool = any(s.name == VICTIMS_TOOL for s in catalog.specs)
    return Options(
        crimes=tuple(crimes),
        places=tuple(states + towns),
        months=tuple(_months(_month(metadata["min_date"]), _month(metadata["max_date"]))),
        victims=victim_crimes(store) if (store is not None and has_victims_tool) else frozenset(),
        includes=includes,
        metadata=metadata,
    )
