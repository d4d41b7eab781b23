"""The SESNSP municipal file reduced to tipo × modalidad, as Parquet (README «sesnsp/gto_municipal_tipo_modalidad…»).

One row per municipality × month × Tipo × Modalidad, zeros written, names without codes, the
month as its last day (``Fecha``). Its upstream dropped the Subtipo and summed, so the crime
level it carries is the **tipo**: «Homicidio» mixes doloso and culposo, «Lesiones» dolosas and
culposas, «Robo» merges twelve subtipos into con / sin violencia (vehicles and maquinaria keep
their modalidades). Those rows get the taxonomy's tipo-level keys (``homicidio``, ``lesiones``,
``robo``), which never equal a subtipo key such as ``homicidio_doloso``; a tipo whose only
subtipo is itself (narcomenudeo, violencia familiar…) gets that subtipo's key, as in the other
files. Months after the file's cut are absent, never zeros. The same layout reads the 36
national parts (``python -m core build --nacional``).
"""

from __future__ import annotations

from core.etl.layouts.base import Header, register_layout
from core.etl.layouts.municipal import MunicipalLayout
from core.text import header_key

PART_STRIDE = 1_000_000_000
PARQUET_COLUMNS = {
    "fecha": "Fecha",
    "entidad": "Entidad",
    "municipio": "Municipio",
    "bien_juridico_afectado": "Bien jurídico afectado",
    "tipo_de_delito": "Tipo de delito",
    "modalidad": "Modalidad",
    "incidentes": "Incidentes",
}


def sql_text(value: str) -> str:
    """A SQL string literal."""
    return "'" + value.replace("'", "''") + "'"


@register_layout
class MunicipalTipoParquet(MunicipalLayout):
    """Carpetas per municipality, month, tipo and modalidad (no subtipo, no codes), in Parquet."""

    name = "municipal_tipo_parquet"
    label = "SESNSP municipal tipo × modalidad (Parquet, largo, nombres sin claves)"
    priority = 20
    kind = "parquet"
    typed_values = True
    staged_as_view = True

    @classmethod
    def detect(cls, header: Header) -> bool:
        """Date, state, municipality, bien jurídico, tipo, modalidad and the count; no subtipo."""
        return set(PARQUET_COLUMNS) <= set(header.keys) and "subtipo_de_delito" not in header.keys

    @classmethod
    def column_names(cls, header: Header) -> tuple[str, ...]:
        """The file's own names (read by name, never by position)."""
        return header.cells

    def open_sql(self, source) -> str:
        """DuckDB reads the Parquet file (or a glob of parts) set-wise."""
        path = str(source.path)
        cols = {header_key(c): c for c in self.columns}
        picked = ", ".join(f'"{cols[k]}" AS {k}' for k in PARQUET_COLUMNS)
        if "*" not in path:
            return f"SELECT {picked}, file_row_number + 1 AS source_row FROM read_parquet({sql_text(path)}, file_row_number = true)"
        # A folder of parts: the evidence row is part × 10⁹ + row in the part (parts in name order, from 0).
        return f"""SELECT {picked}, f.part * {PART_STRIDE} + file_row_number + 1 AS source_row
                   FROM read_parquet({sql_text(path)}, file_row_number = true, filename = true) r
                   JOIN (SELECT file, row_number() OVER (ORDER BY file) - 1 AS part FROM glob({sql_text(path)})) f
                     ON f.file = r.filename"""

    def long_sql(self, table: str) -> str:
        """Already long: the year and month from the date (as numbers: no text to parse back), no subtipo."""
        return f"""
            SELECT source_row, year(fecha) AS anio, month(fecha) AS mes, NULL::VARCHAR AS clave,
                   entidad, NULL::VARCHAR AS cve_mun, municipio, NULL::VARCHAR AS ley, bien_juridico_afectado AS bien,
                   tipo_de_delito AS tipo, NULL::VARCHAR AS subtipo, modalidad, incidentes AS valor
            FROM {table} WHERE incidentes IS NOT NULL"""
