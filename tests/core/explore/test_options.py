"""The explorer's options come from the catalog and the data; ``fit`` makes any selection plannable and says how."""

from __future__ import annotations

import pytest

from core.ask.context import Assistant
from core.explore.options import build_options
from core.explore.selection import Selection


@pytest.fixture(scope="module")
def options(bundled_settings):
    engine = Assistant(settings=bundled_settings, use_cache=False)
    return build_options(engine.catalog, engine.metadata, engine.store)


@pytest.fixture(scope="module")
def engine(bundled_settings):
    return Assistant(settings=bundled_settings, use_cache=False)


def test_options_are_the_catalogs_monthly_crimes_its_places_and_the_published_months(options, engine):
    monthly = {c["delito"] for c in engine.catalog.crimes if c["en_datos"] and c["granularity"] == "month"}
    assert {k for k, _ in options.crimes} == monthly and "total_delitos" not in monthly
    assert options.places[0] == ("GTO", "Guanajuato (todo el estado)")
    assert len(options.places) == len(engine.catalog.entities)
    assert (
        options.months[0] == engine.metadata["min_date"][:7] and options.months[-1] == engine.metadata["max_date"][:7]
    )
    assert len(options.months) == len(set(options.months)) and list(options.months) == sorted(options.months)


def test_the_default_is_the_chats_default_window_of_homicidio_doloso(options):
    selection = options.default()
    assert selection.delitos == ("homicidio_doloso",) and selection.lugares == ()
    desde, hasta = options.default_period(("homicidio_doloso",))
    assert (selection.desde, selection.hasta) == (desde, hasta)
    y1, m1 = map(int, desde.split("-"))
    y2, m2 = map(int, hasta.split("-"))
    assert (y2 - y1) * 12 + m2 - m1 == 11  # twelve months, ending with the crime's last published month


@pytest.mark.parametrize(
    ("given", "expected", "said"),
    [
        ({"delitos": ("no_existe", "robo")}, {"delitos": ("robo",)}, "no están en los datos"),
        ({"delitos": ("robo",), "lugares": ("GTO.MUN.ATLANTIDA",)}, {"lugares": ()}, "no están en el catálogo"),
        (
            {"delitos": ("robo",), "lugares": ("GTO.MUN.LEON",), "forma": "ranking"},
            {"lugares": ()},
            "todos los municipios",
        ),
        (
            {"delitos": ("robo",), "lugares": ("GTO.MUN.LEON", "GTO.MUN.CELAYA"), "forma": "serie"},
            {"lugares": ("GTO.MUN.LEON",)},
            "es de un lugar",
        ),
        ({"delitos": ("robo", "extorsion"), "forma": "desglose"}, {"delitos": ("robo",)}, "es de un delito"),
        ({"delitos": ("robo",), "medida": "tasa", "forma": "serie"}, {"medida": "conteo"}, "no está disponible"),
        ({"delitos": ("robo",), "desde": "1990-01", "hasta": "2099-12"}, {}, "se ajusta a los meses publicados"),
    ],
)
def test_fit_makes_a_selection_plannable_and_says_what_it_changed(options, given, expected, said):
    base = {"desde": "2024-01", "hasta": "2024-12"}
    fitted, notes = options.fit(Selection(**{**base, **given}))
    for field, value in expected.items():
        assert getattr(fitted, field) == value
    assert any(said in n for n in notes), notes
    assert options.months[0] <= fitted.desde <= fitted.hasta <= options.months[-1]


def test_a_plannable_selection_is_left_as_it_is(options):
    selection = Selection(delitos=("robo",), lugares=("GTO.MUN.LEON",), desde="2024-01", hasta="2024-12")
    assert options.fit(selection) == (selection, [])


def test_reversed_months_are_put_in_order(options):
    fitted, _ = options.fit(Selection(delitos=("robo",), desde="2024-12", hasta="2024-01"))
    assert (fitted.desde, fitted.hasta) == ("2024-01", "2024-12")


def test_victims_are_offered_only_for_crimes_whose_victims_the_store_holds(options):
    total = Selection(delitos=("homicidio_doloso",), desde="2024-01", hasta="2024-12")
    if not options.victims:
        assert "victimas" not in options.measures(total)
        pytest.skip("this store holds no victims file")
    assert "victimas" in options.measures(total)
    assert "victimas" not in options.measures(total.model_copy(update={"forma": "serie"}))
    without = next(k for k, _ in options.crimes if k not in options.victims and not options.includes.get(k))
    assert "victimas" not in options.measures(total.model_copy(update={"delitos": (without,)}))
