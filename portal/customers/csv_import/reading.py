"""Reading a file of customers: a CSV (its encoding and separator) or the first sheet of an
XLSX workbook, read-only, as a header and rows of text."""

from __future__ import annotations

import csv
import io
import logging
import re
import zipfile
from datetime import date, datetime, time

from flask_babel import gettext as _

from portal.customers.csv_import.columns import (
    ALIASES,
    COLUMN_ORDER,
    MAX_BYTES,
    MAX_COLUMNS,
    MAX_ROWS,
    MAX_UNPACKED,
    FileRefused,
    ParsedFile,
    normalise_header,
)

logger = logging.getLogger(__name__)


def read_file(raw: bytes, filename: str) -> ParsedFile:
    """The file's header and rows, from CSV or XLSX; FileRefused when it cannot be imported."""
    if len(raw) > MAX_BYTES:
        raise FileRefused(
            _("Het bestand is groter dan %(mb)s MB.", mb=MAX_BYTES // (1024 * 1024)), 413
        )
    if not raw.strip():
        raise FileRefused(_("Het bestand is leeg."))
    suffix = filename.rsplit(".", 1)[-1].lower() if "." in filename else ""
    delimiter = ";"
    if raw.startswith(b"PK\x03\x04") or suffix in ("xlsx", "xlsm"):
        kind, lines = "xlsx", _xlsx_lines(raw)
    elif raw.startswith(b"\xd0\xcf\x11\xe0") or suffix == "xls":
        raise FileRefused(
            _(
                "Dit is een oud (.xls) of met een wachtwoord beveiligd Excel-bestand. Sla het op "
                "als Excel-werkmap (.xlsx) of als CSV."
            )
        )
    else:
        kind, (lines, delimiter) = "csv", _csv_lines(raw)
    header, rows, numbers = None, [], []
    for number, cells in lines:
        if header is None:
            header = cells
            continue
        if not any(cell.strip() for cell in cells):
            continue
        if len(rows) >= MAX_ROWS:
            raise FileRefused(
                _("Het bestand heeft meer dan %(max)s rijen; splits het op.", max=MAX_ROWS), 413
            )
        rows.append(cells)
        numbers.append(number)
    if header is None:
        raise FileRefused(_("Het bestand is leeg."))
    width = len(header)
    return ParsedFile(
        header=[name.strip() for name in header],
        columns=_columns(header),
        rows=[row + [""] * (width - len(row)) for row in rows],
        numbers=numbers,
        kind=kind,
        delimiter=delimiter,
    )


def _csv_lines(raw: bytes):
    """The rows of a CSV in UTF-8 (with or without BOM) or else Windows-1252, separated by
    ';' or ',' (or a tab): whichever its first line holds most, outside quotes."""
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        try:
            text = raw.removeprefix(b"\xef\xbb\xbf").decode("cp1252")
        except UnicodeDecodeError:
            raise FileRefused(
                _("Het bestand is geen tekst in UTF-8 of Windows-1252. Sla het op als CSV.")
            ) from None
    if "\x00" in text:
        raise FileRefused(_("Het bestand is geen CSV-tekst (het bevat NUL-tekens)."))
    first = re.sub(r'"[^"]*"', "", text.split("\n", 1)[0])
    counts = {sep: first.count(sep) for sep in (";", ",", "\t")}
    delimiter = max(counts, key=lambda sep: counts[sep]) if any(counts.values()) else ";"
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
    try:
        lines = [(number, row[:MAX_COLUMNS]) for number, row in enumerate(reader, start=1)]
    except csv.Error as exc:
        raise FileRefused(
            _("Het bestand is niet te lezen als CSV (%(reason)s).", reason=str(exc))
        ) from None
    return lines, delimiter


def _broken_xlsx() -> FileRefused:
    return FileRefused(
        _(
            "Het Excel-bestand is niet te lezen: het is beschadigd of geen .xlsx. Sla het "
            "opnieuw op als Excel-werkmap (.xlsx) of als CSV."
        )
    )


def _xlsx_lines(raw: bytes) -> list[tuple[int, list[str]]]:
    """The rows of the first sheet of a workbook as text, read-only; cells with a formula
    give the value Excel last computed."""
    from openpyxl import load_workbook

    try:
        with zipfile.ZipFile(io.BytesIO(raw)) as archive:
            unpacked = sum(info.file_size for info in archive.infolist())
    except Exception as exc:  # not a zip at all, or a broken one
        logger.info("unreadable xlsx upload: %r", exc)
        raise _broken_xlsx() from None
    if unpacked > MAX_UNPACKED:
        raise FileRefused(_("Het Excel-bestand is te groot om te lezen."), 413)
    try:
        book = load_workbook(io.BytesIO(raw), read_only=True, data_only=True)
    except Exception as exc:  # any broken workbook, whatever part of it fails: a message
        logger.info("unreadable xlsx upload: %r", exc)
        raise _broken_xlsx() from None
    lines = []
    try:
        if not book.worksheets:
            raise FileRefused(_("Het bestand is leeg."))
        sheet = book.worksheets[0]
        sheet.reset_dimensions()  # a sheet that claims 16384 columns holds no more cells
        for number, values in enumerate(sheet.iter_rows(values_only=True), start=1):
            cells = [_xlsx_text(value) for value in values[:MAX_COLUMNS]]
            while cells and not cells[-1]:
                cells.pop()
            if cells or not lines:
                lines.append((number, cells))
            if len(lines) > MAX_ROWS + 1:
                break
    except FileRefused:
        raise
    except Exception as exc:
        logger.info("unreadable xlsx sheet: %r", exc)
        raise _broken_xlsx() from None
    finally:
        book.close()
    return lines


def _xlsx_text(value) -> str:
    """A cell's value as the text a CSV would hold."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "ja" if value else "nee"
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() and abs(value) < 1e15 else repr(value)
    if isinstance(value, datetime | date | time):
        return value.isoformat(sep=" ") if isinstance(value, datetime) else value.isoformat()
    return str(value)


def _columns(header: list[str]) -> list[str | None]:
    columns: list[str | None] = []
    seen: dict[str, str] = {}
    for name in header:
        key = ALIASES.get(normalise_header(name), normalise_header(name))
        if key not in COLUMN_ORDER:
            columns.append(None)
            continue
        if key in seen:
            raise FileRefused(
                _(
                    "De kolommen %(first)s en %(second)s zeggen hetzelfde; houd er één.",
                    first=seen[key],
                    second=name.strip(),
                )
            )
        seen[key] = name.strip()
        columns.append(key)
    if "naam" not in seen:
        raise FileRefused(
            _(
                "De kolom naam ontbreekt. De eerste regel moet de kolomnamen geven, met ten "
                "minste naam."
            )
        )
    return columns
