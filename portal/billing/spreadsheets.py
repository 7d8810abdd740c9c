"""Billing rows as files: CSV for Dutch Excel and XLSX."""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from datetime import datetime
from decimal import Decimal

from portal.billing.exports import COLUMNS, BillingRow

# CSV is made for Dutch Excel, the tool the office opens it with: UTF-8 with a BOM (else
# Excel reads it as Windows-1252), ';' between fields and a decimal comma (what Excel
# expects in the nl-NL locale; a point would turn 1.5 into a date or text), no thousands
# separator, times as 'YYYY-MM-DD HH:MM' on the carrier's clock, CRLF line ends. Software
# that reads the file should take the XLSX, which holds real numbers and dates.
CSV_DATETIME = "%Y-%m-%d %H:%M"
# Text a spreadsheet would run as a formula (CSV injection): prefixed with an apostrophe.
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def _csv_number(value: float | int) -> str:
    if isinstance(value, int) or value.is_integer():
        return str(int(value))
    return format(Decimal(repr(value)), "f").replace(".", ",")


def _csv_value(value) -> str:
    if value is None:
        return ""
    if isinstance(value, datetime):
        return value.strftime(CSV_DATETIME)
    if isinstance(value, Decimal):
        return format(value, "f").replace(".", ",")
    if isinstance(value, int | float):
        return _csv_number(value)
    text = str(value)
    return "'" + text if text.startswith(FORMULA_START) else text


def to_csv(rows: Sequence[BillingRow]) -> bytes:
    """The rows as CSV for Dutch Excel (see above), with a header row of field names."""
    out = io.StringIO(newline="")
    writer = csv.writer(out, delimiter=";", lineterminator="\r\n")
    writer.writerow(COLUMNS)
    for row in rows:
        writer.writerow([_csv_value(getattr(row, name)) for name in COLUMNS])
    return ("\ufeff" + out.getvalue()).encode("utf-8")


XLSX_DATETIME = "yyyy-mm-dd hh:mm"
XLSX_WIDTHS = {"gepland_op": 17, "afgerond_op": 17, "taak_id": 38}


def to_xlsx(rows: Sequence[BillingRow]) -> bytes:
    """The rows as an Excel sheet: numbers and dates as such, frozen header, autofilter."""
    from openpyxl import Workbook
    from openpyxl.styles import Font, PatternFill
    from openpyxl.utils import get_column_letter

    book = Workbook()
    sheet = book.active
    sheet.title = "Facturatie"
    sheet.append(COLUMNS)
    for cell in sheet[1]:
        cell.font = Font(bold=True)
        cell.fill = PatternFill("solid", fgColor="E3F3E6")
    widths = {name: len(name) for name in COLUMNS}
    for number, row in enumerate(rows, start=2):
        for column, name in enumerate(COLUMNS, start=1):
            value = getattr(row, name)
            cell = sheet.cell(row=number, column=column)
            if isinstance(value, datetime):
                # Excel has no time zones: the carrier's wall-clock time.
                cell.value = value.replace(tzinfo=None)
                cell.number_format = XLSX_DATETIME
            elif isinstance(value, int | float | Decimal) or value is None:
                cell.value = value
            else:
                # Set as text explicitly: openpyxl would store '=...' as a formula.
                cell.value = str(value)
                cell.data_type = "s"
                if number <= 500:
                    widths[name] = max(widths[name], len(cell.value))
            if isinstance(value, int | float) and number <= 500:
                widths[name] = max(widths[name], len(str(value)))
    for column, name in enumerate(COLUMNS, start=1):
        width = XLSX_WIDTHS.get(name) or min(max(widths[name], 8), 50)
        sheet.column_dimensions[get_column_letter(column)].width = width + 2
    sheet.freeze_panes = "A2"
    sheet.auto_filter.ref = f"A1:{get_column_letter(len(COLUMNS))}{len(rows) + 1}"
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()
