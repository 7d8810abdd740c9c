"""Importing customers with their places from a CSV or XLSX file.

One row per place: a customer's columns repeat on each of its rows, and a row with only the
customer's columns is a customer without places. Rows group into one customer by
debiteurnummer, else by name. Each customer and place is checked by the rules the portal's
forms and the API use (`rules.py`) once the file's way of writing values is read (decimal
commas, soort by its label); against the carrier's customers each row then says what the
import does: a new customer, a place added to an existing one, or nothing (it exists).

By job: `columns` (what a file may hold), `reading` (the file), `checking` (its rows),
`writing` (the example files). Reading, staging, the error report and the one unit of work
of the import are the import kit's (portal/imports/).
"""

from portal.customers.csv_import.checking import check, plan
from portal.customers.csv_import.columns import (
    COLUMN_HELP,
    COLUMN_ORDER,
    COLUMNS,
    MAX_BYTES,
    MAX_ROWS,
    RowResult,
)
from portal.customers.csv_import.reading import read_file
from portal.customers.csv_import.writing import EXAMPLE_ROWS, example_csv, example_xlsx
from portal.imports import ROW, FileRefused, ParsedFile

__all__ = [
    "COLUMNS",
    "COLUMN_HELP",
    "COLUMN_ORDER",
    "EXAMPLE_ROWS",
    "MAX_BYTES",
    "MAX_ROWS",
    "ROW",
    "FileRefused",
    "ParsedFile",
    "RowResult",
    "check",
    "example_csv",
    "example_xlsx",
    "plan",
    "read_file",
]
