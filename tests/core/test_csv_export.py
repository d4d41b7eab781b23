"""core.csv_export: formula-leading text cells are neutralized (OWASP CSV injection), numbers stay numbers,
and neutralizing is reversible."""

from __future__ import annotations

import csv
import io
import math
from decimal import Decimal

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from core import csv_export

# (value, the cell as written)
CELLS = [
    ('=HYPERLINK("http://host/phish","León")', '\'=HYPERLINK("http://host/phish","León")'),
    ("@SUM(A1:A9)", "'@SUM(A1:A9)"),
    ("+cmd|' /C calc'!A0", "'+cmd|' /C calc'!A0"),
    ("-cmd", "'-cmd"),
    ("-5+cmd|' /C calc'!A0", "'-5+cmd|' /C calc'!A0"),
    ("\t=1+1", "'\t=1+1"),
    ("\r=1+1", "'\r=1+1"),
    ("=1+1", "'=1+1"),
    ("-", "'-"),
    ("'=1+1", "''=1+1"),  # already quoted by hand: one more quote keeps it reversible
    ("'hola", "'hola"),
    ("-5", "-5"),  # a plain number written as text is still a number
    ("+5", "+5"),
    ("-1.5e3", "-1.5e3"),
    (".5", ".5"),
    (-5, -5),
    (-2.5, -2.5),
    (0, 0),
    (np.int64(-7), np.int64(-7)),
    (Decimal("-1.25"), Decimal("-1.25")),
    (None, ""),
    (math.nan, ""),
    (True, "True"),
    ("León", "León"),
    ("a=b", "a=b"),
    ("", ""),
]


@pytest.mark.parametrize(("value", "expected"), CELLS)
def test_cell(value, expected):
    assert csv_export.cell(value) == expected


def read(data: bytes) -> list[list[str]]:
    return list(csv.reader(io.StringIO(data.decode("utf-8-sig"))))


def test_to_csv_bytes_has_a_bom_a_header_and_neutralized_rows():
    data = csv_export.to_csv_bytes(["municipio", "conteo"], [['=HYPERLINK("x")', -5], ["León", 3]])
    assert data.startswith(b"\xef\xbb\xbf")
    assert read(data) == [["municipio", "conteo"], ['\'=HYPERLINK("x")', "-5"], ["León", "3"]]
    assert not csv_export.to_csv_bytes(["a"], [], bom=False).startswith(b"\xef\xbb\xbf")


def test_headers_are_neutralized_too():
    assert read(csv_export.to_csv_bytes(["=a", "b"], []))[0] == ["'=a", "b"]


def test_records_and_writer_helpers():
    data = csv_export.records_csv_bytes(["a", "b"], [{"a": "@x"}, {"b": "+y", "a": 1}])
    assert read(data) == [["a", "b"], ["'@x", ""], ["1", "'+y"]]
    out = io.StringIO()
    writer = csv_export.writer(out)
    writer.writerows([["=1"], ["2"]])
    assert out.getvalue() == "'=1\n2\n"
    out = io.StringIO()
    assert csv_export.write_csv(["h"], [["-x"], ["y"]], out) == 2


@pytest.mark.parametrize(("value", "written"), [(v, w) for v, w in CELLS if isinstance(v, str)])
def test_restore_gives_back_the_text(value, written):
    assert csv_export.restore(written) == value


@given(st.text(alphabet=st.sampled_from(list("'=+-@\t\r5.ae ")), max_size=8))
def test_neutralizing_any_text_is_reversible_and_never_leads_with_a_formula(value):
    written = csv_export.cell(value)
    assert csv_export.restore(written) == value
    if written and written[0] in csv_export.FORMULA_LEADS:
        assert csv_export._NUMBER.fullmatch(written)  # only plain numbers may start with a sign


def test_the_audit_csv_export_neutralizes_a_formula_question_and_restores_it(tmp_path):
    from core.audit.log import AuditLog

    questions = ['=HYPERLINK("http://127.0.0.1:9/x","ver")', "@SUM(A1:A9)", "-cmd", "¿Cuántos hubo?"]
    with AuditLog(tmp_path / "audit.sqlite3") as log:
        for question in questions:
            log.append(kind="ask", user="=ana", role="analista", status="ok", question=question, payload={"v": "+1"})
        out = io.StringIO()
        assert log.export("csv", out) == len(questions)
        records = list(reversed(log.list()))
    rows = list(csv.DictReader(io.StringIO(out.getvalue())))
    assert [row["question"] for row in rows] == ["'" + q for q in questions[:3]] + [questions[3]]
    assert {row["user"] for row in rows} == {"'=ana"}
    assert not [v for row in rows for v in row.values() if v[:1] in ("=", "+", "@", "\t", "\r")]
    for row, record in zip(rows, records, strict=True):  # every cell reads back exactly
        assert csv_export.restore(row["question"]) == record.question and row["hash"] == record.hash
