"""Text encodings of an uploaded CSV: one scan of its bytes, and the UTF-8 copies DuckDB reads.

The scan hashes the file, validates UTF-8, notes cp1252 punctuation bytes and whether any
byte pair looks like UTF-8, all with C loops over 4 MB chunks. A file that is not UTF-8 but
holds such pairs may mix encodings line by line (a spreadsheet pasted into another): each
line is then read in its own encoding, UTF-8 or latin-1/Windows-1252, into a UTF-8 copy with
a warning, and a line that holds both is refused. Without this, latin-1 decoding of a UTF-8
line published ``PeÃ±Ã³n`` for ``Peñón``.
"""

from __future__ import annotations

import codecs
import hashlib
import re
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from core.config import MiB
from core.errors import DatosFaltantesError

CHUNK = 4 * MiB
BOM = b"\xef\xbb\xbf"
C1_BYTES = bytes(range(0x80, 0xA0))  # printable in cp1252, control codes in latin-1
CONTINUATION_BYTES = bytes(range(0x80, 0xC0))  # what follows a lead byte in UTF-8; C1 is a part
# cp1252 leaves 0x81 0x8D 0x8F 0x90 0x9D undefined; map them like latin-1 so no byte is lost.
CP1252_TABLE = "".join(bytes([b]).decode("cp1252", errors="ignore") or chr(b) for b in range(256))
# Bytes as classes for one translate per chunk: a UTF-8 lead byte ('L') followed by a
# continuation byte ('C') is how every non-ASCII UTF-8 character starts.
_CLASSES = bytes(ord("L") if 0xC2 <= b <= 0xF4 else ord("C") if 0x80 <= b <= 0xBF else ord(".") for b in range(256))
# A UTF-8 sequence for a character a Spanish file may hold (Latin letters, ¡¿º°, dashes and
# quotes, €); found inside a line that is not UTF-8, it makes the line ambiguous.
_PLAUSIBLE_SEQ = re.compile(rb"\xc2[\xa0-\xbf]|[\xc3-\xc9][\x80-\xbf]|\xe2[\x80-\x82][\x80-\xbf]")
MIXED = "mixta"


@dataclass(frozen=True)
class Scan:
    """What one pass over a file's bytes found."""

    sha256: str
    utf8: bool  # the whole file is valid UTF-8
    c1: bool  # some byte in 0x80-0x9F (cp1252 punctuation if the file is single-byte)
    utf8_pairs: bool  # some byte pair that starts a UTF-8 character (worth a line-by-line look)
    underscore: bool  # an underscore after the first line (DuckDB reads '1_000' as a number)


def scan(path: Path, bom: bool) -> Scan:
    """Hash, UTF-8 validity, cp1252 bytes, UTF-8-looking pairs and underscores, in one pass."""
    # All checks are C loops over 4 MB chunks, never a Python loop per line; the hash runs on
    # a second thread (hashlib releases the GIL), overlapping the others. Once the file is
    # known not to be UTF-8, a chunk without any byte in 0x80-0xBF (a SESNSP latin-1 file:
    # its accented letters are all above) costs one deletion pass, as the C1 check did alone.
    digest, decoder = hashlib.sha256(), codecs.getincrementaldecoder("utf-8")()
    utf8_ok, has_c1, pairs, underscore, first, tail = True, False, False, False, True, b""
    with open(path, "rb") as fh, ThreadPoolExecutor(max_workers=1) as pool:
        pending = None
        while chunk := fh.read(CHUNK):
            if pending is not None:
                pending.result()  # chunks are hashed in order
            pending = pool.submit(digest.update, chunk)
            if not underscore:
                underscore = b"_" in (chunk[chunk.find(b"\n") + 1 :] if first else chunk)
            if utf8_ok:
                try:
                    decoder.decode(chunk[len(BOM) :] if first and bom else chunk)
                    pairs = pairs or not chunk.isascii()  # valid UTF-8 and not ASCII: real pairs
                except UnicodeDecodeError:
                    utf8_ok = False
            if utf8_ok or len(chunk.translate(None, CONTINUATION_BYTES)) != len(chunk):
                if not has_c1 and len(chunk.translate(None, C1_BYTES)) != len(chunk):
                    has_c1 = True
                if not utf8_ok and not pairs:
                    pairs = b"LC" in (tail + chunk).translate(_CLASSES)
            tail, first = chunk[-1:], False
        if pending is not None:
            pending.result()
    if utf8_ok:
        try:
            decoder.decode(b"", final=True)  # a truncated sequence at the very end
        except UnicodeDecodeError:
            utf8_ok = False
    return Scan(digest.hexdigest(), utf8_ok, has_c1, pairs, underscore)


def decode(data: bytes, encoding: str) -> str:
    """Bytes of one of our encodings as text (the header line)."""
    if encoding == MIXED:
        text = _utf8_line(data)
        return text if text is not None else decode(data, "cp1252")
    if encoding == "cp1252":
        return codecs.charmap_decode(data, "strict", CP1252_TABLE)[0]
    return data.decode("latin-1" if encoding == "latin-1" else "utf-8", errors="replace")


def transcode_cp1252(path: Path, out: BinaryIO) -> None:
    """Write a cp1252 file as UTF-8 (DuckDB's latin-1 reader refuses 0x80-0x9F)."""
    # cp1252 is one byte per character, so chunks can be cut anywhere; newlines are kept.
    with open(path, "rb") as src:
        while chunk := src.read(CHUNK):
            out.write(codecs.charmap_decode(chunk, "strict", CP1252_TABLE)[0].encode("utf-8"))


def lines(path: Path):
    """The file's lines with their endings, read in chunks."""
    with open(path, "rb") as src:
        rest = b""
        while chunk := src.read(CHUNK):
            parts = (rest + chunk).split(b"\n")
            rest = parts.pop()
            for part in parts:
                yield part + b"\n"
        if rest:
            yield rest


def _utf8_line(line: bytes) -> str | None:
    """The line as UTF-8 text when it is valid UTF-8 and reads as Latin script (else None)."""
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError:
        return None
    # Valid UTF-8 made of symbols no Spanish file holds (Ñº reads as a Cyrillic letter) is a
    # single-byte line that happens to decode.
    if all(ord(ch) < 0x80 or 0xA0 <= ord(ch) < 0x250 or 0x2000 <= ord(ch) <= 0x20CF for ch in text):
        return text
    return None


def mixed_lines(path: Path, name: str) -> tuple[int, int, int] | None:
    """(UTF-8 lines, single-byte lines, first single-byte line) when the file mixes both, else None.

    Refuses a line that is not UTF-8 yet holds a UTF-8 character: no reading of it is sure."""
    utf8 = single = first_single = 0
    for number, line in enumerate(lines(path), start=1):
        if line.isascii():
            continue
        if _utf8_line(line) is not None:
            utf8 += 1
            continue
        if _PLAUSIBLE_SEQ.search(line):
            raise DatosFaltantesError(
                f"«{name}» mezcla UTF-8 y latin-1 dentro de la línea {number}: no se puede saber cómo leerla.",
                ["Guarde el archivo como «CSV UTF-8 (delimitado por comas)» y vuelva a subirlo."],
            )
        single += 1
        first_single = first_single or number
    return (utf8, single, first_single) if utf8 and single else None


def repair_mixed(path: Path, out: BinaryIO) -> None:
    """Write a file of mixed lines as UTF-8: each line decoded in its own encoding."""
    for line in lines(path):
        text = _utf8_line(line)
        if text is None:
            text = codecs.charmap_decode(line, "strict", CP1252_TABLE)[0]
        out.write(text.encode("utf-8"))


def mixed_warning(name: str, utf8: int, single: int, first_single: int) -> str:
    """The report's warning for a repaired file."""
    return (
        f"«{name}» mezclaba codificaciones: {utf8} líneas en UTF-8 y {single} en latin-1 (Windows-1252), "
        f"la primera en la línea {first_single}; cada línea se leyó en la suya. "
        "Revise los nombres con acentos y guarde el archivo como CSV UTF-8."
    )
