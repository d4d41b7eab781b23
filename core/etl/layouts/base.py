"""The file layouts the Cargador recognizes, detected from the header alone.

Monthly crime layouts (seed data README): the original IDM_NM wide file, the reduced wide
file (leading pandas index, missing descriptive columns), the long non-zero-only file
(``Mes`` = ``N-Mes``, ``Cantidad``) and our canonical long layout. Reference layouts:
the yearly all-crime totals, CONAPO population, the census population and the
municipality catalogue. Detection is by normalized header names, never by file name.
"""
from __future__ import annotations

from dataclasses import dataclass

from core.errors import ValidacionError
from core.text import header_key

MONTHS = (
    "enero", "febrero", "marzo", "abril", "mayo", "junio",
    "julio", "agosto", "septiembre", "octubre", "noviembre", "diciembre",
)

# Synonyms of header names seen in real files, mapped to one canonical column name.
_ALIASES = {
    "ano": "anio",
    "a_o": "anio",  # 'Año' read with the wrong encoding
    "anio": "anio",
    "year": "anio",
    "clave_ent": "clave_ent",
    "cve_ent": "clave_ent",
    "entidad": "entidad",
    "cve_municipio": "cve_municipio",
    "cve_municipio_": "cve_municipio",
    "clave_municipio": "cve_municipio",
    "municipio": "municipio",
    "municipio_fuente": "municipio",
    "bien_juridico_afectado": "bien_juridico",
    "bien_jur_dico_afectado": "bien_juridico",
    "tipo_de_delito": "tipo",
    "subtipo_de_delito": "subtipo",
    "modalidad": "modalidad",
    "mes": "mes",
    "cantidad": "cantidad",
    "fecha": "fecha",
    "entidad_id": "entidad_id",
    "delito": "delito",
    "metodo": "metodo",
    "eventos": "eventos",
    "total_delitos": "total_delitos",
    "poblacion": "poblacion",
    "poblacion_censo2020": "poblacion_censo2020",
    "cve_mun": "cve_mun",
}
_ALIASES.update({m: m for m in MONTHS})

MONTHLY_LAYOUTS = ("idm_nm", "reducido", "largo_no_cero", "canonico")
REFERENCE_LAYOUTS = ("totales_anuales", "poblacion", "poblacion_censo", "catalogo_municipios")

LAYOUT_LABELS = {
    "idm_nm": "IDM_NM original (ancho, 12 meses)",
    "reducido": "Ancho reducido (columnas faltantes)",
    "largo_no_cero": "Largo, solo celdas distintas de cero (Mes/Cantidad)",
    "canonico": "Largo canónico (fecha, entidad, delito, eventos)",
    "totales_anuales": "Totales anuales de todos los delitos",
    "poblacion": "Población CONAPO por municipio y año",
    "poblacion_censo": "Población del Censo 2020",
    "catalogo_municipios": "Catálogo de municipios",
    "geojson": "Mapa GeoJSON de municipios",
}


@dataclass(frozen=True)
class Layout:
    """A detected layout: its name and the canonical name of every header column."""

    name: str
    columns: tuple[str, ...]  # canonical names in file order ("_index" / "_extra_N" for others)

    @property
    def is_monthly(self) -> bool:
        """True for the monthly crime layouts."""
        return self.name in MONTHLY_LAYOUTS

    @property
    def label(self) -> str:
        """Spanish description for summaries and the upload preview."""
        return LAYOUT_LABELS[self.name]

    def has(self, column: str) -> bool:
        """Whether the file carries this canonical column."""
        return column in self.columns


def canonical_columns(header: tuple[str, ...] | list[str]) -> tuple[str, ...]:
    """Map raw header cells to canonical names; unnamed or unknown cells get placeholders."""
    out: list[str] = []
    for i, cell in enumerate(header):
        key = header_key(cell)
        if not key:
            out.append("_index" if i == 0 else f"_extra_{i}")
            continue
        out.append(_ALIASES.get(key, f"_extra_{i}"))
    return tuple(out)


def detect_layout(header: tuple[str, ...] | list[str], file_name: str) -> Layout:
    """Recognize the layout of a CSV from its header, or refuse it with INVALID_PAYLOAD."""
    cols = canonical_columns(header)
    present = set(cols)
    dupes = {c for c in cols if not c.startswith("_") and cols.count(c) > 1}
    if dupes:
        raise ValidacionError(
            f"El archivo {file_name} repite columnas en el encabezado: {', '.join(sorted(dupes))}.",
            ["Revise que el encabezado tenga cada columna una sola vez."],
        )
    months = set(MONTHS)
    if months <= present and {"anio", "cve_municipio", "tipo"} <= present:
        full = {"clave_ent", "entidad", "municipio", "bien_juridico", "subtipo", "modalidad"}
        name = "idm_nm" if full <= present and "_index" not in present else "reducido"
        return Layout(name, cols)
    if present & months:
        missing = sorted(months - present)
        raise ValidacionError(
            f"El archivo {file_name} parece ancho (columnas de meses) pero le faltan columnas: "
            f"{', '.join(missing + sorted({'anio', 'cve_municipio', 'tipo'} - present))}.",
            ["Se esperan Año, Cve. Municipio, Tipo de delito y las 12 columnas Enero…Diciembre."],
        )
    if {"mes", "cantidad", "anio", "cve_municipio", "tipo"} <= present:
        return Layout("largo_no_cero", cols)
    if {"fecha", "delito", "eventos"} <= present and ({"entidad_id", "cve_municipio"} & present):
        return Layout("canonico", cols)
    if {"cve_municipio", "anio", "total_delitos"} <= present:
        return Layout("totales_anuales", cols)
    if {"cve_municipio", "anio", "poblacion"} <= present:
        return Layout("poblacion", cols)
    if {"cve_municipio", "poblacion_censo2020"} <= present:
        return Layout("poblacion_censo", cols)
    if {"cve_municipio", "municipio"} <= present and len(present - {"clave_ent", "cve_mun"}) == 2:
        return Layout("catalogo_municipios", cols)
    shown = ", ".join(h for h in header[:12] if h) or "(vacío)"
    raise ValidacionError(
        f"No se reconoce el formato del archivo {file_name}. Encabezado: {shown}.",
        [
            "Formatos admitidos: IDM_NM de SESNSP (ancho, Enero…Diciembre), ancho reducido, "
            "largo con Mes/Cantidad, o largo canónico fecha, entidad_id|cve_municipio, delito, [metodo], eventos.",
            "También: totales anuales, población CONAPO, población del censo y catálogo de municipios.",
        ],
    )
