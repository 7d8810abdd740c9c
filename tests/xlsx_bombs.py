"""The worst XLSX files we can build under the upload limit (5 MB), for the customer import:
each small on the wire and costly to read whole. Written with zipfile and plain XML, so
nothing a writing library checks stands in the way. Shared by the import's tests and the
drills; `peak_rss` reads one in a fresh process and says how much memory it took."""

from __future__ import annotations

import io
import json
import struct
import subprocess
import sys
import zipfile
from pathlib import Path

CONTENT_TYPES = (
    '<?xml version="1.0" encoding="UTF-8"?>'
    '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
    '<Default Extension="rels" '
    'ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
    '<Default Extension="xml" ContentType="application/xml"/>'
    '<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-'
    'officedocument.spreadsheetml.sheet.main+xml"/>'
    '<Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-'
    'officedocument.spreadsheetml.worksheet+xml"/>'
    '<Override PartName="/xl/sharedStrings.xml" ContentType="application/vnd.openxmlformats-'
    'officedocument.spreadsheetml.sharedStrings+xml"/>'
    "</Types>"
)
ROOT_RELS = (
    '<?xml version="1.0" encoding="UTF-8"?>'
    '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
    '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/'
    'relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>'
)
WORKBOOK = (
    '<?xml version="1.0" encoding="UTF-8"?>'
    '<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" '
    'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships">'
    '<sheets><sheet name="Klanten" sheetId="1" r:id="rId1"/></sheets></workbook>'
)
WORKBOOK_RELS = (
    '<?xml version="1.0" encoding="UTF-8"?>'
    '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
    '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/'
    'relationships/worksheet" Target="worksheets/sheet1.xml"/>'
    '<Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/'
    'relationships/sharedStrings" Target="sharedStrings.xml"/></Relationships>'
)
SHEET_START = (
    '<?xml version="1.0" encoding="UTF-8"?>'
    '<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">'
)
HEADER_ROW = '<row r="1"><c r="A1" t="inlineStr"><is><t>naam</t></is></c></row>'
SST_START = (
    '<?xml version="1.0" encoding="UTF-8"?>'
    '<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">'
)


def workbook(sheet: str, strings: str = SST_START + "</sst>", extra: dict | None = None) -> bytes:
    """An XLSX with this sheet XML and shared-strings XML (and extra members)."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        archive.writestr("[Content_Types].xml", CONTENT_TYPES)
        archive.writestr("_rels/.rels", ROOT_RELS)
        archive.writestr("xl/workbook.xml", WORKBOOK)
        archive.writestr("xl/_rels/workbook.xml.rels", WORKBOOK_RELS)
        archive.writestr("xl/worksheets/sheet1.xml", sheet)
        archive.writestr("xl/sharedStrings.xml", strings)
        for name, data in (extra or {}).items():
            archive.writestr(name, data)
    return out.getvalue()


def _sheet(rows: str) -> str:
    return SHEET_START + "<sheetData>" + HEADER_ROW + rows + "</sheetData></worksheet>"


def shared_strings() -> bytes:
    """1.8 million tiny shared strings (30 MB of XML, under the unpacked budget)."""
    table = SST_START + "<si><t>a</t></si>" * 1_800_000 + "</sst>"
    return workbook(_sheet('<row r="2"><c r="A2" t="s"><v>0</v></c></row>'), table)


def wide_row() -> bytes:
    """A sheet that claims every column and row, with one row of a million cells."""
    cells = '<c t="n"><v>1</v></c>' * 1_000_000
    sheet = (
        SHEET_START
        + '<dimension ref="A1:XFD1048576"/><sheetData>'
        + HEADER_ROW
        + f'<row r="2">{cells}<c r="XFD2"><v>1</v></c></row>'
        + '<row r="1048576"><c r="XFD1048576"><v>1</v></c></row></sheetData></worksheet>'
    )
    return workbook(sheet)


def empty_rows() -> bytes:
    """1.5 million empty rows before the last row of the sheet (27 MB of XML)."""
    rows = "".join(f'<row r="{n}"/>' for n in range(2, 1_500_000))
    return workbook(_sheet(rows + '<row r="1500000"><c r="A1500000"><v>1</v></c></row>'))


def many_cells() -> bytes:
    """1.9 million cells (29 MB of XML) in rows of 1,900, most past the columns read."""
    row = "<c><v>1</v></c>" * 1_900
    return workbook(_sheet("".join(f'<row r="{n}">{row}</row>' for n in range(2, 1_002))))


def long_cell() -> bytes:
    """One cell of 30 million characters, inline."""
    cell = '<c r="A2" t="inlineStr"><is><t>' + "x" * 30_000_000 + "</t></is></c>"
    return workbook(_sheet(f'<row r="2">{cell}</row>'))


def long_shared_string() -> bytes:
    """One shared string of 30 million characters."""
    table = SST_START + "<si><t>" + "y" * 30_000_000 + "</t></si></sst>"
    return workbook(_sheet('<row r="2"><c r="A2" t="s"><v>0</v></c></row>'), table)


def deflate_bomb() -> bytes:
    """A sheet that inflates to 1 GB of spaces (about 1 MB packed)."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        for name, data in (
            ("[Content_Types].xml", CONTENT_TYPES),
            ("_rels/.rels", ROOT_RELS),
            ("xl/workbook.xml", WORKBOOK),
            ("xl/_rels/workbook.xml.rels", WORKBOOK_RELS),
        ):
            archive.writestr(name, data)
        with archive.open("xl/worksheets/sheet1.xml", "w", force_zip64=True) as part:
            part.write((SHEET_START + "<sheetData>").encode())
            block = b" " * (1024 * 1024)
            for _ in range(1024):
                part.write(block)
            part.write(b"</sheetData></worksheet>")
    return out.getvalue()


def lying_bomb() -> bytes:
    """The deflate bomb of a 60 MB sheet whose zip entries claim it unpacks to 1 KB."""
    data = bytearray(workbook(_sheet("") + " " * 60_000_000))
    # Local headers: name length at 26, name at 30, size at 22; central ones: 28, 46, 24.
    for signature, length_at, name_at, size_at in (
        (b"PK\x03\x04", 26, 30, 22),
        (b"PK\x01\x02", 28, 46, 24),
    ):
        at = data.find(signature)
        while at >= 0:
            length = struct.unpack_from("<H", data, at + length_at)[0]
            if data[at + name_at : at + name_at + length] == b"xl/worksheets/sheet1.xml":
                struct.pack_into("<I", data, at + size_at, 1024)
            at = data.find(signature, at + 4)
    return bytes(data)


def entity_bomb() -> bytes:
    """Shared strings with a billion-laughs DOCTYPE."""
    entities = '<!ENTITY a0 "ha">' + "".join(
        f'<!ENTITY a{n} "{("&a" + str(n - 1) + ";") * 10}">' for n in range(1, 10)
    )
    table = (
        f'<?xml version="1.0"?><!DOCTYPE sst [{entities}]>'
        '<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">'
        "<si><t>&a9;</t></si></sst>"
    )
    return workbook(_sheet('<row r="2"><c r="A2" t="s"><v>0</v></c></row>'), table)


def many_parts() -> bytes:
    """A workbook of 40,000 empty zip members."""
    return workbook(_sheet(""), extra={f"xl/media/{n}.bin": b"" for n in range(40_000)})


def many_rows() -> bytes:
    """Twice the rows the import takes, each with a name."""
    rows = "".join(
        f'<row r="{n}"><c r="A{n}" t="inlineStr"><is><t>Klant {n}</t></is></c></row>'
        for n in range(2, 10_003)
    )
    return workbook(_sheet(rows))


BOMBS = {
    "shared strings (1.8 million)": shared_strings,
    "a row of a million cells, dimension A1:XFD1048576": wide_row,
    "1.5 million empty rows": empty_rows,
    "1.9 million cells in rows of 1,900": many_cells,
    "a cell of 30 million characters": long_cell,
    "a shared string of 30 million characters": long_shared_string,
    "deflate bomb (1 GB of spaces)": deflate_bomb,
    "deflate bomb with sizes that lie": lying_bomb,
    "billion laughs in the shared strings": entity_bomb,
    "40,000 zip members": many_parts,
    "10,000 rows": many_rows,
}

_MEASURE = """
import json, sys
from portal import create_app
from portal.customers import csv_import

def status(name):
    with open("/proc/self/status") as lines:
        return next(int(l.split()[1]) for l in lines if l.startswith(name + ":")) // 1024

app = create_app({"TESTING": True, "SECRET_KEY": "x", "INSTANCE_PATH": sys.argv[1],
                  "SQLALCHEMY_DATABASE_URI": "sqlite://", "DATABASE_ADMIN_URL": None})
folder, names = sys.argv[1], sys.argv[2:]
found = {}
with app.test_request_context("/"):
    csv_import.read_file(open(f"{folder}/klein.xlsx", "rb").read(), "klein.xlsx")  # warm
    for index, name in enumerate(names):
        raw = open(f"{folder}/{index}.xlsx", "rb").read()
        with open("/proc/self/clear_refs", "w") as refs:
            refs.write("5")  # the peak so far forgotten: from here, this file's own
        idle = status("VmRSS")
        try:
            csv_import.read_file(raw, "bom.xlsx")
            outcome = "read"
        except csv_import.FileRefused as exc:
            outcome = f"{exc.status}: {exc.message}"
        found[name] = {"idle_mb": idle, "peak_mb": status("VmHWM"), "outcome": outcome}
        del raw
print(json.dumps(found))
"""


def small_workbook() -> bytes:
    row = '<row r="2"><c r="A2" t="inlineStr"><is><t>Ter Horst</t></is></c></row>'
    return workbook(_sheet(row))


def peak_rss(files: dict[str, bytes], folder: Path) -> dict[str, dict]:
    """Read each file as the customer import does, one after the other in a fresh process:
    per file the resident memory before (MB), its peak while reading, and how it ended."""
    (folder / "klein.xlsx").write_bytes(small_workbook())
    for index, raw in enumerate(files.values()):
        (folder / f"{index}.xlsx").write_bytes(raw)
    root = Path(__file__).resolve().parent.parent
    done = subprocess.run(
        [sys.executable, "-c", _MEASURE, str(folder), *files],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])
