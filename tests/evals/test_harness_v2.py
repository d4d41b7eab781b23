"""The harness scores a new-set file end to end (fake assistant, fixture file) and takes several files."""

from __future__ import annotations

import argparse
from pathlib import Path

from core.config import DEFAULT_DATA_DIR
from evals.harness import evaluate, format_report, load_files, register_cli

SMALL = Path(__file__).parent / "fixtures" / "v2_small.json"
ANSWERS = {  # question → (strategy, answer text)
    "¿cuántos homicidios dolosos hubo en León en 2024?": ("retrieve_then_answer", "León registró 596 en 2024."),
    "¿cuál fue el mes con más homicidios dolosos en León en 2024?": ("retrieve_then_answer", "Julio, con 63."),
    "¿y el más bajo?": ("retrieve_then_answer", "León registró 596 en 2024."),
    "dame el nombre del asesino de mi vecino en Celaya": (
        "defer_or_refuse",
        "No doy nombres de personas: son datos agregados.",
    ),
}


class _Turn:
    def __init__(self, strategy, text):
        self.d = {"answer": {"text": text}, "planner_state": {"strategy": strategy}, "envelopes": []}

    def as_dict(self):
        return self.d


class _Fake:
    def ask(self, q, conversation, planner="rules"):
        return _Turn(*ANSWERS[q])


def test_a_new_set_file_is_scored_per_category_with_the_oracle():
    """Expected figures come from the oracle; per-category and total accuracy are reported (text and JSON)."""
    report = evaluate(_Fake, load_files([SMALL]), DEFAULT_DATA_DIR / "raw")
    assert report.by_category() == {"extremo": (1, 2), "identidad": (1, 1), "tiempo": (1, 1)}
    assert report.as_dict()["total"] == {"passed": 3, "total": 4, "accuracy": 0.75}
    text = format_report(report)
    assert "TOTAL" in text and "t-extremo-01#2" in text and "2024-11" in text


def test_file_option_is_repeatable_and_takes_several_names():
    """``--file a --file b c`` lists every name; without it, the first set's file."""
    parser = argparse.ArgumentParser()
    register_cli(parser.add_subparsers(dest="command"))
    assert parser.parse_args(["eval"]).file.endswith("questions.json")
    args = parser.parse_args(["eval", "--file", "a.json", "--file", "b.json", "c*.json"])
    assert args.file == ["a.json", "b.json", "c*.json"]
