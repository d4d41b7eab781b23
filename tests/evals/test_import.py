"""Importing the harness reads no data: the question file and the raw or catalog CSVs are opened on first use."""

from __future__ import annotations

import subprocess
import sys
import textwrap

from core.config import PROJECT_ROOT

# An audit hook records every file opened while ``evals.harness`` is imported (and only then).
_PROBE = textwrap.dedent("""
    import sys
    opened = []
    sys.addaudithook(lambda event, args: opened.append(str(args[0])) if event == "open" and args else None)
    import evals.harness
    data = [p for p in opened if p.endswith((".csv", ".json")) and "site-packages" not in p]
    print("\\n".join(data))
""")


def test_import_opens_no_question_or_csv_file():
    """``import evals.harness`` opens neither evals/questions.json nor any CSV file."""
    out = subprocess.run([sys.executable, "-c", _PROBE], cwd=PROJECT_ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_codes_are_read_on_first_use():
    """The INEGI codes come from the entities catalog when a check first needs them."""
    from evals.harness import inegi_codes, key_matches

    assert inegi_codes()["GTO"] == "11"
    assert key_matches({"entidad_id": "GTO.MUN.LEON", "label": "León"}, "11020")
    assert key_matches({"entidad_id": "GTO.MUN.LEON", "label": "León"}, "leon")
