"""Casandra: page config, sign-in and role-based routing only (docs/contracts/design.md §3-§4)."""

import streamlit as st

from ui import auth, navigation, spanish

st.set_page_config(page_title="Casandra", page_icon="🔎", layout="wide")
spanish.apply()  # Streamlit's own English texts (the uploader, «Press Enter»), drawn in Spanish
email, roles = auth.sign_in()
st.navigation(navigation.navigation(roles)).run()
