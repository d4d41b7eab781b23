"""Casandra: page config and routing only (sign-in and roles arrive with the dashboard issue)."""
import streamlit as st

st.set_page_config(page_title="Casandra", page_icon="🔎", layout="wide")

pages = [st.Page("pages/datos.py", title="Datos", icon="🗂️", default=True)]
st.navigation(pages).run()
