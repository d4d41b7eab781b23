"""The formatting BENCHMARKS.md's section modules share: a section without numbers says why in one way."""

from __future__ import annotations

import pytest

from bench import browser_report, conversation_report
from bench.report_fmt import fmt_ms, not_measured, unmeasured_flag


@pytest.mark.parametrize(
    ("section", "why", "flag"),
    [
        (None, "no se corrió (`python -m bench.run --only browser`)", "—"),
        ({"omitido": "Chromium no está instalado"}, "omitido: Chromium no está instalado", "—"),
        ({"error": "Streamlit no arrancó"}, "error: Streamlit no arrancó", "❌ no"),
        ({"casos": []}, None, "—"),
    ],
)
def test_a_section_without_numbers_says_why(section, why, flag) -> None:
    assert not_measured(section, "casos", "browser") == why
    assert unmeasured_flag(section) == flag


@pytest.mark.parametrize(("value", "text"), [(None, "—"), (1234.56, "1,235"), (7, "7"), (0.4, "0")])
def test_milliseconds_are_whole_with_thousands_separators(value, text) -> None:
    assert fmt_ms(value) == text


@pytest.mark.parametrize(
    ("report", "section", "only"),
    [(browser_report, {"error": "x"}, "browser"), (conversation_report, None, "conversation")],
)
def test_the_browser_sections_share_the_unmeasured_row(report, section, only) -> None:
    ((*_, why, flag),) = report.summary_rows(section)
    assert why == not_measured(section, "-", only) and flag == unmeasured_flag(section)
    assert report.pending(section, 1) == []
