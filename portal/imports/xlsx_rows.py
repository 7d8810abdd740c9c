"""Reading the first sheet of an XLSX workbook as rows of text, as a stream within budgets.

An XLSX is a zip of XML parts, and a small upload can unpack to far more: a shared-strings
table of millions of entries, a sheet that claims 16,384 columns or a cell of megabytes, a
part that inflates a thousandfold. openpyxl reads the whole shared-strings table, and a
whole row, before anything can stop it; here every part is read with expat in chunks, and
each budget is counted while reading: the zip's parts and what they unpack to, the shared
strings (count and characters), a cell's length, the rows and columns wanted (the rest of
the sheet is not read), and the CPU time the reading may take. Over any of them the file is
refused with `OverBudget(what)`, which the caller words for the user; memory stays bounded
by the budgets, not by the file. A DOCTYPE (entity expansion) is refused as unreadable.

Cells give the text a CSV would hold: numbers as written (10023, not 10023.0), dates and
times (by the cell's number format) in ISO form, booleans as ja/nee, a formula the value
Excel last computed."""

from __future__ import annotations

import contextlib
import io
import posixpath
import struct
import time
import zipfile
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from datetime import time as clock
from xml.parsers import expat  # DOCTYPEs refused, so no entity is ever expanded

CHUNK = 64 * 1024


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


class _Enough(Exception):
    """The rows wanted are read: the rest of the sheet is not."""


def first_sheet(raw: bytes, budget: Budget) -> list[tuple[int, list[str]]]:
    """The first sheet's row 1 (the header, even when empty; none when the sheet is) and then
    its rows with text,
    each as (row number, cells as text without trailing empty cells), at most budget.lines."""
    _check_directory(raw, budget)
    try:
        archive = zipfile.ZipFile(io.BytesIO(raw))
    except (zipfile.BadZipFile, OSError, ValueError) as exc:
        raise Unreadable(str(exc)) from None
    with archive:
        try:
            return _Reader(archive, budget).read()
        except (OverBudget, Unreadable):
            raise
        except Exception as exc:  # a broken part, whatever its fault: unreadable
            raise Unreadable(repr(exc)) from None


def _check_directory(raw: bytes, budget: Budget) -> None:
    """The zip's count of members from its end record, before zipfile reads one entry per
    member into memory."""
    at = raw.rfind(b"PK\x05\x06", max(0, len(raw) - 65_557))
    if at < 0 or len(raw) < at + 22:
        raise Unreadable("no end of central directory")
    (count,) = struct.unpack_from("<H", raw, at + 10)
    if count > budget.parts:
        raise OverBudget("parts")


class _Reader:
    def __init__(self, archive: zipfile.ZipFile, budget: Budget) -> None:
        self.archive = archive
        self.budget = budget
        self.started = time.thread_time()
        self.unpacked = 0
        infos = archive.infolist()
        if len(infos) > budget.parts:
            raise OverBudget("parts")
        if sum(info.file_size for info in infos) > budget.unpacked:
            raise OverBudget("unpacked")
        self.names = {info.filename for info in infos}

    def read(self) -> list[tuple[int, list[str]]]:
        sheet, strings_part, styles_part, epoch_1904 = self._workbook()
        self.strings = self._shared_strings(strings_part) if strings_part else []
        self.dates = self._date_styles(styles_part) if styles_part else {}
        from openpyxl.utils.datetime import CALENDAR_MAC_1904, CALENDAR_WINDOWS_1900

        self.epoch = CALENDAR_MAC_1904 if epoch_1904 else CALENDAR_WINDOWS_1900
        return _SheetRows(self).read(sheet)

    # --- parsing a part -----------------------------------------------------------------

    def parse(self, name: str, start, end=None, text=None) -> None:
        """Stream the part through expat: start(tag, attrs), end(tag), text(data)."""
        # No namespace processing: a tag's prefix (x:row) is dropped, which is all it needs.
        parser = expat.ParserCreate()
        parser.buffer_text = True
        parser.buffer_size = CHUNK

        def doctype(*_args) -> None:
            raise Unreadable("DOCTYPE in a workbook part")

        parser.StartDoctypeDeclHandler = doctype
        parser.EntityDeclHandler = doctype
        parser.StartElementHandler = lambda tag, attrs: start(tag.rpartition(":")[2], attrs)
        if end is not None:
            parser.EndElementHandler = lambda tag: end(tag.rpartition(":")[2])
        if text is not None:
            parser.CharacterDataHandler = text
        with self.archive.open(name) as stream:
            while chunk := stream.read(CHUNK):
                self.unpacked += len(chunk)
                if self.unpacked > self.budget.unpacked:
                    raise OverBudget("unpacked")
                self.tick()
                parser.Parse(chunk, False)
        parser.Parse(b"", True)

    def tick(self) -> None:
        if time.thread_time() - self.started > self.budget.seconds:
            raise OverBudget("time")

    def part(self, name: str) -> str | None:
        return name if name in self.names else None

    # --- the workbook, its shared strings and styles ------------------------------------------

    def _workbook(self) -> tuple[str, str | None, str | None, bool]:
        """The first sheet's part, the shared strings' and styles' parts, the 1904 flag."""
        book = self.part("xl/workbook.xml")
        if book is None:
            raise Unreadable("no xl/workbook.xml")
        found: dict = {"sheets": [], "1904": False}

        def start(tag: str, attrs: dict) -> None:
            if tag == "sheet":
                found["sheets"].append(next((v for k, v in attrs.items() if k.endswith(":id")), ""))
            elif tag == "workbookPr":
                found["1904"] = attrs.get("date1904") in ("1", "true")

        self.parse(book, start)
        targets: dict[str, tuple[str, str]] = {}
        rels = self.part("xl/_rels/workbook.xml.rels")
        if rels:

            def relation(tag: str, attrs: dict) -> None:
                if tag == "Relationship" and "Id" in attrs:
                    target = attrs.get("Target", "")
                    path = target.lstrip("/") if target.startswith("/") else f"xl/{target}"
                    kind = attrs.get("Type", "").rsplit("/", 1)[-1]
                    targets[attrs["Id"]] = (posixpath.normpath(path), kind)

            self.parse(rels, relation)
        if not found["sheets"]:
            raise Unreadable("no sheet")
        sheet = targets.get(found["sheets"][0], ("xl/worksheets/sheet1.xml", ""))[0]
        if self.part(sheet) is None:
            raise Unreadable("first sheet missing")
        by_kind = {kind: path for path, kind in targets.values()}
        strings = self.part(by_kind.get("sharedStrings", "xl/sharedStrings.xml"))
        styles = self.part(by_kind.get("styles", "xl/styles.xml"))
        return sheet, strings, styles, found["1904"]

    def _shared_strings(self, name: str) -> list[str]:
        strings: list[str] = []
        text = _RichText(self.budget.cell)
        total = 0

        def start(tag: str, attrs: dict) -> None:
            if tag == "si":
                if len(strings) >= self.budget.strings:
                    raise OverBudget("strings")
                text.begin()
            else:
                text.start(tag)

        def end(tag: str) -> None:
            nonlocal total
            if tag == "si":
                value = text.finish()
                total += len(value)
                if total > self.budget.text:
                    raise OverBudget("strings")
                strings.append(value)
            else:
                text.end(tag)

        self.parse(name, start, end, text.data)
        return strings

    def _date_styles(self, name: str) -> dict[int, str]:
        """Style index -> 'date' or 'duration', for the cell styles with such a format."""
        from openpyxl.styles.numbers import BUILTIN_FORMATS, is_date_format, is_timedelta_format

        codes: dict[int, str] = {}
        xfs: list[int] = []
        where: list[str] = []

        def start(tag: str, attrs: dict) -> None:
            if tag == "numFmt":
                codes[int(attrs.get("numFmtId", -1))] = attrs.get("formatCode", "")
            elif tag == "xf" and where[-1:] == ["cellXfs"]:
                if len(xfs) > 65_000:
                    raise OverBudget("unpacked")
                xfs.append(int(attrs.get("numFmtId", 0)))
            where.append(tag)

        def end(tag: str) -> None:
            where.pop()

        self.parse(name, start, end)
        kinds: dict[int, str] = {}
        for index, number in enumerate(xfs):
            code = codes.get(number) or BUILTIN_FORMATS.get(number) or ""
            if is_timedelta_format(code):
                kinds[index] = "duration"
            elif is_date_format(code):
                kinds[index] = "date"
        return kinds


class _RichText:
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


class _SheetRows:
    """The sheet's rows, read until budget.lines of them have text."""

    def __init__(self, reader: _Reader) -> None:
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
        self.inline = _RichText(self.budget.cell)
        self.in_inline = False
        self.text = 0
        self.count = 0
        self.total = 0

    def read(self, name: str) -> list[tuple[int, list[str]]]:
        with contextlib.suppress(_Enough):
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
            self.column = _column_of(ref) if ref else self.column + 1
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
                raise _Enough

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
            return _moment_text(value)
        if isinstance(number, float):
            if number.is_integer() and abs(number) < 1e15:
                return str(int(number))
            return repr(number)
        return str(number)


def _moment_text(value) -> str:
    if isinstance(value, datetime):
        return value.isoformat(sep=" ")
    if isinstance(value, date | clock):
        return value.isoformat()
    if isinstance(value, timedelta):
        return str(value)
    return str(value)


def _column_of(ref: str) -> int:
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
