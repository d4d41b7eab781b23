"""Text that a person, an upload or an LLM controls, made inert for Streamlit's Markdown and Plotly's labels.

Streamlit draws Markdown (GitHub-flavored, plus LaTeX, emoji shortcodes, ``:color[…]`` directives
and Material icons) in ``st.markdown``, captions, alerts, labels of buttons, expanders, tabs and
widgets, tooltips, ``st.table`` cells and ``st.status``/``st.metric`` labels. A question such as
``Resumen ![a](http://host/x.png) [Verificar](http://host/phish)`` would make every reader's browser
fetch the image and show a phishing link. Every such string goes through ``text`` (inline text),
``block`` (the answer's paragraphs and «- » bullets) or ``code`` (an inline code span); our own
fixed Spanish Markdown (the bold words we write) stays Markdown around them.

``text`` backslash-escapes every ASCII punctuation character (CommonMark allows escaping any of
them, and an escaped character never starts a construct: links, images, emphasis, code, HTML,
autolinks ``<http://x>``, headings, lists, tables, LaTeX ``$``, directives ``:red[``). Streamlit
also links bare URLs and e-mail addresses and turns ``:name:`` into emoji *after* parsing, on the
text itself, where escapes are already gone: a WORD JOINER (U+2060, invisible, no line break) after
the ``:`` of ``http://`` or ``:smile:``, between ``www`` and ``.`` and before an address's local part
(``⁠ana@example.org`` still reads, and is found, as ``ana@example.org``) keeps those patterns from matching (a time ``12:00:00`` or ``Delito: Robo`` is left alone). Leading blanks are
dropped (four spaces would start a code block) and each line break is a visible one.

Plotly renders a subset of HTML in titles, tick and hover labels (``<a href>``, ``<b>``…):
``plot_text``/``plot_safe`` escape ``&``, ``<`` and ``>`` for it.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable
from typing import Any

JOINER = "\u2060"  # WORD JOINER: invisible, keeps a URL, an e-mail or a :shortcode: from being recognized
_PUNCT = re.compile(r"([!-/:-@\[-`{-~])")  # every ASCII punctuation character
# where a joiner goes: ``scheme:``+``//``, a ``:shortcode:`` or ``:material/icon:``, ``www.``
_LINKISH = re.compile(r"(?<=:)(?=//|[^\s:]*[a-z][^\s:]*:)|(?<=www)(?=\.)", re.IGNORECASE)
# The local part of an e-mail address (Streamlit links ``[-.\w+]+@domain.tld`` when a space, punctuation or a
# symbol comes before it): a joiner before it and after each of its punctuation marks leaves no such start.
_EMAIL_LOCAL = re.compile(r"[-.\w+]+(?=@[-\w]+(?:\.[-\w]+)+)", re.ASCII)
_LOCAL_PUNCT = re.compile(r"(?<=[-.+_])")
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_NEWLINES = re.compile(r"\r\n?|[\u2028\u2029\x85]")
_BULLET = re.compile(r"- (?=\S)")
HARD_BREAK = "  \n"  # two spaces then a newline: a visible line break inside one paragraph


def _lines(value: Any) -> list[str]:
    return _NEWLINES.sub("\n", _CONTROL.sub("", "" if value is None else str(value))).split("\n")


def _unlinkable(line: str) -> str:
    line = _EMAIL_LOCAL.sub(lambda m: JOINER + _LOCAL_PUNCT.sub(JOINER, m.group(0)), line)
    return _LINKISH.sub(JOINER, line)


def _inline(line: str) -> str:
    return _PUNCT.sub(r"\\\1", _unlinkable(line.lstrip(" \t")))


def _join(lines: list[str]) -> str:
    """Lines with a visible break between two of them and a blank line kept blank (a new paragraph)."""
    return "".join(
        line + (HARD_BREAK if line and i + 1 < len(lines) and lines[i + 1] else "\n") for i, line in enumerate(lines)
    )[:-1]


def text(value: Any) -> str:
    """``value`` as Markdown that renders exactly as its text: no link, image, HTML, code, math or emoji."""
    return _join([_inline(line) for line in _lines(value)])


def block(value: Any) -> str:
    """Plain text with paragraphs (blank lines) and «- » bullets at line starts, everything else as ``text``.

    The answer that core composes is such a text (``core/ask/compose.py``: lead, period, then
    «Advertencias:» with one «- » line per warning); labels from uploads sit inside it, so it is
    escaped whole at render time and only the bullets it writes keep their meaning.
    """
    out = []
    for line in _lines(value):
        stripped = line.lstrip(" \t")
        bullet = _BULLET.match(stripped)
        out.append("- " + _inline(stripped[bullet.end() :]) if bullet else _inline(stripped))
    return _join(out)


def code(value: Any) -> str:
    """``value`` as one inline code span that no backtick inside it can close (empty for an empty value)."""
    body = " ".join(_lines(value))  # a code span cannot cross a blank line: keep it on one line
    if not body:
        return ""
    fence = "`" * (max((len(run) for run in re.findall(r"`+", body)), default=0) + 1)
    # CommonMark strips one space from each side when both are there: pad when the value starts or ends
    # with a backtick (it would join the fence) or is wrapped in spaces (they would be lost).
    pad = " " if body[0] == "`" or body[-1] == "`" or (body[0] == " " and body[-1] == " " and body.strip()) else ""
    return f"{fence}{pad}{body}{pad}{fence}"


def codes(values: Iterable[Any] | None, empty: str = "—") -> str:
    """Each value as a code span, comma-separated (``empty`` when there are none)."""
    items = [code(v) for v in values or [] if code(v)]
    return ", ".join(items) if items else empty


def plot_text(value: Any) -> Any:
    """A string with Plotly's HTML characters escaped (other values as they are)."""
    return html.escape(value, quote=False) if isinstance(value, str) else value


def plot_safe(value: Any) -> Any:
    """A copy of a chart spec (dicts, lists, strings) with every string value escaped for Plotly; keys unchanged."""
    if isinstance(value, dict):
        return {k: plot_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plot_safe(v) for v in value]
    return plot_text(value)
