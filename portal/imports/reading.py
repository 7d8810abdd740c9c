"""Reading an uploaded file as a header and rows of text: a CSV (UTF-8 with or without BOM,
else Windows-1252; separated by ';', ',' or a tab) or, where the domain takes it, the first
sheet of an XLSX workbook, read as a stream within budgets (`xlsx_rows`)."""

from __future__ import annotations

import csv
import io
import logging
import re
from collections.abc import Iterable, Iterator

from flask_babel import format_number
from flask_babel import gettext as _

from portal.imports import xlsx_rows
from portal.imports.files import Columns, FileRefused, ParsedFile, map_columns

logger = logging.getLogger(__name__)

Lines = Iterable[tuple[int, list[str]]]  # (record number, cells); the header is 1


def read_table(
    raw: bytes, filename: str, columns: Columns, *, xlsx: xlsx_rows.Budget | None = None
) -> ParsedFile:
    """The file's header and rows; FileRefused when it cannot be imported at all. With an
    XLSX budget a workbook is read too (by its first bytes or its name); else only CSV."""
    if len(raw) > columns.max_bytes:
        raise FileRefused(
            _("Het bestand is groter dan %(mb)s MB.", mb=columns.max_bytes // (1024 * 1024)), 413
        )
    if not raw.strip():
        raise FileRefused(_("Het bestand is leeg."))
    suffix = filename.rsplit(".", 1)[-1].lower() if "." in filename else ""
    if xlsx is not None and (raw.startswith(b"PK\x03\x04") or suffix in ("xlsx", "xlsm")):
        return _parsed(_xlsx_lines(raw, xlsx), columns, kind="xlsx")
    if xlsx is not None and (raw.startswith(b"\xd0\xcf\x11\xe0") or suffix == "xls"):
        raise FileRefused(
            _(
                "Dit is een oud (.xls) of met een wachtwoord beveiligd Excel-bestand. Sla het op "
                "als Excel-werkmap (.xlsx) of als CSV."
            )
        )
    text, encoding = decode(raw)
    if "\x00" in text:
        raise FileRefused(_("Het bestand is geen CSV-tekst (het bevat NUL-tekens)."))
    delimiter = sniff_delimiter(text)
    lines = _csv_lines(text, delimiter, columns.max_columns)
    return _parsed(lines, columns, delimiter=delimiter, encoding=encoding)


def _parsed(lines: Lines, columns: Columns, **facts) -> ParsedFile:
    """The header (the first line, even when empty) and the rows with text, at most
    columns.max_rows of them."""
    header, rows, numbers = None, [], []
    for number, cells in lines:
        if header is None:
            header = cells
            continue
        if not any(cell.strip() for cell in cells):
            continue
        if len(rows) >= columns.max_rows:
            raise FileRefused(
                _("Het bestand heeft meer dan %(max)s rijen; splits het op.", max=columns.max_rows),
                413,
            )
        rows.append(cells)
        numbers.append(number)
    if header is None:
        raise FileRefused(_("Het bestand is leeg."))
    found = map_columns(header, columns)
    # Cells past the header with nothing in them (a trailing separator) are no column.
    width = len(header)
    return ParsedFile(
        header=[name.strip() for name in header],
        columns=found,
        rows=[row + [""] * (width - len(row)) for row in rows],
        numbers=numbers,
        **facts,
    )


# --- CSV -----------------------------------------------------------------------------------


def decode(raw: bytes) -> tuple[str, str]:
    """The text of the file and its encoding: UTF-8 (with or without BOM), else Windows-1252."""
    try:
        return raw.decode("utf-8-sig"), "utf-8"
    except UnicodeDecodeError:
        pass
    try:
        # A BOM before text that is not UTF-8 after all is no part of the first column name.
        return raw.removeprefix(b"\xef\xbb\xbf").decode("cp1252"), "windows-1252"
    except UnicodeDecodeError:
        raise FileRefused(
            _("Het bestand is geen tekst in UTF-8 of Windows-1252. Sla het op als CSV.")
        ) from None


def sniff_delimiter(text: str) -> str:
    """';' or ',' (or a tab): whichever the header line holds most, outside quotes."""
    first = text.split("\n", 1)[0]
    outside = re.sub(r'"[^"]*"', "", first)
    counts = {sep: outside.count(sep) for sep in (";", ",", "\t")}
    best = max(counts, key=lambda sep: counts[sep])
    return best if counts[best] else ";"


def _csv_lines(text: str, delimiter: str, max_columns: int | None) -> Iterator:
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
    try:
        for number, row in enumerate(reader, start=1):
            yield number, row if max_columns is None else row[:max_columns]
    except csv.Error as exc:
        raise FileRefused(
            _("Het bestand is niet te lezen als CSV (%(reason)s).", reason=str(exc))
        ) from None


# --- XLSX ----------------------------------------------------------------------------------


def _xlsx_lines(raw: bytes, budget: xlsx_rows.Budget) -> list[tuple[int, list[str]]]:
    """The rows of the first sheet of a workbook as text, read as a stream within the
    budget; cells with a formula give the value Excel last computed."""
    try:
        return xlsx_rows.first_sheet(raw, budget)
    except xlsx_rows.Unreadable as exc:
        logger.info("unreadable xlsx upload: %s", exc)
        raise FileRefused(
            _(
                "Het Excel-bestand is niet te lezen: het is beschadigd of geen .xlsx. Sla het "
                "opnieuw op als Excel-werkmap (.xlsx) of als CSV."
            )
        ) from None
    except xlsx_rows.OverBudget as exc:
        logger.info("xlsx upload over its budget: %s", exc.what)
        raise FileRefused(_over_budget(exc.what, budget), 413) from None


def _over_budget(what: str, budget: xlsx_rows.Budget) -> str:
    if what == "strings":
        return _(
            "Het Excel-bestand bevat te veel tekst om te lezen. Splits het op of sla het op "
            "als CSV."
        )
    if what == "cell":
        return _(
            "Een cel in het Excel-bestand is langer dan %(max)s tekens.",
            max=format_number(budget.cell),
        )
    if what == "cells":
        return _(
            "Het Excel-bestand heeft te veel cellen om te lezen (een rij met meer dan "
            "%(row)s, of meer dan %(all)s in het blad).",
            row=format_number(budget.row_cells),
            all=format_number(budget.cells),
        )
    if what == "time":
        return _(
            "Het Excel-bestand kost te veel tijd om te lezen. Splits het op of sla het op als CSV."
        )
    return _("Het Excel-bestand is te groot om te lezen.")
