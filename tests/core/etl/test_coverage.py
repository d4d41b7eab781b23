"""The coverage of a monthly file (core.etl.coverage): the steward's months, parsed and refused in Spanish."""

from __future__ import annotations

from datetime import date

import pytest

from core.errors import ValidacionError
from core.etl.coverage import iso_date, parse_coverage, parse_month


@pytest.mark.parametrize(
    ("text", "expected"),
    [("2015-01", (2015, 1)), (" 2024-12 ", (2024, 12)), ("2020-7", (2020, 7))],
)
def test_a_month_is_year_and_month(text, expected):
    assert parse_month(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (None, None),
        ("", None),
        ("2015-01:2024-12", (date(2015, 1, 1), date(2024, 12, 1))),
        ("2020-03:2020-03", (date(2020, 3, 1), date(2020, 3, 1))),
    ],
)
def test_a_coverage_is_its_first_and_last_month(text, expected):
    assert parse_coverage(text) == expected


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("2015-13:2016-01", "Mes inválido"),
        ("enero:2016-01", "Mes inválido"),
        ("2015-01", "Cobertura inválida"),
        ("2015-01:2016-01:2017-01", "Cobertura inválida"),
        ("2024-12:2015-01", "Cobertura invertida"),
    ],
)
def test_a_bad_coverage_is_refused_in_spanish(text, fragment):
    with pytest.raises(ValidacionError, match=fragment):
        parse_coverage(text)


@pytest.mark.parametrize(("value", "expected"), [(date(2024, 1, 1), "2024-01-01"), (None, None)])
def test_report_dates_are_iso(value, expected):
    assert iso_date(value) == expected
