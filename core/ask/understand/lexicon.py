"""The understanding lexicon: every name of the store's places, crimes and methods, precomputed.

Built once per catalog version. Exact lookups are dictionary hits on token keys; fuzzy
matching (rapidfuzz) only runs on the n-grams left over after exact matching, against keys
bucketed by token count, so a national store (≈2,500 municipalities) stays fast.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from rapidfuzz import fuzz, process

from core.ask.understand.tokens import COMMON_WORDS, STOPWORDS, feminine, key_of, stem, words_of

# Single-word names that are also ordinary Spanish words: a place only after a place cue.
WEAK_NAMES = words_of(
    "valle victoria dolores union paz progreso reforma libres allende jaral purisima hidalgo morelos juarez "
    "guerrero zaragoza independencia libertad esperanza soledad guadalupe trinidad concordia providencia "
    "cruz tierra pueblo nuevo alto grande"
)
# Tokens too generic to point at one municipality when used alone ("en Santiago" is fine, "en Nuevo" is not).
_PARTIAL_EXCLUDED = WEAK_NAMES | words_of("san santa santo cuna nacional de la las los del el ciudad villa general")
# Everyday names of the yearly total that the taxonomy does not list.
_EXTRA_SYNONYMS = {
    "total_delitos": [
        "delitos del fuero comun",
        "incidencia delictiva",
        "incidencia delictiva total",
        "delitos en total",
        "total delictivo",
        "total de la incidencia",
    ]
}
# How the press and analysts write crimes, modalidades and places, with the source of each alias (data, not code).
ALIAS_FILE = Path("taxonomy") / "alias_prensa.json"
# A municipality followed by its state ("León, Gto.", "Celaya Guanajuato") is that municipality.
_STATE_SUFFIXES = ("gto", "guanajuato", ", gto", ", guanajuato")
# Entities that are bookkeeping rows of SESNSP, not places anyone asks about.
_BOOKKEEPING = frozenset({"no especificado", "no especificada", "otros municipios", "otro municipio"})
# Abbreviations that are ordinary words ("son", "sin", "ver") are never read as states.
_BAD_ABBREVIATIONS = (
    COMMON_WORDS | STOPWORDS | frozenset({"son", "sin", "ver", "col", "mor", "camp", "pue", "tab", "mex"})
)


@dataclass(frozen=True)
class EntityRef:
    """A place of the store."""

    entidad_id: str
    label: str
    nivel: str  # "estado" | "municipio"
    estado_id: str


@dataclass(frozen=True)
class PlaceEntry:
    """One name of one place; ``how`` is label | short | alias | abbr | prefixed."""

    entity: EntityRef
    how: str
    weak: bool = False


@dataclass(frozen=True)
class CrimeRef:
    """A crime key of the store's taxonomy."""

    delito: str
    label: str
    nivel: str  # subtipo | tipo | serie
    in_data: bool
    how: str = "label"  # label | synonym | tipo


@dataclass(frozen=True)
class MethodRef:
    """A method (modality) key."""

    metodo: str
    label: str
    violencia: str | None


@dataclass
class Lexicon:
    """Normalized names → places, crimes and methods of one catalog version."""

    version: str
    entities: dict[str, EntityRef] = field(default_factory=dict)
    places: dict[str, tuple[PlaceEntry, ...]] = field(default_factory=dict)
    crimes: dict[str, CrimeRef] = field(default_factory=dict)  # stemmed key → crime
    methods: dict[str, MethodRef] = field(default_factory=dict)  # stemmed key → method
    crime_by_key: dict[str, CrimeRef] = field(default_factory=dict)
    method_by_key: dict[str, MethodRef] = field(default_factory=dict)
    foreign_states: dict[str, str] = field(default_factory=dict)  # key → abbreviation of a state not in the store
    partial: dict[str, frozenset[str]] = field(default_factory=dict)  # name token → entidad_ids
    any_place: dict[str, str] = field(default_factory=dict)  # key → "place" | "foreign"
    qualifiers: dict[str, dict[str, str]] = field(default_factory=dict)  # "dolos" → {tipo key: subtype key}
    tipo_of: dict[str, str] = field(default_factory=dict)  # subtype key → tipo key (a qualifier's pair)
    family: dict[str, str] = field(default_factory=dict)  # every subtipo key → the tipo key that sums it
    members: dict[str, tuple[str, ...]] = field(default_factory=dict)  # a named sum's subtipos (grupos.json)
    notes: dict[str, str] = field(default_factory=dict)  # "no_sesnsp:…" key → why it is not a SESNSP crime
    near: dict[str, tuple[str, ...]] = field(default_factory=dict)  # "no_sesnsp:…" key → the closest SESNSP crimes
    exact_only: set[str] = field(default_factory=set)  # press abbreviations ("hom doloso"): never a fuzzy target
    # "muerto en choque" → (en_accidente_de_transito,); "robo de carro" → the two «coche de 4 ruedas» modalidades
    implied_method: dict[str, tuple[str, ...]] = field(default_factory=dict)
    methods_of: dict[str, frozenset[str]] = field(default_factory=dict)  # crime key → the modalidades it publishes
    implied_kind: set[str] = field(default_factory=set)  # aliases that name a kind of their crime («robo de carro»)
    home_state: str | None = None
    max_place_len: int = 1
    max_crime_len: int = 1
    max_method_len: int = 1
    _buckets: dict[tuple[str, int], list[str]] = field(default_factory=dict)

    @classmethod
    def from_catalog(cls, catalog) -> Lexicon:
        """The lexicon of a catalog (cached per ``catalog.catalog_version``)."""
        version = getattr(catalog, "catalog_version", None)
        if version is not None and version in _CACHE:
            return _CACHE[version]
        lex = cls(version=version or "")
        lex._add_entities(catalog.entities)
        lex._add_crimes(catalog.crimes)
        lex._add_methods(catalog.methods)
        lex._add_rnid_only(getattr(catalog, "rnid_only", []))
        lex._add_press_aliases(press_aliases())
        lex._finish()
        if version is not None:
            _CACHE[version] = lex
        return lex

    @staticmethod
    def cached(version: str) -> Lexicon | None:
        """The lexicon already built for a catalog version (None when there is none)."""
        return _CACHE.get(version)

    # -- building ---------------------------------------------------------------------------
    def _put_place(self, phrase: str | None, entry: PlaceEntry) -> None:
        key = key_of(phrase or "")
        if not key or key in STOPWORDS:
            return
        weak = entry.weak or (" " not in key and (key in WEAK_NAMES or key in COMMON_WORDS))
        current = self.places.get(key, ())
        if any(e.entity.entidad_id == entry.entity.entidad_id for e in current):
            return
        self.places[key] = current + (PlaceEntry(entry.entity, entry.how, weak),)

    def _add_entities(self, rows: list[dict]) -> None:
        counts: dict[str, int] = {}
        for row in rows:
            ref = EntityRef(row["entidad_id"], row["label"], row["nivel"], row.get("estado_id") or row["entidad_id"])
            self.entities[ref.entidad_id] = ref
            names = [row.get("label"), row.get("nombre_corto")]
            aliases = [a for a in (row.get("aliases") or "").split("|") if a.strip()]
            if ref.nivel == "estado":
                self._add_state(ref, names, aliases)
                continue
            counts[ref.estado_id] = counts.get(ref.estado_id, 0) + 1
            if key_of(row["label"]) in _BOOKKEEPING:  # only "municipio no especificado" names it
                self._put_place(f"municipio {row['label']}", PlaceEntry(ref, "label"))
                continue
            for how, phrase in [("label", names[0]), ("short", names[1])] + [("alias", a) for a in aliases]:
                self._put_place(phrase, PlaceEntry(ref, how))
                self._put_place(f"municipio de {phrase}", PlaceEntry(ref, "prefixed"))
                for short in _abbreviated(phrase):  # «S. Miguel de Allende», «Sta. Catarina», «Sn. Felipe»
                    self._put_place(short, PlaceEntry(ref, "alias"))
            for phrase in [names[0], names[1], *aliases]:
                words = key_of(phrase or "").split()
                for w in words if len(words) > 1 else ():
                    if len(w) >= 4 and w not in _PARTIAL_EXCLUDED and w not in COMMON_WORDS:
                        self.partial[w] = self.partial.get(w, frozenset()) | {ref.entidad_id}
        states = [e for e in self.entities.values() if e.nivel == "estado"]
        if any(s.entidad_id == "GTO" for s in states):
            self.home_state = "GTO"  # Casandra is Guanajuato's tool: its state wins ties
        elif states:
            self.home_state = max(states, key=lambda s: (counts.get(s.entidad_id, 0), s.entidad_id)).entidad_id
        self._add_foreign_states()

    def _add_state(self, ref: EntityRef, names: list, aliases: list[str]) -> None:
        for how, phrase in [("label", names[0]), ("short", names[1])] + [("alias", a) for a in aliases]:
            if key_of(phrase or "") == "mexico":  # "en México" is the country, not the state
                continue
            self._put_place(phrase, PlaceEntry(ref, how))
            self._put_place(f"estado de {phrase}", PlaceEntry(ref, "prefixed"))
            self._put_place(f"entidad de {phrase}", PlaceEntry(ref, "prefixed"))
        abbr = key_of(ref.entidad_id)
        if abbr not in _BAD_ABBREVIATIONS:
            self._put_place(abbr, PlaceEntry(ref, "abbr"))

    def _add_foreign_states(self) -> None:
        """Names of the 32 states, so "en Jalisco" on a Guanajuato store is reported, not ignored."""
        from core.dataset.entities import load_states
        from core.errors import CasandraError

        try:
            states = load_states()
        except (OSError, ValueError, KeyError, CasandraError):  # a broken reference file must not break understanding
            return
        present = {e.estado_id for e in self.entities.values()}
        for st in states:
            if st.abreviatura in present:
                continue
            for name in (st.nombre, *st.aliases):
                key = key_of(name)
                if key and key != "mexico" and key not in self.places:
                    self.foreign_states[key] = st.abreviatura
                    self.foreign_states.setdefault(f"estado de {key}", st.abreviatura)
            # «homicidios dolosos NL 2020», «Jal. homicidio doloso»: the press's abbreviation is that state too, never
            # a word left over (which would leave Guanajuato as the place)
            abbr = key_of(st.abreviatura)
            if abbr not in _BAD_ABBREVIATIONS and abbr not in self.places and abbr not in self.foreign_states:
                self.foreign_states[abbr] = st.abreviatura

    def _add_crimes(self, rows: list[dict]) -> None:
        in_data = {r["delito"]: bool(r.get("en_datos")) for r in rows}
        ranked: list[tuple[int, str, CrimeRef]] = []
        for r in rows:
            included = [k for k in (r.get("incluye") or "").split("|") if k]
            # a tipo-level key is answerable when every subtype it sums is in the store: «robos» with only bank
            # robberies loaded is not loaded (a sum of one subtype would answer a question nobody asked)
            present = in_data[r["delito"]] or (bool(included) and all(in_data.get(k, False) for k in included))
            label = r.get("subtipo") or r["delito"]
            base = CrimeRef(r["delito"], label, r.get("nivel") or "subtipo", present)
            self.crime_by_key[base.delito] = base
            own = r.get("metodos") or ()
            if own:
                self.methods_of[base.delito] = frozenset(own.split("|") if isinstance(own, str) else own)
            phrases = [(0, "label", r["delito"].replace("_", " ")), (0, "label", label)]
            phrases += [(1, "synonym", s) for s in (r.get("sinonimos") or "").split("|") if s.strip()]
            phrases += [(1, "synonym", s) for s in _EXTRA_SYNONYMS.get(base.delito, [])]
            if base.nivel != "grupo":
                self._add_qualifiers(r, included, rows)
                self.family.update((k, base.delito) for k in included)
            elif r.get("tipo_key"):  # a named sum («robo a transeúnte») is a kind of its tipo, not its members' tipo
                self.family[base.delito] = r["tipo_key"]
                self.members[base.delito] = tuple(included)
            if base.nivel == "tipo":
                phrases += [(2, "tipo", r.get("tipo") or ""), (2, "tipo", (r.get("tipo_key") or "").replace("_", " "))]
            for rank, how, phrase in phrases:
                ranked.append((rank, phrase, CrimeRef(base.delito, label, base.nivel, present, how)))
        for _rank, phrase, ref in sorted(ranked, key=lambda t: t[0]):  # labels beat synonyms beat tipo names
            key = key_of(phrase, stemmed=True)
            if key and key not in STOPWORDS:
                self.crimes.setdefault(key, ref)

    def _add_qualifiers(self, tipo_row: dict, included: list[str], rows: list[dict]) -> None:
        """ "Homicidio" + "doloso" = homicidio_doloso: for "¿y dolosos?" and "homicidio doloso y culposo"."""
        labels = {r["delito"]: r.get("subtipo") or r["delito"] for r in rows}
        head = key_of(tipo_row.get("subtipo") or "", stemmed=True).split()
        for sub in included:
            words = key_of(labels.get(sub, ""), stemmed=True).split()
            if len(words) == len(head) + 1 and words[: len(head)] == head:
                self.qualifiers.setdefault(qualifier_key(words[-1]), {})[tipo_row["delito"]] = sub
                self.tipo_of[sub] = tipo_row["delito"]

    def _add_methods(self, rows: list[dict]) -> None:
        for r in rows:
            ref = MethodRef(r["metodo"], r.get("modalidad") or r["metodo"], r.get("violencia"))
            self.method_by_key[ref.metodo] = ref
            for phrase in [r["metodo"].replace("_", " "), ref.label, *(r.get("sinonimos") or "").split("|")]:
                key = key_of(phrase, stemmed=True)
                # modalities named like a crime ("Fraude", "Violación") are the crime itself
                if key and key not in self.crimes and key not in STOPWORDS:
                    self.methods.setdefault(key, ref)

    def _add_rnid_only(self, rows: list[dict]) -> None:
        """Subtipos only the 2026 methodology publishes (by state): «tentativa de homicidio», «posesión simple».

        Their names never shadow a crime of the series to 2025; each is known by its label, by the label without
        its closing «doloso/dolosa» (the press's «tentativa de homicidio»), and by what follows its tipo's name
        when that is two words or more («posesión simple» of «Narcomenudeo posesión simple»)."""
        for r in rows:
            if r["delito"] in self.method_by_key:  # «secuestro con calidad de rehén»: a modalidad of the series to 2025
                continue
            label = r["subtipo"]
            ref = CrimeRef(r["delito"], label, "subtipo", False, "rnid")
            self.crime_by_key.setdefault(ref.delito, ref)
            phrases = [label, r["delito"].replace("_", " "), re.sub(r"\s+dolos[oa]s?$", "", label, flags=re.I)]
            tipo = (r.get("tipo_key") or "").replace("_", " ")
            rest = key_of(label)
            if tipo and rest.startswith(key_of(tipo) + " ") and len(rest.split()) - len(tipo.split()) >= 2:
                phrases.append(rest[len(key_of(tipo)) + 1 :])
            # «Suplantación y usurpación de identidad»: each noun with what follows («suplantación de identidad»)
            pair = re.match(r"^(\w+)\s+y\s+(\w+)\s+((?:de|del|en)\s.+)$", rest)
            if pair:
                phrases += [f"{pair[1]} {pair[3]}", f"{pair[2]} {pair[3]}"]
            for phrase in phrases:
                key = key_of(phrase, stemmed=True)
                # «secuestro exprés» is a modalidad of the series to 2025: tipo + modalidad reads both series
                if key and key not in STOPWORDS and key not in self.methods:
                    self.crimes.setdefault(key, ref)

    def _add_press_aliases(self, data: dict) -> None:
        """alias_prensa.json: abbreviations and colloquial names; the taxonomy's own names win a clash."""
        entries = [(e, key_of(e["alias"], stemmed=True)) for e in data.get("delitos", [])]
        # «mujeres asesinadas a balazos»: the feminine of «asesinado a balazo», after every alias as written
        entries += [(e, fem) for e, key in list(entries) if (fem := feminine(key))]
        for entry, key in entries:
            ref = self.crime_by_key.get(entry["delito"])
            if ref is not None and key and key not in STOPWORDS and key not in self.crimes:
                self.crimes[key] = CrimeRef(ref.delito, ref.label, ref.nivel, ref.in_data, "alias")
                self.exact_only.add(key)
                named = [m for m in [entry.get("metodo"), *entry.get("metodos", ())] if m in self.method_by_key]
                # the alias names the modalidad too, or a kind of its crime («robo de carro»: a coche, either violence)
                if named:
                    self.implied_method[key] = tuple(named)
                    self.implied_kind |= {key} if entry.get("metodos") else set()
        for entry in data.get("modalidades", []):
            ref = self.method_by_key.get(entry["metodo"])
            key = key_of(entry["alias"], stemmed=True)
            if ref is not None and key and key not in STOPWORDS:
                self.methods.setdefault(key, ref)
        for entry in data.get("no_sesnsp", []):
            key = key_of(entry["alias"], stemmed=True)
            delito = "no_sesnsp:" + key.replace(" ", "_")
            if key and key not in self.crimes:
                self.crimes[key] = CrimeRef(delito, entry["alias"], "no_sesnsp", False, "not_sesnsp")
                self.notes[delito] = entry["nota"]
                self.near[delito] = tuple(entry.get("cercanos") or ())
        for entry in data.get("lugares", []):
            ref = self.entities.get(entry["entidad_id"])
            if ref is not None:
                self._put_place(entry["alias"], PlaceEntry(ref, "alias"))
        for key, entries in list(self.places.items()):
            for entry in entries:
                if entry.entity.nivel == "municipio" and entry.how in ("label", "short", "alias"):
                    for suffix in _STATE_SUFFIXES if entry.entity.estado_id == "GTO" else ():
                        self._put_place(f"{key} {suffix}", PlaceEntry(entry.entity, "alias"))

    def _finish(self) -> None:
        # one dictionary for the longest-first scan, so "Nuevo León" (a state elsewhere) beats "León"
        self.any_place = {**dict.fromkeys(self.foreign_states, "foreign"), **dict.fromkeys(self.places, "place")}
        lengths = lambda keys: max((len(k.split()) for k in keys), default=1)
        self.max_place_len = max(lengths(self.places), lengths(self.foreign_states))
        self.max_crime_len = lengths(self.crimes)
        self.max_method_len = lengths(self.methods)
        for kind, keys in (("place", self.places), ("crime", self.crimes), ("method", self.methods)):
            for key in keys:
                if len(key.replace(" ", "")) >= 5 and key not in self.exact_only:  # short names: exact or nothing
                    self._buckets.setdefault((kind, len(key.split())), []).append(key)

    # -- fuzzy lookup -----------------------------------------------------------------------
    def fuzzy(self, kind: str, query: str, cutoff: float, limit: int = 6) -> list[tuple[str, float]]:
        """Keys of one kind (place | crime | method) close to ``query``: (key, score), best first."""
        choices = self._buckets.get((kind, len(query.split())), [])
        if not choices:
            return []
        hits = process.extract(query, choices, scorer=fuzz.ratio, limit=limit, score_cutoff=cutoff)
        return sorted(((k, float(s)) for k, s, _ in hits), key=lambda t: (-t[1], t[0]))


# How a written name shortens its first word («S. Miguel», «Sn. Felipe», «Sta. Cruz», «Sto. Tomás», «Gral. Cepeda»)
_SHORT_FIRST = {"san": ("s", "sn"), "santa": ("sta",), "santo": ("sto",), "santiago": ("stgo",), "general": ("gral",)}


def _abbreviated(phrase: str | None) -> list[str]:
    """The name with its first word as people abbreviate it («s miguel de allende»), if it has such a word."""
    words = key_of(phrase or "").split()
    if len(words) < 2 or words[0] not in _SHORT_FIRST:
        return []
    return [" ".join([short, *words[1:]]) for short in _SHORT_FIRST[words[0]]]


@lru_cache(maxsize=4)
def _press_aliases_at(path: Path) -> dict:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):  # a missing or broken alias file must not break understanding
        return {}


def press_aliases() -> dict:
    """The press and SESNSP aliases of ``catalogs/taxonomy/alias_prensa.json`` (empty when it is missing)."""
    from core.config import CATALOGS_DIR

    return _press_aliases_at(CATALOGS_DIR / ALIAS_FILE)


def qualifier_key(word: str) -> str:
    """'dolosos', 'dolosas', 'doloso' → 'dolos': the qualifier of a subtype, without number or gender."""
    w = stem(word)
    return w[:-1] if len(w) > 4 and w[-1] in "ao" else w


def fuzzy_cutoff(query: str) -> float | None:
    """The minimum score a fuzzy match of this length needs (None: too short to guess)."""
    n = len(query.replace(" ", ""))
    if n < 5:
        return None
    return 88.0 if n == 5 else 84.0


_CACHE: dict[str, Lexicon] = {}
