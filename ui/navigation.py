"""The page registry: which page each role may see (docs/contracts/design.md §4), in menu order.

A page is one file in ``pages/`` plus its ``PageSpec`` in ``PAGES``; nothing else names it
(app.py builds the menu from this list). A listed page whose file is missing is an error,
not a silently shorter menu. Each page also calls ``ui.auth.require`` with the same roles,
which refuses a page reached by URL or run directly.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import streamlit as st

from ui.auth import ANALYSTS, EVERYONE, STEWARDS, SUPERVISORS

ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class PageSpec:
    """One page: file (relative to the project root), title, icon, roles and menu section."""

    path: str
    title: str
    icon: str
    roles: frozenset[str]
    section: str

    @property
    def url_path(self) -> str:
        """The page's URL segment: its file name without ``.py``."""
        return Path(self.path).stem


PAGES = (
    PageSpec("pages/consultar.py", "Consultar", ":material/forum:", ANALYSTS, "Análisis"),
    PageSpec("pages/explorar.py", "Explorar", ":material/tune:", ANALYSTS, "Análisis"),
    PageSpec("pages/plan.py", "Plan de consulta", ":material/account_tree:", ANALYSTS, "Análisis"),
    PageSpec("pages/editor.py", "Editor de plan", ":material/edit_note:", ANALYSTS, "Análisis"),
    PageSpec("pages/tablero.py", "Tablero", ":material/dashboard:", ANALYSTS, "Análisis"),
    PageSpec("pages/datos.py", "Datos", ":material/database:", EVERYONE, "Datos"),
    PageSpec("pages/catalogo.py", "Catálogo", ":material/menu_book:", EVERYONE, "Datos"),
    PageSpec("pages/carga.py", "Carga de datos", ":material/upload_file:", STEWARDS, "Datos"),
    PageSpec("pages/auditoria.py", "Auditoría", ":material/fact_check:", SUPERVISORS, "Supervisión"),
)


def page_path(stem: str) -> str:
    """The file of a listed page by its URL stem (``"editor"`` → ``pages/editor.py``), for ``st.switch_page``."""
    for spec in PAGES:
        if spec.url_path == stem:
            return spec.path
    raise KeyError(f"No page {stem!r} in ui.navigation.PAGES")


def visible_pages(roles, root: Path = ROOT) -> list[PageSpec]:
    """The pages these roles may open, in menu order; raises when a listed page has no file."""
    missing = [p.path for p in PAGES if not (root / p.path).is_file()]
    if missing:
        raise FileNotFoundError(f"ui/navigation.PAGES lists pages without a file: {', '.join(missing)}")
    have = set(roles)
    return [p for p in PAGES if p.roles & have]


def _alias(default: st.Page, url_path: str) -> st.Page:
    """A hidden page at the default page's own name that opens the default page at ``/``, its query kept.

    Streamlit serves the default page only at the root URL: a bookmark or a shared link to ``/consultar`` (the
    name the menu and the permalinks suggest) would otherwise open Streamlit's «Page not found» dialog.
    """

    def open_default() -> None:
        st.switch_page(default, query_params=st.query_params.to_dict())

    return st.Page(open_default, title=default.title, url_path=url_path, visibility="hidden")


def navigation(roles) -> dict[str, list[st.Page]]:
    """``st.navigation`` input: allowed pages by section; the first one is the default (also at its own name)."""
    sections: dict[str, list[st.Page]] = {}
    for i, spec in enumerate(visible_pages(roles)):
        # The default page is served at «/» but still reserves its url_path: its name goes to the alias
        url_path = f"{spec.url_path}-inicio" if i == 0 else spec.url_path
        page = st.Page(spec.path, title=spec.title, icon=spec.icon, url_path=url_path, default=i == 0)
        sections.setdefault(spec.section, []).append(page)
        if i == 0:
            sections[spec.section].append(_alias(page, spec.url_path))
    return sections
