"""Writing CSV and XLSX files: the one writer every export uses (billing, VAT overview,
payroll, hours, driving-time infringements, the imports' error reports and examples).

Every text cell is cleaned of control characters on its way out (`plain_text.clean`): text
stored before they were refused at the door still exports, where openpyxl would raise on
it. Text never runs as a formula: an XLSX text cell is typed as text, a CSV cell that a
spreadsheet would read as a formula gets an apostrophe first (CSV injection).

CSV is made for Dutch Excel, the tool the office opens it with: UTF-8 with a BOM (else Excel
reads it as Windows-1252), ';' between fields and a decimal comma (what Excel expects in the
nl-NL locale; a point would turn 1.5 into a date or text), no thousands separator, times as
'YYYY-MM-DD HH:MM', CRLF line ends. Software that reads the file should take the XLSX, which
holds real numbers and dates."""

from __future__ import annotations

import csv
import io
import re
import zipfile
from collections.abc import Iterable, Sequence
from datetime import date, datetime
from decimal import Decimal

from portal.plain_text import clean

CSV_DATETIME = "%Y-%m-%d %H:%M"
# Text a spreadsheet would run as a formula (CSV injection): prefixed with an apostrophe.
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def safe_text(value: str) -> str:
    """Text as a CSV cell: without control characters, never read as a formula."""
    text = clean(value)
    return "'" + text if text.startswith(FORMULA_START) else text


def unquoted(text: str) -> str:
    """Text as safe_text() stood for it: without the apostrophe it put before a formula (an
    import reads back the error report it wrote)."""
    return text[1:] if text.startswith("'") and text[1:].startswith(FORMULA_START) else text


def _csv_number(value: float | int) -> str:
    if isinstance(value, int) or value.is_integer():
        return str(int(value))
    return format(Decimal(repr(value)), "f").replace(".", ",")


def csv_value(value) -> str:
    """One value as a CSV cell for Dutch Excel."""
    if value is None:
        return ""
    if isinstance(value, datetime):
        return value.strftime(CSV_DATETIME)
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, Decimal):
        return format(value, "f").replace(".", ",")
    if isinstance(value, int | float):
        return _csv_number(value)
    return safe_text(str(value))


def csv_text(rows: Iterable[Sequence], *, delimiter: str = ";") -> str:
    """The rows as CSV text with a BOM (see above); the first row is usually the header."""
    out = io.StringIO(newline="")
    writer = csv.writer(out, delimiter=delimiter, lineterminator="\r\n")
    for row in rows:
        writer.writerow([csv_value(value) for value in row])
    return "\ufeff" + out.getvalue()


def to_csv(rows: Iterable[Sequence], *, delimiter: str = ";") -> bytes:
    """The rows as a CSV file for Dutch Excel (see above)."""
    return csv_text(rows, delimiter=delimiter).encode("utf-8")


# --- XLSX ----------------------------------------------------------------------------------------


def new_book():
    """An empty openpyxl workbook (imported here, so a CSV export never loads openpyxl).
    Cells are set by put(), put_at() and append() and styled by bold(), column_width() and
    filter_on(): no other module imports openpyxl."""
    from openpyxl import Workbook

    return Workbook()


def xlsx_value(value):
    """A value as an XLSX cell holds it: text cleaned; a time on the wall clock it was given
    in (Excel has no time zones)."""
    if isinstance(value, str):
        return clean(value)
    if isinstance(value, datetime) and value.tzinfo is not None:
        return value.replace(tzinfo=None)
    return value


def put(cell, value) -> None:
    """Set a cell: text typed as text (openpyxl would store '=...' as a formula)."""
    cell.value = xlsx_value(value)
    if isinstance(cell.value, str):
        cell.data_type = "s"


def put_at(sheet, row: int, column: int, value):
    """Set the cell at (row, column) as put() does; the cell, for its style."""
    cell = sheet.cell(row=row, column=column)
    put(cell, value)
    return cell


def append(sheet, values: Sequence) -> None:
    """A row after the sheet's last, each value as put() sets it."""
    sheet.append([xlsx_value(value) for value in values])
    if any(isinstance(value, str) for value in values):
        for cell in sheet[sheet.max_row]:
            if isinstance(cell.value, str):
                cell.data_type = "s"


HEADER_FILL = "E3F3E6"  # the light green of a header row


HEADER_FILL = "E3F3E6"  # the portal's light green, behind every table's header row


def bold(cell, on: bool = True, *, fill: str | None = None, size: int | None = None) -> None:
    """A cell's text bold (or explicitly not), in a size if given, with a solid background
    colour if given."""
    from openpyxl.styles import Font, PatternFill

    cell.font = Font(bold=on, size=size) if size else Font(bold=on)
    if fill:
        cell.fill = PatternFill("solid", fgColor=fill)


def header(sheet, row: int = 1, *, fill: str | None = HEADER_FILL, rule: bool = False) -> None:
    """A table's header row: bold on the header colour, ruled below if asked."""
    from openpyxl.styles import Border, Side

    for cell in sheet[row]:
        bold(cell, fill=fill)
        if rule:
            cell.border = Border(bottom=Side(style="thin", color="333333"))


def ruled(cell) -> None:
    """A line to write on: a thin rule below the cell (a signature's place)."""
    from openpyxl.styles import Border, Side

    cell.border = Border(bottom=Side(style="thin", color="333333"))


def aligned(cells, *, vertical: str = "top", wrap: bool = False) -> None:
    """Cells' text aligned at the top (or `vertical`: "bottom", "center"), long text wrapped
    within its cell if asked."""
    from openpyxl.styles import Alignment

    for cell in cells:
        cell.alignment = (
            Alignment(wrap_text=True, vertical=vertical) if wrap else Alignment(vertical=vertical)
        )


def column_width(sheet, column: int, chars: int, *, most: int | None = 40) -> None:
    """Column `column` (1 = A) wide enough for `chars` characters, at most `most`, plus a
    margin of two."""
    from openpyxl.utils import get_column_letter

    width = chars if most is None else min(chars, most)
    sheet.column_dimensions[get_column_letter(column)].width = width + 2


def filter_on(sheet, columns: int, rows: int) -> None:
    """A filter on the header of a table of `columns` columns and `rows` rows below it."""
    from openpyxl.utils import get_column_letter

    sheet.auto_filter.ref = f"A1:{get_column_letter(columns)}{rows + 1}"


def sheet_title(name: str, taken: set[str]) -> str:
    """An Excel sheet name: at most 31 characters, none of []:*?/\\, unique in the book."""
    base = re.sub(r"[\[\]:*?/\\]", " ", clean(name)).strip()[:28] or "?"
    title, n = base, 2
    while title.lower() in taken:
        title = f"{base[:25]} ({n})"
        n += 1
    taken.add(title.lower())
    return title


def save(book, *, stamp: datetime | None = None) -> bytes:
    """The workbook as XLSX bytes; with a stamp (naive UTC) the same bytes every time: the
    book's dates and every zip member's date are the stamp."""
    if stamp is None:
        out = io.BytesIO()
        book.save(out)
        return out.getvalue()
    from openpyxl.writer.excel import ExcelWriter

    book.properties.created = book.properties.modified = stamp
    raw = io.BytesIO()
    with zipfile.ZipFile(raw, "w", zipfile.ZIP_DEFLATED) as archive:
        ExcelWriter(book, archive).save()
    # Zip entries otherwise carry the moment they were written.
    moment = max(stamp, datetime(1980, 1, 1)).timetuple()[:6]
    out = io.BytesIO()
    with zipfile.ZipFile(raw) as source, zipfile.ZipFile(out, "w") as target:
        for item in source.infolist():
            info = zipfile.ZipInfo(item.filename, date_time=moment)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = item.external_attr
            target.writestr(info, source.read(item.filename))
    return out.getvalue()
