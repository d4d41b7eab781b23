"""The national tables as the state-level tools read them (docs/decisions/0011-observations-and-precedence.md).

One series at a time — a measure (carpetas / víctimas), a jurisdiction (común / federal) and a methodology (IDFC,
RNID, IDEFF) — never two summed. A window is resolved against the months that series publishes (a month it does
not publish is absent, never a zero: 0003). Only rows that stand (``vigente``) are read; a state's carpetas set
aside for its municipalities (``sustituida_por = 'municipal'``) are replaced by the sum of those municipal cells,
as the precedence rule says. Every result names its series and source files.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date

from rapidfuzz import process

from core.ask.wording import methods_phrase
from core.errors import FiltroInvalidoError, RangoFueraDeCorte
from core.text import month_end
from core.tools import ToolContext

RNID_WARNING = "metodología 2026: no comparable con la serie hasta 2025"
COUNTRY = "MX"


@dataclass(frozen=True)
class Series:
    """One kind of number of ``observations``: never summed with another."""

    medida: str  # carpetas | victimas
    fuero: str  # comun | federal
    metodologia: str  # IDFC | RNID | IDEFF

    @property
    def label(self) -> str:
        """Spanish name of the series, as an answer says it."""
        what = "víctimas" if self.medida == "victimas" else "carpetas de investigación"
        method = {
            "IDFC": "serie hasta 2025 (IDFC)",
            "RNID": "metodología 2026 (RNID)",
            "IDEFF": "serie federal (IDEFF)",
        }.get(self.metodologia, self.metodologia)
        return f"{what} del fuero {'federal' if self.fuero == 'federal' else 'común'}, {method}"

    def where(self, alias: str = "o") -> tuple[str, list]:
        """SQL condition (parameterized) selecting this series' standing state-level rows."""
        return (
            f"{alias}.medida = ? AND {alias}.fuero = ? AND {alias}.metodologia = ?",
            [self.medida, self.fuero, self.metodologia],
        )

    def describe(self) -> dict:
        """The three labels every result of the national tables carries."""
        return {"metodologia": self.metodologia, "medida": self.medida, "fuero": self.fuero}


COMUN_IDFC = Series("carpetas", "comun", "IDFC")


@dataclass
class Window:
    """A window of whole months inside what one series publishes."""

    start: date
    end: date
    requested: tuple[str, str]
    adjustments: list[str] = field(default_factory=list)
    months: int = 0  # published months inside the window
    missing: list[str] = field(default_factory=list)  # YYYY-MM inside the window the series does not publish
    series_end: date | None = None  # the series' last published month: its own «datos hasta», not the store's

    def meta(self) -> dict:
        """The envelope's window keys (the engine's scope does not hold a national window)."""
        return {
            "date_range_effective": {"from": self.start.isoformat(), "to": self.end.isoformat()},
            "date_range_requested": (
                {"from": self.requested[0], "to": self.requested[1]} if self.requested[0] else None
            ),
            "range_adjusted": bool(self.adjustments),
            "range_adjusted_reason": "; ".join(self.adjustments) or None,
            "serie_hasta": self.series_end.isoformat() if self.series_end else None,
        }

    @property
    def label(self) -> str:
        """'2024-01..2024-11' for headlines."""
        return f"{self.start:%Y-%m}..{self.end:%Y-%m}"


@dataclass(frozen=True)
class Crime:
    """A crime key of one series: a subtipo (``delito``), a tipo (``tipo_key``) or every crime (key None)."""

    key: str | None
    level: str  # delito | tipo | todos
    label: str
    tentativas: tuple[str, ...] = ()  # attempt subtipos a tipo includes (RNID)
    metodos: tuple[str, ...] = ()  # modalidades asked («con arma de fuego»); none: every modalidad
    members: tuple[str, ...] = ()  # the subtipos a named sum adds up (level grupo: «robo a transeúnte»)

    def where(self, alias: str = "o") -> tuple[str, list]:
        """SQL condition (parameterized) selecting the crime's rows (and its modalidades when asked)."""
        how = f" AND {alias}.metodo IN ({', '.join('?' * len(self.metodos))})" if self.metodos else ""
        if self.key is None:
            return ("TRUE" + how), [*self.metodos]
        if self.members:
            return f"{alias}.delito IN ({', '.join('?' * len(self.members))}){how}", [*self.members, *self.metodos]
        column = "delito" if self.level == "delito" else "tipo_key"
        return f"{alias}.{column} = ?{how}", [self.key, *self.metodos]

    def cells_where(self, alias: str = "incidents") -> tuple[str, list]:
        """The same condition over municipal cells (``incidents`` has no tipo_key: a tipo is its subtipos)."""
        how = f" AND {alias}.metodo IN ({', '.join('?' * len(self.metodos))})" if self.metodos else ""
        if self.key is None:
            return ("TRUE" + how), [*self.metodos]
        if self.members:
            return f"{alias}.delito IN ({', '.join('?' * len(self.members))}){how}", [*self.members, *self.metodos]
        if self.level == "delito":
            return f"{alias}.delito = ?{how}", [self.key, *self.metodos]
        return (
            f"{alias}.delito IN (SELECT c.delito FROM crime_levels c WHERE c.tipo_key = ?){how}",
            [self.key, *self.metodos],
        )


def _parse(value: str, name: str) -> date:
    try:
        return date.fromisoformat(str(value))
    except ValueError:
        raise RangoFueraDeCorte(f"Fecha inexistente en {name}: {str(value)[:20]}.", ["Use AAAA-MM-DD."]) from None


def window(ctx: ToolContext, series: Series, desde: str | None, hasta: str | None) -> Window:
    """The asked window aligned to whole months and clamped to the months the series publishes.

    Without one, the series' last 12 published months (its own anchor: each series ends at a different month)."""
    cond, params = series.where()
    # state-level months only: municipal rows of the same series (Guanajuato's files) reach later months
    state_level = (
        f"SELECT DISTINCT fecha FROM observations o WHERE o.nivel IN ('estado', 'extranjero') AND {cond} ORDER BY 1"
    )
    # once per version: the scan over every state row is most of a small answer's time
    published = ctx.memo(("published", series), lambda: [r[0] for r in ctx.query(state_level, params)])
    if not published:
        raise RangoFueraDeCorte(f"No hay datos cargados de {series.label}.", ["Cargue el archivo con la ETL."])
    lo, hi = published[0], month_end(published[-1].year, published[-1].month)
    if desde is None or hasta is None:
        first = date(hi.year - (hi.month < 12), hi.month % 12 + 1, 1)  # twelve months ending at the last one
        start = max(first, lo)
        win = Window(start, hi, ("", ""))
        win.adjustments.append(f"sin ventana pedida: los últimos 12 meses publicados de la serie, {start}..{hi}")
        return _published(win, published)
    a, b = _parse(desde, "desde"), _parse(hasta, "hasta")
    if a > b:
        raise RangoFueraDeCorte(f"desde ({a}) es posterior a hasta ({b}).", ["Asegure desde <= hasta."])
    start, end = a.replace(day=1), month_end(b.year, b.month)
    win = Window(start, end, (str(desde), str(hasta)))
    if (start, end) != (a, b):
        win.adjustments.append(f"ventana alineada a meses completos: {start}..{end}")
    if end < lo or start > hi:
        raise RangoFueraDeCorte(
            f"La ventana {start:%Y-%m}..{end:%Y-%m} está fuera de {series.label}, que cubre {lo:%Y-%m}..{hi:%Y-%m}.",
            ["Elija una ventana dentro de la cobertura de la serie.", "Un mes no publicado no es un cero."],
        )
    if start < lo or end > hi:
        win.start, win.end = max(start, lo), min(end, hi)
        win.adjustments.append(f"recortada a los meses publicados de la serie: {win.start}..{win.end}")
    return _published(win, published)


def _published(win: Window, published: list[date]) -> Window:
    """Count the window's published months and list the ones the series leaves out (never zeros)."""
    win.series_end = month_end(published[-1].year, published[-1].month)
    inside = {d for d in published if win.start <= d <= win.end}
    win.months = len(inside)
    cursor = win.start
    while cursor <= win.end:  # at most a few hundred months: the calendar, not data rows
        if cursor not in inside:
            win.missing.append(f"{cursor:%Y-%m}")
        cursor = date(cursor.year + cursor.month // 12, cursor.month % 12 + 1, 1)
    return win


def place(ctx: ToolContext, lugar_id: str) -> tuple[str, str]:
    """(lugar_id, label) of the country or a state; an unknown id is a contract error in Spanish."""
    got = ctx.query("SELECT label FROM places WHERE lugar_id = ? AND nivel IN ('pais', 'estado')", [lugar_id])
    if not got:
        ids = [r[0] for r in ctx.query("SELECT lugar_id FROM places WHERE nivel IN ('pais', 'estado') ORDER BY 1")]
        raise FiltroInvalidoError(
            f"El lugar {str(lugar_id)[:40]} no es el país ni un estado del catálogo de lugares.",
            _suggest(str(lugar_id), ids) or [f"Claves: {', '.join(ids)}."],
            "args.lugar_id",
        )
    return lugar_id, ("México (nacional)" if lugar_id == COUNTRY else SPOKEN_NAMES.get(lugar_id, got[0][0]))


# INEGI names the state «México», which a sentence would read as the country: answers say the name people use
SPOKEN_NAMES = {"MEX": "Estado de México"}


def _suggest(value: str, choices: list[str]) -> list[str]:
    hits = process.extract(value[:60], choices, limit=3, score_cutoff=60)
    return [f"¿Quiso decir {', '.join(h[0] for h in hits)}?"] if hits else []


def crime(ctx: ToolContext, series: Series, key: str | None, metodo: str | list | None = None) -> Crime:
    """The crime a key names in one series (subtipo first, then tipo), with the modalidades asked.

    An unknown key, or a modalidad the series does not publish for that crime, is a contract error."""
    found = _crime(ctx, series, key)
    if not metodo:
        return found
    asked = tuple(dict.fromkeys([metodo] if isinstance(metodo, str) else metodo))
    cond, params = found.where("c")
    rows = ctx.query(
        f"""SELECT DISTINCT c.metodo, coalesce(c.modalidad, c.metodo) FROM crime_levels c
            WHERE c.fuero = ? AND c.metodologia = ? AND c.metodo IS NOT NULL AND {cond} ORDER BY 1""",
        [series.fuero, series.metodologia, *params],
    )
    names = dict(rows)
    unknown = [m for m in asked if m not in names]
    if unknown:
        raise FiltroInvalidoError(
            f"{series.label.capitalize()} no publica {found.label.lower()} con la modalidad "
            f"{', '.join(str(m)[:40] for m in unknown)}.",
            [f"Modalidades publicadas: {', '.join(sorted(names)) or 'ninguna'}."],
            "args.metodo",
        )
    how = methods_phrase([names[m].lower() for m in asked])  # «robo de coche de 4 ruedas, con y sin violencia»
    return Crime(found.key, found.level, f"{found.label} ({how})", found.tentativas, asked, found.members)


def _crime(ctx: ToolContext, series: Series, key: str | None) -> Crime:
    if not key:
        return Crime(None, "todos", "todos los delitos")
    rows = ctx.query(
        """SELECT delito = ? AS exact, tipo_key, delito, coalesce(tipo, ley), subtipo FROM crime_levels
           WHERE fuero = ? AND metodologia = ? AND (delito = ? OR tipo_key = ?)""",
        [key, series.fuero, series.metodologia, key, key],
    )
    # a subtipo row names the subtipo; a tipo-level row (subtipo NULL: a municipal file's merged tipo) keys the tipo
    exact = [r for r in rows if r[0] and r[4] is not None]
    if exact:
        return Crime(key, "delito", exact[0][4] or exact[0][3])
    if any(r[1] == key for r in rows):
        attempts = tuple(sorted({r[2] for r in rows if r[4] and "tentativa" in r[4].lower()}))
        return Crime(key, "tipo", rows[0][3], attempts)
    group = _group(ctx, series, key)
    if group is not None:
        return group
    keys = [
        r[0]
        for r in ctx.query(
            """SELECT DISTINCT k FROM (SELECT delito AS k FROM crime_levels WHERE fuero = ? AND metodologia = ?
               UNION SELECT tipo_key FROM crime_levels WHERE fuero = ? AND metodologia = ?) ORDER BY 1""",
            [series.fuero, series.metodologia] * 2,
        )
    ]
    raise FiltroInvalidoError(
        f"El delito {str(key)[:60]} no existe en {series.label}.",
        _suggest(str(key), keys) or ["Consulte las claves de cada serie en la página Datos."],
        "args.clave_delito",
    )


def _group(ctx: ToolContext, series: Series, key: str) -> Crime | None:
    """A named sum of the catalog («robo a transeúnte»: its two subtipos) when the series publishes every member."""
    row = next((c for c in getattr(ctx.catalog, "crimes", None) or [] if c["delito"] == key), None)
    members = tuple(k for k in ((row or {}).get("incluye") or "").split("|") if k)
    if row is None or row.get("nivel") != "grupo" or not members:
        return None
    found = ctx.query(
        f"""SELECT count(DISTINCT delito) FROM crime_levels WHERE fuero = ? AND metodologia = ?
            AND subtipo IS NOT NULL AND delito IN ({", ".join("?" * len(members))})""",
        [series.fuero, series.metodologia, *members],
    )
    return Crime(key, "grupo", row["subtipo"], members=members) if found[0][0] == len(members) else None


def population(ctx: ToolContext, year: int, sexo: str = "total") -> dict[str, int]:
    """CONAPO mid-year population of the country and every state in a year (place_population)."""
    rows = ctx.query(
        """SELECT lugar_id, any_value(poblacion) FROM place_population
           WHERE anio = ? AND sexo = ? AND nivel IN ('pais', 'estado') GROUP BY 1""",
        [year, sexo],
    )
    return {r[0]: int(r[1]) for r in rows}


def provenance(series: Series, files: list[str], win: Window, municipal: bool = False) -> dict:
    """What the numbers are and where they come from: the metrics and meta every national result carries."""
    out = {
        **series.describe(),
        "serie": series.label,
        "fuente": sorted(set(files)),
        "vigente": True,
        "meses_publicados": win.months,
    }
    if municipal:
        out["precedencia"] = "nivel más fino primero: celdas de Guanajuato tomadas de la suma de sus municipios"
    return out


def warnings(series: Series, crime_: Crime, win: Window) -> list[str]:
    """The warnings of a national result: methodology, attempts inside a tipo, months not published."""
    out = []
    if series.metodologia == "RNID":
        out.append(f"Cifras RNID, {RNID_WARNING}.")
    if crime_.tentativas:
        out.append(
            f"{crime_.label} incluye tentativas ({', '.join(crime_.tentativas)}): use el subtipo para excluirlas."
        )
    if win.missing:
        out.append(f"Meses sin publicar en la ventana (no son ceros): {', '.join(win.missing[:12])}.")
    return out


def source_line(series: Series, files: list[str]) -> str:
    """«carpetas de investigación del fuero común, serie hasta 2025 (IDFC); fuente: …» for headlines."""
    return f"{series.label}; fuente: {', '.join(sorted(set(files))) or 'sin filas'}"


def check_window(check) -> None:
    """Validation: desde and hasta go together, are real dates and in order (coverage is checked when the tool runs)."""
    if ("desde" in check.args) != ("hasta" in check.args):
        check.problem(
            "INVALID_DATE_RANGE", f"{check.spec.name}: desde y hasta van juntos.", ["Indique ambas fechas."], ".args"
        )
        return
    a, b = check.date("desde"), check.date("hasta")
    if a and b and a > b:
        check.problem(
            "INVALID_DATE_RANGE",
            f"{check.spec.name}: desde ({a}) es posterior a hasta ({b}).",
            ["Asegure desde <= hasta."],
            ".args",
        )
