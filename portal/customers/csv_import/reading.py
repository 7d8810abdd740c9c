"""Reading a file of customers: a CSV, or the first sheet of an XLSX workbook read as a
stream within budgets (portal/imports/xlsx_rows.py), as a header and rows of text."""

from __future__ import annotations

from portal import imports
from portal.customers.csv_import.columns import COLUMNS, MAX_COLUMNS, MAX_ROWS, MAX_UNPACKED
from portal.imports import xlsx_rows

# What reading one workbook may cost: the rows the import takes and one more (to say the
# file has too many), the columns it reads.
XLSX_BUDGET = xlsx_rows.Budget(lines=MAX_ROWS + 2, columns=MAX_COLUMNS, unpacked=MAX_UNPACKED)


def read_file(raw: bytes, filename: str) -> imports.ParsedFile:
    """The file's header and rows, from CSV or XLSX; FileRefused when it cannot be imported."""
    return imports.read_table(raw, filename, COLUMNS, xlsx=XLSX_BUDGET)
