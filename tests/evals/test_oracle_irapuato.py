"""The oracle's subtipo count for Irapuato and its label lists (issue 14): golden figures of the data README."""

from __future__ import annotations

import duckdb
import pytest

from core.config import DEFAULT_DATA_DIR
from evals.checks_nacional import check_municipal_tipo_number
from evals.expect import ExpectError, parse_expect
from evals.oracle import Oracle
from evals.raw_views import RawViews

ROBO_CON = ["Con violencia", "Robo de coche de 4 ruedas Con violencia", "Robo de motocicleta Con violencia"]
Y24 = {"desde": "2024-01", "hasta": "2024-12"}


@pytest.fixture(scope="module")
def oracle():
    """The oracle over the independent views of data/raw."""
    con = RawViews.create(duckdb.connect(), DEFAULT_DATA_DIR / "raw")
    yield Oracle(con)
    con.close()


def mt(**fields):
    """A municipal_tipo_number expectation."""
    return parse_expect({"kind": "municipal_tipo_number", **fields}, "test")


@pytest.mark.parametrize(
    ("fields", "figure"),
    [
        # sesnsp/irapuato_idm_nm_2015-2025.json (every subtipo, to 2025-12)
        ({"tipo": "Robo", "subtipo": "Robo a casa habitación", **Y24}, 277),
        ({"tipo": "Robo", "subtipo": "Robo a casa habitación", "modalidad": "Con violencia", **Y24}, 36),
        ({"tipo": "Robo", "subtipo": "Robo a casa habitación", "desde": "2025-01", "hasta": "2025-12"}, 266),
        ({"tipo": "Robo", "subtipo": "Robo a casa habitación", "desde": "2015-01", "hasta": "2016-12"}, 465 + 485),
        ({"tipo": "Robo", "subtipo": "Robo a negocio", **Y24}, 1001),
        ({"tipo": "Robo", "subtipo": "Robo de vehículo automotor", **Y24}, 432),
        ({"tipo": "Robo", "subtipo": ["Robo a negocio", "Robo a casa habitación"], **Y24}, 1001 + 277),
        ({"tipo": "Robo", "subtipo": "Robo a transeúnte en vía pública", **Y24}, 173),
        ({"tipo": "Homicidio", "subtipo": "Homicidio doloso", "desde": "2025-01", "hasta": "2025-12"}, 236),
        ({"tipo": "Homicidio", "subtipo": "Homicidio doloso", "desde": "2018-01", "hasta": "2018-12"}, 374),
    ],
)
def test_irapuato_subtipo_equals_the_readme(oracle, fields, figure):
    assert oracle.expected(mt(place="11017", **fields)) == figure


@pytest.mark.parametrize(
    ("place", "figure"),
    [("11020", 1780), ("11007", 1271), ("11017", 1982), ("11027", 869), ("11", 9974)],
)
def test_a_list_of_modalidades_is_summed(oracle, place, figure):
    """«Robo con violencia incl. vehicles» of the README: every robo modalidad con violencia."""
    assert oracle.expected(mt(place=place, tipo="Robo", modalidad=ROBO_CON, **Y24)) == figure


def test_a_list_of_subtipos_is_summed_at_state_level(oracle):
    e = {"kind": "state_number", "place": "11", "tipo": "Robo", "desde": "2023-01", "hasta": "2023-12"}
    both = ["Robo a transeúnte en vía pública", "Robo a transeúnte en espacio abierto al público"]
    assert oracle.expected(parse_expect({**e, "subtipo": both}, "t")) == 378  # espacio abierto is 0 in Guanajuato


@pytest.mark.parametrize(
    "fields",
    [
        {"place": "11020", "tipo": "Robo", "subtipo": "Robo a negocio", **Y24},  # only Irapuato publishes subtipos
        {"place": "11017", "tipo": "Robo", "subtipo": "Robo a negocio", "desde": "2026-01", "hasta": "2026-03"},
        {"place": "11017", "tipo": "Robo", "subtipo": ["Robo a negocio", "Robo a changarro"], **Y24},
        {"place": "11020", "tipo": "Robo", "modalidad": ["Con violencia", "Robo de bicicleta"], **Y24},
    ],
)
def test_subtipo_elsewhere_empty_window_or_unknown_label_is_an_error(oracle, fields):
    with pytest.raises(ExpectError):
        oracle.expected(mt(**fields))


class _Answer:
    def __init__(self, text):
        self.text, self.rows = text, []

    def has(self, x, tol=0.0, rows=True):
        return f"{x:,}" in self.text

    def says(self, *words):
        return any(w in self.text.lower() for w in words)


def test_irapuato_homicidio_doloso_needs_no_culposo_caveat():
    e = mt(place="11017", tipo="Homicidio", subtipo="Homicidio doloso", desde="2025-01", hasta="2025-12")
    assert check_municipal_tipo_number(_Answer("En Irapuato hubo 236 homicidios dolosos en 2025."), e, 236)[0]
    mixed = mt(place="11017", tipo="Homicidio", desde="2024-01", hasta="2024-12")
    assert not check_municipal_tipo_number(_Answer("En Irapuato hubo 400 homicidios en 2024."), mixed, 400)[0]
