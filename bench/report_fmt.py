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


def fmt_ms(v) -> str:
    """Milliseconds to the unit with thousands separators (``—`` for None)."""
    return fmt(v, 0)


def not_measured(section: dict | None, measured_key: str, only: str) -> str | None:
    """Why a section of ``results.json`` has no numbers: not run, omitted or failed (None when it has them).

    ``measured_key`` is the key only a measured section holds; ``only`` names the section for ``--only``."""
    if not section:
        return f"no se corrió (`python -m bench.run --only {only}`)"
    if measured_key in section:
        return None
    return f"omitido: {section['omitido']}" if "omitido" in section else f"error: {section.get('error', '?')}"


def unmeasured_flag(section: dict | None) -> str:
    """The «Objetivos» flag of a section without numbers: ❌ when its run broke, ``—`` when not run or omitted."""
    return ok(False if section and "error" in section else None)
