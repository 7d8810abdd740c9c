"""Writing files for the planner: the error report of an import, and the example file as
CSV and as XLSX."""

from __future__ import annotations

import csv
import io

from portal.customers.csv_import.columns import (
    COLUMN_ORDER,
    SILENT_COLUMNS,
    ParsedFile,
    RowResult,
    normalise_header,
)


def safe_cell(value: str) -> str:
    """A cell a spreadsheet shows as text, never runs as a formula."""
    return "'" + value if value[:1] in ("=", "+", "-", "@", "\t", "\r") else value


def error_report(parsed: ParsedFile, results: list[RowResult]) -> str:
    """The rows with errors as the planner sent them, plus a `fouten` column: fix and upload
    again (the import skips that column)."""
    out = io.StringIO()
    writer = csv.writer(out, delimiter=parsed.delimiter, lineterminator="\r\n")
    keep = [
        i
        for i, name in enumerate(parsed.header)
        if parsed.columns[i] is not None or normalise_header(name) not in SILENT_COLUMNS
    ]
    writer.writerow([safe_cell(parsed.header[i]) for i in keep] + ["fouten"])
    for result in results:
        if not result.valid:
            cells = [result.cells[i] if i < len(result.cells) else "" for i in keep]
            messages = "; ".join(result.messages(parsed.header))
            writer.writerow([safe_cell(c) for c in cells] + [safe_cell(messages)])
    return "\ufeff" + out.getvalue()


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
    out = io.StringIO()
    writer = csv.writer(out, delimiter=";", lineterminator="\r\n")
    writer.writerows([COLUMN_ORDER, *EXAMPLE_ROWS])
    return "\ufeff" + out.getvalue()


def example_xlsx() -> bytes:
    """The example as an Excel workbook; every cell text, so Excel keeps 0547 and 10023."""
    from openpyxl import Workbook
    from openpyxl.styles import Font
    from openpyxl.utils import get_column_letter

    book = Workbook()
    sheet = book.active
    sheet.title = "Klanten"
    for number, row in enumerate((COLUMN_ORDER, *EXAMPLE_ROWS), start=1):
        for column, value in enumerate(row, start=1):
            cell = sheet.cell(row=number, column=column, value=value)
            cell.data_type = "s"
            cell.number_format = "@"
            cell.font = Font(bold=number == 1)
    for column, name in enumerate(COLUMN_ORDER, start=1):
        width = max(len(name), *(len(row[column - 1]) for row in EXAMPLE_ROWS))
        sheet.column_dimensions[get_column_letter(column)].width = min(width, 40) + 2
    sheet.freeze_panes = "A2"
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()
