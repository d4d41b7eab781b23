"""Tests for the ETL intake (core.etl.sources): hostile files are refused, good ones described."""

from __future__ import annotations

import hashlib
import io
import json
import re
import struct
import tempfile
import zipfile
from pathlib import Path

import duckdb
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.config import Limits
from core.errors import CasandraError, DatosFaltantesError, LimiteRecursosError, ValidacionError
from core.etl.sources import SourceFile, open_sources, sha256_file

ROOT = Path(__file__).resolve().parents[3]
LATIN1_FILE = ROOT / "data/raw/sesnsp/IDM_NM_gto_homicidio_2020-2025_latin1.csv"
UTF8_FILE = ROOT / "data/raw/sesnsp/IDM_NM_gto_homicidio_2020-2025.csv"
SPANISH = re.compile(r"\b(el|la|no|de|del|se|está|archivo|una?|contiene)\b", re.IGNORECASE)
BOM = b"\xef\xbb\xbf"
CP1252_TEXT = "Año,Nota\r\n2020,Enero – Marzo “ok”\r\n".encode("cp1252")


# ---------------------------------------------------------------- helpers


def snapshot(root: Path, skip: Path) -> dict[str, str]:
    """Every file under root (except the work folder) with its hash."""
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file() and skip not in p.parents
    }


def make_zip(entries, method=zipfile.ZIP_DEFLATED) -> bytes:
    """A ZIP in memory; entries are (name or ZipInfo, bytes)."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=method) as zf:
        for name, data in entries:
            zf.writestr(name, data)
    return buf.getvalue()


def patch_central_dir(data: bytes, offset: int, fmt: str, value: int) -> bytes:
    """Overwrite one field of the (first) central-directory record, as a forger would."""
    eocd = data.rfind(b"PK\x05\x06")
    cd_start = struct.unpack_from("<I", data, eocd + 16)[0]
    assert data[cd_start : cd_start + 4] == b"PK\x01\x02"
    out = bytearray(data)
    struct.pack_into(fmt, out, cd_start + offset, value)
    return bytes(out)


def xlsx_bytes() -> bytes:
    return make_zip([("[Content_Types].xml", b"<Types/>"), ("xl/workbook.xml", b"<workbook/>")])


def lying_zip() -> bytes:
    """3 MB of zeros whose central directory claims only 1,000 bytes."""
    return patch_central_dir(make_zip([("datos.csv", b"a,b\n" + b"0" * 3_000_000)]), 24, "<I", 1000)


@pytest.fixture
def box(tmp_path):
    """An input folder and a work folder inside tmp_path."""
    (tmp_path / "in").mkdir()
    return tmp_path


def write(box: Path, name: str, data: bytes) -> Path:
    path = box / "in" / name
    path.write_bytes(data)
    return path


def refuse(box: Path, name: str, data: bytes, exc, limits: Limits | None = None, fragment=""):
    """Assert a refusal: class, Spanish message naming the file, nothing left behind."""
    limits = limits or Limits()
    path = write(box, name, data)
    work = box / "work"
    before = snapshot(box, work)
    with pytest.raises(exc) as info:
        open_sources([path], work, limits)
    err = info.value
    assert name in err.details and SPANISH.search(err.details), err.details
    assert fragment.lower() in (err.details + " ".join(err.hints)).lower(), (err.details, err.hints)
    assert list(work.rglob("*")) == [], "a refusal must leave the work folder empty"
    assert snapshot(box, work) == before, "nothing outside work_dir may change"
    return err


def read_with_duckdb(src: SourceFile) -> tuple[list[str], int]:
    rel = duckdb.execute(
        "select * from read_csv(?, encoding=?, delim=?, header=true, all_varchar=true)",
        [str(src.path), src.duckdb_encoding, src.delimiter],
    )
    return [d[0] for d in rel.description], len(rel.fetchall())


# ---------------------------------------------------------------- accepted CSV

ACCEPTED = [
    # id, file name, bytes, encoding, duckdb encoding, newline, delimiter, header
    ("utf8", "a.csv", "Año,Municipio\n2020,León\n".encode(), "utf-8", "utf-8", "\n", ",", ("Año", "Municipio")),
    (
        "bom",
        "b.csv",
        BOM + "Año,Municipio\n2020,León\n".encode(),
        "utf-8-sig",
        "utf-8",
        "\n",
        ",",
        ("Año", "Municipio"),
    ),
    ("crlf", "c.csv", b"a, b \r\n1,2\r\n", "utf-8", "utf-8", "\r\n", ",", ("a", "b")),
    ("cp1252", "d.csv", CP1252_TEXT, "cp1252", "utf-8", "\r\n", ",", ("Año", "Nota")),
    (
        "latin1",
        "e.csv",
        "Año;Bien jurídico\n2020;Vida\n".encode("latin-1"),
        "latin-1",
        "latin-1",
        "\n",
        ";",
        ("Año", "Bien jurídico"),
    ),
    ("semicolon", "f.csv", b'"A";"B;C";"D"\n1;2;3\n', "utf-8", "utf-8", "\n", ";", ("A", "B;C", "D")),
    ("pipe", "g.csv", b"a|b|c\n1|2|3\n", "utf-8", "utf-8", "\n", "|", ("a", "b", "c")),
    ("tab", "h.csv", b"a\tb\n1\t2\n", "utf-8", "utf-8", "\n", "\t", ("a", "b")),
    ("txt", "i.txt", b"a,b\n1,2\n", "utf-8", "utf-8", "\n", ",", ("a", "b")),
    ("no-final-newline", "j.csv", b"a,b", "utf-8", "utf-8", "\n", ",", ("a", "b")),
]


@pytest.mark.parametrize(
    "name,data,enc,duck,newline,delim,header", [a[1:] for a in ACCEPTED], ids=[a[0] for a in ACCEPTED]
)
def test_accepts_csv(box, name, data, enc, duck, newline, delim, header):
    path = write(box, name, data)
    work = box / "work"
    [src] = open_sources([path], work, Limits())
    assert (src.name, src.kind, src.encoding, src.duckdb_encoding) == (name, "csv", enc, duck)
    assert (src.newline, src.delimiter, src.header, src.container) == (newline, delim, header, None)
    assert src.sha256 == hashlib.sha256(data).hexdigest() == sha256_file(path)
    assert src.size_bytes == len(data)
    assert path.read_bytes() == data  # the input is never modified
    if enc == "cp1252":
        assert work in src.path.parents and src.path.read_bytes() == CP1252_TEXT.decode("cp1252").encode()
    else:
        assert src.path == path and list(work.rglob("*")) == []
    if b"\n" in data.rstrip(b"\r\n"):
        columns, rows = read_with_duckdb(src)
        assert tuple(columns) == header and rows == 1  # DuckDB drops the BOM and reads latin-1


def test_real_latin1_file_decodes_header(box):
    [src] = open_sources([LATIN1_FILE], box / "work", Limits())
    assert (src.encoding, src.duckdb_encoding, src.path) == ("latin-1", "latin-1", LATIN1_FILE)
    assert src.header[0] == "Año" and "Bien jurídico afectado" in src.header
    columns, rows = read_with_duckdb(src)
    assert columns[0] == "Año" and rows == 2484


def test_display_names_replace_temp_names(box):
    tmp = write(box, "upload_8f3a", b"a,b\n1,2\n")
    [src] = open_sources([tmp], box / "work", Limits(), display_names=["Mis datos.csv"])
    assert src.name == "Mis datos.csv" and src.path == tmp
    with pytest.raises(ValidacionError, match=r"Mi hoja\.xlsx"):
        open_sources([tmp], box / "work", Limits(), display_names=["Mi hoja.xlsx"])


# ---------------------------------------------------------------- refused plain files

REFUSED = [
    # id, file name, bytes, limits, error, fragment of message or hints
    ("empty", "vacio.csv", b"", Limits(), ValidacionError, "está vacío"),
    ("whitespace", "blanco.csv", b"  \r\n\t \n", Limits(), ValidacionError, "está vacío"),
    ("bom-only", "bom.csv", BOM + b"\r\n", Limits(), ValidacionError, "está vacío"),
    ("png", "foto.csv", b"\x89PNG\r\n\x1a\n" + b"\x00" * 40, Limits(), ValidacionError, "PNG"),
    ("nul", "nulos.csv", b"a,b\n1,\x00\n", Limits(), ValidacionError, "parece binario"),
    (
        "ole-xls",
        "viejo.csv",
        b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 64,
        Limits(),
        ValidacionError,
        "exporte la hoja a CSV",
    ),
    ("xlsx", "libro.csv", xlsx_bytes(), Limits(), ValidacionError, "exporte la hoja a CSV"),
    ("zip-as-csv", "comprimido.csv", make_zip([("a.csv", b"a,b\n")]), Limits(), ValidacionError, "parece binario"),
    ("pdf", "informe.csv", b"%PDF-1.7\n%\xe2\xe3\n", Limits(), ValidacionError, "PDF"),
    ("jpeg", "foto.txt", b"\xff\xd8\xff\xe0" + b"JFIF", Limits(), ValidacionError, "JPEG"),
    ("gzip", "datos.csv", b"\x1f\x8b\x08\x00abc", Limits(), ValidacionError, "GZIP"),
    ("elf", "prog.csv", b"\x7fELF\x02\x01\x01", Limits(), ValidacionError, "ELF"),
    ("sqlite", "db.csv", b"SQLite format 3\x00rest", Limits(), ValidacionError, "SQLite"),
    ("utf16", "u16.csv", "Año,b\n1,2\n".encode("utf-16"), Limits(), ValidacionError, "UTF-16"),
    ("xlsx-ext", "hoja.xlsx", xlsx_bytes(), Limits(), ValidacionError, "no admitido"),
    ("exe-ext", "virus.exe", b"MZ\x90\x00", Limits(), ValidacionError, "no admitido"),
    ("no-ext", "datos", b"a,b\n", Limits(), ValidacionError, "no admitido"),
    ("oversize", "grande.csv", b"a,b\n" + b"1,2\n" * 100, Limits(max_upload_bytes=100), LimiteRecursosError, "MB"),
    ("no-delimiter", "basura.csv", b"hola mundo\nadios\n", Limits(), ValidacionError, "encabezados CSV"),
    ("empty-cells", "comas.csv", b",,,\n1,2,3,4\n", Limits(), ValidacionError, "encabezados CSV"),
    (
        "long-header",
        "ancho.csv",
        b"a," * 100 + b"b\n1\n",
        Limits(max_line_bytes=100),
        LimiteRecursosError,
        "primera línea",
    ),
    ("no-newline", "linea.csv", b"a," * 40_000, Limits(max_line_bytes=1000), LimiteRecursosError, "primera línea"),
    ("long-cell", "celda.csv", b"x" * 50 + b",b\n1,2\n", Limits(max_field_chars=10), LimiteRecursosError, "caracteres"),
    ("cr-only", "mac.csv", b"a,b\r1,2\r", Limits(), ValidacionError, "CR"),
    ("bom-then-latin1", "mezcla.csv", BOM + "Año,b\n".encode("latin-1"), Limits(), DatosFaltantesError, "mezcla"),
    ("fake-zip", "falso.zip", b"a,b\n1,2\n", Limits(), ValidacionError, "no es un ZIP"),
    ("empty-zip-file", "nada.zip", b"", Limits(), ValidacionError, "vacío"),
    (
        "geo-feature",
        "mapa.geojson",
        json.dumps({"type": "Feature", "features": []}).encode(),
        Limits(),
        ValidacionError,
        "FeatureCollection",
    ),
    (
        "geo-features-dict",
        "mapa.json",
        json.dumps({"type": "FeatureCollection", "features": {}}).encode(),
        Limits(),
        ValidacionError,
        "FeatureCollection",
    ),
    ("geo-list", "mapa.geojson", b"[1, 2]", Limits(), ValidacionError, "FeatureCollection"),
    ("geo-bad-json", "mapa.geojson", b'{"type": "FeatureCollection", ', Limits(), ValidacionError, "JSON"),
    ("geo-deep", "mapa.geojson", b"[" * 100_000, Limits(), ValidacionError, "JSON"),
    ("geo-latin1", "mapa.geojson", '{"type": "León"}'.encode("latin-1"), Limits(), ValidacionError, "UTF-8"),
    ("geo-binary", "mapa.geojson", b"\x89PNG\r\n\x1a\n", Limits(), ValidacionError, "GeoJSON"),
]


@pytest.mark.parametrize("name,data,limits,exc,fragment", [r[1:] for r in REFUSED], ids=[r[0] for r in REFUSED])
def test_refuses_plain_file(box, name, data, limits, exc, fragment):
    err = refuse(box, name, data, exc, limits, fragment)
    assert err.hints, "every refusal should suggest something"


def test_missing_path_is_refused(box):
    with pytest.raises(ValidacionError, match=r"no_existe\.csv"):
        open_sources([box / "no_existe.csv"], box / "work", Limits())


def test_geojson_accepted(box):
    doc = {
        "type": "FeatureCollection",
        "features": [{"type": "Feature", "geometry": None, "properties": {"cve_municipio": "11020"}}],
    }
    data = json.dumps(doc).encode()
    path = write(box, "mapa.geojson", data)
    [src] = open_sources([path], box / "work", Limits())
    assert (src.kind, src.encoding, src.header, src.path) == ("geojson", "utf-8", (), path)
    assert src.sha256 == hashlib.sha256(data).hexdigest()


def test_later_refusal_removes_earlier_writes(box):
    good = write(box, "bueno.zip", make_zip([("a.csv", b"a,b\n1,2\n")]))
    bad = write(box, "malo.csv", b"")
    with pytest.raises(ValidacionError, match=r"malo\.csv"):
        open_sources([good, bad], box / "work", Limits())
    assert list((box / "work").rglob("*")) == []


# ---------------------------------------------------------------- ZIP archives


def test_zip_with_one_csv(box):
    data = "Año,Municipio\n2020,León\n".encode()
    path = write(box, "bundle.zip", make_zip([("datos/", b""), ("datos/x.csv", data)]))
    work = box / "work"
    [src] = open_sources([path], work, Limits())
    assert (src.name, src.container, src.kind, src.header) == (
        "bundle.zip:datos/x.csv",
        "bundle.zip",
        "csv",
        ("Año", "Municipio"),
    )
    assert src.sha256 == hashlib.sha256(data).hexdigest() and src.size_bytes == len(data)
    assert work in src.path.parents and src.path.read_bytes() == data
    assert "datos" not in [p.name for p in work.rglob("*")]  # entry names are never used as paths


def test_zip_with_two_csvs_skips_junk(box):
    entries = [
        ("a.csv", b"a,b\n1,2\n"),
        ("sub/b.txt", b"c;d\n3;4\n"),
        ("__MACOSX/._a.csv", b"\x00\x05"),
        (".DS_Store", b"\x00\x00"),
        ("LEEME.pdf", b"%PDF-1.4"),
        ("mapa.geojson", json.dumps({"type": "FeatureCollection", "features": [{}]}).encode()),
    ]
    path = write(box, "dos.zip", make_zip(entries))
    found = open_sources([path], box / "work", Limits())
    assert [(s.name, s.kind, s.delimiter) for s in found] == [
        ("dos.zip:a.csv", "csv", ","),
        ("dos.zip:sub/b.txt", "csv", ";"),
        ("dos.zip:mapa.geojson", "geojson", ""),
    ]
    assert len(list((box / "work").rglob("*.*"))) == 3


def test_zip_member_cp1252_is_transcoded(box):
    path = write(box, "win.zip", make_zip([("w.csv", CP1252_TEXT)]))
    [src] = open_sources([path], box / "work", Limits())
    assert (src.encoding, src.duckdb_encoding) == ("cp1252", "utf-8")
    assert src.sha256 == hashlib.sha256(CP1252_TEXT).hexdigest()
    assert [p for p in (box / "work").rglob("*") if p.is_file()] == [src.path]  # raw copy removed
    assert read_with_duckdb(src) == (["Año", "Nota"], 1)


def _encrypted_zip() -> bytes:
    return patch_central_dir(make_zip([("a.csv", b"a,b\n1,2\n")]), 8, "<H", 0x1)


def _symlink_zip() -> bytes:
    info = zipfile.ZipInfo("enlace.csv")
    info.external_attr = 0o120777 << 16
    return make_zip([("a.csv", b"a,b\n"), (info, b"/etc/passwd")])


def _slip(name: str) -> bytes:
    return make_zip([("bueno.csv", b"a,b\n1,2\n"), (name, b"a,b\n6,6\n")])


ZERO_CSV = b"a,b\n" + b"0" * 3_000_000  # deflates about 1000:1
ZIP_REFUSED = [
    (
        "nested-ext",
        make_zip([("interior.zip", make_zip([("a.csv", b"a,b\n")]))]),
        Limits(),
        ValidacionError,
        "anidados",
    ),
    ("nested-gz", make_zip([("a.csv.gz", b"\x1f\x8b\x08\x00")]), Limits(), ValidacionError, "anidados"),
    ("nested-magic", make_zip([("a.csv", make_zip([("b.csv", b"a,b\n")]))]), Limits(), ValidacionError, "anidados"),
    ("slip-dotdot", _slip("../evil.csv"), Limits(), ValidacionError, "ruta peligrosa"),
    ("slip-abs", _slip("/abs.csv"), Limits(), ValidacionError, "ruta peligrosa"),
    ("slip-inner", _slip("a/../../evil.csv"), Limits(), ValidacionError, "ruta peligrosa"),
    ("slip-backslash", _slip("..\\..\\evil.csv"), Limits(), ValidacionError, "ruta peligrosa"),
    ("slip-drive", _slip("C:/evil.csv"), Limits(), ValidacionError, "ruta peligrosa"),
    ("bomb-ratio", make_zip([("a.csv", ZERO_CSV)]), Limits(max_zip_ratio=50), LimiteRecursosError, "bomba"),
    (
        "bomb-total-ratio",
        make_zip([(f"p{i}.csv", b"a,b\n" + b"0" * 60_000) for i in range(40)]),
        Limits(max_zip_ratio=50),
        LimiteRecursosError,
        "conjunto",
    ),
    (
        "over-inflated",
        make_zip([("a.csv", ZERO_CSV)]),
        Limits(max_inflated_bytes=1_000_000, max_zip_ratio=1e9),
        LimiteRecursosError,
        "descomprimido",
    ),
    (
        "member-oversize",
        make_zip([("a.csv", ZERO_CSV)]),
        Limits(max_upload_bytes=2_000_000, max_zip_ratio=1e9),
        LimiteRecursosError,
        "MB",
    ),
    ("lying-size", lying_zip(), Limits(max_zip_ratio=50), (ValidacionError, LimiteRecursosError), "ZIP"),
    (
        "too-many",
        make_zip([(f"{i}.csv", b"a,b\n") for i in range(5)]),
        Limits(max_zip_entries=3),
        LimiteRecursosError,
        "entradas",
    ),
    ("encrypted", _encrypted_zip(), Limits(), ValidacionError, "contraseña"),
    ("symlink", _symlink_zip(), Limits(), ValidacionError, "enlace simbólico"),
    ("bzip2", make_zip([("a.csv", b"a,b\n1,2\n")], zipfile.ZIP_BZIP2), Limits(), ValidacionError, "método"),
    (
        "no-csv",
        make_zip([("LEEME.pdf", b"%PDF-1.4"), ("foto.png", b"\x89PNG")]),
        Limits(),
        ValidacionError,
        "no contiene archivos CSV",
    ),
    ("no-entries", make_zip([]), Limits(), ValidacionError, "no contiene archivos CSV"),
    ("truncated", make_zip([("a.csv", b"a,b\n1,2\n" * 100)])[:-30], Limits(), ValidacionError, "dañado"),
    ("binary-member", make_zip([("a.csv", b"\x89PNG\r\n\x1a\n\x00")]), Limits(), ValidacionError, "bundle.zip:a.csv"),
    ("empty-member", make_zip([("a.csv", b"")]), Limits(), ValidacionError, "vacío"),
]


@pytest.mark.parametrize("data,limits,exc,fragment", [z[1:] for z in ZIP_REFUSED], ids=[z[0] for z in ZIP_REFUSED])
def test_refuses_hostile_zip(box, data, limits, exc, fragment):
    refuse(box, "bundle.zip", data, exc, limits, fragment)
    assert not (box / "evil.csv").exists() and not (box / "in" / "evil.csv").exists()


def test_extraction_counts_real_bytes(box, monkeypatch):
    """A reader that yields more than the declared size is cut off and its partial file removed."""
    data = make_zip([("a.csv", b"a,b\n1,2\n")])
    real_open = zipfile.ZipFile.open

    def lying_open(self, info, *args, **kwargs):
        with real_open(self, info, *args, **kwargs) as src:
            return io.BytesIO(src.read() + b"9" * 5_000_000)

    monkeypatch.setattr(zipfile.ZipFile, "open", lying_open)
    refuse(box, "bundle.zip", data, LimiteRecursosError, Limits(), "más bytes de los declarados")


# ---------------------------------------------------------------- never an unexpected exception

SMALL = Limits(max_line_bytes=64, max_field_chars=16, max_zip_ratio=20, max_inflated_bytes=100_000)
SEED_ZIP = make_zip([("a.csv", b"a,b\n1,2\n"), ("m.geojson", b'{"type":"FeatureCollection","features":[1]}')])
prefixes = st.sampled_from([b"", BOM, b"a,b\n", b"PK\x03\x04", b"\x89PNG", "Año;".encode("latin-1")])


def _check_never_crashes(name: str, data: bytes, limits: Limits) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "subida"
        path.write_bytes(data)
        work = Path(tmp) / "work"
        try:
            found = open_sources([path], work, limits, display_names=[name])
        except CasandraError:
            assert list(work.rglob("*")) == []
        else:
            assert all(isinstance(s, SourceFile) and s.header for s in found if s.kind == "csv")
        assert path.read_bytes() == data


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(prefix=prefixes, body=st.binary(max_size=400), limits=st.sampled_from([Limits(), SMALL]))
def test_random_bytes_never_crash(prefix, body, limits):
    _check_never_crashes("azar.csv", prefix + body, limits)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    edits=st.lists(st.tuples(st.integers(0, len(SEED_ZIP) - 1), st.integers(0, 255)), max_size=6),
    cut=st.integers(0, len(SEED_ZIP)),
)
def test_mangled_zip_never_crashes(edits, cut):
    data = bytearray(SEED_ZIP)
    for pos, value in edits:
        data[pos] = value
    _check_never_crashes("azar.zip", bytes(data[:cut] if cut else data), Limits())
