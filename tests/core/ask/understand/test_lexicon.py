"""The lexicon: what it indexes, its cache, a national-size catalog, and robustness on any text."""

from __future__ import annotations

from datetime import date

from hypothesis import given, settings
from hypothesis import strategies as st

from core.ask.understand import Understanding
from core.ask.understand.lexicon import Lexicon
from core.ask.understand.parse import understand
from core.ask.understand.tokens import words_of
from tests.core.ask.understand.helpers import ANCHOR, MIN_DATE


def test_lexicon_is_cached_per_catalog_version(catalog, lexicon):
    assert Lexicon.from_catalog(catalog) is lexicon
    assert lexicon.version == catalog.catalog_version


def test_lexicon_indexes_names(lexicon):
    assert {e.entity.entidad_id for e in lexicon.places["guanajuato"]} == {"GTO", "GTO.MUN.GUANAJUATO"}
    assert lexicon.places["leon"][0].entity.entidad_id == "GTO.MUN.LEON"
    assert lexicon.places["municipio de leon"][0].how == "prefixed"
    assert lexicon.places["gto"][0].entity.nivel == "estado"
    assert all(e.weak for e in lexicon.places["valle"])
    assert lexicon.crimes["homicidio"].delito == "homicidio" and lexicon.crimes["homicidio"].nivel == "tipo"
    assert lexicon.crimes["asesinato"].delito == "homicidio_doloso"
    assert lexicon.crimes["total de delito"].delito == "total_delitos"
    assert lexicon.methods["a balazo"].metodo == "con_arma_de_fuego"
    assert lexicon.methods["con violencia"].violencia == "con"
    assert "fraude" not in lexicon.methods  # a modality named like its crime is the crime
    assert lexicon.foreign_states["jalisco"] == "JAL"
    assert lexicon.home_state == "GTO"


class _Catalog:
    """A stand-in with the catalog's shape: a national store of 2,500 municipalities."""

    def __init__(self, base, n: int):
        syllables = sorted(
            words_of("ta te ti to la le li lo ma me mi mo na ne ni no pa pe pi po ca co cu sa se si hua chi tla")
        )
        entities = list(base.entities)
        states = ["JAL", "MICH", "OAX", "PUE", "VER"]
        for k in range(n):
            name = "".join(syllables[(k * 7 + i * 13) % len(syllables)] for i in range(2 + k % 3)).capitalize()
            st_ = states[k % len(states)]
            entities.append(
                {
                    "entidad_id": f"{st_}.MUN.M{k}",
                    "nivel": "municipio",
                    "cve": str(k),
                    "estado_id": st_,
                    "label": f"{name} {k}",
                    "nombre_corto": name,
                    "aliases": "",
                    "parent_id": st_,
                }
            )
        names = {"JAL": "Jalisco", "MICH": "Michoacán", "OAX": "Oaxaca", "PUE": "Puebla", "VER": "Veracruz"}
        entities += [
            {
                "entidad_id": s,
                "nivel": "estado",
                "cve": "0",
                "estado_id": s,
                "label": names[s],
                "nombre_corto": names[s],
                "aliases": "",
                "parent_id": None,
            }
            for s in states
        ]
        entities.append(
            {
                "entidad_id": "MICH.MUN.LEON",
                "nivel": "municipio",
                "cve": "x",
                "estado_id": "MICH",
                "label": "León",
                "nombre_corto": "León",
                "aliases": "",
                "parent_id": "MICH",
            }
        )
        self.entities, self.crimes, self.methods = entities, base.crimes, base.methods
        self.catalog_version = f"test-national-{n}"


def test_national_catalog(catalog):
    lex = Lexicon.from_catalog(_Catalog(catalog, 2500))
    assert len([e for e in lex.entities.values() if e.nivel == "municipio"]) > 2500
    u = understand("¿Cuántos homicidios hubo en Celaya en 2024?", lex, ANCHOR, MIN_DATE)
    assert [p.entidad_id for p in u.places] == ["GTO.MUN.CELAYA"]
    u = understand("homicidios en León", lex, ANCHOR, MIN_DATE)  # two Leóns: the home state's wins
    assert [p.entidad_id for p in u.places] == ["GTO.MUN.LEON"] and "place:home_preferred" in u.signals
    u = understand("homicidios en León, Michoacán", lex, ANCHOR, MIN_DATE)  # unless the text names the state
    assert [p.entidad_id for p in u.places] == ["MICH.MUN.LEON"]


def test_same_question_same_slots(ask):
    q = "Top 5 municipios con más homicidios dolosos en los últimos 12 meses"
    assert ask(q) == ask(q)


@settings(max_examples=150, deadline=None)
@given(st.text(max_size=300))
def test_any_text_gives_an_understanding(lexicon, text):
    u = understand(text, lexicon, ANCHOR, MIN_DATE)
    assert isinstance(u, Understanding)
    for window in (u.window, u.compare_window):
        assert window is None or window[0] <= window[1]


@settings(max_examples=100, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            [
                "homicidios",
                "en",
                "León",
                "2024",
                "vs",
                "2023",
                "de",
                "a",
                "y",
                "entre",
                "marzo",
                "junio",
                "top",
                "5",
                "municipios",
                "tasa",
                "¿y",
                "Guanajuato",
                "municipio",
                "últimos",
                "12",
                "meses",
                "el",
                "año",
                "pasado",
                "con",
                "arma",
                "blanca",
                "mi",
                "colonia",
            ]
        ),
        max_size=14,
    )
)
def test_word_salad_gives_an_understanding(lexicon, words):
    u = understand(" ".join(words), lexicon, date(2025, 11, 30), MIN_DATE)
    assert isinstance(u, Understanding) and u.kind
