"""CSV for people: the one writer behind every download (results, evidence, quarantine, audit).

A spreadsheet runs a cell that starts with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return
as a formula (OWASP «CSV Injection»): a municipality named ``=HYPERLINK(...)`` in an upload, a
quarantined count ``+cmd|' /C calc'!A0`` or a question ``=1+1`` would run on the reader's machine.
Every text cell that starts so gets a leading ``'`` (OWASP's recommendation), so the spreadsheet
shows it as text. Numbers stay numbers: ``-5`` is written as ``-5``, and so is the text ``"-5"``
or ``"+1.5e3"`` (a plain decimal literal is read as a number and can never be a formula), while
``"-cmd"`` or ``"-5+cmd|..."`` are neutralized.

Neutralizing is reversible (``restore``): a text that already starts with quotes followed by a
formula character gets one more quote, so removing one quote from ``'+[=+-@\\t\\r]…`` always gives
back the original (the audit CSV stays verifiable against its hashes).
"""

from __future__ import annotations

import csv
import io
import math
import numbers
import re
from collections.abc import Iterable, Sequence
from typing import Any, TextIO

FORMULA_LEADS = "=+-@\t\r"  # OWASP: the characters a spreadsheet reads as the start of a formula
# A plain decimal literal (optional sign, digits, optional fraction and exponent): a number, never a formula.
_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")
_NEUTRALIZED = re.compile(r"'*[" + re.escape(FORMULA_LEADS) + "]")
_RESTORABLE = re.compile(r"'+[" + re.escape(FORMULA_LEADS) + "]")
LINE_END = "\n"


def cell(value: Any) -> Any:
    """One cell as the CSV writer gets it: numbers as numbers, None and NaN empty, formula-leading text quoted."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, numbers.Number):
        if isinstance(value, numbers.Real) and not math.isfinite(value):
            return "" if math.isnan(value) else str(value)  # pandas wrote NaN as an empty cell
        return value
    text = str(value)
    if _NUMBER.fullmatch(text):
        return text
    if _NEUTRALIZED.match(text):
        return "'" + text
    return text


def restore(text: str) -> str:
    """The original text of a neutralized cell (``cell``'s inverse for text read back from a CSV)."""
    return text[1:] if _RESTORABLE.match(text) else text


class SafeWriter:
    """A ``csv.writer`` whose every row goes through ``cell``."""

    def __init__(self, out: TextIO):
        """Write rows to the text stream ``out`` (minimal quoting, ``\\n`` line ends)."""
        self._writer = csv.writer(out, lineterminator=LINE_END)

    def writerow(self, row: Iterable[Any]) -> None:
        """Write one row, each cell neutralized."""
        self._writer.writerow([cell(v) for v in row])

    def writerows(self, rows: Iterable[Iterable[Any]]) -> None:
        """Write every row, each cell neutralized."""
        for row in rows:
            self.writerow(row)


def writer(out: TextIO) -> SafeWriter:
    """A CSV writer on ``out`` that neutralizes formula-leading cells."""
    return SafeWriter(out)


def write_csv(columns: Sequence[Any], rows: Iterable[Iterable[Any]], out: TextIO) -> int:
    """The header and every row to ``out``; returns the number of data rows written."""
    safe = SafeWriter(out)
    safe.writerow(columns)
    written = 0
    for row in rows:
        safe.writerow(row)
        written += 1
    return written


def to_csv_bytes(columns: Sequence[Any], rows: Iterable[Iterable[Any]], *, bom: bool = True) -> bytes:
    """The CSV as UTF-8 bytes, with a BOM by default so spreadsheets read the accents."""
    buffer = io.StringIO()
    write_csv(columns, rows, buffer)
    return buffer.getvalue().encode("utf-8-sig" if bom else "utf-8")


def records_csv_bytes(columns: Sequence[str], records: Iterable[dict], *, bom: bool = True) -> bytes:
    """Dicts as CSV bytes, one column per name in ``columns`` (a missing key is an empty cell)."""
    return to_csv_bytes(columns, ([r.get(c) for c in columns] for r in records), bom=bom)
