"""Reading a CSV (core.etl.load): DuckDB's refusals become Spanish messages with the file's own line numbers."""

from __future__ import annotations

import re

import pytest

from core.errors import CasandraError, LimiteRecursosError, ValidacionError
from core.etl import SourceSpec, run_etl
from tests.conftest import FIXTURES

pytestmark = pytest.mark.slow  # each test runs a load

ETL = FIXTURES / "etl"
ENGLISH = re.compile(r"\b(Error|Invalid|Input|line|file|sniffing|quote|Maximum|bytes exceeded)\b")


@pytest.mark.parametrize(
    "fixture, error, says",
    [
        ("unbalanced_quote.csv", ValidacionError, ["línea 4", "comillas"]),
        ("long_line.csv", LimiteRecursosError, ["línea 6", "65536 bytes"]),
    ],
)
def test_a_csv_duckdb_cannot_read_is_refused_in_spanish_at_its_true_line(empty_settings, clock, fixture, error, says):
    with pytest.raises(CasandraError) as info:
        run_etl([SourceSpec(ETL / fixture)], empty_settings, clock=clock)
    exc = info.value
    assert isinstance(exc, error)
    text = " ".join([exc.details, *exc.hints])
    assert all(s in text for s in says), text
    assert fixture in text
    assert "/" not in text.replace(fixture, ""), text  # no path: the file is named, never located
    assert not ENGLISH.search(text), text
    assert not empty_settings.store_dir.joinpath("CURRENT").exists()
