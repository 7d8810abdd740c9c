"""Reading a file of customers: a CSV (its encoding and separator) or the first sheet of an
XLSX workbook, read as a stream within budgets (portal/xlsx_rows.py), as a header and rows
of text."""

from __future__ import annotations

import csv
import io
import logging
import re

from flask_babel import format_number
from flask_babel import gettext as _

from portal.imports import xlsx_rows
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


# What reading one workbook may cost (portal/xlsx_rows.py): the rows the import takes and
# one more (to say the file has too many), the columns it reads.
XLSX_BUDGET = xlsx_rows.Budget(lines=MAX_ROWS + 2, columns=MAX_COLUMNS, unpacked=MAX_UNPACKED)


def _xlsx_lines(raw: bytes) -> list[tuple[int, list[str]]]:
    """The rows of the first sheet of a workbook as text, read as a stream within
    XLSX_BUDGET; cells with a formula give the value Excel last computed."""
    try:
        return xlsx_rows.first_sheet(raw, XLSX_BUDGET)
    except xlsx_rows.Unreadable as exc:
        logger.info("unreadable xlsx upload: %s", exc)
        raise _broken_xlsx() from None
    except xlsx_rows.OverBudget as exc:
        logger.info("xlsx upload over its budget: %s", exc.what)
        raise FileRefused(_over_budget(exc.what), 413) from None


def _over_budget(what: str) -> str:
    if what == "strings":
        return _(
            "Het Excel-bestand bevat te veel tekst om te lezen. Splits het op of sla het op "
            "als CSV."
        )
    if what == "cell":
        return _(
            "Een cel in het Excel-bestand is langer dan %(max)s tekens.",
            max=format_number(XLSX_BUDGET.cell),
        )
    if what == "cells":
        return _(
            "Het Excel-bestand heeft te veel cellen om te lezen (een rij met meer dan "
            "%(row)s, of meer dan %(all)s in het blad).",
            row=format_number(XLSX_BUDGET.row_cells),
            all=format_number(XLSX_BUDGET.cells),
        )
    if what == "time":
        return _(
            "Het Excel-bestand kost te veel tijd om te lezen. Splits het op of sla het op als CSV."
        )
    return _("Het Excel-bestand is te groot om te lezen.")


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
