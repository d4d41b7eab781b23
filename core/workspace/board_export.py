"""The tablero as files: a CSV (one row per tile, then and now) and a printable HTML page.

The CSV goes through ``core.csv_export`` (formula-leading cells neutralized); the page escapes every text
(titles and answers carry labels from uploads) and carries its own print CSS, so «Imprimir» in the browser
gives a clean page with one tile per block and no page break inside a tile.
"""

from __future__ import annotations

from html import escape

from core import csv_export
from core.workspace.tablero import Reading

CSV_COLUMNS = [
    "titulo",
    "origen",
    "fijada_el",
    "version_al_fijar",
    "valor_al_fijar",
    "version_actual",
    "valor_actual",
    "cifras_cambiaron",
    "query_hash",
]
ORIGIN_WORDS = {"consultar": "Consultar", "explorar": "Explorar"}

PRINT_CSS = """
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #111; margin: 2rem; }
h1 { font-size: 1.5rem; margin: 0 0 .25rem; }
.meta { color: #555; font-size: .85rem; margin-bottom: 1.5rem; }
.tile { border: 1px solid #ccc; border-radius: 6px; padding: .75rem 1rem; margin-bottom: 1rem; }
.tile h2 { font-size: 1.05rem; margin: 0 0 .5rem; }
.cols { display: flex; gap: 1.5rem; }
.cols > div { flex: 1; }
.label { font-size: .75rem; text-transform: uppercase; color: #666; letter-spacing: .03em; }
.changed { color: #a40000; font-weight: 600; }
.hash { font-family: monospace; font-size: .7rem; color: #777; word-break: break-all; }
@media print {
  body { margin: 0; }
  .tile { break-inside: avoid; page-break-inside: avoid; }
  a { color: inherit; text-decoration: none; }
}
@media (max-width: 600px) { .cols { flex-direction: column; gap: .5rem; } }
"""


def _yes(value: bool) -> str:
    return "sí" if value else "no"


def csv_bytes(readings: list[Reading]) -> bytes:
    """The tablero as CSV: one row per tile, the answer when pinned and now, with both data versions."""
    rows = [
        [
            r.tile.title,
            ORIGIN_WORDS.get(r.tile.origin, r.tile.origin),
            r.tile.pinned_at,
            r.tile.pinned.dataset_version,
            r.tile.pinned.value,
            r.now.dataset_version,
            r.now.value,
            _yes(r.changed),
            r.tile.query_hash,
        ]
        for r in readings
    ]
    return csv_export.to_csv_bytes(CSV_COLUMNS, rows)


def _tile_html(r: Reading) -> str:
    change = (
        '<p class="changed">Las cifras cambiaron desde que se fijó.</p>'
        if r.changed
        else "<p>Las cifras no cambiaron.</p>"
    )
    return f"""<section class="tile">
<h2>{escape(r.tile.title)}</h2>
<div class="cols">
<div><div class="label">Al fijar · {escape(r.tile.pinned_at)} · versión {escape(r.tile.pinned.dataset_version or "—")}</div>
<p>{escape(r.tile.pinned.value)}</p></div>
<div><div class="label">Ahora · versión {escape(r.now.dataset_version or "—")}</div>
<p>{escape(r.now.value)}</p></div>
</div>
{change}
<div class="hash">{escape(ORIGIN_WORDS.get(r.tile.origin, r.tile.origin))} · {escape(r.tile.query_hash)}</div>
</section>"""


def html_page(readings: list[Reading], *, user: str, generated_at: str) -> str:
    """The tablero as a printable HTML page (its own print CSS; every text escaped)."""
    body = "\n".join(_tile_html(r) for r in readings) or "<p>El tablero está vacío.</p>"
    return f"""<!DOCTYPE html>
<html lang="es">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Tablero de Casandra</title>
<style>{PRINT_CSS}</style>
</head>
<body>
<h1>Tablero de Casandra</h1>
<div class="meta">{escape(user)} · generado el {escape(generated_at)} · {len(readings)} tarjeta(s)</div>
{body}
</body>
</html>
"""
