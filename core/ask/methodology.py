"""Methodology retrieval: the Markdown documents of ``docs/metodologia`` as a BM25 index of sections.

Each ``## …`` section is one passage (the documents are written so that every section
stands alone). Its terms come from ``core.ask.index_terms`` (our own Spanish stopwords and
stems, so nothing is downloaded). Ranking is deterministic: equal scores keep the documents'
order.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path

import bm25s
import numpy as np

from core.ask.contracts import RetrievalRound, StopConditions
from core.ask.index_terms import defined_terms, tokenize
from core.config import PROJECT_ROOT
from core.text import strip_accents

DOCS_DIR = PROJECT_ROOT / "docs" / "metodologia"
RRF_K = 60  # the usual reciprocal-rank-fusion constant: damps the weight of the very first ranks
HEADING_WEIGHT = 3  # a section heading names its topic, so its words count more than body words
DEFINED_WEIGHT = 3  # terms a section defines ("El feminicidio es …") answer "¿qué es …?" questions

# Question phrasings whose key words are not in the documents: (phrase, added words, added words when the
# question names a year). "No hay datos" of a crime means it is not loaded; of a year, outside its coverage.
QUERY_EXPANSIONS = (
    ("de donde", "fuente", None),
    ("no hay datos", "faltan incluidos", "fuera cobertura"),
    ("no hay informacion", "faltan incluidos", "fuera cobertura"),
    ("cada cuando", "calendario", None),
    ("poblacion", "conapo mitad censo formula", None),
)
_YEAR = re.compile(r"\b(?:19|20)\d\d\b")


@dataclass(frozen=True)
class Passage:
    """One section of a methodology document; ``score`` is its retrieval score (0 when not retrieved)."""

    doc: str
    title: str
    section: str
    text: str
    score: float = 0.0

    @property
    def citation(self) -> str:
        """Same as ``cite(self)``."""
        return cite(self)


def cite(p: Passage) -> str:
    """Citation of a passage, e.g. 'tasas_y_poblacion.md § Fórmula de la tasa'."""
    return f"{p.doc}.md § {p.section}"


def split_sections(doc: str, markdown: str) -> list[Passage]:
    """The ``##`` sections of one Markdown document, each with the document's ``#`` title."""
    title, passages = doc, []
    section, body = None, []

    def _flush() -> None:
        text = "\n".join(body).strip()
        lines = [line for line in text.splitlines() if line.strip()]
        # a list of links to other documents (the README's index) is navigation, not methodology
        if sum(line.lstrip().startswith("- [") for line in lines) * 2 >= len(lines):
            return
        if section and text:
            passages.append(Passage(doc=doc, title=title, section=section, text=text))

    for line in markdown.splitlines():
        if line.startswith("# "):
            title = line[2:].strip()
        elif line.startswith("## "):
            _flush()
            section, body = line[3:].strip(), []
        elif section is not None:
            body.append(line)
    _flush()
    return passages


class DocIndex:
    """BM25 index over the sections of the methodology documents."""

    def __init__(self, passages: list[Passage]):
        self.passages = list(passages)
        corpus = [
            tokenize(f"{p.title} {p.section}") * HEADING_WEIGHT
            + tokenize(" ".join(defined_terms(p.text))) * DEFINED_WEIGHT
            + tokenize(p.text)
            for p in self.passages
        ]
        self._bm25 = bm25s.BM25()
        self._bm25.index(corpus, show_progress=False)

    @classmethod
    def load(cls, folder: str | Path = DOCS_DIR) -> DocIndex:
        """The index of every ``*.md`` in ``folder`` (built once per folder and process)."""
        return _load_cached(str(Path(folder).resolve()))

    def search(self, query: str, k: int = 5, doc_types: list[str] | None = None) -> list[Passage]:
        """The ``k`` best passages for ``query`` (only positive scores), best first."""
        plain = strip_accents(query.lower())
        dated = bool(_YEAR.search(plain))
        extra = [
            (when_dated if dated and when_dated else words)
            for phrase, words, when_dated in QUERY_EXPANSIONS
            if phrase in plain
        ]
        tokens = tokenize(" ".join([query, *extra]), query=True)
        if not tokens or k <= 0:
            return []
        scores = np.asarray(self._bm25.get_scores(tokens), dtype=float)
        allowed = {d.removesuffix(".md") for d in doc_types} if doc_types else None
        # stable sort on (-score, position): ties keep the documents' order, so results are deterministic
        order = sorted(range(len(self.passages)), key=lambda i: (-round(scores[i], 9), i))
        out = []
        for i in order:
            if scores[i] <= 0 or len(out) >= k:
                break
            if allowed is None or self.passages[i].doc in allowed:
                out.append(replace(self.passages[i], score=round(float(scores[i]), 6)))
        return out

    def search_rounds(self, rounds: list[RetrievalRound], stop: StopConditions | None = None) -> list[Passage]:
        """Run a planner's retrieval rounds (docs/contracts/003_planner_state.md §2): variants × bm25 runs,
        RRF or max-score merge, dedup."""
        seen: dict[tuple[str, str], Passage] = {}
        idle = 0
        max_rounds = stop.max_rounds if stop else len(rounds)
        max_total = stop.max_total_docs if stop else None
        for rnd in sorted(rounds, key=lambda r: r.round_id)[:max_rounds]:
            # there is no vector index offline: every retriever of a round runs as bm25 with its own k
            ranked_lists = [
                self.search(q, m.k, rnd.filters.doc_types) for q in rnd.query_variants for m in rnd.retrieval_modes
            ]
            merged = _rrf(ranked_lists) if rnd.rrf else _max_merge(ranked_lists)
            new = [p for p in merged if (p.doc, p.section) not in seen][: rnd.output.max_docs]
            for p in new:
                if max_total is not None and len(seen) >= max_total:
                    break
                seen[(p.doc, p.section)] = p
            idle = 0 if new else idle + 1
            if stop and stop.no_new_information_rounds and idle >= stop.no_new_information_rounds:
                break
            if max_total is not None and len(seen) >= max_total:
                break
        return list(seen.values())


def _rrf(lists: list[list[Passage]]) -> list[Passage]:
    """Reciprocal rank fusion: sum of 1/(RRF_K + rank) over the lists, ties by first appearance."""
    fused: dict[tuple[str, str], float] = {}
    first: dict[tuple[str, str], Passage] = {}
    for ranked in lists:
        for rank, p in enumerate(ranked, start=1):
            key = (p.doc, p.section)
            fused[key] = fused.get(key, 0.0) + 1.0 / (RRF_K + rank)
            first.setdefault(key, p)
    keys = sorted(fused, key=lambda key: (-round(fused[key], 12), list(first).index(key)))
    return [replace(first[key], score=round(fused[key], 6)) for key in keys]


def _max_merge(lists: list[list[Passage]]) -> list[Passage]:
    """Merge without fusion: each passage keeps its best bm25 score."""
    best: dict[tuple[str, str], Passage] = {}
    for ranked in lists:
        for p in ranked:
            key = (p.doc, p.section)
            if key not in best or p.score > best[key].score:
                best[key] = p
    order = list(best)
    return sorted(best.values(), key=lambda p: (-p.score, order.index((p.doc, p.section))))


@lru_cache(maxsize=4)
def _load_cached(folder: str) -> DocIndex:
    passages: list[Passage] = []
    for path in sorted(Path(folder).glob("*.md")):
        passages.extend(split_sections(path.stem, path.read_text(encoding="utf-8")))
    return DocIndex(passages)


def sentences(text: str) -> list[str]:
    """Sentences of a passage (table rows dropped, list items as sentences)."""
    lines = [
        ln.strip().removeprefix("- ") for ln in text.splitlines() if ln.strip() and not ln.lstrip().startswith("|")
    ]
    return [s for line in lines for s in re.split(r"(?<=[.!?])\s+(?=[A-ZÁÉÍÓÚÑ¿«(])", line) if s]


def _clip(sentence: str, limit: int = 320) -> str:
    """A long sentence cut at a comma before ``limit`` and marked with an ellipsis."""
    if len(sentence) <= limit:
        return sentence
    cut = sentence.rfind(", ", 0, limit)
    return sentence[: cut if cut > 0 else limit].rstrip() + " …"


def quote(question: str, passages: list[Passage]) -> tuple[str, Passage]:
    """Extractive answer: the best-matching sentence of the top passages after its section's topic sentence."""
    asked, best = set(tokenize(question, query=True)), None
    for rank, p in enumerate(passages[:3]):
        for i, s in enumerate(sentences(p.text)):
            words = set(tokenize(re.sub(r"\(véase [^)]*\)", "", s)))  # a cross-reference is not content
            subject = {t for d in defined_terms(s) for t in tokenize(d)}
            # a defining sentence about the asked term beats one that merely mentions it
            score = 2 * len(asked & words) + (3 * len(asked & subject) / max(len(subject), len(asked), 1)) - 0.5 * rank
            if best is None or score > best[0]:
                best = (score, p, i)
    _, p, i = best
    sents = sentences(p.text)
    # every section opens by naming its topic (docs/metodologia/README.md): that sentence frames the answer
    chosen = [sents[0], sents[i]] if i > 0 else sents[:2]
    return " ".join(_clip(s) for s in chosen), p
