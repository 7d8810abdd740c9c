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
Excel last computed (`xlsx_sheet`); the budgets and the refusals are in `xlsx_limits`."""

from __future__ import annotations

import io
import posixpath
import struct
import time
import zipfile
from xml.parsers import expat  # DOCTYPEs refused, so no entity is ever expanded

from portal.imports.xlsx_limits import Budget, OverBudget, Unreadable
from portal.imports.xlsx_sheet import RichText, SheetRows

__all__ = ["Budget", "OverBudget", "Unreadable", "first_sheet"]

CHUNK = 64 * 1024


def first_sheet(raw: bytes, budget: Budget) -> list[tuple[int, list[str]]]:
    """The first sheet's row 1 (the header, even when empty; none when the sheet is) and then
    its rows with text, each as (row number, cells as text without trailing empty cells), at
    most budget.lines."""
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
        return SheetRows(self).read(sheet)

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
        text = RichText(self.budget.cell)
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
