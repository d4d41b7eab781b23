"""English on a Spanish page (issue 15, item 9): the words a person would read as English UI, and every text an
AppTest run drew (labels, help, placeholders, options, Markdown, alerts, table headers and text cells).

Shared by tests/pages/test_spanish.py (AppTest of every page) and tests/browser/test_spanish.py (what the browser
shows, which AppTest cannot see: Streamlit's own widget texts). Code blocks and JSON are left out: they show
contract keys and plans as they are.
"""

from __future__ import annotations

import re

from tests.markdown_check import unescape

# Common English UI words and phrases (whole words, case as Streamlit and Python write them), Python's None/NaN
# leaking into a cell, and Plotly's English month labels («Jan 2021»).
ENGLISH = re.compile(
    r"\b(?:the|and|Upload|Download|Drag and drop|per file|Browse files|Choose an option|Press Enter|"
    r"Press Ctrl|No results|Help|Submit|Cancel|Loading|Search|Select|Clear all|should|required|"
    r"Field|List should|at least|Invalid|must be|cannot|None|NaN|nan)\b"
    r"|\b(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4}\b"
)
TEXT_FIELDS = ("label", "body", "placeholder", "help", "options", "default_value", "caption")
SKIPPED = {"code", "json", "plotly_chart", "html", "arrow_data_frame", "exception"}


def english_in(texts) -> list[str]:
    """Each English word or phrase found, with the text around it («…» marks where)."""
    found = []
    for text in texts:
        for match in ENGLISH.finditer(text):
            start, end = max(0, match.start() - 40), match.end() + 40
            found.append(f"{match.group(0)!r} in «{text[start:end]}»")
    return found


def _strings(message) -> list[str]:
    """The text fields of a Streamlit proto message (and of its nested messages)."""
    out = []
    for field, value in message.ListFields():
        repeated = (
            not isinstance(value, (str, bytes)) and not hasattr(value, "ListFields") and hasattr(value, "__len__")
        )
        items = list(value) if repeated else [value]
        if field.message_type is not None:
            for item in items:
                out += _strings(item)
        elif field.name in TEXT_FIELDS:
            out += [v for v in items if isinstance(v, str)]
    return out


def app_texts(at) -> list[str]:
    """Every text an AppTest run drew, main area and sidebar, plus the headers and text cells of its tables."""
    out: list[str] = []

    def walk(node) -> None:
        kind = getattr(node, "type", "")
        if kind in SKIPPED:
            return
        proto = getattr(node, "proto", None)
        if proto is not None and hasattr(proto, "ListFields"):
            out.extend(unescape(s) for s in _strings(proto))
        for child in (getattr(node, "children", None) or {}).values():
            walk(child)

    walk(at._tree)
    for frame in [t.value for t in at.get("table")] + [d.value for d in at.get("arrow_data_frame")]:
        out += [str(c) for c in frame.columns]
        out += [v for v in frame.to_numpy().ravel() if isinstance(v, str)]
    return out
