"""The SESNSP municipal file (IDM_NM) as a JSON array of records: the Irapuato file (README «sesnsp/irapuato_idm_nm…»).

The original IDM_NM keys (``Año``, ``Clave_Ent``, ``Cve. Municipio``… ``Enero``..``Diciembre``),
every value a JSON string. It carries every subtipo, so its rows land in ``observations`` at
subtipo × modalidad with the same crime keys as the municipal CSV files. The months unpivot
like the state files: an empty month is one not published, never a zero.
"""

from __future__ import annotations

from core.etl.layouts.base import Header, register_layout
from core.etl.layouts.municipal import MunicipalLayout
from core.etl.layouts.parquet_tipo import sql_text
from core.etl.load import quote_ident
from core.text import MONTHS

IDM_NM_COLUMNS = ("anio", "clave_ent", "entidad", "cve_municipio", "municipio", "bien_juridico", "tipo", "subtipo")
_MONTH_NUMBER = "CASE mes_nombre " + " ".join(f"WHEN '{m}' THEN {i}" for i, m in enumerate(MONTHS, start=1)) + " END"


@register_layout
class IdmNmJson(MunicipalLayout):
    """Carpetas per municipality, year, subtipo and modalidad, twelve month keys, as JSON records."""

    name = "idm_nm_json"
    label = "SESNSP municipal IDM_NM (JSON, subtipo × modalidad, 12 meses)"
    priority = 21
    kind = "json"

    @classmethod
    def detect(cls, header: Header) -> bool:
        """Every IDM_NM key: year, state and municipality codes and names, the crime levels and the months."""
        return set(IDM_NM_COLUMNS) | {"modalidad"} | set(MONTHS) <= header.present

    def open_sql(self, source) -> str:
        """Every value read as text (the file writes numbers as strings); the record's position is its row."""
        raw, path = source.header, str(source.path)
        struct = ", ".join(f"{sql_text(c)}: 'VARCHAR'" for c in raw)
        picked = ", ".join(f"{quote_ident(c)} AS {quote_ident(n)}" for c, n in zip(raw, self.columns))
        return f"""SELECT row_number() OVER () AS source_row, {picked}
                   FROM read_json({sql_text(path)}, format = 'array', columns = {{{struct}}})"""

    def long_sql(self, table: str) -> str:
        """Unpivot the months; UNPIVOT and the WHERE drop the empty (unpublished) cells."""
        months = ", ".join(quote_ident(m) for m in MONTHS)
        return f"""
            SELECT source_row, anio, ({_MONTH_NUMBER})::VARCHAR AS mes, clave, entidad, cve_mun, municipio,
                   NULL::VARCHAR AS ley, bien, tipo, subtipo, modalidad, valor
            FROM (UNPIVOT (SELECT source_row, trim(anio) AS anio, nullif(trim(clave_ent), '') AS clave,
                                  trim(entidad) AS entidad, nullif(trim(cve_municipio), '') AS cve_mun,
                                  trim(municipio) AS municipio, trim(bien_juridico) AS bien, trim(tipo) AS tipo,
                                  trim(subtipo) AS subtipo, trim(modalidad) AS modalidad, {months} FROM {table})
                  ON {months} INTO NAME mes_nombre VALUE valor)
            WHERE trim(coalesce(valor, '')) <> ''"""
