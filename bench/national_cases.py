"""The cases of the national section: their plans, scopes and the hand-written DuckDB SQL of each.

Each ``Case`` pairs a Casandra plan with one SQL statement a DuckDB engineer would write for
the same result rows, straight over the version's Parquet files (``Paths``): the national tools
over the 32 states (``bench.national_state_sql``) and the municipal analysis tools over one
state's municipalities of the national parts (``bench.national_sql``). ``bench.national``
builds the real national store and times the cases.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date

from bench import synth
from bench.national_sql import (
    Paths,
    agrupar_sql,
    anomalias_sql,
    comparar_sql,
    cooc_sql,
    rank_actual_sql,
    rank_sql,
    season_sql,
    serie_sql,
)
from bench.national_state_sql import federal_by_state_sql, ranking_sql, victims_sql

TOOL_P95_MS = 300.0
TOOL_RATIO = 1.3


@dataclass
class NationalConfig:
    """Which state, crimes and years the cases look at, and how often to run each."""

    # The synthetic country's sizes (bench.synth): the ETL section's file; this section reads the real parts.
    per_state: dict[str, int] = field(default_factory=lambda: dict(synth.MUNICIPALITIES_PER_STATE))
    years: list[int] = field(default_factory=lambda: list(range(2015, 2025)))
    crimes: str | list[str] = "carried"
    # The state the municipal analyses look at. None: none, since the municipal tools address the
    # municipalities of ``entities`` (Guanajuato's), whose cells the national store holds like the default one.
    estado: str | None = None
    estado_grande: str | None = None  # a second state with many municipalities (Oaxaca's 570, once addressable)
    crime_a: str = "violencia_familiar"  # keys the national parts carry by municipality (no homicide subtipo)
    crime_b: str = "narcomenudeo"
    serie_crime: str = "homicidio"  # tipo-level key: the parts' «Homicidio» (doloso + culposo)
    state_crime: str = "homicidio_doloso"  # the national tools' crime (the state files carry the subtipo)
    runs: int = 40  # p95 of 20 samples is the 19th value: one burst of a neighbour decides it
    warmup: int = 2
    seed: int = 20260115


# -- the cases ---------------------------------------------------------------------------------


@dataclass
class Case:
    """One plan and the SQL that must give the same rows."""

    name: str
    tool: str
    plan: dict
    sql: Callable[[Paths], tuple[str, list]]
    note: str = ""


def _windows(years: list[int]) -> dict:
    y = years[-1]
    if len(years) >= 2:
        return {
            "from": date(y, 1, 1),
            "to": date(y, 12, 31),
            "base_from": date(y - 1, 1, 1),
            "base_to": date(y - 1, 12, 31),
            "anom_window": 12,
        }
    return {
        "from": date(y, 7, 1),
        "to": date(y, 12, 31),
        "base_from": date(y, 1, 1),
        "base_to": date(y, 6, 30),
        "anom_window": 6,
    }


def _plan(tool_id: int, **args) -> dict:
    return {
        "plan": [
            {"tool_id": tool_id, "args": {k: (v.isoformat() if isinstance(v, date) else v) for k, v in args.items()}}
        ]
    }


def state_cases(cfg: NationalConfig) -> list[Case]:
    """The national tools' cases: the 32 states ranked, victims by sexo and edad, federal carpetas by state."""
    k = cfg.state_crime
    y = cfg.years[-1]
    year = {"desde": date(y, 1, 1), "hasta": date(y, 11, 30)}  # the state file ends at 2024-11
    a, b = year["desde"], year["hasta"]
    return [
        Case(
            "ranking_estados (conteo)",
            "ranking_estados",
            _plan(21, lugar_id="GTO", clave_delito=k, **year),
            ranking_sql(k, a, b),
            f"los 32 estados, {k}, {a:%Y-%m}..{b:%Y-%m}",
        ),
        Case(
            "ranking_estados (tasa)",
            "ranking_estados",
            _plan(
                21, lugar_id="GTO", comparar_con=["JAL", "MICH"], clave_delito=k, ordenar_por="tasa_per_100k", **year
            ),
            ranking_sql(k, a, b, by_rate=True),
            f"los 32 estados por tasa, {k}",
        ),
        Case(
            "victimas_sexo_edad (país)",
            "victimas_sexo_edad",
            _plan(22, lugar_id="MX", clave_delito=k, **year),
            victims_sql("MX", k, a, b),
            f"víctimas de {k} del país por sexo y edad",
        ),
        Case(
            "victimas_sexo_edad (GTO)",
            "victimas_sexo_edad",
            _plan(22, lugar_id="GTO", clave_delito=k, **year),
            victims_sql("GTO", k, a, b),
            f"víctimas de {k} de Guanajuato",
        ),
        Case(
            "fuero_federal (por estado)",
            "fuero_federal",
            _plan(23, lugar_id="MX", desglose="estado", **year),
            federal_by_state_sql(a, b),
            "carpetas federales del país por estado",
        ),
    ]


def cases(cfg: NationalConfig) -> list[Case]:
    """The benchmark cases for one configuration: the national tools', then the municipal tools' on one state."""
    return state_cases(cfg) + (municipal_cases(cfg) if cfg.estado else [])


def municipal_cases(cfg: NationalConfig) -> list[Case]:
    """The municipal analysis tools over one state's municipalities of the national parts."""
    w = _windows(cfg.years)
    e, a, b = cfg.estado, cfg.crime_a, cfg.crime_b
    first, last = date(cfg.years[0], 1, 1), date(cfg.years[-1], 12, 31)
    serie_keys = sorted(
        {cfg.serie_crime, *(["homicidio_doloso", "homicidio_culposo"] if cfg.serie_crime == "homicidio" else [])}
    )
    win = {"from": w["from"], "to": w["to"]}
    out = [
        Case(
            "rank_por_delito (hijos)",
            "rank_por_delito",
            _plan(6, entidad_id=e, delito=a, nivel="hijos", top_k=10, **win),
            rank_sql(e, [a], w, 10, False),
            f"municipios de {e}, {a}, último año",
        ),
        Case(
            "rank_por_delito (actual)",
            "rank_por_delito",
            _plan(6, entidad_id=e, delito=a, nivel="actual", **win),
            rank_actual_sql(e, [a], w),
            f"el estado {e} como un todo",
        ),
    ]
    if cfg.estado_grande:
        g = cfg.estado_grande
        out.append(
            Case(
                f"rank_por_delito (hijos, {g})",
                "rank_por_delito",
                _plan(6, entidad_id=g, delito=a, nivel="hijos", top_k=10, **win),
                rank_sql(g, [a], w, 10, False),
                f"los municipios de {g} (el estado con más municipios)",
            )
        )
    out += [
        Case(
            "top_entidades_por_total",
            "top_entidades_por_total",
            _plan(7, entidad_id=e, nivel="hijos", top_k=10, **win),
            rank_sql(e, [], w, 10, True),
            f"municipios de {e}, todos los delitos",
        ),
        Case(
            "serie_temporal",
            "serie_temporal",
            _plan(12, entidad_id=e, delito=cfg.serie_crime, **{"from": first, "to": last}),
            serie_sql(e, serie_keys, first, last),
            f"{e}, {cfg.serie_crime}, todos los meses",
        ),
        Case(
            "comparar_periodos",
            "comparar_periodos",
            _plan(
                13,
                entidad_id=e,
                delito=b,
                nivel="hijos",
                top_k=10,
                base_from=w["base_from"],
                base_to=w["base_to"],
                **win,
            ),
            comparar_sql(e, [b], w, 10),
            f"municipios de {e}, {b}",
        ),
        Case(
            "agrupar_por_entidad (porcentaje)",
            "agrupar_por_entidad",
            _plan(11, entidad_id=e, delito=a, nivel="hijos", aggregate_by="porcentaje", top_k=10, **win),
            agrupar_sql(e, [a], w, 10),
            f"municipios de {e}, {a}",
        ),
        Case(
            "detectar_anomalias",
            "detectar_anomalias",
            _plan(10, entidad_id=e, delito=a, nivel="hijos", window=w["anom_window"], z_threshold=3.0, top_k=10, **win),
            anomalias_sql(e, [a], w, w["anom_window"], 3.0, 10),
            f"municipios de {e}, {a}, base {w['anom_window']} meses",
        ),
        Case(
            "detectar_patrones (coocurrencia)",
            "detectar_patrones",
            _plan(8, entidad_id=e, tipo="coocurrencia", min_support=0.01, top_k=10, **win),
            cooc_sql(e, w, 0.01, 10),
            f"municipio-mes de {e}, todos los delitos",
        ),
        Case(
            "detectar_patrones (estacionalidad)",
            "detectar_patrones",
            _plan(8, entidad_id=e, tipo="estacionalidad", top_k=10, **{"from": first, "to": last}),
            season_sql(e, first, last, 10),
            f"{e}, todos los delitos, todos los meses",
        ),
    ]
    return out
