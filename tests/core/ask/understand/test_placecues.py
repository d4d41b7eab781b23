"""When a weak name («Valle», «Victoria», «Dolores») is taken as a place (core/ask/understand/placecues.py)."""

import pytest


@pytest.mark.parametrize(
    ("question", "places"),
    [
        ("homicidios dolosos en Valle en 2023", ["GTO.MUN.VALLE_DE_SANTIAGO"]),
        (
            "compara valle, salvatierra y yuriria en feminicidios 2023",
            ["GTO.MUN.VALLE_DE_SANTIAGO", "GTO.MUN.SALVATIERRA", "GTO.MUN.YURIRIA"],
        ),
        ("homicidios dolosos en Salamanca y valle en 2022", ["GTO.MUN.SALAMANCA", "GTO.MUN.VALLE_DE_SANTIAGO"]),
        ("el valle de la muerte en Celaya 2023", ["GTO.MUN.CELAYA"]),  # «valle de …» starts another name
    ],
)
def test_a_weak_name_is_a_place_after_a_cue_or_beside_a_place(ask, question, places):
    u = ask(question)
    assert [p.entidad_id for p in u.places] == places
