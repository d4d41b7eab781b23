"""Checkers of issue 14's kinds: how a state's position and an unpublished level are read from an answer."""

from __future__ import annotations

import pytest

from evals.checks_nacional import _position_said, check_granularity_note
from evals.expect import parse_expect


class _Answer:
    """The few fields a checker reads."""

    def __init__(self, text: str, rows: list[dict] | None = None):
        from evals.checks_v2 import Answer

        self._a = Answer({"answer": {"text": text}, "envelopes": []})
        self.text, self.rows = text, rows or []
        self.row_numbers = [v for r in self.rows for v in r.values() if isinstance(v, (int, float))]

    def __getattr__(self, name):
        return getattr(self._a, name)


@pytest.mark.parametrize(
    ("text", "position", "said"),
    [
        ("Jalisco ocupó el quinto lugar nacional con 1,449.", 5, True),
        ("Guanajuato, primer lugar del país.", 1, True),
        ("En el primer trimestre hubo 2,254.", 1, False),  # «primer» of a quarter is no position
        ("Ocupa el lugar 7 de los 32 estados.", 7, True),
        ("Es 2.º en el país.", 2, True),
        ("Está en el 3er lugar.", 3, True),
        ("Queda 5 de 32.", 5, True),
        ("#1 nacional.", 1, True),
        ("Quedó en la segunda posición.", 2, True),
        ("Posición 12.", 12, True),
        ("Tiene 1,449 y 12 estados más.", 12, False),
    ],
)
def test_the_position_is_read_from_ordinals_and_numbers(text, position, said):
    """Ordinals only next to lugar/puesto/posición; numbers with º, «de 32», «lugar N»."""
    assert _position_said(_Answer(text), position, 0) is said


def test_a_rank_column_counts_only_in_the_states_row():
    """A ranking table's row with rank N belongs to the state only when it carries the state's figure."""
    rows = [{"rank": 1, "conteo": 2581}, {"rank": 2, "conteo": 2254}]
    assert _position_said(_Answer("Tabla de estados.", rows), 2, 2254)
    assert not _position_said(_Answer("Tabla de estados.", rows), 2, 1449)


@pytest.mark.parametrize(
    ("text", "ok"),
    [
        ("El robo a transportista no se publica por municipio. En Silao hubo 438 robos con violencia.", True),
        ("En Silao hubo 12 robos a transportista en 2021.", False),
        ("No se publica por municipio. Robo a transportista en Silao: 12 casos.", False),  # a colon labels the figure
        ("El estado registró 17 robos a transportista en 2021.", False),  # never says the level is not published
        ("Robo a transportista: solo se publica a nivel estatal (17 en 2021); por municipio no hay desglose.", True),
        ("Ese subtipo no se desglosa. El estado tuvo 17.", False),  # does not name the level (municipio)
    ],
)
def test_granularity_note_reads_labels_per_sentence(text, ok):
    """A figure next to the finer label (and the place) fails; the level must be said to be unpublished."""
    e = parse_expect(
        {"kind": "granularity_note", "term": "robo a transportista", "place": "11037", "level": "municipio"}, "t"
    )
    assert check_granularity_note(_Answer(text), e, None)[0] is ok
