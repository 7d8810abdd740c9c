"""Reading a CSV of tasks: its encoding, its separator, its header and rows."""

from __future__ import annotations

import csv
import io
import re

from flask_babel import gettext as _

from portal.tasks.csv_import.columns import (
    ALIASES,
    FIELD_COLUMNS,
    LOOKUP_COLUMNS,
    MAX_BYTES,
    MAX_ROWS,
    REQUIRED_COLUMNS,
    FileRefused,
    ParsedFile,
    normalise_header,
)


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


def read_csv(raw: bytes) -> ParsedFile:
    """The file's header and rows; FileRefused when it cannot be imported at all."""
    if len(raw) > MAX_BYTES:
        raise FileRefused(
            _("Het bestand is groter dan %(mb)s MB.", mb=MAX_BYTES // (1024 * 1024)), 413
        )
    if not raw.strip():
        raise FileRefused(_("Het bestand is leeg."))
    text, encoding = decode(raw)
    if "\x00" in text:
        raise FileRefused(_("Het bestand is geen CSV-tekst (het bevat NUL-tekens)."))
    delimiter = sniff_delimiter(text)
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
    try:
        header = next(reader, None)
        if header is None:
            raise FileRefused(_("Het bestand is leeg."))
        rows, numbers = [], []
        for number, row in enumerate(reader, start=2):
            if not any(cell.strip() for cell in row):
                continue
            if len(rows) >= MAX_ROWS:
                raise FileRefused(
                    _("Het bestand heeft meer dan %(max)s rijen; splits het op.", max=MAX_ROWS),
                    413,
                )
            rows.append(row)
            numbers.append(number)
    except csv.Error as exc:
        raise FileRefused(
            _("Het bestand is niet te lezen als CSV (%(reason)s).", reason=str(exc))
        ) from None
    columns = _columns(header)
    # Cells past the header with nothing in them (a trailing separator) are no column.
    width = len(header)
    return ParsedFile(
        header=[name.strip() for name in header],
        columns=columns,
        rows=[row + [""] * (width - len(row)) if len(row) < width else row for row in rows],
        numbers=numbers,
        delimiter=delimiter,
        encoding=encoding,
    )


def _columns(header: list[str]) -> list[str | None]:
    columns: list[str | None] = []
    seen: dict[str, str] = {}
    for name in header:
        key = normalise_header(name)
        key = ALIASES.get(key, key)
        if key in FIELD_COLUMNS or key in LOOKUP_COLUMNS:
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
        else:
            columns.append(None)
    missing = [name for name in REQUIRED_COLUMNS if name not in seen]
    if missing:
        raise FileRefused(
            _(
                "De kolom %(names)s ontbreekt. De eerste regel moet de kolomnamen geven, "
                "met ten minste naam en type.",
                names=", ".join(missing),
            )
        )
    return columns
