"""Explorar's slicers and their link with the URL: widgets only; the selection's meaning lives in ``core.explore``.

The URL is the selection's home: a fresh load (a reload, a shared link) sets the widgets from it; a change in a
widget is fitted (``Options.fit``) in its callback — before the page draws — so the widgets, the URL and the plan
always say the same thing. An answer is run once per selection and data version and kept in the session, so
re-drawing the page (a click on «Fijar en tablero») neither re-runs nor re-audits it.
"""

from __future__ import annotations

import streamlit as st

from core.ask.wording import month_words
from core.explore.options import NO_PLACE, ONE_PLACE, Options, build_options
from core.explore.selection import BASES, KEYS, MEASURES, ORDERS, SHAPES, Selection, from_params, to_params

PREFIX = "explorar_"
K_SHAPE, K_CRIMES, K_PLACES = f"{PREFIX}forma", f"{PREFIX}delitos", f"{PREFIX}lugares"
K_FROM, K_TO = f"{PREFIX}desde", f"{PREFIX}hasta"
K_MEASURE, K_ORDER, K_TOP, K_BASE = f"{PREFIX}medida", f"{PREFIX}orden", f"{PREFIX}top", f"{PREFIX}base"
K_URL, K_NOTES, K_ANSWERS = f"{PREFIX}url", f"{PREFIX}notas", f"{PREFIX}respuestas"
MAX_KEPT_ANSWERS = 20


@st.cache_resource(show_spinner=False, max_entries=4)
def _options(data_dir: str, dataset_version: str, _engine) -> Options:
    return build_options(_engine.catalog, _engine.metadata, _engine.store)


def options_for(engine) -> Options:
    """The slicers' options of the current data version (built once per version and folder)."""
    return _options(str(engine.settings.data_dir), engine.store.dataset_version, engine)


def url_params() -> dict[str, list[str]]:
    """The page's query parameters, every value of each key."""
    return {k: st.query_params.get_all(k) for k in KEYS if st.query_params.get_all(k)}


def _same(params: dict) -> dict[str, list[str]]:
    """A ``to_params`` dict with every value a list: comparable with ``url_params()``."""
    return {k: v if isinstance(v, list) else [v] for k, v in params.items()}


def _set_widgets(selection: Selection) -> None:
    """The widgets' state from a fitted selection (before they are drawn, or in a callback)."""
    state = st.session_state
    state[K_SHAPE], state[K_CRIMES], state[K_PLACES] = selection.forma, list(selection.delitos), list(selection.lugares)
    state[K_FROM], state[K_TO] = selection.desde, selection.hasta
    state[K_MEASURE], state[K_ORDER], state[K_TOP], state[K_BASE] = (
        selection.medida,
        selection.orden,
        selection.top_k,
        selection.base,
    )


def _from_widgets() -> Selection:
    state = st.session_state
    desde, hasta = state.get(K_FROM), state.get(K_TO)
    return Selection(
        forma=state.get(K_SHAPE, "total"),
        delitos=tuple(state.get(K_CRIMES) or ()),
        lugares=tuple(state.get(K_PLACES) or ()),
        desde=desde,
        hasta=hasta,
        medida=state.get(K_MEASURE, "conteo"),
        orden=state.get(K_ORDER, "desc"),
        top_k=int(state.get(K_TOP, 10)),
        base=state.get(K_BASE, "anterior"),
    )


def _refit(options: Options) -> None:
    """A widget changed: fit the whole selection and put the fitted values back into the widgets."""
    fitted, notes = options.fit(_from_widgets())
    _set_widgets(fitted)
    st.session_state[K_NOTES] = notes


def selection(options: Options) -> tuple[Selection, list[str]]:
    """The current selection: from the URL on a fresh load or a new link, else from the widgets (already fitted)."""
    state = st.session_state
    params = url_params()
    if state.get(K_URL) != params or K_SHAPE not in state:
        read, notes = from_params(params) if params else (options.default(), [])
        fitted, fit_notes = options.fit(read)
        _set_widgets(fitted)
        state[K_NOTES] = notes + fit_notes
        state[K_URL] = _same(to_params(fitted))
        return fitted, state[K_NOTES]
    return options.fit(_from_widgets())[0], list(state.get(K_NOTES) or [])


def write_url(selected: Selection) -> None:
    """Keep the URL equal to the selection (a reload or a shared link shows the same)."""
    params = to_params(selected)
    if st.session_state.get(K_URL) != _same(params) or url_params() != _same(params):
        st.query_params.from_dict(params)
        st.session_state[K_URL] = _same(params)


def _month_label(month: str) -> str:
    return month_words(month).replace(" de ", " ")


def _pick_many(where, label: str, labels: dict, key: str, placeholder: str, refit: dict, **more) -> None:
    """A multiselect of ``labels``' keys, each shown by its label, that refits the selection on change."""
    where.multiselect(
        label, list(labels), key=key, format_func=lambda k: labels.get(k, k), placeholder=placeholder, **more, **refit
    )


def draw_slicers(options: Options, current: Selection) -> None:
    """The slicers (shape, crime, places, period, measure and the shape's own choices), each refitting on change."""
    refit = {"on_change": _refit, "args": (options,)}
    crimes, places = options.crime_labels, options.place_labels
    top = st.columns([2, 3, 3])
    top[0].selectbox("Forma", list(SHAPES), key=K_SHAPE, format_func=SHAPES.get, **refit)
    _pick_many(top[1], "Delito", crimes, K_CRIMES, "Elija un delito", refit)
    shape = current.forma
    _pick_many(top[2], "Lugares", places, K_PLACES, "Todo el estado", refit, disabled=shape in NO_PLACE)
    # as text, not help=: a help icon is named «Help for Lugares» (English) to a screen reader, and shows on a phone
    top[2].caption(
        "El ranking abarca todos los municipios."
        if shape in NO_PLACE
        else ("Esta forma es de un lugar." if shape in ONE_PLACE else "Vacío: todo el estado.")
    )
    months = list(reversed(options.months))  # the latest first: what is asked most
    row = st.columns([2, 2, 3, 2, 2])
    row[0].selectbox("Desde", months, key=K_FROM, format_func=_month_label, **refit)
    row[1].selectbox("Hasta", months, key=K_TO, format_func=_month_label, **refit)
    row = [row[2], row[3], row[4]]
    row[0].radio("Medida", options.measures(current), key=K_MEASURE, format_func=MEASURES.get, horizontal=True, **refit)
    if shape == "ranking":
        row[1].radio(
            "Orden", list(ORDERS), key=K_ORDER, format_func=lambda o: f"Con {ORDERS[o]}", horizontal=True, **refit
        )
        row[2].number_input("Municipios", min_value=1, max_value=len(places) - 1, step=1, key=K_TOP, **refit)
    if shape == "comparacion":
        row[1].radio("Frente a", list(BASES), key=K_BASE, format_func=BASES.get, **refit)


def answer_for(selected: Selection, options: Options, engine, run) -> object:
    """The answer of a selection on the current data version, run once (``run(selection)``) and kept in the session."""
    kept: dict = st.session_state.setdefault(K_ANSWERS, {})
    key = (engine.store.dataset_version, tuple(sorted((k, str(v)) for k, v in to_params(selected).items())))
    if key not in kept:
        if len(kept) >= MAX_KEPT_ANSWERS:
            kept.pop(next(iter(kept)))
        kept[key] = run(selected)
    return kept[key]
