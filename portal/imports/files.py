"""A file as an import carries it from reading to checking to writing: its header and rows as
text (`ParsedFile`), which column fills what (`map_columns`), one row checked with its errors
at the cell (`RowResult`), and the file that cannot be imported at all (`FileRefused`)."""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Mapping
from dataclasses import asdict, dataclass, field

from flask_babel import gettext as _

from portal import spreadsheets

ROW = -1  # the key of errors that belong to the row, not to one cell
SILENT_COLUMNS = ("fouten",)  # the error report's own column: read past without a warning


class FileRefused(Exception):
    """The whole file cannot be imported; the message says why, for the planner."""

    def __init__(self, message: str, status: int = 422):
        super().__init__(message)
        self.message = message
        self.status = status


def normalise_header(name: str) -> str:
    """A header as the import compares it: 'Gepland op' and 'gepland-op' are gepland_op."""
    return re.sub(r"[\s\-]+", "_", name.strip().lower())


def name_key(name: str) -> str:
    """A name as the import compares it: case and runs of spaces do not count."""
    return " ".join(name.split()).casefold()


def cell_text(cell: str) -> str:
    """A cell's text without surrounding spaces or the error report's formula quote."""
    return spreadsheets.unquoted(cell.strip())


@dataclass(frozen=True)
class Columns:
    """What a domain's file may hold: its columns (`known`), other names people give them
    (`aliases`, after normalise_header), the columns it must have, the words for those
    missing, and how large it may be."""

    known: Collection[str]
    aliases: Mapping[str, str]
    required: tuple[str, ...]
    missing: Callable[[list[str]], str]  # the refusal when the required columns are missing
    max_bytes: int
    max_rows: int
    max_columns: int | None = None  # cells of a row read; None: every cell


def map_columns(header: list[str], columns: Columns) -> list[str | None]:
    """The column each header fills (None: one the import does not know); FileRefused when
    two headers name one column or a required one is missing."""
    found: list[str | None] = []
    seen: dict[str, str] = {}
    for name in header:
        key = normalise_header(name)
        key = columns.aliases.get(key, key)
        if key not in columns.known:
            found.append(None)
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
        found.append(key)
    missing = [name for name in columns.required if name not in seen]
    if missing:
        raise FileRefused(columns.missing(missing))
    return found


@dataclass
class ParsedFile:
    """The file's header and rows as text; `columns` holds the column each one fills."""

    header: list[str]
    columns: list[str | None]
    rows: list[list[str]]
    numbers: list[int]  # each row's record number in the file (the header is 1)
    delimiter: str = ";"
    encoding: str = "utf-8"
    kind: str = "csv"  # csv or xlsx

    @property
    def unknown(self) -> list[str]:
        return [
            name
            for name, column in zip(self.header, self.columns, strict=True)
            if column is None and name.strip() and normalise_header(name) not in SILENT_COLUMNS
        ]

    def index_of(self) -> dict[str, int]:
        """The index of each known column."""
        return {column: i for i, column in enumerate(self.columns) if column is not None}

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> ParsedFile:
        return cls(
            header=list(data["header"]),
            columns=list(data["columns"]),
            rows=[list(row) for row in data["rows"]],
            numbers=list(data["numbers"]),
            delimiter=data.get("delimiter", ";"),
            encoding=data.get("encoding", "utf-8"),
            kind=data.get("kind", "csv"),
        )


@dataclass
class RowResult:
    """One row checked: its cells and its errors by column index (ROW for the row). A
    domain's import adds what a valid row becomes."""

    number: int
    cells: list[str]
    errors: dict[int, list[str]] = field(default_factory=dict)

    @property
    def valid(self) -> bool:
        return not self.errors

    def add(self, index: int, message: str) -> None:
        self.errors.setdefault(index, []).append(message)

    def add_once(self, index: int, message: str) -> None:
        """Add the message unless the cell has it already."""
        if message not in self.errors.get(index, []):
            self.add(index, message)

    def error_columns(self, header: list[str]) -> list[str]:
        """The names of the columns with an error, in the file's order."""
        return [header[i] for i in sorted(self.errors) if 0 <= i < len(header)]

    def messages(self, header: list[str]) -> list[str]:
        """Every error as 'column: message', row errors first."""
        out = list(self.errors.get(ROW, []))
        for index in sorted(i for i in self.errors if i != ROW):
            name = header[index] if index < len(header) else f"#{index + 1}"
            out.extend(f"{name}: {m}" for m in self.errors[index])
        return out

    def extra_cells(self, columns: list[str | None]) -> None:
        """An error of the row when it has text past the header's columns."""
        if len(self.cells) > len(columns) and any(c.strip() for c in self.cells[len(columns) :]):
            self.add(ROW, _("Meer cellen dan kolommen in de kopregel"))
