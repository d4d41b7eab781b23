"""ETL semantics: layouts, idempotence, revisions, quarantine, refusals, atomic publish, rollback."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import duckdb
import pytest

from core.config import load_settings
from core.dataset.store import Store
from core.errors import DatosFaltantesError, LimiteRecursosError, ValidacionError
from core.etl import SourceSpec, run_etl
from core.etl.publish import Depot
from tests.conftest import FIXTURES, RAW, with_parquet_tables

pytestmark = pytest.mark.slow  # each test loads real files into a fresh store

ETL = FIXTURES / "etl"
HOMICIDE = RAW / "sesnsp" / "IDM_NM_gto_homicidio_2020-2025.csv"
HOMICIDE_LATIN1 = RAW / "sesnsp" / "IDM_NM_gto_homicidio_2020-2025_latin1.csv"
FEMINICIDIO = RAW / "sesnsp" / "gto_feminicidio_2015-2024.csv"


def snapshot(store_dir: Path) -> dict[str, str]:
    """Hash of every published file (ignores the lock and scratch folders)."""
    out = {}
    for path in sorted(store_dir.rglob("*")):
        rel = path.relative_to(store_dir).as_posix()
        if path.is_file() and not rel.startswith(".work") and rel != ".lock":
            out[rel] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


def load(settings, *paths, clock=None, **opts):
    return run_etl([SourceSpec(Path(p), **opts) for p in paths], settings, clock=clock)


@pytest.fixture
def homicide_store(empty_settings, clock):
    load(empty_settings, HOMICIDE, clock=clock)
    return empty_settings


def total(settings, delito, where="", params=()):
    store = Store(settings)
    return store.query(f"SELECT coalesce(sum(eventos), 0) FROM incidents WHERE delito = ? {where}", [delito, *params])[
        0
    ][0]


# -- layouts ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "path,layout,encoding",
    [
        (HOMICIDE, "idm_nm", "utf-8"),
        (HOMICIDE_LATIN1, "idm_nm", "latin-1"),
        (RAW / "sesnsp" / "gto_violencia_familiar_2015-2022.csv", "reducido", "utf-8"),
        (FEMINICIDIO, "largo_no_cero", "utf-8"),
        (ETL / "canonical.csv", "canonico", "utf-8"),
        (ETL / "bom_long.csv", "largo_no_cero", "utf-8-sig"),
        (RAW / "poblacion_gto.csv", "poblacion", "utf-8"),
        (RAW / "municipios_gto.csv", "catalogo_municipios", "utf-8"),
    ],
)
def test_layouts_are_recognized(empty_settings, clock, path, layout, encoding):
    result = load(empty_settings, path, clock=clock)
    report = result.summary["archivos"][0]
    assert (report["formato"], report["codificacion"]) == (layout, encoding)
    assert result.published


def test_latin1_and_utf8_give_the_same_dataset(tmp_path, clock):
    from core.config import load_settings

    a, b = load_settings(tmp_path / "a"), load_settings(tmp_path / "b")
    va = load(a, HOMICIDE, clock=clock).dataset_version
    vb = load(b, HOMICIDE_LATIN1, clock=clock).dataset_version
    assert va == vb


def test_canonical_layout_with_entidad_id_and_crlf(empty_settings, clock):
    load(empty_settings, ETL / "canonical_entidad_crlf.csv", clock=clock)
    assert total(empty_settings, "violencia_familiar", "AND entidad_id = ?", ["GTO.MUN.CELAYA"]) == 81
    meta = Store(empty_settings).metadata()
    assert meta["coverage"]["violencia_familiar"]["desde"] == "2023-01-01"


def test_long_file_with_bom_and_declared_coverage(empty_settings, clock):
    result = load(empty_settings, ETL / "bom_long.csv", clock=clock, coverage="2019-01:2019-12")
    assert result.summary["archivos"][0]["cobertura"] == {
        "origen": "declarada",
        "desde": "2019-01-01",
        "hasta": "2019-12-01",
    }
    assert total(empty_settings, "feminicidio") == 3


def test_long_file_coverage_is_inferred_and_reported(empty_settings, clock):
    result = load(empty_settings, ETL / "bom_long.csv", clock=clock)
    report = result.summary["archivos"][0]
    assert report["cobertura"]["origen"] == "inferida"
    assert any("Cobertura inferida 2019-01..2019-12" in w for w in report["advertencias"])


def test_cells_outside_declared_coverage_are_quarantined(empty_settings, clock):
    result = load(empty_settings, ETL / "bom_long.csv", clock=clock, coverage="2019-01:2019-04")
    report = result.summary["archivos"][0]
    assert report["motivos_cuarentena"] == {"fuera de la cobertura declarada": 1}
    assert total(empty_settings, "feminicidio") == 2


def test_reduced_violacion_is_split_by_its_leftover_index(empty_settings, clock):
    result = load(empty_settings, RAW / "sesnsp" / "gto_violacion_2015-2022.csv", clock=clock)
    report = result.summary["archivos"][0]
    assert not any("se sumaron" in w for w in report["advertencias"])
    assert total(empty_settings, "violacion_simple", "AND year(fecha) = 2021") == 818
    assert total(empty_settings, "violacion_equiparada", "AND year(fecha) = 2021") == 78
    assert total(empty_settings, "violacion") == 0  # no cell keeps the tipo-level key


def test_reduced_layout_sums_repeated_keys_with_a_warning(empty_settings, clock, tmp_path):
    lines = (RAW / "sesnsp" / "gto_violencia_familiar_2015-2022.csv").read_text(encoding="utf-8").splitlines()
    csv = tmp_path / "reducido_repetido.csv"
    csv.write_text("\n".join(lines + [lines[1]]) + "\n", encoding="utf-8")
    result = load(empty_settings, csv, clock=clock)
    report = result.summary["archivos"][0]
    assert any("se sumaron" in w for w in report["advertencias"])
    assert total(empty_settings, "violencia_familiar", "AND year(fecha) = 2015") == 10298 + sum(
        int(float(v)) for v in lines[1].split(",")[-12:] if v
    )


def test_other_state_loads_into_an_empty_store(empty_settings, clock):
    result = load(empty_settings, ETL / "jalisco_idm.csv", clock=clock)
    assert result.published
    store = Store(empty_settings)
    ids = {r[0] for r in store.query("SELECT entidad_id FROM entities")}
    assert {"JAL", "JAL.MUN.GUADALAJARA", "JAL.MUN.ZAPOPAN", "JAL.MUN.NO_ESPECIFICADO"} <= ids
    assert store.metadata()["max_date"] == "2024-11-30"  # December is empty: not published


# -- idempotence and revisions ----------------------------------------------------------


def test_loading_the_same_content_again_changes_nothing(homicide_store, clock):
    before = snapshot(homicide_store.store_dir)
    again = load(homicide_store, HOMICIDE, clock=clock)
    assert not again.published and again.summary["status"] == "unchanged"
    assert again.summary["cambios"]["totales"]["agregadas"] == 0
    latin = load(homicide_store, HOMICIDE_LATIN1, clock=clock)
    assert not latin.published
    assert snapshot(homicide_store.store_dir) == before


@pytest.mark.parametrize("path", [HOMICIDE, FEMINICIDIO, RAW / "poblacion_gto.csv"], ids=lambda p: p.name)
def test_reloading_a_built_file_into_a_built_store_changes_nothing(bundled_settings, tmp_path, clock, path):
    # The build carries a map; a later load without one must still see the same content.
    settings = load_settings(tmp_path / "data")
    shutil.copytree(bundled_settings.store_dir, settings.store_dir)
    before = snapshot(settings.store_dir)
    again = load(settings, path, clock=clock)
    assert (again.published, again.summary["status"]) == (False, "unchanged")
    assert snapshot(settings.store_dir) == before


def test_a_revised_file_replaces_those_cells_and_reports_it(homicide_store, clock):
    result = load(homicide_store, ETL / "leon_revision.csv", clock=clock)
    cambios = result.summary["cambios"]
    assert cambios["totales"]["cambiadas"] == 12 and cambios["totales"]["eliminadas"] == 0
    assert list(cambios["por_delito"]) == ["homicidio_doloso"]
    leon = total(
        homicide_store,
        "homicidio_doloso",
        "AND entidad_id = 'GTO.MUN.LEON' AND metodo = 'con_arma_de_fuego' AND year(fecha) = 2024",
    )
    assert leon == 99
    # Other municipalities and months are untouched.
    assert total(homicide_store, "homicidio_doloso", "AND entidad_id = 'GTO.MUN.CELAYA'") > 0
    assert total(homicide_store, "homicidio_doloso", "AND year(fecha) = 2023") == 2581


def test_a_store_from_before_the_narrow_layout_is_rekeyed_on_the_next_load(homicide_store, clock):
    import duckdb

    # Rewrite the current version as the wide layout with md5 row ids that versions before
    # the narrow layout published; the next load must treat its cells as the same cells.
    depot = Depot(homicide_store.store_dir)
    with_parquet_tables(homicide_store.store_dir)  # a version of then kept its cells as Parquet
    path = depot.table_path("incidents")
    con = duckdb.connect()
    con.execute(f"""COPY (SELECT (md5_number_lower(concat_ws('|', cve_municipio, strftime(fecha, '%Y-%m'), delito,
                                  metodo)) & 9223372036854775807::UBIGINT)::BIGINT AS row_id,
                         fecha, cve_municipio, '11' AS cve_ent, estado_id, 'Guanajuato' AS estado, entidad_id,
                         'x' AS municipio, 'b' AS bien_juridico, 't' AS tipo, delito AS tipo_key, 's' AS subtipo,
                         delito, 'm' AS modalidad, metodo, eventos, source_file, source_row
                  FROM read_parquet('{path}')) TO '{path}.old' (FORMAT parquet)""")
    con.close()
    Path(f"{path}.old").replace(path)
    before = total(homicide_store, "homicidio_doloso")
    result = load(homicide_store, ETL / "leon_revision.csv", clock=clock)
    cambios = result.summary["cambios"]["totales"]
    assert cambios["cambiadas"] == 12 and cambios["agregadas"] == 0 and cambios["eliminadas"] == 0
    store = Store(homicide_store)
    assert store.query("SELECT count(*) = count(DISTINCT row_id) FROM incidents") == [(True,)]
    leon = total(
        homicide_store,
        "homicidio_doloso",
        "AND entidad_id = 'GTO.MUN.LEON' AND metodo = 'con_arma_de_fuego' AND year(fecha) = 2024",
    )
    assert leon == 99 and total(homicide_store, "homicidio_doloso") != before


def test_a_newer_long_file_owns_its_whole_slices(empty_settings, clock, tmp_path):
    load(empty_settings, FEMINICIDIO, clock=clock, coverage="2015-01:2024-12")
    revised = tmp_path / "fem_2024.csv"
    lines = FEMINICIDIO.read_text(encoding="utf-8").splitlines()
    keep = [lines[0]] + [line for line in lines[1:] if ",2024," in line][:1]
    revised.write_text("\n".join(keep) + "\n", encoding="utf-8")
    preview = run_etl([SourceSpec(revised, coverage="2024-01:2024-12")], empty_settings, clock=clock, dry_run=True)
    removed = preview.summary["cambios"]["totales"]["eliminadas"]  # published only with that confirmation
    result = run_etl(
        [SourceSpec(revised, coverage="2024-01:2024-12")], empty_settings, clock=clock, confirm_removals=removed
    )
    # Every other 2024 cell is now an absent (zero) cell of the newer file.
    assert total(empty_settings, "feminicidio", "AND year(fecha) = 2024") == int(keep[1].rsplit(",", 1)[1])
    assert total(empty_settings, "feminicidio", "AND year(fecha) = 2023") == 26
    assert result.summary["cambios"]["totales"]["eliminadas"] > 0


# -- quarantine and refusals -----------------------------------------------------------


def test_row_problems_go_to_quarantine_with_reason_and_line(homicide_store, clock):
    result = load(homicide_store, ETL / "bad_rows.csv", clock=clock)
    report = result.summary["archivos"][0]
    assert report["filas_en_cuarentena"] == 2
    assert report["motivos_cuarentena"] == {
        "clave de municipio desconocida": 12,
        "conteo negativo": 1,
        "conteo no numérico": 1,
        "conteo no entero": 1,
    }
    rows = Store(homicide_store).query(
        "SELECT source_file, source_row, motivo FROM quarantine ORDER BY source_row, motivo"
    )
    assert ("bad_rows.csv", 3, "clave de municipio desconocida (99999, estado inexistente) (enero)") in rows
    assert ("bad_rows.csv", 4, "conteo negativo (enero)") in rows


@pytest.mark.parametrize(
    "name,content,error",
    [
        ("empty.csv", b"", ValidacionError),
        ("spaces.csv", b"   \n\n", ValidacionError),
        ("garbage.csv", b"hola mundo, esto no es\nun archivo del SESNSP\n", ValidacionError),
        ("binary.csv", b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4, ValidacionError),
        ("header_only.csv", (ETL / "header_only.csv").read_bytes(), DatosFaltantesError),
        ("all_bad.csv", (ETL / "all_bad.csv").read_bytes(), DatosFaltantesError),
        ("notes.pdf", b"%PDF-1.4 ...", ValidacionError),
    ],
)
def test_hostile_files_are_refused_and_nothing_changes(homicide_store, clock, tmp_path, name, content, error):
    before = snapshot(homicide_store.store_dir)
    bad = tmp_path / name
    bad.write_bytes(content)
    with pytest.raises(error) as info:
        load(homicide_store, bad, clock=clock)
    assert name in info.value.details or "todas sus filas" in info.value.details
    assert snapshot(homicide_store.store_dir) == before


def _zip(path: Path, entries: dict[str, bytes]) -> Path:
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for name, data in entries.items():
            zf.writestr(name, data)
    return path


def test_zip_with_csv_loads(empty_settings, clock, tmp_path):
    z = _zip(tmp_path / "datos.zip", {"sub/homicidio.csv": HOMICIDE.read_bytes()})
    result = load(empty_settings, z, clock=clock)
    assert result.summary["archivos"][0]["contenedor"] == "datos.zip"
    assert total(empty_settings, "homicidio_doloso", "AND year(fecha) = 2024") == 2553


@pytest.mark.parametrize(
    "entries,error",
    [
        ({"../evil.csv": b"a,b\n1,2\n"}, ValidacionError),
        ({"inner.zip": b"PK\x03\x04" + b"\0" * 100}, ValidacionError),
        ({"bomb.csv": b"0" * 5_000_000}, (ValidacionError, LimiteRecursosError)),
    ],
)
def test_hostile_zips_are_refused(homicide_store, clock, tmp_path, entries, error):
    before = snapshot(homicide_store.store_dir)
    z = _zip(tmp_path / "x.zip", entries)
    with pytest.raises(error):
        load(homicide_store, z, clock=clock)
    assert snapshot(homicide_store.store_dir) == before


def test_an_oversized_field_is_refused(homicide_store, clock, tmp_path):
    from dataclasses import replace

    before = snapshot(homicide_store.store_dir)
    settings = replace(homicide_store, limits=replace(homicide_store.limits, max_field_chars=50))
    bad = tmp_path / "long_field.csv"
    lines = (ETL / "leon_revision.csv").read_text(encoding="utf-8").splitlines()
    bad.write_text(lines[0] + "\n" + lines[1].replace("León", "L" * 60) + "\n", encoding="utf-8")
    with pytest.raises(LimiteRecursosError, match="más de 50 caracteres"):
        load(settings, bad, clock=clock)
    assert snapshot(homicide_store.store_dir) == before


def test_a_batch_is_all_or_nothing(homicide_store, clock, tmp_path):
    before = snapshot(homicide_store.store_dir)
    with pytest.raises(DatosFaltantesError):
        load(homicide_store, ETL / "leon_revision.csv", ETL / "header_only.csv", clock=clock)
    assert snapshot(homicide_store.store_dir) == before


# -- atomic publish and rollback --------------------------------------------------------

KILL_SCRIPT = """
import os, sys
from pathlib import Path
from core.config import load_settings
from core.etl import SourceSpec, run_etl
from core.etl import publish, merge
point = sys.argv[2]
if point == "write":
    real = merge.write_tables
    def dying(con, folder):
        real(con, folder)
        os._exit(137)
    merge.write_tables = dying
elif point == "commit":
    def dying(self, staging, vid):
        os._exit(137)
    publish.Depot.commit_version = dying
elif point == "switch":
    def dying(self, vid):
        os._exit(137)
    publish.Depot.switch = dying
run_etl([SourceSpec(Path(sys.argv[3]))], load_settings(sys.argv[1]))
"""


@pytest.mark.parametrize("point", ["write", "commit", "switch"])
def test_a_kill_mid_publish_leaves_the_old_version(homicide_store, tmp_path, point):
    before = snapshot(homicide_store.store_dir)
    current = Depot(homicide_store.store_dir).current_id()
    script = tmp_path / "kill.py"
    script.write_text(KILL_SCRIPT)
    root = Path(__file__).resolve().parents[3]
    env = {**os.environ, "PYTHONPATH": str(root)}
    proc = subprocess.run(
        [sys.executable, str(script), str(homicide_store.data_dir), point, str(ETL / "leon_revision.csv")],
        cwd=root,
        env=env,
        capture_output=True,
        timeout=120,
    )
    assert proc.returncode == 137, proc.stderr.decode()[-500:]
    depot = Depot(homicide_store.store_dir)
    assert depot.current_id() == current
    after = snapshot(homicide_store.store_dir)
    assert {k: v for k, v in after.items() if k in before} == before
    # Only unreferenced files may appear: a staging folder, (killed after the rename) a complete version that
    # CURRENT does not name, or the intent of a switch that never happened (core.etl.intent).
    assert all((k.startswith("versions/") and current not in k) or k == "PENDING" for k in set(after) - set(before))
    assert total(homicide_store, "homicidio_doloso", "AND year(fecha) = 2024") == 2553
    # The next load sweeps the leftovers and publishes normally.
    assert load(homicide_store, ETL / "leon_revision.csv").published
    assert not list(homicide_store.store_dir.glob("versions/.tmp-*"))
    assert not (homicide_store.store_dir / "PENDING").exists()  # dropped: CURRENT never named its version


def test_an_error_mid_publish_leaves_the_old_version(homicide_store, clock, monkeypatch):
    from core.etl import merge

    before = snapshot(homicide_store.store_dir)

    def broken(con, folder):
        raise OSError("disk full")

    monkeypatch.setattr(merge, "write_tables", broken)
    with pytest.raises(OSError):
        load(homicide_store, ETL / "leon_revision.csv", clock=clock)
    assert snapshot(homicide_store.store_dir) == before


@pytest.mark.parametrize(
    "exc, error",
    [
        (
            duckdb.IOException('IO Error: Could not write file "/srv/datos/store/x.parquet": No space left'),
            DatosFaltantesError,
        ),
        (
            duckdb.OutOfMemoryException("Out of Memory Error: could not allocate block of size 256.0 KiB"),
            LimiteRecursosError,
        ),
    ],
)
def test_a_database_error_mid_load_is_told_in_spanish_without_paths(homicide_store, clock, monkeypatch, exc, error):
    from core.etl import merge

    def failing(con, folder):
        raise exc

    monkeypatch.setattr(merge, "write_tables", failing)
    with pytest.raises(error) as info:
        load(homicide_store, ETL / "leon_revision.csv", clock=clock)
    text = " ".join([info.value.details, *info.value.hints])
    assert "/" not in text and "Error" not in text and "no se publicó nada" in text


def test_rollback_to_any_version(homicide_store, clock):
    depot = Depot(homicide_store.store_dir)
    first = depot.current_id()
    second = load(homicide_store, ETL / "leon_revision.csv", clock=clock).dataset_version
    assert depot.current_id() == second != first
    depot.rollback(first, "2026-01-15T12:00:00Z")
    assert depot.current_id() == first
    assert total(homicide_store, "homicidio_doloso", "AND year(fecha) = 2024") == 2553
    assert [v["dataset_version"] for v in depot.versions()] and {first, second} <= {
        v["dataset_version"] for v in depot.versions()
    }
    with pytest.raises(DatosFaltantesError):
        depot.rollback("gx-2000.01.01-deadbeef", "now")
    with pytest.raises(ValidacionError):
        depot.rollback("../../etc", "now")
    history = [json.loads(line) for line in (homicide_store.store_dir / "history.jsonl").read_text().splitlines()]
    assert [h["event"] for h in history] == ["publish", "publish", "rollback"]


def test_progress_is_reported(empty_settings, clock):
    seen = []
    run_etl([SourceSpec(HOMICIDE)], empty_settings, clock=clock, progress=lambda s, f, m: seen.append((s, f)))
    stages = [s for s, _ in seen]
    assert stages[0] == "load" and stages[-1] == "publish" and "curate" in stages
    assert seen[-1][1] == 1.0
