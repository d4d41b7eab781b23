"""Synthetic national SESNSP data drawn from the real Guanajuato store (seeded, vectorized).

The generator writes the **original IDM_NM layout** (one row per municipality × year ×
Subtipo × Modalidad, twelve month columns, latin-1) for the 32 states with synthetic
municipality codes ``SSMMM`` named ``Municipio SS-MMM``, plus a CONAPO-layout population
file. Nothing is invented from thin air:

* every synthetic municipality gets a *donor*: one of the 46 real Guanajuato
  municipalities of the bundled store, drawn with a seeded ``numpy`` generator;
* a cell (municipality, year, row, month) takes the donor's real count for the same
  crime × modality and the same **calendar month** in a randomly drawn covered year. So
  each crime × modality keeps the donor's monthly count distribution and its
  month-of-year profile, and municipalities keep the donor's size and crime mix;
* ``Violación simple`` / ``Violación equiparada`` take the bundled store's own split (the
  reduced file's leftover index); a store that still sums them under ``violacion`` is split
  binomially with the real 2015-2022 share (92.7 % simple);
* modalidades SESNSP publishes but Guanajuato never used (feminicidio "No especificado",
  secuestro exprés…) are all-zero rows, as in the real file;
* with ``crimes="all"`` the 98 rows of the full SESNSP catalogue are written (the layout of
  the ~380 MB national file); a crime the bundled store does not carry borrows the
  distribution of a carried crime × modality, round-robin by volume.

No Python loop runs per data row: arrays are built with numpy and written by DuckDB.
"""

from __future__ import annotations

import codecs
import csv
from dataclasses import dataclass
from datetime import date
from pathlib import Path

import duckdb
import numpy as np
import pyarrow as pa

from core.config import CATALOGS_DIR
from core.text import months_between, slug_key

HEADER = [
    "Año",
    "Clave_Ent",
    "Entidad",
    "Cve. Municipio",
    "Municipio",
    "Bien jurídico afectado",
    "Tipo de delito",
    "Subtipo de delito",
    "Modalidad",
    "Enero",
    "Febrero",
    "Marzo",
    "Abril",
    "Mayo",
    "Junio",
    "Julio",
    "Agosto",
    "Septiembre",
    "Octubre",
    "Noviembre",
    "Diciembre",
]

# Municipalities per state (INEGI Marco Geoestadístico, rounded to recent counts): 2,473 in all.
MUNICIPALITIES_PER_STATE = {
    "01": 11,
    "02": 5,
    "03": 5,
    "04": 13,
    "05": 38,
    "06": 10,
    "07": 124,
    "08": 67,
    "09": 16,
    "10": 39,
    "11": 46,
    "12": 85,
    "13": 84,
    "14": 125,
    "15": 125,
    "16": 113,
    "17": 36,
    "18": 20,
    "19": 51,
    "20": 570,
    "21": 217,
    "22": 18,
    "23": 11,
    "24": 58,
    "25": 18,
    "26": 72,
    "27": 17,
    "28": 43,
    "29": 60,
    "30": 212,
    "31": 106,
    "32": 58,
}

_VIDA = "La vida y la Integridad corporal"
_LIB = "Libertad personal"
_SEX = "La libertad y la seguridad sexual"
_PAT = "El patrimonio"
_FAM = "La familia"
_SOC = "La sociedad"
_OTR = "Otros bienes jurídicos afectados (del fuero común)"
_ARMAS = ("Con arma de fuego", "Con arma blanca", "Con otro elemento", "No especificado")
_ARMAS_CULPOSO = (
    "Con arma de fuego",
    "Con arma blanca",
    "En accidente de tránsito",
    "Con otro elemento",
    "No especificado",
)
_CV = ("Con violencia", "Sin violencia")


def _single(bien: str, label: str) -> list[tuple[str, str, str, str]]:
    return [(bien, label, label, label)]


def sesnsp_rows() -> list[tuple[str, str, str, str]]:
    """The 98 (Bien jurídico, Tipo, Subtipo, Modalidad) rows per municipality-year of IDM_NM 2015-2025."""
    rows: list[tuple[str, str, str, str]] = []
    rows += [(_VIDA, "Homicidio", "Homicidio doloso", m) for m in _ARMAS]
    rows += [(_VIDA, "Homicidio", "Homicidio culposo", m) for m in _ARMAS_CULPOSO]
    rows += [(_VIDA, "Lesiones", "Lesiones dolosas", m) for m in _ARMAS]
    rows += [(_VIDA, "Lesiones", "Lesiones culposas", m) for m in _ARMAS_CULPOSO]
    rows += [(_VIDA, "Feminicidio", "Feminicidio", m) for m in _ARMAS]
    rows += _single(_VIDA, "Aborto")
    rows += _single(_VIDA, "Otros delitos que atentan contra la vida y la integridad corporal")
    rows += [
        (_LIB, "Secuestro", "Secuestro", m)
        for m in (
            "Secuestro extorsivo",
            "Secuestro con calidad de rehén",
            "Secuestro para causar daño",
            "Secuestro exprés",
            "Otro tipo de secuestros",
        )
    ]
    for label in ("Tráfico de menores", "Rapto", "Otros delitos que atentan contra la libertad personal"):
        rows += _single(_LIB, label)
    for label in (
        "Abuso sexual",
        "Acoso sexual",
        "Hostigamiento sexual",
        "Violación simple",
        "Violación equiparada",
        "Incesto",
        "Otros delitos que atentan contra la libertad y la seguridad sexual",
    ):
        rows += _single(_SEX, label)
    rows += [(_PAT, "Robo", "Robo a casa habitación", m) for m in _CV]
    rows += [
        (_PAT, "Robo", "Robo de vehículo automotor", f"{what} {v}")
        for what in ("Robo de coche de 4 ruedas", "Robo de motocicleta", "Robo de embarcaciones pequeñas y grandes")
        for v in _CV
    ]
    for sub in (
        "Robo de autopartes",
        "Robo a transportista",
        "Robo a transeúnte en vía pública",
        "Robo a transeúnte en espacio abierto al público",
        "Robo en transporte público individual",
        "Robo en transporte público colectivo",
        "Robo en transporte individual",
        "Robo a institución bancaria",
        "Robo a negocio",
        "Robo de ganado",
    ):
        rows += [(_PAT, "Robo", sub, m) for m in _CV]
    rows += [
        (_PAT, "Robo", "Robo de maquinaria", f"{what} {v}")
        for what in (
            "Robo de tractores",
            "Robo de maquinaria industrial",
            "Robo de cables, tubos y otros objetos destinados a servicios públicos",
        )
        for v in _CV
    ]
    rows += [(_PAT, "Robo", "Otros robos", m) for m in _CV]
    for label in (
        "Fraude",
        "Abuso de confianza",
        "Extorsión",
        "Daño a la propiedad",
        "Despojo",
        "Otros delitos contra el patrimonio",
    ):
        rows += _single(_PAT, label)
    for label in (
        "Violencia familiar",
        "Violencia de género en todas sus modalidades distinta a la violencia familiar",
        "Incumplimiento de obligaciones de asistencia familiar",
        "Otros delitos contra la familia",
    ):
        rows += _single(_FAM, label)
    for label in ("Corrupción de menores", "Trata de personas", "Otros delitos contra la sociedad"):
        rows += _single(_SOC, label)
    for label in (
        "Narcomenudeo",
        "Amenazas",
        "Allanamiento de morada",
        "Evasión de presos",
        "Falsedad",
        "Falsificación",
        "Contra el medio ambiente",
        "Delitos cometidos por servidores públicos",
        "Electorales",
        "Otros delitos del Fuero Común",
    ):
        rows += _single(_OTR, label)
    assert len(rows) == 98, len(rows)
    return rows


# The bundled store cannot tell violación simple from equiparada; the real 2015-2022 share.
VIOLACION_SIMPLE_SHARE = 4427 / 4775
SPLIT = {
    "violacion_simple": ("violacion", "violacion", VIOLACION_SIMPLE_SHARE),
    "violacion_equiparada": ("violacion", "violacion", 1 - VIOLACION_SIMPLE_SHARE),
}


@dataclass
class Profile:
    """Real Guanajuato counts per crime × modality: ``values[(delito, metodo)]`` is
    (46 donors × years × 12) with NaN where the month is not published."""

    donors: list[str]  # cve_municipio of the 46 donors
    years: list[int]
    values: dict[tuple[str, str], np.ndarray]
    population: np.ndarray  # donors × years (CONAPO, NaN where missing)
    carried: set[str]  # monthly delito keys of the bundled store


def load_profile(version_dir: Path) -> Profile:
    """Read the bundled store's tables (its Parquet files, or its query database for what it keeps only there)."""
    from core.etl import query_db

    con = duckdb.connect()
    relations = {
        name: query_db.relation(con, Path(version_dir), name) for name in ("incidents", "coverage", "population")
    }
    donors = [
        r[0] for r in con.execute(f"SELECT DISTINCT cve_municipio FROM {relations['incidents']} ORDER BY 1").fetchall()
    ]
    y0, y1 = con.execute(
        f"SELECT min(year(desde)), max(year(hasta)) FROM {relations['coverage']} WHERE granularity = 'month'"
    ).fetchone()
    years = list(range(y0, y1 + 1))
    d_idx = {c: i for i, c in enumerate(donors)}
    combos = con.execute(f"SELECT DISTINCT delito, metodo FROM {relations['incidents']} ORDER BY 1, 2").fetchall()
    cov = con.execute(f"""SELECT delito, desde, hasta FROM {relations["coverage"]}
                          WHERE granularity = 'month' ORDER BY 1, 2""").fetchall()
    covered: dict[str, np.ndarray] = {}
    for delito, desde, hasta in cov:
        mask = covered.setdefault(delito, np.zeros((len(years), 12), dtype=bool))
        a = months_between(date(y0, 1, 1), desde)
        b = months_between(date(y0, 1, 1), hasta)
        flat = mask.reshape(-1)
        flat[a : b + 1] = True
    cells = con.execute(f"""SELECT delito, metodo, cve_municipio, year(fecha) AS y, month(fecha) AS m, eventos
                            FROM {relations["incidents"]}""").fetchnumpy()
    values: dict[tuple[str, str], np.ndarray] = {}
    for delito, metodo in combos:
        arr = np.zeros((len(donors), len(years), 12))
        arr[:, ~covered[delito]] = np.nan  # outside the coverage the month does not exist
        values[(delito, metodo)] = arr
    keys = list(zip(cells["delito"], cells["metodo"]))
    d = np.array([d_idx[c] for c in cells["cve_municipio"]])
    y = np.asarray(cells["y"]) - y0
    m = np.asarray(cells["m"]) - 1
    ev = np.asarray(cells["eventos"], dtype=float)
    for combo in values:
        sel = np.fromiter((k == combo for k in keys), dtype=bool, count=len(keys))
        values[combo][d[sel], y[sel], m[sel]] = ev[sel]
    pop = np.full((len(donors), len(years)), np.nan)
    for cve, anio, p in con.execute(
        f"SELECT cve_municipio, anio, poblacion FROM {relations['population']} "
        "WHERE fuente = 'CONAPO' AND anio BETWEEN ? AND ?",
        [y0, y1],
    ).fetchall():
        if cve in d_idx:
            pop[d_idx[cve], anio - y0] = p
    con.close()
    return Profile(donors, years, values, pop, {k for k, _ in combos})


@dataclass
class Municipality:
    """One synthetic municipality."""

    clave_ent: int
    estado: str
    cve: int  # SSMMM as an integer, as SESNSP writes it
    nombre: str


def municipalities(per_state: dict[str, int]) -> list[Municipality]:
    """Synthetic municipalities ``SSMMM`` named ``Municipio SS-MMM`` for the given states."""
    with (CATALOGS_DIR / "entities" / "estados.csv").open(encoding="utf-8") as fh:
        names = {r["cve_ent"]: r["nombre"] for r in csv.DictReader(fh)}
    out = []
    for cve_ent, n in sorted(per_state.items()):
        for k in range(1, n + 1):
            out.append(
                Municipality(int(cve_ent), names[cve_ent], int(cve_ent) * 1000 + k, f"Municipio {cve_ent}-{k:03d}")
            )
    return out


def row_sources(profile: Profile, crimes: str | list[str]) -> tuple[list[tuple], list[tuple | None]]:
    """The IDM_NM rows to write and, for each, (delito, metodo, share) of its donor or None (zeros).

    ``crimes``: ``"carried"`` (the crimes of the bundled store), ``"all"`` (the 98-row
    catalogue) or a list of delito keys (tipo-level keys such as ``violacion`` expand)."""
    all_rows = sesnsp_rows()
    combos = profile.values
    chosen, sources = [], []
    by_volume = sorted((c for c in combos if np.nansum(combos[c]) > 0), key=lambda c: (-np.nansum(combos[c]), c))
    borrowed = 0
    wanted = None
    if isinstance(crimes, (list, tuple)):
        wanted = set(crimes) | {k for k, (src, _, _) in SPLIT.items() if src in crimes}
    for row in all_rows:
        delito, metodo = slug_key(row[2]), slug_key(row[3])
        carried = delito in profile.carried or delito in SPLIT
        if wanted is not None and delito not in wanted:
            continue
        if crimes == "carried" and not carried:
            continue
        if (delito, metodo) in combos:
            src = (delito, metodo, 1.0)
        elif delito in SPLIT:  # a store that still sums both violación subtipos under one key
            src = SPLIT[delito]
        elif carried:
            src = None  # a modalidad Guanajuato never reported: zeros, as in the real file
        else:
            donor = by_volume[borrowed % len(by_volume)]
            borrowed += 1
            src = (donor[0], donor[1], 1.0)
        chosen.append(row)
        sources.append(src)
    return chosen, sources


def sample_counts(
    profile: Profile, sources: list, n_munis: int, years: list[int], seed: int = 20260115
) -> tuple[np.ndarray, np.ndarray]:
    """Counts (years × municipalities × rows × 12, int32) and the donor of each municipality."""
    rng = np.random.default_rng(seed)
    donors = rng.integers(0, len(profile.donors), size=n_munis)
    out = np.zeros((len(years), n_munis, len(sources), 12), dtype=np.int32)
    for r, src in enumerate(sources):
        if src is None:
            continue
        delito, metodo, share = src
        arr = profile.values[(delito, metodo)]
        for m in range(12):
            ok = np.nonzero(~np.isnan(arr[0, :, m]))[0]  # covered years of this calendar month
            if len(ok) == 0:
                continue
            pick = ok[rng.integers(0, len(ok), size=(len(years), n_munis))]
            vals = arr[donors[None, :], pick, m]
            if share < 1.0:
                vals = rng.binomial(vals.astype(np.int64), share)
            out[:, :, r, m] = vals
    return out, donors


def write_idm_nm(
    path: Path,
    munis: list[Municipality],
    years: list[int],
    rows: list[tuple],
    counts: np.ndarray,
    encoding: str = "latin-1",
) -> dict:
    """Write the IDM_NM CSV (original header; rows ordered by year, municipality, catalogue)."""
    n_y, n_m, n_r = len(years), len(munis), len(rows)
    n = n_y * n_m * n_r
    year_idx = np.repeat(np.arange(n_y, dtype=np.int32), n_m * n_r)
    muni_idx = np.tile(np.repeat(np.arange(n_m, dtype=np.int32), n_r), n_y)
    row_idx = np.tile(np.arange(n_r, dtype=np.int32), n_y * n_m)
    flat = counts.reshape(n, 12)
    facts = pa.table(
        {
            "seq": pa.array(np.arange(n, dtype=np.int64)),
            "y": year_idx,
            "mu": muni_idx,
            "r": row_idx,
            **{f"m{k}": pa.array(flat[:, k]) for k in range(12)},
        }
    )
    dim_m = pa.table(
        {
            "mu": np.arange(n_m, dtype=np.int32),
            "clave_ent": [m.clave_ent for m in munis],
            "entidad": [m.estado for m in munis],
            "cve": [m.cve for m in munis],
            "municipio": [m.nombre for m in munis],
        }
    )
    dim_r = pa.table(
        {
            "r": np.arange(n_r, dtype=np.int32),
            "bien": [r[0] for r in rows],
            "tipo": [r[1] for r in rows],
            "subtipo": [r[2] for r in rows],
            "modalidad": [r[3] for r in rows],
        }
    )
    dim_y = pa.table({"y": np.arange(n_y, dtype=np.int32), "anio": years})
    path = Path(path)
    tmp = path.with_suffix(".utf8.tmp")
    con = duckdb.connect()
    con.execute("SET enable_progress_bar = false")
    con.register("facts", facts)
    con.register("dim_m", dim_m)
    con.register("dim_r", dim_r)
    con.register("dim_y", dim_y)
    months = ", ".join(f'f.m{k} AS "{HEADER[9 + k]}"' for k in range(12))
    con.execute(f"""COPY (
        SELECT y.anio AS "Año", m.clave_ent AS "Clave_Ent", m.entidad AS "Entidad", m.cve AS "Cve. Municipio",
               m.municipio AS "Municipio", r.bien AS "Bien jurídico afectado", r.tipo AS "Tipo de delito",
               r.subtipo AS "Subtipo de delito", r.modalidad AS "Modalidad", {months}
        FROM facts f JOIN dim_y y USING (y) JOIN dim_m m USING (mu) JOIN dim_r r USING (r)
        ORDER BY f.seq) TO '{str(tmp).replace("'", "''")}' (FORMAT csv, HEADER true)""")
    con.close()
    _transcode(tmp, path, encoding)
    tmp.unlink()
    return {
        "path": str(path),
        "rows": n,
        "cells": n * 12,
        "bytes": path.stat().st_size,
        "encoding": encoding,
        "municipios": n_m,
        "anios": [years[0], years[-1]],
        "filas_por_municipio_anio": n_r,
    }


def _transcode(src: Path, dst: Path, encoding: str, chunk: int = 16 * 1024 * 1024) -> None:
    """UTF-8 file → ``encoding``, in chunks (the incremental decoder keeps split characters)."""
    if encoding.lower().replace("_", "-") in ("utf-8", "utf8"):
        src.replace(dst)
        src.touch()
        return
    dec = codecs.getincrementaldecoder("utf-8")()
    with open(src, "rb") as fin, open(dst, "wb") as fout:
        while block := fin.read(chunk):
            fout.write(dec.decode(block).encode(encoding))
        fout.write(dec.decode(b"", final=True).encode(encoding))


def write_population(
    path: Path, munis: list[Municipality], years: list[int], profile: Profile, donors: np.ndarray
) -> dict:
    """CONAPO-layout population (cve_municipio, municipio, anio, poblacion) from each donor."""
    idx = {y: i for i, y in enumerate(profile.years)}
    cols = [idx.get(y, len(profile.years) - 1) for y in years]
    pop = profile.population[:, cols]  # donors × years
    with open(path, "w", encoding="utf-8", newline="") as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(["cve_municipio", "municipio", "anio", "poblacion"])
        n = 0
        for k, m in enumerate(munis):
            for j, y in enumerate(years):
                p = pop[donors[k], j]
                if not np.isnan(p):
                    w.writerow([f"{m.cve:05d}", m.nombre, y, int(p)])
                    n += 1
    return {"path": str(path), "rows": n}


def generate(
    out_dir: Path,
    profile: Profile,
    per_state: dict[str, int],
    years: list[int],
    crimes: str | list[str] = "carried",
    seed: int = 20260115,
    name: str = "IDM_NM_sintetico",
    population: bool = True,
) -> dict:
    """Write the IDM_NM CSV (latin-1) and, optionally, the population CSV; returns their description."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    munis = municipalities(per_state)
    rows, sources = row_sources(profile, crimes)
    counts, donors = sample_counts(profile, sources, len(munis), years, seed)
    info = write_idm_nm(out_dir / f"{name}.csv", munis, years, rows, counts)
    info.update(
        estados=len(per_state), eventos=int(counts.sum()), seed=seed, delitos=sorted({slug_key(r[2]) for r in rows})
    )
    if population:
        info["poblacion"] = write_population(out_dir / f"{name}_poblacion.csv", munis, years, profile, donors)
    return info
