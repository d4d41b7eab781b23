"""Number, flag and table formatting shared by the modules that write BENCHMARKS.md."""

from __future__ import annotations

YES, NO, SKIP = "✅ sí", "❌ no", "—"


def fmt(v, nd: int = 1, unit: str = "") -> str:
    """A number with thousands separators (``—`` for None)."""
    if v is None:
        return "—"
    if isinstance(v, float):
        return f"{v:,.{nd}f}{unit}"
    if isinstance(v, int):
        return f"{v:,}{unit}"
    return f"{v}{unit}"


def ok(flag) -> str:
    """✅ / ❌ for a goal, ``—`` when it was not measured."""
    return SKIP if flag is None else (YES if flag else NO)


def table(head: list[str], rows: list[list]) -> list[str]:
    """A Markdown table followed by a blank line."""
    out = ["| " + " | ".join(head) + " |", "|" + "|".join("---" for _ in head) + "|"]
    out += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return out + [""]


def times(a, b, nd: int = 1) -> str:
    """``a ÷ b`` as ``N.N×`` (``—`` when either is missing)."""
    return f"{a / b:.{nd}f}×" if a is not None and b else "—"
