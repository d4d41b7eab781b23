"""What a Markdown string would make a browser do: links, images, raw HTML, and the bare URLs,
e-mails and ``:shortcodes:`` Streamlit turns into links and icons after parsing.

Shared by the escaping tests (tests/ui, tests/pages): ``active_markup(text)`` is empty when the
string renders as inert text; ``page_markdown(at)`` collects every Markdown an AppTest drew.
"""

from __future__ import annotations

import re
import unicodedata

from markdown_it import MarkdownIt

PARSER = MarkdownIt("commonmark").enable(["table", "strikethrough"])
ACTIVE_TOKENS = {"image", "link_open", "html_inline", "html_block"}
# Streamlit's bundle (mdast-util-gfm-autolink-literal and remark-emoji) scans the parsed text with these.
BARE_URL = re.compile(r"(https?://|www(?=\.))([-.\w]+)", re.IGNORECASE | re.ASCII)
SHORTCODE = re.compile(r":[\w/+-]*[A-Za-z][\w/+-]*:", re.ASCII)  # numeric ones (:100:) only draw an emoji


def _boundary(text: str, index: int) -> bool:
    """Whether a link may start at ``index``: the string's start, or after a space, punctuation or a symbol."""
    if index == 0:
        return True
    before = text[index - 1]
    return before.isspace() or unicodedata.category(before)[0] in "PS"


def linkable(text: str) -> list[str]:
    """The bare URLs, e-mail addresses and shortcodes Streamlit would turn into links or icons in parsed text."""
    found = [m.group(0) for m in BARE_URL.finditer(text) if _boundary(text, m.start())]
    found += [m.group(0) for m in SHORTCODE.finditer(text)]
    for at in (i for i, c in enumerate(text) if c == "@"):
        domain = re.match(r"[-\w]+(?:\.[-\w]+)+", text[at + 1 :], re.ASCII)
        if not domain or re.search(r"[-\d_]$", domain.group(0)):
            continue  # GitHub's rule: no link when the domain ends in a digit, - or _
        start = at
        while start > 0 and re.match(r"[-.\w+]", text[start - 1], re.ASCII):
            start -= 1
        found += [text[i : at + 1] + domain.group(0) for i in range(start, at) if _boundary(text, i)]
    return found


ESCAPE = re.compile(r"\\([!-/:-@\[-`{-~])")


def unescape(markdown: str) -> str:
    """The Markdown source with ``ui.markup``'s escapes and joiners undone (our own ** and ` stay)."""
    return ESCAPE.sub(r"\1", str(markdown)).replace("\u2060", "")


def _walk(tokens):
    for token in tokens:
        yield token
        yield from _walk(token.children or [])


def active_markup(markdown: str) -> list[str]:
    """Each link, image, HTML, bare URL, e-mail or shortcode a browser would draw from ``markdown``."""
    found = []
    for token in _walk(PARSER.parse(markdown or "")):
        if token.type in ACTIVE_TOKENS:
            found.append(f"{token.type}: {token.content or token.attrs}")
        elif token.type == "text":
            found += [f"autolink: {match}" for match in linkable(token.content)]
    return found


def page_markdown(at) -> list[str]:
    """Every string an AppTest run drew as Markdown: text, captions, alerts, labels, table cells."""
    out = []
    for kind in ("markdown", "caption", "info", "warning", "error", "success", "title", "subheader"):
        out += [str(e.value) for e in at.get(kind)]
    for kind in ("expander", "button", "status", "tab"):
        out += [str(getattr(e, "label", "") or "") for e in at.get(kind)]
    for table in at.get("table"):
        out += [str(v) for v in table.value.to_numpy().ravel()]
    return out


def assert_inert(at) -> None:
    """No Markdown the AppTest drew makes a link, an image or HTML."""
    bad = {text: found for text in page_markdown(at) if (found := active_markup(text))}
    assert not bad, bad
