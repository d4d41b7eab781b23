"""The availability matrix of the Datos page: crime × level × period, each cell at its granularity (issue 14, item 7).

Against the bundled store (its real rows) and against a small copy whose ``observations`` holds made-up rows of a
source the module has never heard of, which must show up with no change to the module."""

from __future__ import annotations

from datetime import date

import duckdb
import pytest

from core.dataset.availability import ABSENT, LEVELS, STATE_ONLY, WHOLE_TIPO, availability
from core.dataset.store import get_store

MUN, STATE, VICTIMS, FEDERAL, RNID = (LEVELS[k] for k in ("municipio_gto", "estado", "victimas", "federal", "rnid"))
OTHER_MUN = LEVELS["municipio_otros"]


@pytest.fixture(scope="module")
def matrix(bundled_settings):
    """The bundled store's whole matrix."""
    return availability(get_store(bundled_settings)).matrix()


def row(frame, subtipo: str, fuero: str = "común"):
    """The one row of a subtipo (by its label)."""
    hit = frame[(frame["subtipo"] == subtipo) & (frame["fuero"] == fuero)]
    assert len(hit) == 1, f"{subtipo}: {len(hit)} rows"
    return hit.iloc[0]


@pytest.mark.parametrize(
    "subtipo,level,cell",
    [
        ("Homicidio doloso", MUN, "subtipo × modalidad, 46 municipios, 2020-01..2025-11"),
        ("Homicidio doloso", STATE, "subtipo × modalidad, 32 estados, 2015-01..2024-11"),
        ("Homicidio doloso", VICTIMS, "subtipo × modalidad × sexo × edad, 32 estados, 2015-01..2025-06"),
        ("Homicidio doloso", RNID, "subtipo × modalidad, 32 estados, 2026-01..2026-03"),
        ("Homicidio doloso", FEDERAL, ABSENT),
        ("Violencia familiar", MUN, "subtipo, 46 municipios, 2015-01..2022-12"),
        ("Narcomenudeo", VICTIMS, ABSENT),
        ("Tentativa de homicidio doloso", STATE, ABSENT),
        ("Total de delitos del fuero común", MUN, "total anual, 46 municipios, 2015..2026"),
    ],
)
def test_cells_say_granularity_places_and_period(matrix, subtipo, level, cell):
    assert row(matrix, subtipo)[level].startswith(cell)


def test_a_robo_kind_is_never_said_to_be_in_every_municipality(matrix):
    # The state file has it; municipal data has it only for Irapuato (its JSON) or not at all («solo estatal»).
    cell = row(matrix, "Robo a casa habitación")[MUN]
    assert cell == STATE_ONLY or cell.endswith("1 municipio (Irapuato), 2015-01..2025-12")


def test_rnid_cells_are_only_2026_and_its_new_subtipos_only_rnid(matrix):
    rnid = matrix[RNID][matrix[RNID] != ABSENT]
    assert len(rnid) > 50 and rnid.str.fullmatch(r"[^;]*, 2026-\d\d\.\.2026-\d\d").all()
    tentativa = row(matrix, "Tentativa de feminicidio")
    assert [tentativa[level] for level in (MUN, STATE, VICTIMS, FEDERAL)] == [ABSENT] * 4


def test_federal_crimes_are_their_own_rows_with_the_foreign_entity(matrix):
    federal = matrix[matrix["fuero"] == "federal"]
    assert len(federal) >= 25 and (federal[FEDERAL] != ABSENT).all() and (federal[MUN] == ABSENT).all()
    assert row(matrix, "PATRIMONIALES", "federal")[FEDERAL] == "tipo federal, 32 estados + extranjero, 2012-01..2025-07"


@pytest.mark.parametrize(
    "text,level,expect",
    [
        ("homicidio doloso", None, {"Homicidio doloso", "Tentativa de homicidio doloso"}),
        ("VIOLACION", MUN, {"Violación simple", "Violación equiparada"}),
        ("robo de vehiculo", RNID, {"Robo de vehículo automotor - Coche de 4 ruedas"}),
    ],
)
def test_the_filter_by_name_and_level(bundled_settings, text, level, expect):
    frame = availability(get_store(bundled_settings)).matrix(text, level)
    assert expect <= set(frame["subtipo"])
    if level:
        assert (frame[level] != ABSENT).all() and (frame[level] != STATE_ONLY).all()


# --- a source the module has never seen -------------------------------------------------------------

SMALL_TABLES = ("crimes", "crime_levels", "places", "entities", "coverage", "incidents")


class MemoryStore:
    """A writable in-memory copy of a store's tables, read through ``query`` like the real one."""

    def __init__(self, store):
        self.con = duckdb.connect()
        for table in (*SMALL_TABLES, "observations"):
            columns = store.query(
                "SELECT column_name, data_type FROM information_schema.columns WHERE table_name = ?"
                " ORDER BY ordinal_position",
                [table],
            )
            self.con.execute(f"CREATE TABLE {table} ({', '.join(f'{c} {t}' for c, t in columns)})")
            if table != "observations":  # its rows are the test's own
                self.con.register("frame", store.cursor().execute(f"SELECT * FROM {table}").df())
                self.con.execute(f"INSERT INTO {table} SELECT * FROM frame")
                self.con.unregister("frame")

    def query(self, sql: str, params=()):
        """Every row of one statement."""
        return self.con.execute(sql, list(params)).fetchall()

    def observe(self, lugar_id: str, nivel: str, estado: str, delito: str, metodos: list[str], months: list[date]):
        """Carpetas of the fuero común (IDFC) of one place, one row per modalidad and month."""
        self.con.executemany(
            """INSERT INTO observations (fecha, nivel, lugar_id, estado_id, medida, fuero, metodologia, tipo_key,
                   delito, metodo, eventos, vigente, source_file, source_row)
               VALUES (?, ?, ?, ?, 'carpetas', 'comun', 'IDFC', 'robo', ?, ?, 1, true, 'nuevo.parquet', 1)""",
            [(m, nivel, lugar_id, estado, delito, metodo) for m in months for metodo in metodos],
        )


def test_a_new_source_in_observations_appears_with_no_change(bundled_settings):
    store = MemoryStore(get_store(bundled_settings))
    jan, may, dec = date(2015, 1, 1), date(2025, 5, 1), date(2025, 12, 1)
    both = ["con_violencia", "sin_violencia"]
    store.observe("GTO.MUN.LEON", "municipio", "GTO", "robo", both, [jan, may])  # a tipo-level municipal file
    store.observe("GTO.MUN.CELAYA", "municipio", "GTO", "robo", both, [jan, may])
    store.observe("GTO.MUN.IRAPUATO", "municipio", "GTO", "robo", both, [jan, dec])  # one town to a later month
    store.observe("JAL.MUN.GUADALAJARA", "municipio", "JAL", "robo_a_negocio", ["con_violencia"], [jan, may])
    store.observe("JAL", "estado", "JAL", "robo_a_casa_habitacion", both, [jan, dec])  # a state file
    frame = availability(store).matrix()
    robo = frame[(frame["tipo"] == "Robo") & (frame["subtipo"] == WHOLE_TIPO)].iloc[0]
    assert robo[MUN] == (
        "tipo × modalidad, 2 municipios, 2015-01..2025-05; tipo × modalidad, 1 municipio (Irapuato), 2015-01..2025-12"
    )
    negocio = row(frame, "Robo a negocio")
    assert negocio[OTHER_MUN] == "subtipo, 1 municipio (Guadalajara), 2015-01..2025-05"
    assert negocio[MUN] == ABSENT and negocio[STATE] == ABSENT  # no state row of it: not «solo estatal»
    casa = row(frame, "Robo a casa habitación")
    assert (casa[MUN], casa[STATE]) == (STATE_ONLY, "subtipo × modalidad, 1 estado (Jalisco), 2015-01..2025-12")


def test_a_store_without_observations_still_has_its_municipal_cells(bundled_settings):
    store = MemoryStore(get_store(bundled_settings))
    store.con.execute("DROP TABLE observations")
    frame = availability(store).matrix()
    assert row(frame, "Homicidio doloso")[MUN].startswith("subtipo × modalidad, 46 municipios")
    assert (frame[RNID] == ABSENT).all()
