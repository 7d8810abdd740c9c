"""Infringements as files for the driver's signature: the law asks the carrier to show each
driver the infringements found, and a signed printout is how that is shown. Per driver a
header (name, card number, period), the findings worded as on the page, and lines for the
driver's signature and the date; in the user's language, times in the carrier's time zone.

CSV for Dutch Excel as billing writes it (UTF-8 with BOM, ';', formulas defused); XLSX with a
sheet per driver, set up to print on one page width.
"""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass
from datetime import date

from flask_babel import format_date, format_datetime
from flask_babel import gettext as _

from portal.billing.service import _csv_value
from portal.tacho import wording

SIGNATURE_LINE = "_" * 32


@dataclass
class Report:
    vervoerder: str
    van: date
    tot: date
    items: list  # driving.DriverFinding, in the order to show


@dataclass
class DriverBlock:
    naam: str
    kaartnummer: str
    rows: list[list[str]]


def _columns() -> list[str]:
    return [_("Begin"), _("Eind"), _("Wat"), _("Artikel"), _("Ernst"), _("Soort"), _("Bron")]


def _when(value) -> str:
    return format_datetime(value, "d MMM yyyy HH:mm") if value else ""


def _row(item) -> list[str]:
    f = item.finding
    return [
        _when(f.begin),
        _when(f.eind),
        wording.finding(f),
        wording.artikel(f.artikel),
        wording.label(wording.ERNST_LABELS, f.ernst) if f.ernst else "—",
        wording.label(wording.SOORT_LABELS, f.soort),
        wording.label(wording.BRON_LABELS, f.bron),
    ]


def blocks(report: Report) -> list[DriverBlock]:
    """The findings grouped per driver (drivers by name), each keeping the report's order."""
    found: dict = {}
    for item in report.items:
        driver = item.driver
        if driver.id not in found:
            found[driver.id] = DriverBlock(driver.naam, driver.kaartnummer or "", [])
        found[driver.id].rows.append(_row(item))
    return sorted(found.values(), key=lambda b: b.naam.lower())


def _title() -> str:
    return _("Overtredingen van de rij- en rusttijden (Verordening (EG) 561/2006)")


def _period(report: Report) -> str:
    return f"{format_date(report.van, 'd MMM yyyy')} {wording.EN_DASH} " + format_date(
        report.tot, "d MMM yyyy"
    )


def _statement() -> str:
    return _("Ik heb dit overzicht van mijn overtredingen gezien.")


def to_csv(report: Report) -> bytes:
    """Per driver a header, the rows and the signature lines, for Dutch Excel."""
    out = io.StringIO(newline="")
    writer = csv.writer(out, delimiter=";", lineterminator="\r\n")

    def line(*values) -> None:
        writer.writerow([_csv_value(v) for v in values])

    line(_title())
    line(_("Vervoerder"), report.vervoerder)
    line(_("Periode"), _period(report))
    found = blocks(report)
    if not found:
        line()
        line(_("Geen overtredingen in deze periode."))
    for block in found:
        line()
        line(_("Chauffeur"), block.naam)
        line(_("Kaartnummer"), block.kaartnummer or "—")
        line(*_columns())
        for row in block.rows:
            line(*row)
        line()
        line(_statement())
        line(_("Handtekening chauffeur"), SIGNATURE_LINE)
        line(_("Datum"), SIGNATURE_LINE)
    return ("\ufeff" + out.getvalue()).encode("utf-8")


def _sheet_title(name: str, taken: set[str]) -> str:
    """An Excel sheet name: at most 31 characters, none of []:*?/\\, unique in the book."""
    base = re.sub(r"[\[\]:*?/\\]", " ", name).strip()[:28] or "?"
    title, n = base, 2
    while title.lower() in taken:
        title = f"{base[:25]} ({n})"
        n += 1
    taken.add(title.lower())
    return title


def to_xlsx(report: Report) -> bytes:
    """A sheet per driver: header, rows, signature lines; printed on one page width."""
    from openpyxl import Workbook
    from openpyxl.styles import Alignment, Border, Font, PatternFill, Side

    book = Workbook()
    found = blocks(report)
    thin = Side(style="thin", color="333333")
    widths = [18, 18, 62, 18, 14, 13, 12]
    taken: set[str] = set()
    for index, block in enumerate(found or [None]):
        sheet = book.active if index == 0 else book.create_sheet()
        sheet.title = _sheet_title(block.naam if block else _("Overtredingen"), taken)
        sheet.append([_title()])
        sheet["A1"].font = Font(bold=True, size=13)
        sheet.append([_("Vervoerder"), report.vervoerder])
        sheet.append([_("Periode"), _period(report)])
        sheet.append([])
        if block is None:
            sheet.append([_("Geen overtredingen in deze periode.")])
        else:
            sheet.append([_("Chauffeur"), block.naam])
            sheet.append([_("Kaartnummer"), block.kaartnummer or "—"])
            for row in (2, 3, 5, 6):
                sheet.cell(row=row, column=1).font = Font(bold=True)
            sheet.append([])
            sheet.append(_columns())
            header = sheet.max_row
            for cell in sheet[header]:
                cell.font = Font(bold=True)
                cell.fill = PatternFill("solid", fgColor="E3F3E6")
                cell.border = Border(bottom=thin)
            for values in block.rows:
                sheet.append(values)
                for cell in sheet[sheet.max_row]:
                    cell.alignment = Alignment(wrap_text=True, vertical="top")
            sheet.append([])
            sheet.append([_statement()])
            sheet.append([])
            for text in (_("Handtekening chauffeur"), _("Datum")):
                sheet.append([text])
                row = sheet.max_row
                sheet.cell(row=row, column=1).font = Font(bold=True)
                sheet.row_dimensions[row].height = 34
                sheet.cell(row=row, column=1).alignment = Alignment(vertical="bottom")
                for column in (2, 3):
                    sheet.cell(row=row, column=column).border = Border(bottom=thin)
            sheet.print_title_rows = f"{header}:{header}"
        for row in sheet.iter_rows():
            for cell in row:
                if isinstance(cell.value, str):
                    # Text, always: openpyxl would store a name like '=...' as a formula.
                    cell.data_type = "s"
        for column, width in enumerate(widths, start=1):
            sheet.column_dimensions[chr(ord("A") + column - 1)].width = width
        sheet.page_setup.orientation = "landscape"
        sheet.page_setup.fitToWidth = 1
        sheet.page_setup.fitToHeight = 0
        sheet.sheet_properties.pageSetUpPr.fitToPage = True
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()
