"""The tablero in the UI: the «Fijar en tablero» button of an answer, a tile (then and now) and the exports.

What a tile keeps and how it re-runs lives in ``core.workspace.tablero``; the files in
``core.workspace.board_export``. A tile is re-run once per data version and session (kept in
``st.session_state``), so drawing the page again neither re-runs nor re-audits it.
"""

from __future__ import annotations

from urllib.parse import parse_qs, urlencode

import streamlit as st

from core.clock import Clock, iso_utc
from core.errors import CasandraError
from core.workspace.board_export import csv_bytes, html_page
from core.workspace.tablero import Board, Reading, Tile, pinnable, reading
from ui import markup, navigation
from ui.session import settings

READINGS, NOTICE = "tablero_lecturas", "tablero_aviso"
ORIGIN_WORDS = {"consultar": "Consultar", "explorar": "Explorar"}


def board() -> Board:
    """The workspace's board of the current data folder."""
    return Board.for_settings(settings())


def explorer_link(params: dict) -> str:
    """Explorar's query string of a selection (``core.explore.selection.to_params``), as a tile keeps it."""
    return urlencode(params, doseq=True)


def _pin(user: str, turn, origin: str, link: str | None) -> None:
    try:
        board().pin(user, turn, origin=origin, link=link)
    except CasandraError as exc:  # a full board: said in Spanish
        st.session_state[NOTICE] = exc.details
    except Exception:  # noqa: BLE001 - a locked or unreadable workspace file: said, never a traceback
        st.session_state[NOTICE] = "No se pudo fijar la respuesta; inténtelo de nuevo."
    else:
        st.session_state[NOTICE] = "Fijada en «Tablero»."


def pin_button(turn, user: str, *, key: str, origin: str, link: str | None = None) -> None:
    """«Fijar en tablero» under an answer (nothing for an answer without a valid plan); «Fijada» once pinned."""
    notice = st.session_state.pop(NOTICE, None)
    if notice:
        st.toast(notice)
    if not pinnable(turn):
        return
    if board().get_by_plan(user, turn.plan) is not None:  # pinned on this or an earlier data version
        st.button("Fijada en el tablero", key=f"{key}_pinned", icon=":material/push_pin:", disabled=True)
        return
    st.button(
        "Fijar en tablero",
        key=f"{key}_pin",
        icon=":material/push_pin:",
        on_click=_pin,
        args=(user, turn, origin, link),
    )


def readings(tiles: list[Tile], engine, user: str, role: str) -> list[Reading]:
    """Each tile re-run on the current data version (once per version and session)."""
    kept: dict = st.session_state.setdefault(READINGS, {})
    version = engine.store.dataset_version
    out = []
    for tile in tiles:
        key = (tile.id, version)
        if key not in kept:
            kept[key] = reading(tile, engine.metadata, settings=settings(), user=user, role=role)
        out.append(kept[key])
    return out


def forget_readings() -> None:
    """Drop the kept readings: the next draw re-runs every tile."""
    st.session_state.pop(READINGS, None)


def change_words(r: Reading) -> str:
    """What changed since the tile was pinned, in Spanish: the data version (named) and the figures."""
    then, now = r.tile.pinned.dataset_version or "—", r.now.dataset_version or "—"
    version = f"La versión de datos cambió desde que se fijó ({then} → {now})" if r.version_changed else ""
    if r.changed:
        return f"{version}: las cifras cambiaron." if version else "Las cifras cambiaron desde que se fijó."
    return f"{version}; las cifras no cambiaron." if version else "Las cifras no cambiaron (misma versión de datos)."


def draw_tile(r: Reading, user: str, place: tuple[int, int] = (0, 1)) -> None:
    """One tile: its title, the answer when pinned and now with both versions, what changed, and its place
    (``place``: its index among ``place[1]`` tiles, for the up and down buttons)."""
    tile = r.tile
    with st.container(border=True, key=f"tablero_tile_{tile.id}"):
        st.markdown(f"**{markup.text(tile.title)}**")
        then, now = st.columns(2)
        then.caption(
            f"Al fijar · {markup.text(tile.pinned_at)} · versión {markup.code(tile.pinned.dataset_version or '—')}"
        )
        then.markdown(markup.text(tile.pinned.value))
        now.caption(f"Ahora · versión {markup.code(r.now.dataset_version or '—')}")
        now.markdown(markup.text(r.now.value))
        if not r.ok:
            st.error("El plan ya no se pudo ejecutar con los datos actuales.")
        elif r.changed:
            st.warning(markup.text(change_words(r)))
        elif r.version_changed:
            st.info(markup.text(change_words(r)))
        else:
            st.caption(change_words(r))
        left, right = st.columns([3, 2])
        where = ORIGIN_WORDS.get(tile.origin, tile.origin)
        left.caption(f"Desde {where} · query_hash {markup.code(tile.query_hash)}")
        if tile.origin == "explorar" and tile.link:
            _explorer_link(left, tile.link)
        with right.container(horizontal=True):
            index, count = place
            for label, icon, step, end in (("Subir", "arrow_upward", -1, 0), ("Bajar", "arrow_downward", 1, count - 1)):
                st.button(
                    label,
                    key=f"tablero_{label.lower()}_{tile.id}",
                    icon=f":material/{icon}:",
                    disabled=index == end,
                    on_click=_move,
                    args=(user, tile.id, step),
                )
            st.button("Quitar", key=f"tablero_quitar_{tile.id}", on_click=_unpin, args=(user, tile.id))


def _explorer_link(where, link: str) -> None:
    """«Abrir en Explorar» with the tile's selection, in the same tab (a page link keeps the session)."""
    from streamlit.errors import StreamlitAPIException

    try:
        where.page_link(navigation.page_path("explorar"), label="Abrir en Explorar", query_params=parse_qs(link))
    except StreamlitAPIException:  # the page runs on its own (no navigation): a plain link
        where.markdown(f"[Abrir en Explorar](explorar?{link})")


def _unpin(user: str, tile_id: str) -> None:
    board().unpin(user, tile_id)


def _move(user: str, tile_id: str, step: int) -> None:
    board().move(user, tile_id, step)  # the order is kept in the workspace; readings stay (keyed by tile)


def exports(all_readings: list[Reading], user: str) -> None:
    """The board as CSV and as a printable page."""
    stamp = iso_utc(Clock().now())
    left, right, _ = st.columns([2, 3, 4])
    left.download_button(
        "Descargar CSV",
        csv_bytes(all_readings),
        file_name="tablero.csv",
        mime="text/csv",
        key="tablero_csv",
        on_click="ignore",
    )
    right.download_button(
        "Página para imprimir",
        html_page(all_readings, user=user, generated_at=stamp).encode("utf-8"),
        file_name="tablero.html",
        mime="text/html",
        key="tablero_html",
        on_click="ignore",
    )
