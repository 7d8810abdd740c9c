"""The example file for the planner, as CSV and as XLSX (the error report is the import
kit's)."""

from __future__ import annotations

from portal import spreadsheets
from portal.customers.csv_import.columns import COLUMN_ORDER

# One row per place; the customer's columns repeat (rows with one debiteurnummer are one
# customer). The columns follow COLUMN_ORDER: the customer's, then the place's.
_TER_HORST = (
    "Maatschap Ter Horst",
    "10023",
    "NL123456789B01",
    "facturen@terhorst.nl",
    "Dorpsstraat 12",
    "7468 AB",
    "Enter",
    "NL",
    "12345678",
    "",
    "",
    "",
    "",
    "",
)
_EENDRACHT = (
    "Mengvoederfabriek De Eendracht",
    "20045",
    "",
    "administratie@eendracht.example",
    "Postbus 77",
    "7440 AB",
    "Nijverdal",
    "NL",
    "87654321",
    "",
    "",
    "",
    "",
    "",
)
EXAMPLE_ROWS = (
    (*_TER_HORST, "Erf Enter", "beide", "Dorpsstraat 12", "7468 AB", "Enter", "NL", "52,2936",
     "6,5714", "ma-vr 6:00-17:00", "Gerrit ter Horst", "0547 123456", "Bel bij aankomst"),
    (*_TER_HORST, "Weiland Rijssen", "laden", "Haarweg 4", "7461 PB", "Rijssen", "NL", "", "",
     "", "", "", "Hek achter de schuur"),
    (*_EENDRACHT, "Fabriek", "lossen", "Industrieweg 5", "7442 DM", "Nijverdal", "NL", "", "",
     "ma-vr 7:00-16:00", "Receptie", "0548 765432", "Melden bij de weegbrug"),
)  # fmt: skip


def example_csv() -> str:
    """An example file with every column, separated by ';' as Dutch spreadsheets write it."""
    return spreadsheets.csv_text([COLUMN_ORDER, *EXAMPLE_ROWS])


def example_xlsx() -> bytes:
    """The example as an Excel workbook; every cell text, so Excel keeps 0547 and 10023."""
    book = spreadsheets.new_book()
    sheet = book.active
    sheet.title = "Klanten"
    for number, row in enumerate((COLUMN_ORDER, *EXAMPLE_ROWS), start=1):
        for column, value in enumerate(row, start=1):
            cell = spreadsheets.put_at(sheet, number, column, value)
            cell.number_format = "@"
            spreadsheets.bold(cell, number == 1)
    for column, name in enumerate(COLUMN_ORDER, start=1):
        width = max(len(name), *(len(row[column - 1]) for row in EXAMPLE_ROWS))
        spreadsheets.column_width(sheet, column, width)
    sheet.freeze_panes = "A2"
    return spreadsheets.save(book)
