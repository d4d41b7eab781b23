"""What a load changes, told to the steward: removals need their confirmation, a partial month is no state total,
an identical load publishes nothing, and every version says who published it, from which files, what changed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from core import api
from core.ask.context import Assistant
from core.ask.pipeline import Conversation
from core.audit.log import AuditLog
from core.errors import ValidacionError
from core.etl import SourceSpec, run_etl
from core.etl.changes import cells_text
from core.etl.publish import Depot
from tests.conftest import FIXTURES, RAW
from tests.core.etl.test_semantics import snapshot

pytestmark = pytest.mark.slow  # each test loads real files into a fresh store

ETL = FIXTURES / "etl"
HOMICIDE = RAW / "sesnsp" / "IDM_NM_gto_homicidio_2020-2025.csv"
FEMINICIDIO = RAW / "sesnsp" / "gto_feminicidio_2015-2024.csv"
LEON_NOV = ETL / "leon_one_row_2025-11.csv"  # one canonical row: León, homicidio doloso, 2025-11 (a covered month)
LEON_DEC = ETL / "leon_one_row_2025-12.csv"  # the same for 2025-12, a month the store does not have yet
REMOVED_TEXT = "183 celdas de homicidio doloso de noviembre de 2025 en 46 municipios"


def load(settings, path, clock, coverage=None, **kw):
    return run_etl([SourceSpec(Path(path), coverage=coverage)], settings, clock=clock, **kw)


@pytest.fixture
def homicide_store(empty_settings, clock):
    load(empty_settings, HOMICIDE, clock)
    return empty_settings


def state_runs(settings, delito="homicidio_doloso"):
    return Depot(settings.store_dir).metadata()["coverage"][delito]["estados"]["GTO"]


# -- removals ------------------------------------------------------------------------------


def test_a_one_row_upload_shows_the_month_it_would_remove_and_needs_that_confirmation(homicide_store, clock):
    preview = load(homicide_store, LEON_NOV, clock, dry_run=True).summary["cambios"]
    assert preview["totales"]["eliminadas"] == 183  # the other 45 municipalities and León's other methods
    removed = [i for i in preview["detalle"] if i["tipo"] == "eliminadas"]
    assert preview["detalle"][0] == removed[0]  # removals come first
    assert removed[0]["texto"] == "183 celdas de homicidio doloso de noviembre de 2025 en 46 municipios"
    before = snapshot(homicide_store.store_dir)
    for confirmed in (None, 1, 184):  # none, or not the number the preview showed
        with pytest.raises(ValidacionError) as info:
            load(homicide_store, LEON_NOV, clock, confirm_removals=confirmed)
        assert "183 celdas de homicidio doloso de noviembre de 2025 en 46 municipios" in info.value.details
        assert "--" not in info.value.details + " ".join(info.value.hints)  # never a command-line flag
    assert snapshot(homicide_store.store_dir) == before  # nothing was published
    done = load(homicide_store, LEON_NOV, clock, confirm_removals=183)
    assert done.published and done.summary["cambios"]["totales"]["eliminadas"] == 183


def test_a_revision_that_removes_nothing_needs_no_confirmation(homicide_store, clock):
    result = load(homicide_store, ETL / "leon_revision.csv", clock)
    assert result.published and result.summary["cambios"]["totales"]["eliminadas"] == 0
    assert state_runs(homicide_store) == [{"desde": "2020-01-01", "hasta": "2025-11-30", "meses": 71}]


@pytest.mark.parametrize(
    "item,text",
    [
        (
            {"celdas": 1, "nombre": "Homicidio doloso", "desde": "2025-11-01", "hasta": "2025-11-01", "meses": 1}
            | {"lugares": 1, "nombres": ["León"]},
            "1 celda de homicidio doloso de noviembre de 2025 en León",
        ),
        (
            {"celdas": 2400, "nombre": "Feminicidio", "desde": "2024-01-01", "hasta": "2024-12-01", "meses": 12}
            | {"lugares": 2, "nombres": ["Celaya", "León"]},
            "2,400 celdas de feminicidio de enero a diciembre de 2024 en Celaya y León",
        ),
        (
            {"celdas": 30, "nombre": "Secuestro", "desde": "2019-03-01", "hasta": "2021-01-01", "meses": 5}
            | {"lugares": 9, "nombres": []},
            "30 celdas de secuestro de marzo de 2019 a enero de 2021 (5 meses) en 9 municipios",
        ),
    ],
)
def test_a_change_is_told_by_crime_month_and_place(item, text):
    assert cells_text(item) == text


# -- a month a partial upload leaves incomplete ----------------------------------------------


def test_a_one_row_month_is_no_state_total(homicide_store, clock):
    result = load(homicide_store, LEON_DEC, clock)
    assert result.published
    cambios = result.summary["cambios"]
    assert [(m["fecha"], m["municipios"], m["habituales"]) for m in cambios["meses_incompletos"]] == [
        ("2025-12-01", 1, 46)
    ]
    assert "no contará como total del estado" in cambios["avisos"][0]
    assert state_runs(homicide_store) == [{"desde": "2020-01-01", "hasta": "2025-11-30", "meses": 71}]
    meta = Depot(homicide_store.store_dir).metadata()
    assert meta["max_date"] == "2025-11-30"
    assert meta["coverage_municipal"]["homicidio_doloso"]["GTO.MUN.LEON"][0]["desde"] == "2025-12-01"
    turn = Assistant(settings=homicide_store, use_cache=False).ask(
        "¿Cuántos homicidios dolosos hubo en Guanajuato en diciembre de 2025?", Conversation(), planner="rules"
    )
    assert "no doy una cifra" in turn.answer.text and " 40 " not in f" {turn.answer.text} "


def test_a_confirmed_one_row_month_leaves_the_state_coverage(homicide_store, clock):
    load(homicide_store, LEON_NOV, clock, confirm_removals=183)
    assert state_runs(homicide_store) == [{"desde": "2020-01-01", "hasta": "2025-10-31", "meses": 70}]


def test_a_sparse_crime_keeps_its_new_months(empty_settings, clock, tmp_path):
    # Feminicidio's months carry a few municipalities each: a new year with two rows is a whole year of it.
    load(empty_settings, FEMINICIDIO, clock, coverage="2015-01:2023-12")
    rows = [line for line in FEMINICIDIO.read_text(encoding="utf-8").splitlines() if ",2024," in line][:2]
    year = tmp_path / "fem_2024.csv"
    year.write_text(FEMINICIDIO.read_text(encoding="utf-8").splitlines()[0] + "\n" + "\n".join(rows) + "\n")
    result = load(empty_settings, year, clock, coverage="2024-01:2024-12")
    assert result.summary["cambios"]["meses_incompletos"] == []
    assert state_runs(empty_settings, "feminicidio")[-1]["hasta"] == "2024-12-31"


# -- nothing changes, nothing is published ---------------------------------------------------


def test_an_identical_reupload_publishes_no_version(homicide_store, clock):
    depot = Depot(homicide_store.store_dir)
    # A version whose digest other code recorded (another format, another build): its tables are the same.
    path = depot.version_dir(depot.current_id()) / "metadata.json"
    meta = json.loads(path.read_text(encoding="utf-8"))
    path.write_text(json.dumps({**meta, "content_hash": "0" * 64}), encoding="utf-8")
    before = snapshot(homicide_store.store_dir)
    preview = load(homicide_store, HOMICIDE, clock, dry_run=True).summary
    assert preview["status"] == "unchanged" and "no se publicará una versión nueva" in preview["mensaje"]
    again = load(homicide_store, HOMICIDE, clock)
    assert (again.published, again.summary["mensaje"]) == (False, "Sin cambios: no se publicó una versión nueva.")
    assert snapshot(homicide_store.store_dir) == before and len(depot.versions()) == 1


# -- the versions table: who, when, file, what changed, a note; rollback with its reason -----------


def test_a_version_says_who_published_it_what_changed_and_why_it_was_rolled_back(homicide_store, clock):
    first = api.versions(homicide_store)[0]["dataset_version"]
    api.load_files(
        [SourceSpec(ETL / "leon_revision.csv")],
        settings=homicide_store,
        user="luis@example.org",
        clock=clock,
        note="Revisión de León 2024",
    )
    newest = next(v for v in api.versions(homicide_store) if v["current"])  # a fixed clock ties updated_at
    assert newest["publicacion"] == {
        "usuario": "luis@example.org",
        "archivos": ["leon_revision.csv"],
        "cambios": {"agregadas": 0, "cambiadas": 12, "eliminadas": 0},
        "nota": "Revisión de León 2024",
    }
    api.rollback(first, settings=homicide_store, user="luis@example.org", clock=clock, reason="Cifras sin validar")
    record = AuditLog.for_settings(homicide_store).list(kind="rollback")[0]
    assert record.payload["motivo"] == "Cifras sin validar" and record.payload["to"] == first
    history = (homicide_store.store_dir / "history.jsonl").read_text(encoding="utf-8").splitlines()
    assert json.loads(history[-1])["motivo"] == "Cifras sin validar"


def test_the_command_line_refuses_a_removal_and_publishes_nothing_twice(homicide_store):
    from tests.core.test_cli import run

    data = homicide_store.data_dir
    refused = run("etl", str(LEON_NOV), "--quiet", data_dir=data)
    assert refused.returncode == 2 and REMOVED_TEXT in refused.stderr
    done = run("etl", str(LEON_NOV), "--quiet", "--confirmar-eliminaciones", "183", "--nota", "prueba", data_dir=data)
    assert done.returncode == 0 and json.loads(done.stdout)["status"] == "published", done.stderr
    again = json.loads(run("etl", str(LEON_NOV), "--quiet", data_dir=data).stdout)
    assert (again["status"], again["mensaje"]) == ("unchanged", "Sin cambios: no se publicó una versión nueva.")
    versions = json.loads(run("versions", data_dir=data).stdout)
    assert len(versions) == 2 and versions[0]["publicacion"]["nota"] == "prueba"
