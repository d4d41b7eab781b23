"""Evidence of the national tools (21-23): every figure is the sum of the rows listar_evidencia lists.

Their rows are the standing ``observations`` the tool summed and, for the común carpetas, the municipal
``incidents`` that replace Guanajuato's state cells set aside for them; each row names its table, since row
ids are unique within a table only.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import duckdb
import pytest

from core import api
from core.ask.context import Assistant
from core.tools.evidence import OBSERVATION_COLUMNS
from tests.conftest import version_table
from ui.chat import evidence_plan

ROOT = Path(__file__).resolve().parents[3]

W23 = {"desde": "2023-01-01", "hasta": "2023-12-31"}
# (tool id, args, the figure's metric, the rows behind it: lugar prefix or (column, value) or None for all)
CASES = [
    (21, dict(clave_delito="homicidio_doloso", **W23), "conteo_nacional", None),
    (21, dict(clave_delito="homicidio_doloso", **W23), "conteo", ("estado", "GTO")),
    (21, dict(clave_delito="homicidio_doloso", lugar_id="JAL", **W23), "conteo", ("estado", "JAL")),
    (21, dict(clave_delito="feminicidio", metodologia="RNID", desde="2026-01-01", hasta="2026-03-31"),
     "conteo_nacional", None),
    (21, dict(clave_delito="narcomenudeo", lugar_id="GTO", desde="2021-06-01", hasta="2021-08-31"), "conteo",
     ("estado", "GTO")),
    (22, dict(clave_delito="homicidio_doloso", lugar_id="GTO", **W23), "total", ("medida", "victimas")),
    (22, dict(clave_delito="homicidio_doloso", lugar_id="GTO", **W23), "mujeres", ("sexo", "Mujer")),
    (22, dict(clave_delito="homicidio_doloso", lugar_id="GTO", **W23), "carpetas", ("medida", "carpetas")),
    # past the state file (2024-11) Guanajuato's carpetas are its municipal homicides, to the victims' last month
    (22, dict(clave_delito="homicidio_doloso", lugar_id="GTO", desde="2024-06-01", hasta="2025-06-30"), "carpetas",
     ("medida", "carpetas")),
    (22, dict(lugar_id="JAL", desde="2024-01-01", hasta="2024-03-31"), "carpetas", ("medida", "carpetas")),
    (22, dict(clave_delito="feminicidio", lugar_id="MX", desde="2024-01-01", hasta="2024-06-30"), "total",
     ("medida", "victimas")),
    (23, dict(lugar_id="GTO", desde="2024-01-01", hasta="2024-12-31"), "total", None),
    (23, dict(lugar_id="MX", desde="2024-01-01", hasta="2024-03-31", desglose="estado"), "total", None),
    (23, dict(lugar_id="MX", desde="2024-01-01", hasta="2024-03-31"), "extranjero", ("lugar_id", "MX.EXTRANJERO")),
]  # fmt: skip
COLUMNS = ["tabla", "row_id", "fecha", "nivel", "lugar_id", "label", "delito", "metodo", "sexo", "rango_edad",
           "medida", "fuero", "metodologia", "eventos", "source_file", "source_row"]  # fmt: skip


def test_the_spec_documents_the_observation_columns():
    spec = json.loads((ROOT / "catalogs" / "tools" / "09_listar_evidencia.json").read_text(encoding="utf-8"))
    documented = [(c["name"], c["type"]) for c in spec["output_contract"]["columns_observations"]]
    assert documented == OBSERVATION_COLUMNS and [c for c, _ in OBSERVATION_COLUMNS] == COLUMNS


def evidence_rows(settings, envelope: dict) -> list[dict]:
    """Every row listar_evidencia gave: the inline rows, or the full table when they were cut."""
    artifact = ((envelope["data"].get("artifacts") or {}).get("tables") or {}).get("listar_evidencia_full")
    if artifact:
        path = settings.artifacts_dir / artifact.removeprefix("artifact://")
        got = duckdb.execute(f"SELECT {', '.join(COLUMNS)} FROM read_parquet(?)", [str(path)]).fetchall()
        return [dict(zip(COLUMNS, r, strict=True)) for r in got]
    names = [c["name"] for c in envelope["data"]["inline"]["columns"]]
    return [dict(zip(names, r, strict=True)) for r in envelope["data"]["inline"]["rows"]]


def behind(row: dict, which) -> bool:
    """Whether an evidence row is behind the figure: every row, a state's (its own or its municipalities'), a value."""
    if which is None:
        return True
    column, value = which
    if column == "estado":
        return row["lugar_id"].split(".")[0] == value
    return row[column] == value


@pytest.mark.parametrize(("tool_id", "args", "metric", "which"), CASES)
def test_the_evidence_rows_sum_to_the_answer(bundled_settings, tool_id, args, metric, which):
    plan = {"plan": [{"tool_id": tool_id, "args": args}, {"tool_id": 9, "args": {"limit": 5000}}]}
    result = api.execution(plan, settings=bundled_settings)
    assert result.status == "ok", result.errors
    answer, listed = result.envelopes
    figure = answer["metrics"][metric]
    assert figure > 0
    rows = evidence_rows(bundled_settings, listed)
    assert len(rows) == listed["metrics"]["filas"] <= 5000
    assert sum(r["eventos"] for r in rows if behind(r, which)) == figure
    # two measures (victims and the carpetas they are divided by) are counted apart, never summed
    by_measure = Counter()
    for r in rows:
        by_measure[r["medida"]] += r["eventos"]
    assert listed["metrics"]["medidas"] == dict(by_measure)
    measure = answer["metrics"]["medida"]
    assert listed["metrics"]["eventos"] == by_measure[measure]
    assert all(r["eventos"] > 0 and r["source_file"] and r["source_row"] is not None for r in rows)
    assert not [k for k, n in Counter((r["tabla"], r["row_id"]) for r in rows).items() if n > 1]
    # the envelope's block names the observations of the answer's own measure, and how many there are
    own = {r["row_id"] for r in rows if r["tabla"] == "observations" and r["medida"] == measure}
    block = answer["evidence"][0]
    assert (block["table"], block["total"]) == ("observations", len(own)) and set(block["ids"]) <= own


def test_only_standing_observations_are_evidence(bundled_settings):
    plan = {
        "plan": [
            {"tool_id": 21, "args": dict(clave_delito="homicidio_doloso", **W23)},
            {"tool_id": 9, "args": {"limit": 5000}},
        ]
    }
    listed = api.execution(plan, settings=bundled_settings).last
    rows = evidence_rows(bundled_settings, listed)
    ids = [r["row_id"] for r in rows if r["tabla"] == "observations"]
    obs = version_table(bundled_settings.store_dir, "observations")
    flags = duckdb.execute(f"SELECT DISTINCT vigente, nivel FROM {obs} WHERE list_contains(?, row_id)", [ids])
    assert flags.fetchall() == [(True, "estado")]
    # Guanajuato's homicides come from its municipal file, each municipality labelled
    gto = [r for r in rows if r["lugar_id"].startswith("GTO")]
    assert gto and all(r["tabla"] == "incidents" and r["nivel"] == "municipio" and r["label"] for r in gto)
    assert {r["label"] for r in rows if r["lugar_id"] == "JAL"} == {"Jalisco"}


@pytest.mark.parametrize(
    "question",
    [
        "¿en qué lugar está Guanajuato en homicidios dolosos en 2023?",
        "¿cuántas víctimas de homicidio doloso fueron mujeres en Guanajuato en 2023?",
        "¿cuántos delitos federales hubo en Guanajuato en 2024?",
    ],
)
def test_a_national_answer_through_the_pipeline_has_evidence_rows(bundled_settings, question):
    assistant = Assistant(settings=bundled_settings, use_cache=False)
    turn = assistant.ask(question)
    assert turn.answer is not None and turn.answer.evidence_ids, turn.answer
    # what the Consultar page's «Ver filas de evidencia» runs: the turn's plan with listar_evidencia at the end
    listed = api.execution(evidence_plan(turn.plan), settings=bundled_settings).last
    assert listed["status"] == "ok", listed.get("error")
    rows = evidence_rows(bundled_settings, listed)
    assert rows and all(r["tabla"] in ("observations", "incidents") and r["eventos"] > 0 for r in rows)
    if listed["metrics"]["filas"] == len(rows):  # the whole listing: the answer's ids are among its observations
        assert set(turn.answer.evidence_ids) <= {r["row_id"] for r in rows if r["tabla"] == "observations"}
