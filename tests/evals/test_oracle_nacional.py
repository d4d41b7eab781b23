"""The oracle's national kinds (issue 14) against the sanity figures of the data README (../shared/data/README.md)."""

from __future__ import annotations

import duckdb
import pytest

from core.config import DEFAULT_DATA_DIR
from evals.expect import ExpectError, parse_expect
from evals.oracle import Oracle
from evals.raw_views import RawViews

HD = {"tipo": "Homicidio", "subtipo": "Homicidio doloso"}
Y23, Y24 = {"desde": "2023-01", "hasta": "2023-12"}, {"desde": "2024-01", "hasta": "2024-12"}
Q26 = {"desde": "2026-01", "hasta": "2026-03", "serie": "rnid"}


@pytest.fixture(scope="module")
def oracle():
    """The oracle over the independent views of data/raw."""
    con = RawViews.create(duckdb.connect(), DEFAULT_DATA_DIR / "raw")
    yield Oracle(con)
    con.close()


def ask(oracle, **expect):
    """The oracle's figure for one expectation."""
    return oracle.expected(parse_expect(expect, "test"))


@pytest.mark.parametrize(
    ("expect", "figure"),
    [
        # nacional/estatal_idefc_2015-01_2024-11.csv
        ({"place": "11", **HD, **Y23}, 2581),
        ({"place": "15", **HD, **Y23}, 2254),
        ({"place": "02", **HD, **Y23}, 2116),
        ({"place": "08", **HD, **Y23}, 1759),
        ({"place": "14", **HD, **Y23}, 1449),
        ({"place": "MX", **HD, **Y23}, 25290),
        ({"place": "11", **HD, "desde": "2015-01", "hasta": "2015-12"}, 863),
        ({"place": "11", **HD, **Y24}, 2324),  # Jan-Nov: December 2024 is unpublished, not zero
        ({"place": "11", "tipo": "Homicidio", "subtipo": "Homicidio culposo", **Y23}, 1059),
        (
            {
                "place": "11",
                "tipo": "Robo",
                "subtipo": "Robo a casa habitación",
                "desde": "2019-01",
                "hasta": "2019-12",
            },
            4858,
        ),
        ({"place": "11", "tipo": "Robo", "subtipo": "Robo a negocio", "desde": "2018-01", "hasta": "2018-12"}, 7099),
        ({"place": "11", "tipo": "Robo", "subtipo": "Otros robos", **Y23}, 18864),
        ({"place": "11", "tipo": "Narcomenudeo", **Y23}, 19876),
        ({"place": "02", "tipo": "Narcomenudeo", **Y23}, 9839),
        ({"place": "11", "tipo": "Violencia familiar", **Y23}, 14695),
        ({"place": "11", "tipo": "Robo", **Y23}, 30424),
        ({"place": "MX", "tipo": "Narcomenudeo", **Y23}, None),  # any figure: the label is known nationally
        # nacional/estatal_rnid_2026-01_2026-03.csv (the 2026 methodology)
        ({"place": "11", **HD, **Q26}, 334),
        ({"place": "02", **HD, **Q26}, 323),
        ({"place": "11", "tipo": "Narcomenudeo", **Q26}, 847 + 797 + 851),
    ],
)
def test_state_number_equals_the_readme(oracle, expect, figure):
    """State and national counts of the state files."""
    got = ask(oracle, kind="state_number", **expect)
    assert got == figure if figure is not None else got > 0


@pytest.mark.parametrize(
    ("year", "total"),
    [(2015, 1657804), (2019, 2071181), (2023, 2173506), (2024, 1940599)],
)
def test_national_totals_per_year(oracle, year, total):
    """Every crime, the 32 states, per year (2024 to November), from the raw state file."""
    rows = oracle._nq("SELECT sum(n) FROM est WHERE anio = $y", {"y": year})
    assert rows[0][0] == total


def test_rate_uses_conapo_state_population(oracle):
    """Guanajuato 2024 homicidio doloso, Jan-Nov carpetas over CONAPO mid-year 2024 (6,481,538)."""
    got = ask(oracle, kind="state_number", place="11", medida="tasa", **HD, **Y24)
    assert got == pytest.approx(2324 / 6481538 * 100000)


@pytest.mark.parametrize(
    ("which", "expect", "position", "value"),
    [
        ("11", {**HD, **Y23}, 1, 2581),
        ("15", {**HD, **Y23}, 2, 2254),
        ("14", {**HD, **Y23}, 5, 1449),
        ("11", {"tipo": "Narcomenudeo", **Y23}, 1, 19876),
        ("05", {"tipo": "Narcomenudeo", **Y23}, 3, 9054),
        ("11", {"tipo": "Violencia familiar", **Y23}, 5, 14695),
    ],
)
def test_state_rank_equals_the_readme(oracle, which, expect, position, value):
    """The national rankings the README gives."""
    got = ask(oracle, kind="state_rank", which=which, **expect)
    assert (got["position"], got["value"]) == (position, value)
    assert len(got["ranking"]) == 32


@pytest.mark.parametrize(
    ("place", "expect", "figure"),
    [
        ("11", Y24, 4765),
        ("11", {"desde": "2012-01", "hasta": "2012-12"}, 10062),
        ("11", {"desde": "2025-01", "hasta": "2025-12"}, 2913),  # August-December 2025 unpublished
        ("MX", Y24, 78645),
        ("09", Y24, 9989),
        ("15", Y24, 5107),
        ("11", {**Y24, "concepto": "OTROS DELITOS", "tipo": "PATRIMONIALES"}, 1820),
        ("11", {**Y24, "tipo": "LEY FEDERAL DE ARMAS DE FUEGO Y EXPLOSIVOS (L.F.A.F.E.)"}, 981),
        ("11", {**Y24, "concepto": "CONTRA LA SALUD"}, 269),
    ],
)
def test_federal_number_equals_the_readme(oracle, place, expect, figure):
    """Fuero federal carpetas (IDEFF file)."""
    assert ask(oracle, kind="federal_number", place=place, **expect) == figure


@pytest.mark.parametrize(
    ("place", "tipo", "modalidad", "figure"),
    [
        ("11", "Narcomenudeo", None, 20211),
        ("11", "Extorsión", None, 1027),
        ("11", "Robo", None, 31658),
        ("11", "Robo", "Con violencia", 8332),
        ("11", "Robo", "Sin violencia", 19751),
        ("11", "Lesiones", None, 16488),
        ("11", "Fraude", None, 5150),
        ("11", "Amenazas", None, 13045),
        ("11", "Violencia familiar", None, 15958),
        ("11", "Homicidio", None, 3772),
        ("11020", "Robo", None, 8375),
        ("11020", "Narcomenudeo", None, 15338),
        ("11007", "Extorsión", None, 208),
        ("11017", "Violencia familiar", None, 2865),
        ("11027", "Robo", None, 1682),
    ],
)
def test_municipal_tipo_number_equals_the_readme(oracle, place, tipo, modalidad, figure):
    """2024 tipo counts of the tipo x modalidad parquet (state = the 46 municipalities)."""
    got = ask(oracle, kind="municipal_tipo_number", place=place, tipo=tipo, modalidad=modalidad, **Y24)
    assert got == figure


def test_municipal_tipo_number_2025_stops_in_may(oracle):
    """The parquet ends 2025-05: a window to December counts January-May (69,715 crimes statewide)."""
    got = sum(
        ask(oracle, kind="municipal_tipo_number", place="11", tipo=t, desde="2025-01", hasta="2025-12")
        for t in ("Narcomenudeo", "Extorsión", "Robo")
    )
    assert got == 9177 + 583 + 13250


@pytest.mark.parametrize(
    "expect",
    [
        {"kind": "state_number", "place": "11", **HD, "desde": "2024-12", "hasta": "2024-12"},  # unpublished month
        {"kind": "state_number", "place": "11", "tipo": "Robo a transportista", **Y23},  # a subtipo given as tipo
        {"kind": "state_number", "place": "11", **HD, "desde": "2025-01", "hasta": "2025-06", "serie": "rnid"},
        {"kind": "federal_number", "place": "11", "desde": "2025-08", "hasta": "2025-12"},
        {"kind": "federal_number", "place": "11", "concepto": "NARCOMENUDEO", **Y24},
        {"kind": "municipal_tipo_number", "place": "11020", "tipo": "Robo a negocio", **Y24},
        {"kind": "municipal_tipo_number", "place": "11020", "tipo": "Robo", "desde": "2025-06", "hasta": "2025-12"},
    ],
)
def test_an_empty_window_or_unknown_label_is_an_error_not_a_zero(oracle, expect):
    """Never a zero for what is not published or not in the file."""
    with pytest.raises(ExpectError):
        ask(oracle, **expect)


@pytest.mark.parametrize(
    "expect",
    [
        {"kind": "state_number", "place": "33", **HD, **Y23},
        {"kind": "state_number", "place": "GTO", **HD, **Y23},
        {"kind": "state_rank", "which": "MX", **HD, **Y23},
        {"kind": "municipal_tipo_number", "place": "14039", "tipo": "Robo", **Y24},
        {"kind": "victims_share", "place": "11", **HD, **Y24, "sexo": "Mujeres"},
        {"kind": "granularity_note", "term": "robo a transportista", "level": "colonia"},
    ],
)
def test_malformed_national_expectations_are_rejected(expect):
    """Strict models: state codes, Guanajuato municipality codes, sexo and level from closed lists."""
    with pytest.raises(ExpectError):
        parse_expect(expect, "test")


@pytest.mark.slow
@pytest.mark.parametrize(
    ("place", "expect", "women", "total"),
    [
        ("11", {**HD, **Y24}, 366, 3151),
        ("11", {**HD, **Y23}, 378, 3104),
        ("11", {**HD, "desde": "2025-01", "hasta": "2025-12"}, 201, 1606),  # to 2025-06
        ("11", {"tipo": "Feminicidio", **Y24}, 16, 16),
        ("MX", {**HD, **Y24}, None, 30046),
        ("MX", {**HD, **Y23}, None, 29721),
        ("02", {**HD, **Y24}, None, 2369),
        ("11", {"tipo": "Extorsión", **Y24}, None, 1222),
    ],
)
def test_victims_share_equals_the_readme(oracle, place, expect, women, total):
    """Victims by sexo (the .bz2 inflated by the oracle itself)."""
    got = ask(oracle, kind="victims_share", place=place, **expect)
    assert got["total"] == total
    if women is not None:
        assert got["count"] == women and got["share"] == pytest.approx(100 * women / total)


@pytest.mark.slow  # ~160 oracle queries, the victims file included
def test_dev_n_validates_and_every_data_turn_has_a_figure(oracle):
    """evals/v2/dev_n.json: valid, ≥ 120 conversations and ≥ 150 turns, every national category, a figure per data turn."""
    from pathlib import Path

    from evals.expect_nacional import NATIONAL_CATEGORIES
    from evals.harness import load_files

    convs = load_files([Path(__file__).parents[2] / "evals" / "v2" / "dev_n.json"])
    assert len(convs) >= 120 and sum(len(c["turns"]) for c in convs) >= 150
    assert {c["category"] for c in convs} == set(NATIONAL_CATEGORIES)
    assert all(c["id"].startswith("n-") for c in convs)
    for c in convs:
        for m in c["_expects"]:
            assert oracle.expected(m) is not None or m.kind == "granularity_note", c["id"]
