"""The pipeline benchmark runs over both evaluation formats (the first set and the new one)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench import pipeline

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "bench" / "pipeline_v2.json"


def test_the_benchmark_is_available_and_names_the_new_dev_set():
    assert pipeline.available() == (True, "")
    assert pipeline.DEV_FILES.parent.name == "v2" and "holdout" not in pipeline.DEV_FILES.name


@pytest.mark.slow
def test_a_new_set_file_is_timed_and_scored_by_its_oracle(tmp_path):
    res = pipeline.run(tmp_path, log=lambda *_: None, passes=1, questions_file=FIXTURE)
    assert (res["conversaciones"], res["preguntas"]) == (2, 2)
    assert res["etapas_ms"]["total"]["p95"] > 0
    assert res["exactitud"]["total"] == {"passed": 2, "total": 2, "accuracy": 1.0}, res["fallas"]
