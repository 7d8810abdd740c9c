"""How a sheet's XML becomes rows of text, as the part streams by (`SheetRows`): each cell
as a CSV would hold it (numbers as written, dates and times by the cell's format in ISO form,
booleans as ja/nee, rich and inline text without its phonetic runs), within the budget."""

from __future__ import annotations

import contextlib
from datetime import date, datetime, timedelta
from datetime import time as clock

from portal.imports.xlsx_limits import Enough, OverBudget


class RichText:
    """The text of a shared string or inline string: its <t> parts, phonetic runs left out,
    at most `limit` characters."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.parts: list[str] = []
        self.size = 0
        self.open = False
        self.phonetic = 0

    def begin(self) -> None:
        self.parts, self.size, self.open, self.phonetic = [], 0, False, 0

    def start(self, tag: str) -> None:
        if tag == "rPh":
            self.phonetic += 1
        elif tag == "t" and not self.phonetic:
            self.open = True

    def end(self, tag: str) -> None:
        if tag == "rPh":
            self.phonetic -= 1
        elif tag == "t":
            self.open = False

    def data(self, chunk: str) -> None:
        if self.open:
            self.size += len(chunk)
            if self.size > self.limit:
                raise OverBudget("cell")
            self.parts.append(chunk)

    def finish(self) -> str:
        value = "".join(self.parts)
        self.parts = []
        return value


class SheetRows:
    """The sheet's rows, read until budget.lines of them have text."""

    def __init__(self, reader) -> None:
        self.reader = reader
        self.budget = reader.budget
        self.lines: list[tuple[int, list[str]]] = []
        self.row_number = 0
        self.cells: list[str] = []
        self.column = 0
        self.kind = ""
        self.style = 0
        self.keep = False
        self.value: list[str] = []
        self.size = 0
        self.in_value = False
        self.inline = RichText(self.budget.cell)
        self.in_inline = False
        self.text = 0
        self.count = 0
        self.total = 0

    def read(self, name: str) -> list[tuple[int, list[str]]]:
        with contextlib.suppress(Enough):
            self.reader.parse(name, self.start, self.end, self.data)
        if self.lines and self.lines[0][0] != 1:
            self.lines.insert(0, (1, []))
        return self.lines

    def start(self, tag: str, attrs: dict) -> None:
        if tag == "row":
            number = attrs.get("r")
            self.row_number = int(number) if number else self.row_number + 1
            self.cells, self.column, self.count = [], 0, 0
        elif tag == "c":
            self.count += 1
            self.total += 1
            if self.count > self.budget.row_cells or self.total > self.budget.cells:
                raise OverBudget("cells")
            ref = attrs.get("r")
            self.column = column_of(ref) if ref else self.column + 1
            self.kind = attrs.get("t", "n")
            self.style = int(attrs.get("s", 0) or 0)
            self.keep = self.column <= self.budget.columns
            self.value, self.size, self.in_inline = [], 0, False
            self.inline.begin()
        elif tag == "v":
            self.in_value = self.keep
        elif tag == "is":
            self.in_inline = self.keep
        elif self.in_inline:
            self.inline.start(tag)

    def data(self, chunk: str) -> None:
        if self.in_value:
            self.size += len(chunk)
            if self.size > self.budget.cell:
                raise OverBudget("cell")
            self.value.append(chunk)
        elif self.in_inline:
            self.inline.data(chunk)

    def end(self, tag: str) -> None:
        if tag == "v":
            self.in_value = False
        elif tag == "is":
            self.in_inline = False
        elif self.in_inline:
            self.inline.end(tag)
        elif tag == "c" and self.keep:
            text = self._text()
            if self.kind != "s":
                # Shared strings are counted once, in their table; other text here.
                self.text += len(text)
                if self.text > self.budget.text:
                    raise OverBudget("strings")
            if text:
                self.cells.extend([""] * (self.column - 1 - len(self.cells)))
                self.cells.append(text)
        elif tag == "row":
            self._row_done()

    def _row_done(self) -> None:
        if self.row_number == 1 or self.cells:
            self.lines.append((self.row_number, self.cells))
            if len(self.lines) >= self.budget.lines:
                raise Enough

    def _text(self) -> str:
        if self.kind == "inlineStr":
            return self.inline.finish()
        raw = "".join(self.value)
        if not raw:
            return ""
        if self.kind == "s":
            index = int(raw)
            strings = self.reader.strings
            return strings[index] if 0 <= index < len(strings) else ""
        if self.kind == "b":
            return "ja" if raw.strip() in ("1", "true") else "nee"
        if self.kind in ("str", "e"):
            return raw
        if self.kind == "d":
            return raw.replace("T", " ")
        return self._number(raw)

    def _number(self, raw: str) -> str:
        number: float | int = float(raw) if any(c in raw for c in ".eE") else int(raw)
        kind = self.reader.dates.get(self.style)
        if kind:
            from openpyxl.utils.datetime import from_excel

            try:
                value = from_excel(number, self.reader.epoch, timedelta=kind == "duration")
            except (ValueError, OverflowError):
                return str(number)
            return moment_text(value)
        if isinstance(number, float):
            if number.is_integer() and abs(number) < 1e15:
                return str(int(number))
            return repr(number)
        return str(number)


def moment_text(value) -> str:
    if isinstance(value, datetime):
        return value.isoformat(sep=" ")
    if isinstance(value, date | clock):
        return value.isoformat()
    if isinstance(value, timedelta):
        return str(value)
    return str(value)


def column_of(ref: str) -> int:
    """The column number of a cell reference such as 'AB12' (A is 1)."""
    number = 0
    for char in ref:
        if "A" <= char <= "Z":
            number = number * 26 + ord(char) - 64
        elif "a" <= char <= "z":
            number = number * 26 + ord(char) - 96
        else:
            break
        if number > 20_000:
            break
    return number
