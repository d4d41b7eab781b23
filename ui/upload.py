"""Carga de datos helpers: uploaded files → temp folder → ``core.api.load_files``, and the summaries.

``load_uploads`` is the page's upload handler; it takes any objects with ``name`` and a
file interface (Streamlit's ``UploadedFile``, or an open file in tests), writes them under
a temporary folder with safe names and passes the original names as ``display_name``.
"""

from __future__ import annotations

import hashlib
import re
import shutil
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import pandas as pd
import streamlit as st

from core import api, csv_export
from core.etl import SourceSpec
from ui import markup

UPLOAD_TYPES = ["csv", "zip", "geojson", "json", "bz2", "gz"]  # .csv.bz2 / .csv.gz: core/etl/compressed.py
NOTHING_LOST = "No se publicó nada: la versión vigente sigue igual y sus archivos siguen seleccionados."
STAGE_SPAN = {"load": (0.0, 0.45), "curate": (0.45, 0.7), "publish": (0.7, 1.0)}
STAGE_LABEL = {"load": "Lectura", "curate": "Curación", "publish": "Publicación"}
FUTURE_VERB = {"eliminadas": "Se eliminarán", "agregadas": "Se agregarán", "cambiadas": "Cambiarán"}
PAST_VERB = {"eliminadas": "Se eliminaron", "agregadas": "Se agregaron", "cambiadas": "Cambiaron"}
NONE = "—"  # an unknown value in a table (never «None»)


def safe_name(index: int, name: str) -> str:
    """A file name that cannot leave the temp folder (the original stays as display_name)."""
    base = re.sub(r"[^A-Za-z0-9_.-]", "_", Path(str(name)).name).lstrip(".") or "archivo"
    return f"{index:02d}_{base}"


def _read_into(upload: Any, target: Path) -> None:
    if hasattr(upload, "seek"):
        upload.seek(0)
    with target.open("wb") as out:
        shutil.copyfileobj(upload, out, length=4 * 1024 * 1024)


def make_specs(uploads: Iterable[Any], options: dict[str, dict], folder: Path) -> list[SourceSpec]:
    """Write each upload into ``folder`` and describe it as a SourceSpec with its options."""
    specs = []
    for i, upload in enumerate(uploads, start=1):
        name = Path(str(upload.name)).name
        path = folder / safe_name(i, name)
        _read_into(upload, path)
        opts = options.get(name, {})
        specs.append(
            SourceSpec(
                path,
                display_name=name,
                coverage=(opts.get("coverage") or "").strip() or None,
                annual_cut=(opts.get("annual_cut") or "").strip() or None,
                procedencia=(opts.get("procedencia") or "").strip() or None,
            )
        )
    return specs


def load_uploads(
    uploads: Iterable[Any],
    options: dict[str, dict],
    *,
    settings,
    user: str,
    role: str,
    dry_run: bool,
    progress: Callable[[str, float, str], None] | None = None,
    confirm_removals: int | None = None,
    note: str | None = None,
) -> dict:
    """Preview (``dry_run``) or publish the uploaded files; CasandraError on refusal.

    ``confirm_removals``: the removed cells the steward confirmed (a load that removes others is refused)."""
    with tempfile.TemporaryDirectory(prefix="casandra-carga-") as tmp:
        specs = make_specs(uploads, options, Path(tmp))
        return api.load_files(
            specs,
            settings=settings,
            user=user,
            role=role,
            dry_run=dry_run,
            progress=progress,
            confirm_removals=confirm_removals,
            note=note,
        )


def file_options(files: list[Any], email: str) -> dict[str, dict]:
    """Each chosen file's options (coverage, annual cut, provenance) in its own expander, keyed by the file's name."""
    options: dict[str, dict] = {}
    for f in files:
        with st.expander(f"Opciones de {markup.text(f.name)}"):  # the uploader's own file name
            c1, c2 = st.columns(2)
            coverage = c1.text_input("Cobertura (AAAA-MM:AAAA-MM)", key=f"carga_cov::{f.name}")
            c1.caption(
                "Para archivos largos que omiten los ceros: el periodo que cubren. "
                "Dentro de él, un mes ausente cuenta como 0."
            )
            cut = c2.text_input("Corte anual (AAAA-MM)", key=f"carga_cut::{f.name}")
            c2.caption("Totales anuales: último mes incluido en el último año (parcial).")
            provenance = st.text_input(
                "Procedencia", value=f"Subido por {email} en Carga de datos", key=f"carga_prov::{f.name}"
            )
            options[f.name] = {"coverage": coverage, "annual_cut": cut, "procedencia": provenance}
    return options


def fingerprint(uploads: Iterable[Any], options: dict) -> str:
    """Identifies a batch (files and options): a preview is valid only for its own batch."""
    parts = [f"{getattr(u, 'file_id', '')}|{u.name}|{getattr(u, 'size', '')}" for u in uploads]
    parts.append(repr(sorted((k, sorted(v.items())) for k, v in options.items())))
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()


def progress_callback(bar) -> Callable[[str, float, str], None]:
    """Feed ``st.progress`` from the ETL's ``progress(stage, fraction, message)``."""

    def report(stage: str, fraction: float, message: str) -> None:
        lo, hi = STAGE_SPAN.get(stage, (0.0, 1.0))
        value = min(1.0, max(0.0, lo + (hi - lo) * float(fraction)))
        bar.progress(value, text=f"{STAGE_LABEL.get(stage, stage)}: {message}")

    return report


def files_frame(summary: dict) -> pd.DataFrame:
    """One row per file: layout, encoding, rows, valid cells, quarantine, crimes, period."""
    rows = []
    for f in summary.get("archivos", []):
        cov = f.get("cobertura") or {}
        rows.append(
            {
                "archivo": f.get("archivo"),
                "formato": f.get("formato_descripcion") or f.get("formato"),
                "codificación": f.get("codificacion"),
                "filas": f.get("filas"),
                "celdas válidas": f.get("celdas_validas"),
                "filas en cuarentena": f.get("filas_en_cuarentena", 0),
                "delitos": ", ".join(d["delito"] for d in f.get("delitos", [])),
                "periodo": f"{cov.get('desde')} a {cov.get('hasta')} ({cov.get('origen')})" if cov.get("desde") else "",
            }
        )
    return pd.DataFrame(rows)


def changes_frame(summary: dict) -> pd.DataFrame:
    """A load's changes per crime (added, changed, removed) as a table."""
    per = (summary.get("cambios") or {}).get("por_delito", {})
    return pd.DataFrame(
        [{"delito": k, **v} for k, v in per.items()],
        columns=["delito", "agregadas", "cambiadas", "eliminadas", "iguales"],
    )


def change_lines(summary: dict) -> list[str]:
    """The load's changes in words, removals first («Se eliminarán 184 celdas de … en 46 municipios»)."""
    verbs = PAST_VERB if summary.get("status") == "published" else FUTURE_VERB
    return [f"{verbs[i['tipo']]} {i['texto']}." for i in (summary.get("cambios") or {}).get("detalle", [])]


def removals(summary: dict) -> tuple[int, str]:
    """How many cells a preview removes and what they are, in words (0 and "" when none)."""
    cambios = summary.get("cambios") or {}
    told = "; ".join(i["texto"] for i in cambios.get("detalle", []) if i["tipo"] == "eliminadas")
    return int((cambios.get("totales") or {}).get("eliminadas", 0)), told


def removal_consent(count: int, told: str) -> str:
    """The sentence a steward ticks before a load that removes cells can be published."""
    noun = "celda" if count == 1 else "celdas"
    return (
        f"Entiendo que se eliminarán {count:,} {noun}: {told}."
        if ";" in told
        else f"Entiendo que se eliminarán {told}."
    )


def render_headline(summary: dict) -> None:
    """What changes, first: removed, added and changed cells, told by crime, month and place."""
    totals = (summary.get("cambios") or {}).get("totales", {})
    q = summary.get("cuarentena", {})
    c1, c2, c3, c4 = st.columns(4)
    c1.metric("Celdas eliminadas", f"{totals.get('eliminadas', 0):,}")
    c2.metric("Celdas nuevas", f"{totals.get('agregadas', 0):,}")
    c3.metric("Celdas reemplazadas", f"{totals.get('cambiadas', 0):,}")
    c4.metric("Filas en cuarentena", f"{q.get('filas', 0):,}")
    lines = change_lines(summary)
    if lines:
        st.markdown("\n".join(f"- {markup.text(line)}" for line in lines))  # crime and place names come from data
    elif summary.get("status") != "unchanged":
        st.caption("Ninguna celda mensual cambia.")
    for aviso in (summary.get("cambios") or {}).get("avisos", []):
        st.warning(markup.text(aviso))


def render_summary(summary: dict) -> None:
    """What a preview or a load found: status, what changes (removals first), files, quarantine, warnings."""
    status = summary.get("status")
    if status == "published":
        st.success(
            f"Publicada la versión **{markup.text(summary['dataset_version'])}** "
            f"(antes: {markup.text(summary.get('previous_version') or 'ninguna')})."
        )
    elif status == "unchanged":
        st.info(markup.text(summary.get("mensaje", "Sin cambios: no se publicó una versión nueva.")))
    else:
        st.info(markup.text(summary.get("mensaje", "Vista previa: nada se publicó todavía.")))
    render_headline(summary)
    st.dataframe(files_frame(summary), hide_index=True, width="stretch")
    for f in summary.get("archivos", []):
        for warning in f.get("advertencias", []):
            st.warning(markup.text(f"{f['archivo']}: {warning}"))  # file names and values come from the upload
        reasons = f.get("motivos_cuarentena") or {}
        if reasons:
            with st.expander(f"Cuarentena de {markup.text(f['archivo'])}: {f.get('filas_en_cuarentena', 0)} filas"):
                st.dataframe(
                    pd.DataFrame([{"motivo": k, "celdas": v} for k, v in reasons.items()]),
                    hide_index=True,
                    width="stretch",
                )
    changes = changes_frame(summary)
    if not changes.empty:
        st.markdown("**Cambios por delito** (celdas municipio × mes)")
        st.dataframe(changes, hide_index=True, width="stretch")


QUARANTINE_COLUMNS = {
    "load_id": "load_id",
    "source_file": "archivo",
    "source_row": "linea",
    "motivo": "motivo",
    "valores": "valores",
    "loaded_at": "cargado_en",
}


def quarantine_csv(rows: list[dict]) -> bytes:
    """The quarantined rows as CSV (UTF-8 with BOM; the refused values are neutralized, they may be formulas)."""
    return csv_export.to_csv_bytes(
        list(QUARANTINE_COLUMNS.values()), ([row.get(k) for k in QUARANTINE_COLUMNS] for row in rows)
    )


VERSION_COLUMNS = ["versión", "vigente", "publicada", "por", "archivos", "cambios", "nota", "hasta", "anterior"]


def changes_counts(cambios: dict | None) -> str:
    """«+1 ~12 −183»: cells added, changed and removed by a version's load (— when not recorded)."""
    if not cambios:
        return NONE
    return f"+{cambios.get('agregadas', 0):,} ~{cambios.get('cambiadas', 0):,} −{cambios.get('eliminadas', 0):,}"


def when_text(iso: str | None) -> str:
    """'2026-01-15T12:00:00Z' → '2026-01-15 12:00 UTC'."""
    return f"{iso[:10]} {iso[11:16]} UTC" if iso and len(iso) >= 16 else (iso or NONE)


def versions_frame(versions: list[dict]) -> pd.DataFrame:
    """The published versions as the Carga de datos table: who, when, which files, what changed and a note."""
    rows = []
    for v in versions:
        pub = v.get("publicacion") or {}
        rows.append(
            {
                "versión": v["dataset_version"],
                "vigente": "sí" if v.get("current") else "",
                "publicada": when_text(v.get("updated_at")),
                "por": pub.get("usuario") or NONE,
                "archivos": ", ".join(pub.get("archivos") or []) or NONE,
                "cambios": changes_counts(pub.get("cambios")),
                "nota": pub.get("nota") or "",
                "hasta": v.get("max_date") or NONE,
                "anterior": v.get("previous_version") or "ninguna",
            }
        )
    return pd.DataFrame(rows, columns=VERSION_COLUMNS)
