"""Methodology retrieval: sections as passages, BM25 over Spanish tokens, planner rounds, citations."""

from __future__ import annotations

import re
import socket

import pytest

from core.ask.contracts import Rerank, RetrievalFilters, RetrievalMode, RetrievalRound, RoundOutput, StopConditions
from core.ask.methodology import DOCS_DIR, DocIndex, Passage, cite, quote, split_sections


@pytest.fixture(scope="module")
def index() -> DocIndex:
    return DocIndex.load()


# (question, expected document(s), expected section or None when several sections answer it)
CASES = [
    ("¿qué es un homicidio doloso?", "conceptos", "Doloso y culposo"),
    ("¿qué diferencia hay entre homicidio doloso y culposo?", "conceptos", "Doloso y culposo"),
    ("¿cómo calculan la tasa?", "tasas_y_poblacion", "Fórmula de la tasa"),
    ("¿de dónde vienen los datos?", "fuentes", None),
    ("¿por qué no hay datos de robo de vehículo?", ("delitos_disponibles", "limitaciones"), None),
    ("¿qué significa que un mes no esté publicado?", "cobertura_y_calidad", "Mes no publicado no es cero"),
    ("¿qué es el feminicidio?", "conceptos", "Homicidio doloso y feminicidio"),
    ("¿qué es la cifra negra?", ("sesnsp", "limitaciones"), "Cifra negra"),
    ("¿qué es el SESNSP?", "sesnsp", "Qué es el SESNSP y qué publica"),
    ("¿qué es el RNID?", "sesnsp", "Cambio de metodología en 2026 (RNID)"),
    ("¿qué es el dataset_version?", "cobertura_y_calidad", "Versiones del conjunto de datos (`dataset_version`)"),
    (
        "¿por qué se usa la población de CONAPO y no el censo?",
        "tasas_y_poblacion",
        "Proyecciones de CONAPO y Censo 2020",
    ),
    ("¿qué quiere decir «datos hasta»?", "cobertura_y_calidad", "Ancla temporal y «datos hasta»"),
    (
        "¿cómo se interpretan los últimos 12 meses?",
        "cobertura_y_calidad",
        "Expresiones relativas: «últimos 12 meses», «el año pasado», «en lo que va del año»",
    ),
    ("¿qué es la violación equiparada?", "conceptos", "Violación simple y violación equiparada"),
    ("¿diferencia entre hostigamiento y acoso sexual?", "conceptos", "Hostigamiento sexual y acoso sexual"),
    ("¿qué es la cuarentena de filas?", "cobertura_y_calidad", "Cuarentena de filas con problemas"),
    ("¿de dónde sale el mapa de municipios?", "fuentes", "Mapa municipal"),
    ("¿de dónde viene el total anual?", "fuentes", "Total anual de delitos"),
    (
        "¿por qué no puedo saber el sexo de las víctimas?",
        "limitaciones",
        "El archivo municipal no informa sexo ni edad de las víctimas",
    ),
    ("¿qué es una modalidad?", "conceptos", None),
    ("¿qué diferencia hay entre fuero común y fuero federal?", "sesnsp", "Fuero común y fuero federal"),
    ("¿qué significa range_adjusted?", "cobertura_y_calidad", "Ajuste de rangos de fechas (`range_adjusted`)"),
    ("¿qué cuenta una cifra de incidencia delictiva?", "sesnsp", "Qué cuenta una cifra de incidencia delictiva"),
    ("¿por qué la tasa de un municipio pequeño es tan alta?", ("tasas_y_poblacion", "limitaciones"), None),
    ("¿qué es el secuestro exprés?", "conceptos", "Secuestro y sus modalidades"),
    ("¿qué es la trata de personas?", "conceptos", "Trata de personas"),
    ("¿hay datos de extorsión?", ("delitos_disponibles", "limitaciones", "cobertura_y_calidad"), None),
    ("¿cómo se calcula la tasa estatal?", "tasas_y_poblacion", "Tasa estatal"),
    ("¿qué es una tasa por 100 mil habitantes?", "tasas_y_poblacion", None),
    (
        "¿por qué no hay datos de violencia familiar en 2024?",
        "cobertura_y_calidad",
        "Preguntas fuera de la cobertura de un delito",
    ),
    ("¿por qué Casandra no da nombres de víctimas?", "limitaciones", "Casandra no sirve para casos individuales"),
    ("¿cada cuándo publica el SESNSP sus cifras?", "sesnsp", None),
    ("¿qué es la violencia familiar?", "conceptos", "Violencia familiar"),
    ("¿qué es el total de delitos del fuero común?", ("delitos_disponibles", "limitaciones", "fuentes"), None),
]


@pytest.mark.parametrize("question,docs,section", CASES, ids=[c[0] for c in CASES])
def test_question_finds_its_section(index, question, docs, section):
    top = index.search(question, k=3)
    assert top, question
    docs = docs if isinstance(docs, tuple) else (docs,)
    assert top[0].doc in docs, [cite(p) for p in top]
    if section is not None:
        assert top[0].section == section, [cite(p) for p in top]


def test_every_section_is_a_passage_with_title_and_citation(index):
    headings = {}
    for path in sorted(DOCS_DIR.glob("*.md")):
        text = path.read_text(encoding="utf-8")
        headings[path.stem] = (re.search(r"^# (.+)$", text, re.M).group(1), re.findall(r"^## (.+)$", text, re.M))
    seen = {(p.doc, p.section) for p in index.passages}
    for doc, (_, sections) in headings.items():
        for section in sections:
            if doc == "README" and section == "Índice de documentos":
                assert (doc, section) not in seen  # a list of links is navigation, not methodology
                continue
            assert (doc, section) in seen
    for p in index.passages:
        assert p.title == headings[p.doc][0] and p.text and not p.text.startswith("#")
        assert cite(p) == f"{p.doc}.md § {p.section}" == p.citation


def test_cite_format():
    p = Passage(doc="tasas_y_poblacion", title="Tasas", section="Fórmula de la tasa", text="…")
    assert cite(p) == "tasas_y_poblacion.md § Fórmula de la tasa"


def test_split_sections_keeps_title_and_bodies():
    md = "# Título\n\nintro\n\n## Uno\n\nTexto uno.\n\n## Dos\n\nTexto dos.\nSigue.\n"
    parts = split_sections("doc", md)
    assert [(p.title, p.section, p.text) for p in parts] == [
        ("Título", "Uno", "Texto uno."),
        ("Título", "Dos", "Texto dos.\nSigue."),
    ]


def test_search_is_deterministic_and_scored(index):
    first = index.search("¿qué es la cifra negra?", k=5)
    assert first == index.search("¿qué es la cifra negra?", k=5)
    assert [p.score for p in first] == sorted((p.score for p in first), reverse=True)
    assert all(p.score > 0 for p in first)


def test_load_is_cached(index):
    assert DocIndex.load() is index and DocIndex.load(DOCS_DIR) is index


@pytest.mark.parametrize("query", ["", "¿qué es?", "de la el", "zzzz qwerty"])
def test_queries_without_known_words_find_nothing(index, query):
    assert index.search(query) == []


def test_doc_types_filter(index):
    found = index.search("cifra negra", k=5, doc_types=["limitaciones.md"])
    assert found and {p.doc for p in found} == {"limitaciones"}


def test_building_an_index_needs_no_network(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("network use")

    monkeypatch.setattr(socket, "socket", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    passages = split_sections("conceptos", (DOCS_DIR / "conceptos.md").read_text(encoding="utf-8"))
    fresh = DocIndex(passages)
    assert fresh.search("¿qué es el feminicidio?")[0].doc == "conceptos"


def _round(rid, variants, k=5, rrf=False, max_docs=3, doc_types=None) -> RetrievalRound:
    return RetrievalRound(
        round_id=rid,
        purpose="recall",
        query_variants=variants,
        retrieval_modes=[RetrievalMode(type="bm25", k=k)],
        rrf=rrf,
        filters=RetrievalFilters(doc_types=doc_types),
        rerank=Rerank(enabled=False, rerank_top_k=5),
        output=RoundOutput(max_docs=max_docs),
    )


def test_rounds_fuse_variants_with_rrf_and_honour_max_docs(index):
    rnd = _round(1, ["¿qué es un homicidio doloso?", "diferencia entre doloso y culposo"], rrf=True, max_docs=2)
    got = index.search_rounds([rnd])
    assert len(got) == 2
    assert got[0].doc == "conceptos" and got[0].section == "Doloso y culposo"
    # RRF scores: a passage first in both lists gets 2/(60+1)
    assert got[0].score == pytest.approx(2 / 61, abs=1e-6)


def test_rounds_without_rrf_keep_best_bm25_score(index):
    got = index.search_rounds([_round(1, ["cifra negra", "cifra negra denuncia"], max_docs=4)])
    assert len({(p.doc, p.section) for p in got}) == len(got) <= 4
    assert [p.score for p in got] == sorted((p.score for p in got), reverse=True)


def test_rounds_deduplicate_and_stop(index):
    same = [
        _round(1, ["cifra negra"], k=2, max_docs=2),
        _round(2, ["cifra negra"], k=2, max_docs=2),
        _round(3, ["tasa estatal"], k=2, max_docs=2),
    ]
    # round 2 finds the same two passages: with no_new_information_rounds=1 the search stops before round 3
    stop = StopConditions(max_rounds=3, max_total_docs=10, no_new_information_rounds=1)
    got = index.search_rounds(same, stop)
    assert [p.doc for p in got] and all("tasa" not in p.section.lower() for p in got)
    assert len(got) == 2
    # without the stop rule round 3 adds its own passages, never a duplicate
    got = index.search_rounds(same)
    keys = [(p.doc, p.section) for p in got]
    assert len(keys) == len(set(keys)) == 4
    assert (
        index.search_rounds(same, StopConditions(max_rounds=1, max_total_docs=10, no_new_information_rounds=0))
        == got[:2]
    )
    assert (
        len(index.search_rounds(same, StopConditions(max_rounds=3, max_total_docs=3, no_new_information_rounds=0))) == 3
    )


def test_rounds_respect_doc_type_filters(index):
    got = index.search_rounds([_round(1, ["homicidio doloso"], max_docs=5, doc_types=["delitos_disponibles"])])
    assert got and {p.doc for p in got} == {"delitos_disponibles"}


def test_rounds_are_deterministic(index):
    rounds = [
        _round(1, ["¿cómo calculan la tasa?", "fórmula tasa por 100 mil"], rrf=True),
        _round(2, ["población CONAPO"], k=3),
    ]
    assert index.search_rounds(rounds) == index.search_rounds(rounds)


@pytest.mark.parametrize(
    "question,fragment",
    [
        ("¿qué es un homicidio doloso?", "El homicidio doloso es la privación intencional de la vida"),
        ("¿cómo calculan la tasa?", "tasa_per_100k = eventos en la ventana"),
        ("¿qué es la cifra negra?", "La cifra negra es la parte de los delitos"),
        ("¿por qué no hay datos de robo de vehículo?", "robo de vehículo"),
    ],
)
def test_quote_picks_the_defining_sentence(index, question, fragment):
    text, passage = quote(question, index.search(question, 3))
    assert fragment in text
    assert passage in index.search(question, 3)
