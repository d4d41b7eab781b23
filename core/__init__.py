"""Casandra's engine. Never imports streamlit; the UI calls this public API."""

from core.config import Settings, load_settings

__all__ = ["Settings", "load_settings"]
