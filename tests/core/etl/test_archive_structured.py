"""JSON and Parquet members of a ZIP upload are routed as the same file uploaded bare (core/etl/archive.py).

The fixtures are small slices of the real files, built here: the Irapuato IDM_NM JSON (records, every value a
string) and the Guanajuato tipo × modalidad Parquet (names without codes, resolved through the INEGI catalogue).
A slice loads to the same cells bare and inside a ZIP; a ZIP whose JSON or Parquet is broken is refused with its
contract code and nothing is written.
"""

from __future__ import annotations

import io
import json
import zipfile
from datetime import UTC, datetime
from pathlib import Path

import duckdb
import pytest

from core.clock import FixedClock
from core.config import Limits, load_settings
from core.errors import CasandraError
from core.etl import SourceSpec, run_etl
from core.etl.archive import open_zip
from core.etl.publish import Depot
from core.etl.sources import open_sources
from tests.conftest import version_table

ROOT = Path(__file__).resolve().parents[3]
RAW = ROOT / "data" / "raw"
PARQUET = RAW / "sesnsp" / "gto_municipal_tipo_modalidad_2015-01_2025-05.parquet"
IRAPUATO = RAW / "sesnsp" / "irapuato_idm_nm_2015-2025.json"
INEGI = RAW / "nacional" / "municipios_inegi_mg2023.csv"
CLOCK = FixedClock(datetime(2026, 4, 1, tzinfo=UTC))
CELLS = """SELECT row_id, fecha, nivel, lugar_id, medida, tipo_key, delito, metodo, eventos, vigente, source_row
           FROM {t} ORDER BY row_id"""


def json_slice(folder: Path) -> Path:
    """The first 40 records of the Irapuato file, CRLF like the original."""
    records = json.loads(IRAPUATO.read_text(encoding="utf-8-sig"))[:40]
    path = folder / "irapuato_mini.json"
    path.write_bytes(json.dumps(records, ensure_ascii=False, indent=1).replace("\n", "\r\n").encode("utf-8"))
    return path


def parquet_slice(folder: Path) -> Path:
    """Three municipalities × three months of the Guanajuato parquet."""
    path = folder / "gto_tipo_mini.parquet"
    duckdb.execute(
        f"""COPY (SELECT * FROM read_parquet(?) WHERE Municipio IN ('León', 'Irapuato', 'Silao de la Victoria')
                  AND Fecha BETWEEN '2024-01-01' AND '2024-03-31') TO '{path}' (FORMAT parquet)""",
        [str(PARQUET)],
    )
    return path


def zipped(folder: Path, member: str, data: bytes) -> Path:
    """A ZIP holding one member (plus a readme the upload ignores)."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        zf.writestr(f"datos/{member}", data)
        zf.writestr("LEAME.txt.pdf", b"%PDF-")
    path = folder / f"{Path(member).stem}.zip"
    path.write_bytes(buf.getvalue())
    return path


def load(folder: Path, source: Path, dry_run: bool = False):
    """One load of the INEGI catalogue and ``source`` into an empty store: (summary, observations cells)."""
    settings = load_settings(folder / "data")
    result = run_etl([SourceSpec(INEGI), SourceSpec(source)], settings, clock=CLOCK, dry_run=dry_run)
    if dry_run:
        return result.summary, None
    cells = duckdb.sql(CELLS.format(t=version_table(settings.store_dir, "observations"))).fetchall()
    return result.summary, cells


def report(summary: dict) -> dict:
    """What the preview says about the data file (the catalogue's report left out), without its name."""
    (got,) = [r for r in summary["archivos"] if "municipios_inegi" not in r["archivo"]]
    return {k: v for k, v in got.items() if k not in ("archivo", "contenedor", "sha256", "bytes")}


SLICES = [("json", json_slice, "idm_nm_json"), ("parquet", parquet_slice, "municipal_tipo_parquet")]


@pytest.mark.parametrize(("kind", "make", "layout"), SLICES)
def test_a_member_is_described_like_the_bare_file(tmp_path, kind, make, layout):
    bare = make(tmp_path)
    call_dir = tmp_path / "call"
    call_dir.mkdir()
    (src,) = open_zip(zipped(tmp_path, bare.name, bare.read_bytes()), "carga.zip", call_dir, Limits())
    assert (src.kind, src.container, src.name) == (kind, "carga.zip", f"carga.zip:datos/{bare.name}")
    (alone,) = open_sources([bare], tmp_path / "bare_work", Limits())
    assert (src.kind, src.header, src.encoding, src.newline) == (
        alone.kind,
        alone.header,
        alone.encoding,
        alone.newline,
    )


@pytest.mark.slow
@pytest.mark.parametrize(("kind", "make", "layout"), SLICES)
def test_the_preview_and_the_load_give_the_same_cells_as_the_bare_file(tmp_path, kind, make, layout):
    bare = make(tmp_path)
    archive = zipped(tmp_path, bare.name, bare.read_bytes())
    preview_bare, _ = load(tmp_path / "pb", bare, dry_run=True)
    preview_zip, _ = load(tmp_path / "pz", archive, dry_run=True)
    assert report(preview_zip) == report(preview_bare)
    assert report(preview_zip)["formato"] == layout and report(preview_zip)["filas_aceptadas"] > 0
    _, cells_bare = load(tmp_path / "lb", bare)
    _, cells_zip = load(tmp_path / "lz", archive)
    assert cells_bare and cells_zip == cells_bare


# (member name, broken bytes, the contract code, a fragment of the Spanish message)
BROKEN = [
    ("irapuato.json", b'[{"A\xc3\xb1o": "2024", "Enero": "1"', "INVALID_PAYLOAD", "no es un JSON válido"),
    ("irapuato.json", b'[{"a": "1"}, {"b": "2"}]', "INVALID_PAYLOAD", "mismas claves"),
    ("gto.parquet", b"Fecha,Municipio\n2024-01-31,Le\xc3\xb3n\n", "INVALID_PAYLOAD", "no es un archivo Parquet"),
    ("gto.parquet", b"PAR1" + b"\x00" * 64 + b"PAR1", "INVALID_PAYLOAD", "esquema"),
]


@pytest.mark.parametrize(("member", "data", "code", "fragment"), BROKEN)
def test_a_zip_with_a_broken_member_is_refused_and_writes_nothing(tmp_path, member, data, code, fragment):
    settings = load_settings(tmp_path / "data")
    with pytest.raises(CasandraError) as err:
        run_etl([SourceSpec(zipped(tmp_path, member, data))], settings, clock=CLOCK)
    assert err.value.code == code and fragment in err.value.details
    assert member in err.value.details  # the message names the member, inside its archive
    depot = Depot(settings.store_dir)
    assert depot.current_id() is None and depot.versions() == []
    assert not [p for p in settings.store_dir.rglob("*") if p.is_file() and p.suffix in (".parquet", ".duckdb")]
