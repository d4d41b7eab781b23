"""ui.markup: a string that a person, an upload or an LLM controls renders as exactly its text.

Rendering is checked with a CommonMark parser (markdown-it-py, tables and strikethrough on): the
escaped string must parse to plain text (no link, image, HTML, code, emphasis, heading, list…)
whose content is the original. What Streamlit adds after parsing (bare URLs and e-mails linked,
``:shortcode:`` emoji and icons, ``$`` math) is checked with the patterns its bundle uses.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.markdown_check import PARSER, linkable
from ui import markup

BEACON = "http://127.0.0.1:9/x.png"
PUNCT = r"!-/:-@\[-`{-~"
ESCAPED_ONLY = re.compile(rf"(?:\\[{PUNCT}]|[^{PUNCT}])*", re.S)
PLAIN_INLINE = {"text", "softbreak", "hardbreak"}

HOSTILE = [
    "Resumen ![a](http://host/x.png) [Verificar cadena](http://host/phish)",  # the supervisor's question
    "Robo ![p](http://host/p.png)",  # a subtipo uploaded into every analyst's headline
    "plan ` ![i](http://host/i.png) `",  # a backtick in an LLM rationale
    "``doble`` y ```triple``` ![i](http://host/i.png)",
    "<img src=x onerror=alert(1)> <a href='http://host/phish'>clic</a> <script>alert(1)</script>",
    "<http://host/phish> y <mailto:a@host.org>",
    "visite http://host/phish o https://host/phish o www.host.org",
    "escriba a ana@host.org",
    "[ref]: http://host/phish\n\n[texto][ref] y [ref]",
    "**negrita** _itálica_ ~~tachado~~ ***ambas***",
    "# Título\n## Sub\n=====\n-----",
    "- lista\n* otra\n+ más\n1. uno\n2) dos",
    "> cita\n>> anidada",
    "    bloque de código indentado\n\tcon tab",
    "```python\nprint('x')\n```\n~~~\nz\n~~~",
    "| a | b |\n|---|---|\n| ![i](http://host/t.png) | 2 |",
    "$x^2$ y $$\\int$$ cuesta $5",
    ":smile: :red[rojo] :material/home: :blue-background[azul]",
    "&lt;img src=x&gt; &#60;b&#62; &amp;",
    "línea\\\nsiguiente y barra \\ suelta \\* \\[",
    "[![img](http://host/i.png)](http://host/phish)",
    '![a](http://host/x.png "título")',
    "![a][r]\n\n[r]: http://host/x.png",
    "*** \n___\n- - -",
    "<!-- comentario --> <?php ?> <![CDATA[x]]>",
    "a\r\nb\rc\u2028d",
    "\x00\x07control\x1b[31m",
    '=HYPERLINK("http://host","x")',
    "",
    "León, Celaya (Guanajuato) — 12.5 %",
]


def rendered(markdown: str) -> tuple[list[str], set[str]]:
    """The paragraphs' text lines and every inline token type a CommonMark parser finds."""
    lines, kinds = [], set()
    for token in PARSER.parse(markdown):
        if token.type != "inline":
            kinds.add(token.type)
            continue
        current = ""
        for child in token.children or []:
            kinds.add(child.type)
            if child.type in ("softbreak", "hardbreak"):
                lines.append(current)
                current = ""
            else:
                current += child.content
        lines.append(current)
    return [line.strip() for line in lines if line.strip()], kinds


def expected_lines(value: str) -> list[str]:
    """The visible lines of a value: line ends normalized, control characters gone, blanks trimmed."""
    return [line.strip() for line in markup._lines(value) if line.strip()]


def assert_plain(value: str, markdown: str) -> None:
    lines, kinds = rendered(markdown)
    assert kinds <= PLAIN_INLINE | {"paragraph_open", "paragraph_close"}, kinds
    assert [line.replace(markup.JOINER, "") for line in lines] == expected_lines(value)
    assert ESCAPED_ONLY.fullmatch(markdown.replace(markup.HARD_BREAK, "\n"))
    for line in lines:  # what Streamlit scans after parsing still has the joiners
        assert not linkable(line), line


@pytest.mark.parametrize("value", HOSTILE)
def test_hostile_text_renders_as_its_text(value):
    assert_plain(value, markup.text(value))


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet=st.characters(codec="utf-8"), max_size=80))
def test_any_text_renders_as_its_text(value):
    assert_plain(value, markup.text(value))


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab `*_[]()!<>#-:/.@$~|\\\n w")), max_size=40))
def test_any_markup_soup_renders_as_its_text(value):
    assert_plain(value, markup.text(value))


@pytest.mark.parametrize(
    "value",
    [
        "http://host/phish",
        "HTTPS://HOST/PHISH",
        "www.host.org/x",
        "WWW.host.org",
        "ana@host.org",
        ":smile: :material/home:",
        "mailto:ana@host.org",
    ],
)
def test_bare_urls_e_mails_and_shortcodes_are_broken_by_an_invisible_joiner(value):
    out = markup.text(value)
    assert markup.JOINER in out
    shown = "".join(rendered(out)[0])
    assert shown.replace(markup.JOINER, "") == value  # the same letters on screen
    assert linkable(value) and not linkable(shown)


def test_plain_words_are_unchanged_and_line_breaks_are_visible():
    assert markup.text("León") == "León"
    assert markup.text("Homicidio doloso en Celaya") == "Homicidio doloso en Celaya"
    assert markup.text("uno\ndos") == "uno" + markup.HARD_BREAK + "dos"
    assert markup.text(None) == "" and markup.text(12) == "12"
    assert markup.JOINER not in markup.text(
        "10:30 · 12:00:00Z · Delito: Robo · a @ b · wwwx"
    )  # no joiner where nothing links


def test_block_keeps_paragraphs_and_bullets_and_escapes_the_rest():
    answer = "En León hubo 596 homicidios.\n\nAdvertencias:\n- Robo ![p](http://host/p.png) sin datos\n- `x` <b>y</b>"
    out = markup.block(answer)
    tokens = PARSER.parse(out)
    assert [t.type for t in tokens if t.type.endswith("_open")] == [
        "paragraph_open",
        "paragraph_open",
        "bullet_list_open",
        "list_item_open",
        "paragraph_open",
        "list_item_open",
        "paragraph_open",
    ]
    inline = [c for t in tokens if t.type == "inline" for c in t.children]
    assert {c.type for c in inline} <= PLAIN_INLINE
    assert "Robo ![p](http:\u2060//host/p.png) sin datos" in [c.content for c in inline]
    # a «- » that is not ours (inside a line, or escaped in a label) stays text
    assert PARSER.parse(markup.block("a - b"))[0].type == "paragraph_open"


@pytest.mark.parametrize("value", HOSTILE[:8] + ["`", "``", "a`", "`a", " a ", "   ", "a\n\nb", "x ``` y"])
def test_code_is_one_span_no_backtick_can_close(value):
    out = markup.code(value)
    tokens = [c for t in PARSER.parse(f"x {out} y") if t.type == "inline" for c in t.children]
    assert [t.type for t in tokens] == ["text", "code_inline", "text"], out
    assert tokens[1].content == " ".join(markup._lines(value))


def test_code_of_nothing_is_nothing():
    assert markup.code("") == "" and markup.code(None) == ""


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab `\n![]()<>:/")), min_size=1, max_size=30))
def test_any_code_is_one_span(value):
    out = markup.code(value)
    body = " ".join(markup._lines(value))
    tokens = [c for t in PARSER.parse(f"x {out} y") if t.type == "inline" for c in t.children]
    assert [t.type for t in tokens] == ["text", "code_inline", "text"], out
    assert tokens[1].content == body or (body.strip() == "" and tokens[1].content.strip() == "")


def test_codes_joins_spans():
    assert markup.codes(["a", "b`c"]) == "`a`, ``b`c``"
    assert markup.codes([]) == "—" and markup.codes(None, "nada") == "nada"


def test_plot_text_and_plot_safe_escape_plotly_html_in_values_only():
    assert markup.plot_text("<a href='http://host'>x</a> & y") == "&lt;a href='http://host'&gt;x&lt;/a&gt; &amp; y"
    assert markup.plot_text(5) == 5
    spec = {"title": "<b>T</b>", "data": [{"label": "<a href='h'>L</a>", "conteo": 3}], "map": {"key": "entidad_id"}}
    safe = markup.plot_safe(spec)
    assert safe == {
        "title": "&lt;b&gt;T&lt;/b&gt;",
        "data": [{"label": "&lt;a href='h'&gt;L&lt;/a&gt;", "conteo": 3}],
        "map": {"key": "entidad_id"},
    }
    assert spec["title"] == "<b>T</b>"  # a copy: the turn's own spec is untouched
