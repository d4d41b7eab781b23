"""The ETL run: load → curate → publish, with progress reports and one summary.

A batch of files is all-or-nothing: if any file is refused, nothing is published and
the current version stays byte-for-byte as it was.
"""

from __future__ import annotations

import json
import shutil
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

import duckdb

from core.clock import Clock, iso_utc
from core.config import Settings
from core.dataset import taxonomy
from core.errors import DatosFaltantesError, ValidacionError
from core.etl import assembly, changes, coverage, curate, direct, load, merge, metadata, query_cells, query_db, sources
from core.etl.coverage import iso_date, parse_coverage, parse_month
from core.etl.intent import PublishAudit
from core.etl.layouts import Layout, ReadContext, detect_layout
from core.etl.publish import Depot

STAGES = ("load", "curate", "publish")

Progress = Callable[[str, float, str], None]


@dataclass
class SourceSpec:
    """One input file and the options that belong to it."""

    path: Path
    display_name: str | None = None
    coverage: str | None = None  # 'YYYY-MM:YYYY-MM' for long non-zero-only files
    annual_cut: str | None = None  # 'YYYY-MM': last month included in the yearly totals
    procedencia: str | None = None  # provenance text for the metadata


@dataclass
class EtlResult:
    """What a load did; ``summary`` is the JSON the CLI prints."""

    published: bool
    dataset_version: str | None
    summary: dict = field(default_factory=dict)


def _noop(stage: str, fraction: float, message: str) -> None:
    return None


def run_etl(
    specs: Sequence[SourceSpec],
    settings: Settings,
    clock: Clock | None = None,
    progress: Progress | None = None,
    dry_run: bool = False,
    audit: PublishAudit | None = None,
    confirm_removals: int | None = None,
    note: str | None = None,
) -> EtlResult:
    """Load, curate and publish a batch of files; raise a CasandraError on refusal.

    With ``dry_run`` everything is checked and the summary (layouts, crimes, periods,
    quarantine, changes) is returned, but nothing is published: the upload preview.
    With ``audit`` a publish writes its «published» record in the same step as the switch.
    A load that removes cells publishes only when ``confirm_removals`` is that number (the
    preview's ``cambios.totales.eliminadas``); ``note`` is the steward's note on the version."""
    clock = clock or Clock()
    progress = progress or _noop
    depot = Depot(settings.store_dir)
    if not specs:
        raise ValidacionError("No se indicó ningún archivo para cargar.")
    for spec in specs:  # bad options are refused before any file is read
        parse_coverage(spec.coverage)
        if spec.annual_cut:
            parse_month(spec.annual_cut)
    with depot.lock():
        work = depot.new_work_dir()
        try:
            publication = Publication(audit, confirm_removals, note)
            return _run_locked(specs, settings, clock, progress, depot, work, dry_run, publication)
        finally:
            shutil.rmtree(work, ignore_errors=True)


def _connect(settings: Settings, work: Path) -> duckdb.DuckDBPyConnection:
    con = duckdb.connect(str(work / "staging.duckdb"))
    con.execute(f"SET memory_limit = '{settings.etl_memory_limit}'")
    con.execute("SET temp_directory = ?", [str(work / "spill")])
    con.execute(f"SET threads = {int(settings.etl_threads)}")
    con.execute("SET preserve_insertion_order = true")
    return con


def _run_locked(
    specs,
    settings: Settings,
    clock: Clock,
    progress: Progress,
    depot: Depot,
    work: Path,
    dry_run: bool = False,
    publication: Publication | None = None,
) -> EtlResult:
    publication = publication or Publication()
    audit = publication.audit
    now = clock.now()
    loaded_at = iso_utc(now)
    load_id = uuid.uuid4().hex[:12]
    progress("load", 0.0, "Revisando archivos")
    names = [s.display_name or Path(s.path).name for s in specs]
    files = sources.open_sources([s.path for s in specs], work / "in", settings.limits, display_names=names)
    # A ZIP may expand into several files: each inherits its archive's options.
    spec_by_name = dict(zip(names, specs))
    con = _connect(settings, work)
    try:
        curate_known = _known_from_store(depot)
        reports: list[dict] = []
        geo_files: list[sources.SourceFile] = []
        reduced: set[int] = set()
        monthly: dict[int, tuple[Layout, SourceSpec]] = {}
        direct_loads: list[direct.DirectLoad] = []
        merge.ensure_batches(con)
        con.execute(curate.QUARANTINE_DDL)
        crimes = curate.keys_of(taxonomy.load_crimes() + _store_crimes(depot))
        methods = curate.keys_of(taxonomy.load_methods())
        merge.attach_current(con, depot)
        built = query_db.attach_new(con, work)  # the observations (and a first file's cells) are written once there
        batch = ReadContext(
            con,
            settings.limits,
            curate_known,
            crimes,
            methods,
            work,
            direct=settings.etl_direct,
            cells_into=f"{built}.{query_cells.CELLS}" if _whole_version(con, files) else None,
        )
        for seq, src in enumerate(files, start=1):
            spec = spec_by_name.get(src.container or src.name) or spec_by_name.get(src.name) or specs[0]
            progress("load", seq / (len(files) + 1), f"Leyendo {src.name}")
            layout = detect_layout(src.header, src.name, src.kind)
            report = _report(src, layout, spec)
            reports.append(report)
            if layout.map:  # copied into the version as it is
                geo_files.append(src)
                continue
            cut = parse_month(spec.annual_cut) if spec.annual_cut else None
            staged = layout.read(src, seq, replace(batch, annual_cut=cut))
            report.update(staged.report)
            report["advertencias"].extend(staged.warnings)
            report.update(_seq=seq, _layout=layout)
            if staged.direct is not None:
                direct_loads.append(staged.direct)
            if layout.monthly:
                monthly[seq] = (layout, spec)
                if layout.sums_repeated_keys:
                    reduced.add(seq)
        progress("curate", 0.0, "Curando celdas")
        con.execute(load.CELLS_DDL)
        curate.build_maps(con, curate_known, crimes, methods)
        stats = curate.curate(con, reduced)
        merge.define_curated_all(con, [d.view for d in direct_loads])
        _known_views(con)
        merge.summarize_cells(con, direct=[d.summary for d in direct_loads])
        for seq, (layout, spec) in monthly.items():
            coverage.own_slices(con, seq, layout, spec.coverage, _find(reports, seq))
        _finish_reports(con, reports, stats)
        progress("publish", 0.0, "Preparando versión")
        assembly.assemble(con, load_id, loaded_at, monthly_files=len(monthly), obs_table=f"{built}.observations")
        previous = depot.metadata()
        geo = metadata.geo_digest(previous, geo_files)
        extra = {"formato": metadata.DERIVED_FORMAT} | ({"geo": geo} if geo else {})
        digest = merge.content_digest(con, extra=extra)
        summary = {
            "load_id": load_id,
            "archivos": [{k: v for k, v in r.items() if not k.startswith("_")} for r in reports],
            "cuarentena": {
                "filas": sum(r.get("filas_en_cuarentena", 0) for r in reports),
                "celdas": sum(r.get("celdas_en_cuarentena", 0) for r in reports),
            },
            "previous_version": previous["dataset_version"] if previous else None,
        }
        summary["cambios"] = changes.diff(con)
        summary["cambios"]["meses_incompletos"] = coverage.partial_months(con)
        summary["cambios"]["avisos"] = coverage.partial_warnings(summary["cambios"]["meses_incompletos"])
        if _unchanged(con, previous, digest, geo_files):
            summary.update(
                status="unchanged",
                dataset_version=previous["dataset_version"],
                mensaje=UNCHANGED_PREVIEW if dry_run else UNCHANGED,
            )
            progress("publish", 1.0, "Sin cambios")
            return EtlResult(False, previous["dataset_version"], summary)
        if dry_run:
            summary.update(status="preview", dataset_version=None, mensaje="Vista previa: nada se publicó todavía.")
            progress("publish", 1.0, "Vista previa lista")
            return EtlResult(False, None, summary)
        changes.require_confirmation(summary["cambios"], publication.confirm_removals)
        vid = f"gx-{now:%Y.%m.%d}-{digest[:8]}"
        staging = depot.new_staging_version()
        try:
            counts = merge.write_tables(con, staging)
            geo_meta = metadata.copy_geo(depot, previous, geo_files, staging)
            meta = metadata.build_metadata(con, vid, digest, loaded_at, previous, counts, reports, load_id, geo_meta)
            meta["publicacion"] = publication.record(summary)
            query_db.finish(con, built, staging)  # after the metadata, which reads its observations
            (staging / "metadata.json").write_text(json.dumps(meta, ensure_ascii=False, indent=2), encoding="utf-8")
            progress("publish", 0.8, "Publicando versión")
            depot.commit_version(staging, vid)
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise
        summary.update(
            status="published",
            dataset_version=vid,
            row_counts=counts,
            min_date=meta["min_date"],
            max_date=meta["max_date"],
        )
        event = {
            "event": "publish",
            "dataset_version": vid,
            "from": summary["previous_version"],
            "at": loaded_at,
            "load_id": load_id,
            "files": [r["archivo"] for r in reports],
            "user": audit.user if audit else None,
            "nota": meta["publicacion"]["nota"],
        }
        # The switch, its history line and its audit record as one step (core.etl.intent).
        depot.publish(vid, event, audit.record(vid, summary) if audit else None, audit.log if audit else None)
        progress("publish", 1.0, f"Publicada {vid}")
        return EtlResult(True, vid, summary)
    # DuckDB's own text is English and names absolute paths: the person reads Spanish only.
    except duckdb.OutOfMemoryException as exc:
        from core.errors import LimiteRecursosError

        raise LimiteRecursosError(
            "La carga excedió la memoria disponible; no se publicó nada.",
            ["Divida el archivo por años o aumente el límite CASANDRA_ETL_MEMORY_LIMIT."],
        ) from exc
    except duckdb.Error as exc:
        raise DatosFaltantesError(
            "No se pudo procesar la carga por un error interno de la base de trabajo; no se publicó nada.",
            ["Vuelva a intentarlo; si se repite, comparta el archivo con el equipo técnico."],
        ) from exc
    finally:
        con.close()


UNCHANGED = "Sin cambios: no se publicó una versión nueva."
UNCHANGED_PREVIEW = "Sin cambios: la versión vigente ya tiene este contenido; no se publicará una versión nueva."


@dataclass(frozen=True)
class Publication:
    """Who publishes (the audit log and its user), the removals they confirmed and their note on the version."""

    audit: PublishAudit | None = None
    confirm_removals: int | None = None
    note: str | None = None

    def record(self, summary: dict) -> dict:
        """What the version's metadata keeps of its publication: who, which files, what changed, the note."""
        totals = summary["cambios"]["totales"]
        return {
            "usuario": self.audit.user if self.audit else None,
            "archivos": [a["archivo"] for a in summary["archivos"]],
            "cambios": {k: totals.get(k, 0) for k in changes.KINDS},
            "nota": (self.note or "").strip() or None,
        }


def _unchanged(con, previous: dict | None, digest: str, geo_files) -> bool:
    """No new version: the same digest, or (a version whose digest other code recorded) the same tables."""
    if not previous or metadata.new_geo(previous, geo_files):
        return False
    if previous.get("content_hash") == digest:
        return True
    return not metadata.stale(previous) and changes.same_tables(con)


def _whole_version(con, files: list) -> bool:
    """Whether a directly loaded file's cells are the whole next version's (one file over a version without cells
    or observations): then they go straight into its query database (core.etl.direct), written once."""
    if len(files) != 1 or merge.current_cells(con):
        return False
    return con.execute("SELECT count(*) FROM (SELECT 1 FROM cur_observations LIMIT 1)").fetchone()[0] == 0


def _known_views(con) -> None:
    """Municipalities and coverage of the current version, for the load's warnings."""
    con.execute("""CREATE OR REPLACE TEMP VIEW cur_entities_known AS
                   SELECT estado_id, cve FROM cur_entities WHERE nivel = 'municipio'""")
    con.execute("""CREATE OR REPLACE TEMP VIEW cur_coverage_known AS
                   SELECT estado_id, delito, desde, hasta FROM cur_coverage WHERE granularity = 'month'""")


def _known_from_store(depot: Depot) -> curate.KnownEntities:
    path = depot.table_path("entities")
    extra = []
    if path:
        extra = duckdb.sql(
            "SELECT cve, entidad_id, label FROM read_parquet(?) WHERE nivel = 'municipio'", params=[str(path)]
        ).fetchall()
    return curate.known_entities(extra)


def _store_crimes(depot: Depot) -> list:
    """Crimes a previous load added to the store (not in the catalog files)."""
    path = depot.table_path("crimes")
    if not path:
        return []
    rows = duckdb.sql(
        "SELECT delito, subtipo, tipo, tipo_key, bien_juridico FROM read_parquet(?) WHERE granularity = 'month'",
        params=[str(path)],
    ).fetchall()
    known = {c.delito for c in taxonomy.load_crimes()}
    return [taxonomy.Crime(d, s, t, tk, b, (), "") for d, s, t, tk, b in rows if d not in known]


def _report(src: sources.SourceFile, layout: Layout, spec: SourceSpec) -> dict:
    return {
        "archivo": src.name,
        **layout.describe(),
        "codificacion": src.encoding,
        "fin_de_linea": "CRLF" if src.newline == "\r\n" else "LF",
        "sha256": src.sha256,
        "bytes": src.size_bytes,
        "contenedor": src.container,
        "procedencia": spec.procedencia,
        "advertencias": list(src.warnings),
    }


def _find(reports: list[dict], seq: int) -> dict:
    return next(r for r in reports if r.get("_seq") == seq)


def _finish_reports(con, reports: list[dict], stats: dict) -> None:
    """Fill per-file counts and refuse files whose every row was quarantined."""
    for r in reports:
        seq = r.get("_seq")
        if seq is None:
            continue
        s = stats.get(seq, {})
        q_rows, q_cells = con.execute(
            "SELECT count(DISTINCT source_row), count(*) FROM quarantine_batch WHERE load_seq = ?", [seq]
        ).fetchone()
        r["filas_en_cuarentena"] = q_rows
        r["celdas_en_cuarentena"] = q_cells
        r["motivos_cuarentena"] = curate.quarantine_reasons(con, seq)
        if r["_layout"].monthly:
            delitos = con.execute(
                """SELECT delito, min(fecha), max(fecha), sum(ev), sum(n) FROM cell_summary WHERE load_seq = ?
                   GROUP BY delito ORDER BY delito""",
                [seq],
            ).fetchall()
            valid = sum(n for *_, n in delitos)
            r["celdas_validas"] = valid
            r["delitos"] = [
                {"delito": d, "desde": iso_date(a), "hasta": iso_date(b), "eventos": int(e)}
                for d, a, b, e, _n in delitos
            ]
            if s.get("claves_repetidas"):
                r["advertencias"].append(
                    f"{s['claves_repetidas']} claves repetidas en formato reducido: sus filas se sumaron."
                )
            accepted = valid
        else:
            accepted = r.get("filas_aceptadas", 0)
        if accepted == 0 and (q_rows or r.get("filas")):
            reasons = ", ".join(f"{k} ({v})" for k, v in list(r["motivos_cuarentena"].items())[:3])
            raise DatosFaltantesError(
                f"Se rechaza {r['archivo']}: todas sus filas quedaron en cuarentena ({reasons or 'sin datos válidos'}).",
                [
                    "Revise las claves de municipio y los conteos del archivo.",
                    "No se publicó nada; la versión vigente sigue igual.",
                ],
            )
