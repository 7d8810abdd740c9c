"""Reading a CSV of tasks (the import kit's reading: its encoding, its separator, its header
and rows), by the columns a file of tasks may have."""

from __future__ import annotations

from portal import imports
from portal.tasks.csv_import.columns import COLUMNS


def read_csv(raw: bytes) -> imports.ParsedFile:
    """The file's header and rows; FileRefused when it cannot be imported at all."""
    return imports.read_table(raw, "", COLUMNS)
