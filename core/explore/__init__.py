"""Explorar: slicers instead of a question (issue 15 §5).

A ``Selection`` (crime, places, period, measure, shape) is read from and written to the URL's query
parameters (``selection``), fitted to what the catalog and the data offer (``options``), and turned into the
same tool plan the chat builds for the equivalent question (``plan``): the offline planner's own rules, run
through the audited Plan API. No streamlit here; ``pages/explorar.py`` only draws it.
"""
