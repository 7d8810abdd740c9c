"""What reading one XLSX may cost (`Budget`), and how reading says it cannot go on: a file
that is no workbook (`Unreadable`), one over a budget (`OverBudget`), or enough rows read."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Budget:
    """What one file may cost to read."""

    lines: int  # rows with text to read, the header included; reading stops after them
    columns: int  # cells of a row read; later ones are skipped
    parts: int = 200  # zip members
    unpacked: int = 32 * 1024 * 1024  # bytes all parts read may unpack to
    strings: int = 200_000  # entries of the shared-strings table
    text: int = 8_000_000  # characters of the shared-strings table
    cell: int = 32_767  # characters of one cell (Excel's own limit)
    seconds: float = 5.0  # CPU time of this thread
    row_cells: int = 2_000  # <c> elements of one row (a row formatted cell by cell has many)
    cells: int = 1_000_000  # <c> elements of the sheet


class Unreadable(Exception):
    """Not an XLSX workbook, or a broken one."""


class OverBudget(Exception):
    """The file asks more than the budget allows; `what` names the budget."""

    def __init__(self, what: str) -> None:
        super().__init__(what)
        self.what = what


class Enough(Exception):
    """The rows wanted are read: the rest of the sheet is not."""
