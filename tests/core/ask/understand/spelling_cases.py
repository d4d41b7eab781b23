"""Misspellings and near-misses of place names: the measurement behind ADR 0009.

``cases(lexicon)`` generates, deterministically, misspellings of every name of the store's places
(one deletion, insertion, substitution, transposition, doubled letter, sound-alike letters) and
near-misses (other states' municipalities and their short forms, common Spanish words). ``measure``
scores them with a scorer and says, for each threshold, how many misspellings land on the right
place and how many wrong acceptances there are. Run ``python -m tests.core.ask.understand.spelling_cases``
for the table.
"""

from __future__ import annotations

import json
import random
import re
from dataclasses import dataclass
from pathlib import Path

from rapidfuzz import fuzz, process

from core.ask.understand.placenames import MIN_FUZZY_CHARS, national_names
from core.ask.understand.places import store_names as store_names_of
from core.ask.understand.tokens import key_of

ROOT = Path(__file__).resolve().parents[4]
_LETTERS = "abcdefghijklmnopqrstuvwxyz"
_SOUNDS = [("c", "z"), ("c", "s"), ("s", "z"), ("v", "b"), ("b", "v"), ("ll", "y"), ("y", "ll"), ("qu", "k"), ("h", "")]
# Misspellings people write and the brief names; each maps to the key of the store's name.
KNOWN = {
    "zelaya": "celaya",
    "selaya": "celaya",
    "irapuatto": "irapuato",
    "salamnca": "salamanca",
    "san migel de ayende": "san miguel de allende",
}


@dataclass(frozen=True)
class Case:
    """A written name and the entity it means (None: a near-miss that must not be accepted)."""

    text: str
    expected: str | None
    how: str


def _edit(word: str, how: str, rnd: random.Random) -> str | None:
    """One edit of one kind, at a random position (None when the word does not allow it)."""
    n = len(word)
    i = rnd.randrange(1, n) if n > 1 else 0
    if how == "deletion":
        return word[:i] + word[i + 1 :]
    if how == "insertion":
        return word[:i] + rnd.choice(_LETTERS) + word[i:]
    if how == "substitution":
        return word[:i] + rnd.choice(_LETTERS.replace(word[i], "")) + word[i + 1 :]
    if how == "transposition":
        i = min(i, n - 2)
        return word[:i] + word[i + 1] + word[i] + word[i + 2 :] if word[i] != word[i + 1] else None
    if how == "doubled":
        return word[:i] + word[i] + word[i:]
    if how == "sound":
        pairs = [(a, b) for a, b in _SOUNDS if a in word]
        if not pairs:
            return None
        a, b = rnd.choice(pairs)
        spots = [m.start() for m in re.finditer(re.escape(a), word)]
        k = rnd.choice(spots)
        return word[:k] + b + word[k + len(a) :]
    raise ValueError(how)


def store_names(lexicon) -> dict[str, str]:
    """Key → entidad_id of every unambiguous, non-weak municipality name long enough to be fuzzy-matched."""
    out = {}
    for key, entries in lexicon.places.items():
        ids = {e.entity.entidad_id for e in entries}
        if len(ids) != 1 or all(e.weak for e in entries) or key.startswith(("municipio de", "estado de", "entidad de")):
            continue
        words = key.split()
        if (
            len(words) > 1
            and words[-1] in ("gto", "guanajuato")
            and " ".join(words[:-1]).rstrip(" ,") in lexicon.places
        ):
            continue  # «León Gto.» is «León» with its state: the same name, measured once
        if len(key.replace(" ", "")) >= MIN_FUZZY_CHARS and entries[0].entity.nivel == "municipio":
            out[key] = next(iter(ids))
    return out


def _spanish_words(lexicon) -> set[str]:
    """Words of the old dev questions, the methodology and the taxonomy: everyday Spanish of the domain."""
    texts = [
        q["q"] for item in json.loads((ROOT / "evals" / "questions.json").read_text("utf-8")) for q in item["turns"]
    ]
    texts += [p.read_text("utf-8") for p in sorted((ROOT / "docs" / "metodologia").glob("*.md"))]
    texts += [(ROOT / "README.md").read_text("utf-8")]
    words = {w for t in texts for w in key_of(t).split() if w.isalpha() and len(w) >= MIN_FUZZY_CHARS}
    return {w for w in words if w not in lexicon.places}


def cases(lexicon, seed: int = 13, per_kind: int = 3) -> list[Case]:
    """Every misspelling and near-miss of the measurement (deterministic for a seed)."""
    rnd = random.Random(seed)
    names = store_names(lexicon)
    out: list[Case] = [Case(k, names[v], "known") for k, v in KNOWN.items()]
    for key, eid in sorted(names.items()):
        words = key.split()
        slots = [i for i, w in enumerate(words) if len(w) >= 4] or [0]
        for how in ("deletion", "insertion", "substitution", "transposition", "doubled", "sound"):
            for _ in range(per_kind):
                k = rnd.choice(slots)
                edited = _edit(words[k], how, rnd)
                if edited and edited != words[k]:
                    text = " ".join(words[:k] + [edited] + words[k + 1 :])
                    if text not in lexicon.places:
                        out.append(Case(text, eid, how))
    store_keys = store_names_of(lexicon)
    for key in sorted(national_names(store_keys)):
        out.append(Case(key, None, "other_state"))
    for word in sorted(_spanish_words(lexicon)):
        out.append(Case(word, None, "spanish_word"))
    return list(dict.fromkeys(out))


def _scores(queries: list[str], choices: list[str], fold) -> list[list[float]]:
    """ratio of every query against every choice of the same word count, on the given fold (0 elsewhere)."""
    qf, cf = [fold(q) for q in queries], [fold(c) for c in choices]
    matrix = process.cdist(qf, cf, scorer=fuzz.ratio, workers=1)
    same = [[len(q.split()) == len(c.split()) for c in choices] for q in queries]
    return [
        [float(v) if ok else 0.0 for v, ok in zip(row, mask, strict=True)]
        for row, mask in zip(matrix, same, strict=True)
    ]


def measure(lexicon, fold, thresholds, rival: bool = True) -> list[dict]:
    """For each threshold: right acceptances, wrong acceptances (wrong place or a near-miss), out of how many.

    ``rival``: a match is also refused when some other state's municipality scores at least as high
    (the decision rule of places.py); without it, the scorer alone is measured."""
    names = store_names(lexicon)
    keys = sorted(names)
    national = sorted(national_names(store_names_of(lexicon)))
    all_cases = cases(lexicon)
    queries = [c.text for c in all_cases]
    store_scores = _scores(queries, keys, fold)
    rival_best = [max(row, default=0.0) for row in _scores(queries, national, fold)] if rival else [0.0] * len(queries)
    rows = []
    for c, row, r in zip(all_cases, store_scores, rival_best, strict=True):
        top = max(row, default=0.0)
        ents = {names[k] for k, s in zip(keys, row, strict=True) if s >= top - 2 and s > 0}
        rows.append((c, top if top > r else 0.0, ents))
    table = []
    for t in thresholds:  # a number, or a function of the written name (the per-length rule of placenames)
        cut = (lambda c, t=t: t(c.text) or 101.0) if callable(t) else (lambda c, t=t: t)
        right = sum(1 for c, s, ents in rows if c.expected and s >= cut(c) and ents == {c.expected})
        wrong = [c.text for c, s, ents in rows if s >= cut(c) and (c.expected is None or c.expected not in ents)]
        table.append(
            {
                "threshold": "por longitud" if callable(t) else t,
                "misspellings": sum(1 for c, *_ in rows if c.expected),
                "right": right,
                "near_misses": sum(1 for c, *_ in rows if c.expected is None),
                "wrong": len(wrong),
                "wrong_examples": wrong[:5],
            }
        )
    return table


if __name__ == "__main__":  # the table of ADR 0009
    from core.ask.context import Assistant
    from core.ask.understand.placenames import fold

    lex = Assistant().lexicon
    for name, f, rival in [
        ("ratio", key_of, False),
        ("ratio", key_of, True),
        ("ratio_fold", fold, False),
        ("ratio_fold", fold, True),
    ]:
        print(name, "rival" if rival else "alone")
        for row in measure(lex, f, range(76, 101, 2), rival):
            print("  ", row)
