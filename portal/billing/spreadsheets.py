"""Billing rows as files: CSV for Dutch Excel and XLSX."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from decimal import Decimal

from portal import spreadsheets
from portal.billing.exports import COLUMNS, BillingRow

# The files are written as every export writes them (portal/spreadsheets.py); times are on
# the carrier's clock.


def to_csv(rows: Sequence[BillingRow]) -> bytes:
    """The rows as CSV for Dutch Excel, with a header row of field names."""
    return spreadsheets.to_csv([COLUMNS, *([getattr(row, n) for n in COLUMNS] for row in rows)])


XLSX_DATETIME = "yyyy-mm-dd hh:mm"
XLSX_WIDTHS = {"gepland_op": 17, "afgerond_op": 17, "taak_id": 38}


def to_xlsx(rows: Sequence[BillingRow]) -> bytes:
    """The rows as an Excel sheet: numbers and dates as such, frozen header, autofilter."""
    book = spreadsheets.new_book()
    sheet = book.active
    sheet.title = "Facturatie"
    sheet.append(COLUMNS)
    spreadsheets.header(sheet)
    widths = {name: len(name) for name in COLUMNS}
    for number, row in enumerate(rows, start=2):
        for column, name in enumerate(COLUMNS, start=1):
            value = getattr(row, name)
            if not isinstance(value, datetime | int | float | Decimal | None):
                value = str(value)
            cell = spreadsheets.put_at(sheet, number, column, value)
            if isinstance(value, datetime):
                cell.number_format = XLSX_DATETIME
            elif isinstance(value, str) and number <= 500:
                widths[name] = max(widths[name], len(cell.value))
            if isinstance(value, int | float) and number <= 500:
                widths[name] = max(widths[name], len(str(value)))
    for column, name in enumerate(COLUMNS, start=1):
        width = XLSX_WIDTHS.get(name) or min(max(widths[name], 8), 50)
        spreadsheets.column_width(sheet, column, width, most=None)
    sheet.freeze_panes = "A2"
    spreadsheets.filter_on(sheet, len(COLUMNS), len(rows))
    return spreadsheets.save(book)
