"""Evaluation harness: Spanish questions checked against independent SQL over ``data/raw`` (``core eval``)."""

from __future__ import annotations

import argparse
import glob
import json
import sys
from collections import Counter
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import duckdb

from core.config import PROJECT_ROOT
from evals.answer_text import inegi_codes, key_matches, number_in_text, numbers_in, same
from evals.checks import CHECKERS, DATA_KINDS, KINDS, check_turn, expected_of
from evals.checks_v2 import check_v2
from evals.expect import ExpectError, parse_conversation
from evals.oracle import Oracle
from evals.raw_views import RawViews

__all__ = [
    "CHECKERS",
    "DATA_KINDS",
    "KINDS",
    "RawViews",
    "check_turn",
    "expected_of",
    "inegi_codes",
    "key_matches",
    "number_in_text",
    "numbers_in",
    "same",
]

DEFAULT_FILE = PROJECT_ROOT / "evals" / "questions.json"


@dataclass
class Check:
    """One checked turn."""

    conv_id: str
    category: str
    turn: int
    question: str
    kind: str
    passed: bool
    expected: Any = None
    got: Any = None
    reason: str = ""
    answer: str = ""  # the engine's answer text (first 400 characters)


@dataclass
class Report:
    """Every checked turn, with accuracy per category."""

    checks: list[Check] = field(default_factory=list)

    def by_category(self) -> dict[str, tuple[int, int]]:
        """category -> (passed, total)."""
        cats = sorted({c.category for c in self.checks})
        return {
            k: (sum(c.passed for c in self.checks if c.category == k), sum(c.category == k for c in self.checks))
            for k in cats
        }

    @property
    def failures(self) -> list[Check]:
        """The turns that failed."""
        return [c for c in self.checks if not c.passed]

    def below(self, minimum: float) -> list[str]:
        """Categories whose accuracy is under ``minimum``."""
        return [k for k, (p, n) in self.by_category().items() if p / n < minimum]

    def as_dict(self) -> dict:
        """JSON-ready report: per category passed/total/accuracy, then the failures."""
        return {
            "categories": {
                k: {"passed": p, "total": n, "accuracy": round(p / n, 4)} for k, (p, n) in self.by_category().items()
            },
            "total": {
                "passed": (ok := sum(c.passed for c in self.checks)),
                "total": len(self.checks),
                "accuracy": round(ok / max(len(self.checks), 1), 4),
            },
            "failures": [asdict(c) for c in self.failures],
        }


def is_v2(data: list[dict]) -> bool:
    """A file of the new set: no expectation carries its own SQL or value (the oracle computes them)."""
    return not any("sql" in t.get("expect", {}) or "value" in t.get("expect", {}) for c in data for t in c["turns"])


def load_questions(path: str | Path = DEFAULT_FILE) -> list[dict]:
    """The conversations of one evaluation file; a new-set file gets its validated expectations under ``_expects``."""
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    if not isinstance(data, list) or not data:
        raise ExpectError(f"{path}: se espera una lista no vacía de conversaciones")
    if data and is_v2(data):
        return [{**conv, "_expects": parse_conversation(conv)} for conv in data]
    for conv in data:
        assert conv.get("id") and conv.get("category") and conv.get("turns"), f"conversación mal formada: {conv}"
        for t in conv["turns"]:
            assert t["expect"]["kind"] in KINDS, f"{conv['id']}: tipo desconocido {t['expect']['kind']}"
    return data


def expand_files(paths: str | Path | list) -> list[Path]:
    """Every file named, each name possibly a glob (sorted), in order and without repeats."""
    out: list[Path] = []
    for p in [paths] if isinstance(paths, (str, Path)) else paths:
        hits = sorted(glob.glob(str(p))) if glob.has_magic(str(p)) else [str(p)]
        if not hits:
            raise ExpectError(f"ningún archivo coincide con {p}")
        out += [Path(h) for h in hits if Path(h) not in out]
    return out


def load_files(paths: str | Path | list) -> list[dict]:
    """The conversations of several files scored as one set; a conversation id may appear only once."""
    convs = [c for p in expand_files(paths) for c in load_questions(p)]
    seen = Counter(c["id"] for c in convs)
    if dups := sorted(k for k, n in seen.items() if n > 1):
        raise ExpectError(f"ids de conversación repetidos: {dups[:10]}")
    return convs


def evaluate(
    assistant_factory: Callable[[], Any], questions: list[dict], raw_dir: str | Path, planner: str = "rules"
) -> Report:
    """Ask every conversation in a fresh Conversation and check each turn."""
    from core.ask.pipeline import Conversation

    con, assistant, report = RawViews.create(duckdb.connect(), raw_dir), assistant_factory(), Report()
    oracle = Oracle(con) if any("_expects" in c for c in questions) else None
    for conv in questions:
        conversation, models = Conversation(), conv.get("_expects")
        for i, t in enumerate(conv["turns"]):
            expect = t["expect"]
            # from the raw files, before the engine answers
            expected = oracle.expected(models[i]) if models else expected_of(expect, con)
            try:
                turn = assistant.ask(t["q"], conversation, planner=planner).as_dict()
                ok, got, why = check_v2(turn, models[i], expected) if models else check_turn(turn, expect, expected)
            except Exception as exc:  # noqa: BLE001 - an engine crash fails the turn, not the run
                turn, ok, got, why = {}, False, None, f"excepción del motor: {exc.__class__.__name__}: {exc}"
            report.checks.append(
                Check(
                    conv["id"],
                    conv["category"],
                    i + 1,
                    t["q"],
                    expect["kind"],
                    bool(ok),
                    expected,
                    got,
                    why,
                    ((turn.get("answer") or {}).get("text") or "")[:400],
                )
            )
    con.close()
    return report


def format_report(report: Report) -> str:
    """A table of accuracy per category, then the failures."""
    lines = [f"{'categoría':<20} {'bien':>5} {'total':>6} {'exactitud':>10}"]
    lines += [f"{cat:<20} {p:>5} {n:>6} {100 * p / n:>9.1f}%" for cat, (p, n) in report.by_category().items()]
    total, passed = len(report.checks), sum(c.passed for c in report.checks)
    lines.append(f"{'TOTAL':<20} {passed:>5} {total:>6} {100 * passed / max(total, 1):>9.1f}%")
    lines += ["\nFallas:"] if report.failures else []
    dump = lambda v: json.dumps(v, ensure_ascii=False, default=str)[:300]
    lines += [
        f"- [{c.category}] {c.conv_id}#{c.turn} ({c.kind}) «{c.question}»\n    esperado: {dump(c.expected)}\n"
        f"    obtenido: {dump(c.got)}\n    motivo: {c.reason}\n    respuesta: {c.answer[:300]!r}"
        for c in report.failures
    ]
    return "\n".join(lines)


def _cli(args, settings) -> int:
    """Run the evaluation over the current store, print the report; 1 when a category is below the minimum."""
    from core.ask.context import Assistant

    raw = Path(args.raw_dir) if args.raw_dir else PROJECT_ROOT / "data" / "raw"
    report = evaluate(
        lambda: Assistant(settings=settings, user="eval", use_cache=False),
        load_files(args.file),
        raw,
        planner=args.planner,
    )
    out = (
        json.dumps(report.as_dict(), ensure_ascii=False, indent=2, default=str) if args.json else format_report(report)
    )
    sys.stdout.write(out + "\n")
    return 1 if report.below(args.min_accuracy) else 0


class _Files(argparse.Action):
    """``--file`` repeatable: the first use replaces the default, later uses add to the list."""

    def __call__(self, parser, namespace, values, option_string=None):
        had = getattr(namespace, self.dest)
        setattr(namespace, self.dest, ([] if isinstance(had, str) else had) + list(values))


def register_cli(subparsers) -> None:
    """Add ``eval [--file] [--planner] [--json] [--min-accuracy] [--raw-dir]`` to an argparse subparsers object."""
    p = subparsers.add_parser("eval", help="evaluar el motor con las preguntas de evals/questions.json")
    p.add_argument(
        "--file",
        default=str(DEFAULT_FILE),
        nargs="+",
        action=_Files,
        help="archivos JSON de conversaciones (se puede repetir y acepta comodines: evals/v2/dev_*.json)",
    )
    p.add_argument("--planner", choices=["auto", "rules", "llm"], default="rules")
    p.add_argument("--json", action="store_true", help="salida en JSON")
    p.add_argument("--min-accuracy", type=float, default=0.95, help="exactitud mínima por categoría")
    p.add_argument("--raw-dir", help="carpeta de archivos crudos (por omisión data/raw)")
    p.set_defaults(handler=_cli)
