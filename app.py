"""Casandra: page config, sign-in and role-based routing only (docs/contracts/design.md §3-§4)."""

import streamlit as st

from ui import auth, navigation

st.set_page_config(page_title="Casandra", page_icon="🔎", layout="wide")
email, roles = auth.sign_in()
st.navigation(navigation.navigation(roles)).run()
