"""The review pass (docs/contracts/004_chatbot_graph.md §4.2), the answer's safety gate: no personal data,
no internal details.

An answer that shows a phone, an e-mail, a CURP/RFC, an address or a named person, or that leaks SQL, paths,
tracebacks or keys, is replaced by a fixed Spanish text and marked ``blocked``. Numbers no envelope or passage
holds are not blocked but named in a warning, so an analyst can see what was not verified.
"""

from __future__ import annotations

import re
from typing import Any

from core.ask.contracts import Answer
from core.ask.wording import join_y
from core.text import MONTHS

_NAME = r"[A-ZÁÉÍÓÚÑ][a-záéíóúñ]+(?:\s+[A-ZÁÉÍÓÚÑ][a-záéíóúñ]+)+"
PERSONAL = {
    "teléfono": re.compile(
        r"(?<![\d,.])(?:\+?52[\s.-]?)?(?:\(\d{2,3}\)\s?|\d{2,3}[\s.-])\d{3,4}[\s.-]?\d{4}(?![\d,])"
        r"|(?<![\d,.])\d{10}(?![\d,.])"
    ),
    "correo": re.compile(r"\b[\w.+-]+@[\w-]+\.[\w.-]+\b"),
    "CURP/RFC": re.compile(r"\b[A-Z][AEIOUX][A-Z]{2}\d{6}[HM][A-Z]{5}[A-Z0-9]\d\b|\b[A-ZÑ&]{3,4}\d{6}[A-Z0-9]{3}\b"),
    "domicilio": re.compile(
        r"(?i:\b(?:calle|avenida|av\.|blvd\.?|bulevar|boulevard|privada|callejón|calzada|"
        r"carretera|colonia|col\.)\s+)[\w.' ]{1,60}?\s*"
        r"(?:#|(?i:núm\.?|num\.?|no\.|número)\s*)\s*\d+"
    ),
    "nombre": re.compile(
        r"\b(?i:la|el|las|los)\s+(?i:víctimas?|victimas?|sospechos[oa]s?|presunt[oa]s? responsables?|"
        r"detenid[oa]s?|imputad[oa]s?|agresor(?:a|es)?|occis[oa]s?|denunciantes?|testigos?)[,:]?\s+" + _NAME
    ),
}
INTERNAL = {
    # SQL is matched in capitals (Spanish prose never writes them) or as a lowercase select … from
    "SQL": re.compile(
        r"\b(?:SELECT|FROM|WHERE|JOIN|INSERT|DELETE|DROP|UPDATE|UNION)\b"
        r"|(?i:\bselect\b[^.]{0,120}\bfrom\b)"
    ),
    # absolute paths only: the methodology cites repository paths such as `data/raw/`, which are public
    "ruta": re.compile(
        r"(?:(?<=\s)|^|(?<=[(\"'`=]))(?:/[A-Za-z_.][\w.-]*){2,}|\b[A-Za-z]:\\"
        r"|\b\w+\.(?:py|duckdb|sqlite)\b|\b(?:artifact|file)://"
    ),
    "traza": re.compile(
        r"Traceback \(most recent call last\)|File \"[^\"]+\", line \d+"
        r"|\b[A-Z][A-Za-z]*(?:Error|Exception)\b"
    ),
    "clave": re.compile(
        r"\bsk-[A-Za-z0-9_-]{8,}|\bAKIA[0-9A-Z]{16}\b"
        r"|(?i:\b(?:api[_-]?key|secret|password)\s*[:=]\s*\S+)"
    ),
}
SAFE_TEXT = (
    "No puedo mostrar esta respuesta: la revisión encontró {what}. Casandra sólo ofrece estadística "
    "agregada y no comparte datos de personas ni detalles internos del sistema. Puede reformular la pregunta."
)
_NUMBER = re.compile(r"(?<![\w.,])\d{1,3}(?:,\d{3})+(?:\.\d+)?(?![\w])|(?<![\w.,])\d+(?:\.\d+)?(?![\w])")
_DAY = re.compile(r"\s+de\s+(?:" + "|".join(MONTHS) + ")")
CHECK_FROM = 10  # small numbers (counts of months, ranks) are wording, not results


def _numbers_in(value: Any) -> list[float]:
    """Every number in a value: scalars, strings (via the text pattern), lists and dicts."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return [float(value)]
    if isinstance(value, str):
        return [float(m.replace(",", "")) for m in _NUMBER.findall(value)]
    items = value.values() if isinstance(value, dict) else value if isinstance(value, (list, tuple)) else []
    return [n for v in items for n in _numbers_in(v)]


def _allowed(sources: list) -> set[str]:
    """Every way an envelope number may be written: as is, absolute, rounded, and fractions as percentages."""
    out = {"100", "100000"}  # «por cada 100 mil habitantes» is the definition of the rate, not a result
    for v in _numbers_in(sources):
        for x in {v, abs(v)} | ({abs(v) * 100} if abs(v) <= 1 else set()):
            out |= {f"{x:.{d}f}" for d in range(3)} | {f"{round(x):d}"}
    return out


def _unverified(text: str, allowed: set[str]) -> list[str]:
    out = []
    for m in _NUMBER.finditer(text):
        raw, value = m.group(0), float(m.group(0).replace(",", ""))
        decimals = len(raw.split(".")[1]) if "." in raw else 0
        # years and the days of dates are wording, not results
        wording = value < CHECK_FROM or (decimals == 0 and 1990 <= value <= 2100) or _DAY.match(text, m.end())
        if not wording and f"{value:.{decimals}f}" not in allowed:
            out.append(raw)
    return list(dict.fromkeys(out))


def _without_ids(text: str, provenance: dict) -> str:
    """The text minus our own identifiers (dataset_version…): they are neither leaks nor results."""
    for ident in (provenance.get(k) for k in ("dataset_version", "query_hash", "catalog_version")):
        text = text.replace(ident, " ") if ident else text
    return text


def review(answer: Answer, envelopes: list[dict] = (), passages: list = ()) -> Answer:
    """Block personal data and internal details; warn about numbers no envelope or passage holds
    (docs/contracts/004_chatbot_graph.md §4.2)."""
    visible = _without_ids("\n".join([answer.text, *answer.warnings, *answer.clarifying_options]), answer.provenance)
    found = [k for k, rx in PERSONAL.items() if rx.search(visible)]
    internal = [k for k, rx in INTERNAL.items() if rx.search(visible)]
    if found or internal:
        what = join_y((["datos personales"] if found else []) + (["detalles internos del sistema"] if internal else []))
        return answer.model_copy(
            update={
                "text": SAFE_TEXT.format(what=what),
                "blocked": True,
                "chart": None,
                "clarifying_options": [],
                "evidence_ids": [],
                "warnings": [f"Respuesta bloqueada por la revisión ({', '.join(found + internal)})."],
            }
        )
    if not envelopes and not passages:
        return answer
    # evidence row ids are not figures: only what a reader could see counts
    shown = [{k: e.get(k) for k in ("summary", "data", "metrics", "meta", "error")} for e in envelopes]
    loose = _unverified(
        _without_ids(answer.text, answer.provenance), _allowed([*shown, *(p.text for p in passages), *answer.warnings])
    )
    note = f"Cifras que no aparecen en los resultados consultados: {', '.join(loose)}."
    return answer.model_copy(update={"warnings": [*answer.warnings, note]}) if loose else answer
