"""Casandra's Streamlit UI helpers: sign-in and roles (``auth``), per-process resources
(``session``), the page registry (``navigation``) and the view helpers the pages use.

Pages in ``pages/`` hold UI only and call ``core``'s public API; anything longer than a
few lines of presentation logic lives here. Code is English, every visible text Spanish.
"""
