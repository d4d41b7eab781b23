"""The steward's and the supervisor's endpoints: uploading files (``POST /datasets``) and reading the audit.

An upload goes through ``core.api.load_files``, the ETL and refusals of the dashboard's Carga de datos and of
``python -m core etl``: the files are written under a temporary folder with safe names (the original names
stay as ``display_name``), previewed with ``dry_run`` and published only with the confirmation of the cells a
load removes. The guard admits only stewards to ``/datasets`` and supervisors to ``/audit``.
"""

from __future__ import annotations

import re
import shutil
import tempfile
from pathlib import Path
from typing import Annotated

from fastapi import APIRouter, File, Form, Query, Request, UploadFile

from core import api
from core.audit.log import AuditLog
from core.errors import ValidacionError
from core.etl import SourceSpec
from core.expositor.models import AuditPage
from core.expositor.routes import Who

router = APIRouter()
MAX_FILES = 20
MAX_AUDIT_PAGE = 200


def safe_name(index: int, name: str) -> str:
    """A file name that cannot leave the temporary folder (the original stays as ``display_name``)."""
    base = re.sub(r"[^A-Za-z0-9_.-]", "_", Path(str(name)).name).lstrip(".") or "archivo"
    return f"{index:02d}_{base[:120]}"


def _specs(files: list[UploadFile], folder: Path, coverage: str | None, annual_cut: str | None) -> list[SourceSpec]:
    specs = []
    for i, upload in enumerate(files, start=1):
        name = Path(str(upload.filename or "archivo")).name
        path = folder / safe_name(i, name)
        with path.open("wb") as out:
            shutil.copyfileobj(upload.file, out, length=4 * 1024 * 1024)
        specs.append(SourceSpec(path, display_name=name, coverage=coverage, annual_cut=annual_cut))
    return specs


@router.post("/datasets", summary="Cargar archivos en una nueva versión (steward)")
def upload(
    request: Request,
    who: Who,
    files: Annotated[list[UploadFile], File(description="Archivos CSV, ZIP o comprimidos del SESNSP")],
    dry_run: Annotated[bool, Form(description="Solo la vista previa: no publica")] = False,
    confirm_removals: Annotated[int | None, Form(ge=0, description="Celdas eliminadas que confirma")] = None,
    note: Annotated[str | None, Form(max_length=500, description="Nota de la publicación")] = None,
    coverage: Annotated[str | None, Form(max_length=20, description="AAAA-MM:AAAA-MM")] = None,
    annual_cut: Annotated[str | None, Form(max_length=10, description="AAAA-MM")] = None,
) -> dict:
    """Preview or publish the files through the ETL (the load summary; a refusal is an error envelope)."""
    if not files or len(files) > MAX_FILES:
        raise ValidacionError(f"Envíe de 1 a {MAX_FILES} archivos en el campo 'files'.", path="files")
    with tempfile.TemporaryDirectory(prefix="casandra-api-carga-") as tmp:
        specs = _specs(files, Path(tmp), coverage or None, annual_cut or None)
        return api.load_files(
            specs,
            settings=request.app.state.settings,
            user=who.user,
            role=who.role,
            dry_run=dry_run,
            confirm_removals=confirm_removals,
            note=note,
        )


@router.get("/audit/records", response_model=AuditPage, summary="Registros de auditoría (supervisión)")
def audit_records(
    request: Request,
    who: Who,
    limit: Annotated[int, Query(ge=1, le=MAX_AUDIT_PAGE)] = 50,
    offset: Annotated[int, Query(ge=0, le=10_000_000)] = 0,
    kind: Annotated[str | None, Query(max_length=40)] = None,
    user: Annotated[str | None, Query(max_length=200)] = None,
    status: Annotated[str | None, Query(max_length=40)] = None,
    since: Annotated[str | None, Query(max_length=30, description="AAAA-MM-DD")] = None,
    until: Annotated[str | None, Query(max_length=30, description="AAAA-MM-DD")] = None,
) -> dict:
    """The newest audit records matching the filters, and how many match; the reading is itself audited."""
    filters = dict(kind=kind, user=user, status=status, since=since, until=until)
    with AuditLog.for_settings(request.app.state.settings) as log:
        records = log.list(limit=limit, offset=offset, **filters)
        page = {"total": log.count(**filters), "records": [r.as_dict() for r in records]}
        # Records leaving the system are recorded, as the dashboard's exports are (kind audit_export).
        shown = {k: v for k, v in filters.items() if v is not None}
        log.append(
            kind="audit_read",
            user=who.user,
            role=who.role,
            status="ok",
            payload={"filters": shown, "offset": offset, "returned": len(records)},
        )
    return page
