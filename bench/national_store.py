"""The store of the national section: the bundled files plus the 36 real national municipal Parquet parts.

Built by the real ETL exactly as ``python -m core build --nacional`` builds it (``core.etl.national``):
the manifest of ``data/raw`` and the folder of parts named by ``CASANDRA_NATIONAL_PARTS`` (by default
the shared data folder's ``nacional/municipal_tipo_modalidad_2015-01_2025-05``). A fresh clone
without the parts gets ``None`` from ``parts_folder`` and the section says so instead of failing.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import time
from dataclasses import replace
from pathlib import Path

from bench.common import ROOT, quiet_fds


def parts_folder() -> Path | None:
    """The folder of national parts, or None when it is absent or holds no ``.parquet`` file."""
    from core.config import load_settings

    folder = load_settings().national_parts
    return folder if folder.is_dir() and any(folder.glob("*.parquet")) else None


def _stamp(parts: Path, raw: Path) -> str:
    """What the built store depends on: the parts (names and sizes), the bundled manifest and the ETL code."""
    h = hashlib.sha256()
    for f in sorted(parts.glob("*.parquet")):
        h.update(f"{f.name}:{f.stat().st_size}:{f.stat().st_mtime_ns}".encode())
    h.update((raw / "manifest.json").read_bytes())
    for f in sorted((ROOT / "core" / "etl").rglob("*.py")):
        h.update(f.read_bytes())
    return h.hexdigest()[:16]


def build(work: Path, parts: Path, reuse: bool = True) -> dict:
    """Build (or, with ``reuse``, keep a store built from the same inputs) the national store; its description."""
    from core.cli import load_manifest
    from core.config import DEFAULT_DATA_DIR, load_settings
    from core.etl import run_etl
    from core.etl.national import national_settings, national_specs
    from core.etl.publish import Depot

    work = Path(work)
    work.mkdir(parents=True, exist_ok=True)
    raw = DEFAULT_DATA_DIR / "raw"
    settings = replace(load_settings(work / "data"), national_parts=parts)  # the parts found, whatever the default
    national = national_settings(settings)
    stamp, stamp_file = _stamp(parts, raw), work / "store.json"
    current = Depot(national.store_dir).current_id()
    if reuse and stamp_file.is_file() and current:
        old = json.loads(stamp_file.read_text(encoding="utf-8"))
        if old.get("stamp") == stamp and old.get("dataset_version") == current:
            return old | {"reutilizado": True}
    if settings.data_dir.exists():
        shutil.rmtree(settings.data_dir)
    specs = national_specs(settings, load_manifest(raw))
    t0 = time.perf_counter()
    with quiet_fds():
        result = run_etl(specs, national)
    etl_s = time.perf_counter() - t0
    out = {
        "stamp": stamp,
        "partes": str(parts),
        "archivos_partes": len(list(parts.glob("*.parquet"))),
        "etl_s": round(etl_s, 2),
        "dataset_version": result.dataset_version,
        "row_counts": result.summary.get("row_counts"),
        "cuarentena": result.summary.get("cuarentena"),
        "data_dir": str(national.data_dir),
        "reutilizado": False,
    }
    stamp_file.write_text(json.dumps(out, ensure_ascii=False, indent=2), encoding="utf-8")
    return out
