"""Constants shared by the understanding tests."""

from datetime import date

ANCHOR = date(2025, 11, 30)  # the bundled store's max_date
MIN_DATE = date(2015, 1, 1)
