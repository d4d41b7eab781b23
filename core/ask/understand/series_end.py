"""Where a question's series ends: relative periods («lo que va del año») count from there, not the store's month.

The crime's own last published month comes from the metadata's coverage; a crime only a municipality's own finer
file publishes ends with that file (Irapuato's robo a casa habitación, 2025-12; docs/decisions/0016); a national
question's state-level series ends with its file (the state file's 2024-11, victims' 2025-06, federal 2025-07).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import date

from core.ask.understand import Understanding, national
from core.ask.understand.lexicon import Lexicon
from core.ask.understand.timeexpr import parse_time, reanchor
from core.ask.understand.tokens import MAX_CHARS, tokenize


@dataclass(frozen=True)
class SeriesEnds:
    """The ends a relative period may count from: the metadata's ``coverage`` and ``coverage_municipal``, and the
    catalog's national ``series`` (state file, victims, federal, RNID)."""

    coverage: dict | None = None
    municipal: dict | None = None
    series: dict[str, date] | None = None

    def crime_end(self, crimes, lexicon: Lexicon, place: str | None) -> date | None:
        """The last published day of the crimes named (their subtypes' or members' for a tipo or a group); with
        ``place``, a crime only that municipality's own finer file publishes counts from that file's end, while one
        the common files carry keeps their end (Irapuato's homicidio doloso: the state's month)."""
        ends = []
        for c in crimes:
            parts = [k for k, tipo in lexicon.tipo_of.items() if tipo == c.delito]
            for key in [c.delito, *parts, *lexicon.members.get(c.delito, ())]:
                info = (self.coverage or {}).get(key) or {}
                if info.get("hasta") and info.get("granularity", "month") == "month":
                    ends.append(date.fromisoformat(info["hasta"]))
                    continue
                own = ((self.municipal or {}).get(key) or {}).get(place or "", [])
                ends += [date.fromisoformat(r["hasta"]) for r in own]
        return max(ends) if ends else None

    def of_crimes(self, crimes, places, lexicon: Lexicon, anchor: date) -> tuple[date | None, str]:
        """The crimes' end and how the answer names whose end it is («En Irapuato, ese delito» past the store)."""
        own = own_place(places)
        end = self.crime_end(crimes, lexicon, own)
        later = end is not None and own is not None and end > anchor
        subject = f"En {next(p.label for p in places if p.entidad_id == own)}, ese delito" if later else "Ese delito"
        return end, subject


def own_place(places) -> str | None:
    """The one municipality a question names (its own file may end after the store), else None."""
    municipalities = [p.entidad_id for p in places if p.nivel == "municipio"]
    return municipalities[0] if len(municipalities) == 1 else None


def national_anchor(
    u: Understanding, text: str, asked, anchor: date, min_date: date, ends: SeriesEnds | None
) -> Understanding:
    """A national question's relative period counted from its state-level series' own end, said as such: never a
    window the series does not reach."""
    key = national.series_key(u)
    end = ((ends.series if ends else None) or {}).get(key) if key else None
    return anchored_to(u, text, asked, end, anchor, min_date, "Esa serie")


def anchored_to(u: Understanding, text: str, asked, end, anchor: date, min_date: date, subject: str) -> Understanding:
    """``u`` with the period its words ``asked`` read from ``end`` instead of the store's month, when it differs."""
    again = reanchor(text, asked, end, anchor, min_date, subject)
    if again is asked or (again.window, again.compare_window) == (u.window, u.compare_window):
        return u
    notes = [n for n in u.notes if "el periodo relativo se contó" not in n] + again.notes[-1:]
    signals = list(dict.fromkeys([*u.signals, "time:crime_anchor"]))
    return replace(u, window=again.window, compare_window=again.compare_window, notes=notes, signals=signals)


def anchored_follow_up(
    u: Understanding, lexicon: Lexicon, anchor: date, min_date: date = date(2015, 1, 1), ends: SeriesEnds | None = None
) -> Understanding:
    """A merged follow-up whose own words give a relative period («¿y en lo que va del año?», «¿y el mes pasado?»):
    that period counted from the merged question's series (its crime, its municipality's own file, its national
    series), as a whole question's would be."""
    text = tokenize((u.question or "")[:MAX_CHARS]).text
    asked = parse_time(text, anchor, min_date)
    if asked.window is None or (asked.window, asked.compare_window) != (u.window, u.compare_window):
        return u  # the period came from the previous turn, or was already read against its series
    if national.series_key(u):
        return national_anchor(u, text, asked, anchor, min_date, ends)
    end, subject = (ends or SeriesEnds()).of_crimes(u.crimes, u.places, lexicon, anchor)
    return anchored_to(u, text, asked, end, anchor, min_date, subject)


def home_past_state_file(u: Understanding, ends: SeriesEnds | None) -> Understanding:
    """«y los mismos tres meses de 2025 en Guanajuato» after a question about the country: a window the state file
    does not reach, for Guanajuato, is Guanajuato's own figure (its municipalities' sums), not the country's."""
    end = ((ends.series if ends else None) or {}).get("carpetas/comun/IDFC")
    home = u.whole_state or any(p.nivel == "estado" for p in u.places)
    country = {"national:country", "national:place:MX"}
    if end is None or not home or u.window is None or u.window[0] <= end or not country & set(u.signals):
        return u
    if national.series_key(u) != "carpetas/comun/IDFC":
        return u  # victims and federal crimes are the state files' own: their end is said
    return replace(u, signals=[s for s in u.signals if s not in country])
