"""A verified chain segment: exported with its hashes and seal facts, verified again, and every tampering fails."""

from __future__ import annotations

import copy
import itertools
import json
from pathlib import Path

import pytest

from core.audit import segment
from core.audit.log import AuditLog
from core.config import load_settings
from core.errors import ValidacionError
from tests.core.audit.test_verify import _cli, _fill, _legacy, _path

N = 12


@pytest.fixture
def settings(tmp_path: Path):
    settings = load_settings(tmp_path / "data")
    _fill(AuditLog.for_settings(settings), N)
    return settings


@pytest.fixture
def log(settings) -> AuditLog:
    return AuditLog.for_settings(settings)


@pytest.fixture
def exported(log) -> dict:
    return segment.export(log, 3, 8, user="sofia@example.org", role="supervisor")


def test_a_segment_holds_records_hashes_seal_facts_and_the_verification(log, exported):
    assert (exported["first_seq"], exported["last_seq"], exported["count"]) == (3, 8, 6)
    records = exported["records"]
    assert [r["seq"] for r in records] == [3, 4, 5, 6, 7, 8]
    assert all(r["hash"].startswith("hmac-sha256:") for r in records)
    assert all(b["prev_hash"] == a["hash"] for a, b in itertools.pairwise(records))
    assert records[0]["prev_hash"] == log.list(limit=None)[-2].hash  # links to seq 2 of the live log
    seal = exported["seal"]
    assert seal["rules"] == ["hmac-sha256"] and seal["key_id"] == segment.key_id(log.seal.key())
    assert seal["anchor"]["seq"] == N and seal["anchor"]["log_id"] == exported["log_id"]
    assert exported["chain_verification"]["ok"] and exported["chain_verification"]["checked"] == N
    assert exported["segment_verification"] == {
        "ok": True,
        "checked": 6,
        "sealed": True,
        "first_bad_seq": None,
        "reason": None,
        "problem": None,
    }
    assert exported["segment_mac"].startswith("hmac-sha256:")
    assert log.seal.key().hex() not in json.dumps(exported)  # a fingerprint of the key, never the key


def test_the_export_is_audited_and_the_chain_stays_intact(log, exported):
    record = log.list(limit=1)[0]
    assert (record.kind, record.user, record.status) == ("audit_export", "sofia@example.org", "ok")
    assert record.payload["first_seq"] == 3 and record.payload["segment_mac"] == exported["segment_mac"]
    assert log.verify().ok


def test_a_clean_segment_verifies_with_and_without_the_key(log, exported):
    with_key = segment.check_segment(json.loads(json.dumps(exported)), log.seal.key())
    assert (with_key.ok, with_key.checked, with_key.sealed) == (True, 6, True)
    assert segment.describe(with_key) == "Segmento íntegro: 6 registros verificados con la llave de la bitácora."
    without = segment.check_segment(exported, None)
    assert (without.ok, without.sealed) == (True, False)
    assert "sin la llave" in segment.describe(without)


def _set(path: str, value):
    def tamper(doc: dict) -> None:
        *parents, last = path.split(".")
        target = doc
        for name in parents:
            target = target[int(name)] if name.isdigit() else target[name]
        target[int(last) if last.isdigit() else last] = value

    return tamper


def _drop(index: int):
    def tamper(doc: dict) -> None:
        del doc["records"][index]
        doc["count"] -= 1
        doc["last_seq"] = doc["records"][-1]["seq"]

    return tamper


def _drop_and_renumber(doc: dict) -> None:
    del doc["records"][2]
    for i, record in enumerate(doc["records"]):
        record["seq"] = doc["first_seq"] + i
    doc["count"] -= 1
    doc["last_seq"] -= 1


def _empty(doc: dict) -> None:
    doc["records"], doc["count"] = [], 0


def _swap(doc: dict) -> None:
    records = doc["records"]
    records[1], records[2] = records[2], records[1]
    records[1]["seq"], records[2]["seq"] = records[2]["seq"], records[1]["seq"]


TAMPERS = [
    # (tampering, problem with the key, first bad seq, detected without the key)
    (_set("records.2.user", "mallory"), "edited", 5, False),
    (_set("records.0.question", "otra pregunta"), "edited", 3, False),
    (_set("records.4.payload", {"i": 99}), "edited", 7, False),
    (_set("records.1.hash", "hmac-sha256:" + "0" * 64), "edited", 4, True),
    (_set("records.3.hash", "sha256:" + "0" * 64), "edited", 6, True),
    (_drop(2), "segment_broken", None, True),
    (_drop_and_renumber, "edited", 5, True),
    (_swap, "edited", 4, True),
    (_set("count", 7), "segment_broken", None, True),
    (_set("format", "otro"), "segment_broken", None, True),
    (_empty, "segment_broken", None, True),
    (_set("segment_verification.ok", False), "segment_forged", None, False),
    (_set("chain_verification.checked", 99), "segment_forged", None, False),
    (_set("exported_by", "otra persona"), "segment_forged", None, False),
    (_set("seal.anchor.seq", 99), "anchor_forged", None, False),
    (_set("seal.key_id", "sha256:" + "1" * 32), "segment_forged", None, False),
    (_set("segment_mac", None), "segment_forged", None, False),
]
IDS = [
    "user-edited",
    "question-edited",
    "payload-edited",
    "hash-replaced",
    "hash-downgraded",
    "record-removed",
    "record-removed-renumbered",
    "records-swapped",
    "count-changed",
    "not-a-segment",
    "records-emptied",
    "verification-result-changed",
    "chain-result-changed",
    "exporter-changed",
    "anchor-changed",
    "key-id-changed",
    "mac-removed",
]


@pytest.mark.parametrize("tamper,problem,seq,without_key", TAMPERS, ids=IDS)
def test_a_tampered_export_fails_verification(log, exported, tamper, problem, seq, without_key):
    doc = copy.deepcopy(exported)
    tamper(doc)
    result = segment.check_segment(doc, log.seal.key())
    assert (result.ok, result.problem, result.first_bad_seq) == (False, problem, seq)
    assert segment.describe(result).startswith("Segmento ALTERADO — ")
    assert segment.check_segment(doc, None).ok is not without_key


def test_another_installations_key_does_not_verify_it(exported):
    assert segment.check_segment(exported, b"k" * 32).problem == "edited"


@pytest.mark.parametrize(
    "first,last,words",
    [(5, 2, "Rango de registros inválido"), (0, 3, "Rango de registros inválido"), (1, 9000, "el máximo por archivo")],
)
def test_a_bad_range_is_refused_in_spanish(log, first, last, words):
    with pytest.raises(ValidacionError, match=words):
        segment.export(log, first, last, user="s", role="supervisor")


def test_a_range_past_the_head_is_cut_at_the_head_and_an_empty_one_refused(log):
    doc = segment.export(log, 10, 40, user="s", role="supervisor")
    assert (doc["first_seq"], doc["last_seq"], doc["count"]) == (10, N, 3)
    with pytest.raises(ValidacionError, match="No hay registros desde seq=60"):
        segment.export(log, 60, 70, user="s", role="supervisor")


def test_a_tampered_log_exports_a_segment_that_says_so(settings, log):
    from tests.core.audit.test_verify import edit_and_rechain

    edit_and_rechain(_path(settings))
    doc = segment.export(log, 1, 8, user="s", role="supervisor")
    assert doc["chain_verification"]["ok"] is False and doc["chain_verification"]["problem"] == "edited"
    assert doc["segment_verification"]["ok"] is False and doc["segment_verification"]["first_bad_seq"] == 5


def test_plain_records_of_an_old_log_are_checked_without_the_key(tmp_path):
    settings = load_settings(tmp_path / "data")
    _legacy(_path(settings), 5)
    log = AuditLog.for_settings(settings)
    _fill(log, 2)
    doc = segment.export(log, 2, 7, user="s", role="supervisor")
    assert doc["seal"]["rules"] == ["hmac-sha256", "sha256"]
    assert segment.check_segment(doc, log.seal.key()).ok
    doc["records"][1]["payload"] = {"i": 42}  # seq 3, a plain sha256 record
    result = segment.check_segment(doc, None)
    assert (result.ok, result.first_bad_seq) == (False, 3)


def test_the_command_line_exports_and_verifies_a_segment(settings, tmp_path, capsys):
    out = tmp_path / "segmento.json"
    data = ["--data-dir", str(settings.data_dir), "audit"]
    assert (
        _cli([*data, "export", "--format", "segment", "--first-seq", "2", "--last-seq", "6", "--output", str(out)]) == 0
    )
    assert "Segmento íntegro: 5 registros" in capsys.readouterr().err
    assert _cli([*data, "verify", "--segment", str(out)]) == 0
    assert "Segmento íntegro: 5 registros verificados" in capsys.readouterr().out
    doc = json.loads(out.read_text(encoding="utf-8"))
    doc["records"][0]["status"] = "error"
    out.write_text(json.dumps(doc), encoding="utf-8")
    assert _cli([*data, "verify", "--segment", str(out)]) == 1
    assert "Segmento ALTERADO — Registro alterado en seq=2" in capsys.readouterr().out
    assert _cli([*data, "export", "--format", "segment", "--first-seq", "2"]) == 2
    assert "--last-seq" in capsys.readouterr().err
