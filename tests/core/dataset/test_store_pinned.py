"""A pinned thread reads one version while another thread follows a new publication (``Store.pinned``)."""

from __future__ import annotations

import threading

import pytest

from core.dataset.store import Store
from core.errors import DatosFaltantesError
from core.etl import SourceSpec, run_etl
from tests.conftest import FIXTURES, RAW

HOMICIDIO = RAW / "sesnsp" / "IDM_NM_gto_homicidio_2020-2025.csv"
LEON_JANUARY_2024 = (
    "SELECT sum(eventos) FROM incidents WHERE entidad_id = 'GTO.MUN.LEON' AND delito = 'homicidio_doloso' "
    "AND metodo = 'con_arma_de_fuego' AND fecha = DATE '2024-01-01'"
)


@pytest.fixture
def two_versions(empty_settings, clock):
    """A store on its first version and a function that publishes the León revision."""
    run_etl([SourceSpec(HOMICIDIO)], empty_settings, clock=clock)
    return Store(empty_settings), lambda: run_etl(
        [SourceSpec(FIXTURES / "etl" / "leon_revision.csv")], empty_settings, clock=clock
    )


def test_a_pinned_thread_keeps_its_version_while_another_refreshes(two_versions):
    store, publish = two_versions
    first, first_count = store.dataset_version, store.query(LEON_JANUARY_2024)[0][0]
    pinned, go, seen = threading.Event(), threading.Event(), {}

    def request():
        with store.pinned() as vid:
            store.query(LEON_JANUARY_2024)  # a cursor taken before the switch
            pinned.set()
            go.wait(timeout=30)
            seen["in"] = (
                vid,
                store.dataset_version,
                store.metadata()["dataset_version"],
                store.query(LEON_JANUARY_2024)[0][0],
            )
        seen["after"] = (store.dataset_version, store.query(LEON_JANUARY_2024)[0][0])

    thread = threading.Thread(target=request)
    thread.start()
    assert pinned.wait(timeout=30)
    publish()
    second = store.refresh()  # another thread follows the publication
    go.set()
    thread.join(timeout=30)
    assert second != first and store.query(LEON_JANUARY_2024)[0][0] == 99 != first_count
    assert seen["in"] == (first, first, first, first_count)
    assert seen["after"] == (second, 99)


def test_a_nested_pin_keeps_the_outer_version(two_versions):
    store, publish = two_versions
    with store.pinned() as outer:
        publish()
        store.refresh()
        with store.pinned() as inner:
            assert inner == outer == store.dataset_version
        assert store.dataset_version == outer  # leaving the inner block does not unpin
    assert store.dataset_version != outer


def test_pinning_an_empty_store_says_so_in_spanish(empty_settings):
    store = Store(empty_settings)
    with store.pinned() as vid:
        assert vid is None and store.is_empty()
        with pytest.raises(DatosFaltantesError, match="No hay datos publicados"):
            store.cursor()
