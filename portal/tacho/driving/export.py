"""Infringements as files for the driver's signature: the law asks the carrier to show each
driver the infringements found, and a signed printout is how that is shown. Per driver a
header (name, card number, period), the findings worded as on the page, and lines for the
driver's signature and the date; in the user's language, times in the carrier's time zone.

CSV for Dutch Excel as every export writes it (`portal/spreadsheets.py`: UTF-8 with BOM,
';', formulas defused); XLSX with a
sheet per driver, set up to print on one page width.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from flask_babel import format_date, format_datetime
from flask_babel import gettext as _

from portal import spreadsheets
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
    lines: list[tuple] = []

    def line(*values) -> None:
        lines.append(values)

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
    return spreadsheets.to_csv(lines)


def to_xlsx(report: Report) -> bytes:
    """A sheet per driver: header, rows, signature lines; printed on one page width."""
    book = spreadsheets.new_book()
    found = blocks(report)
    widths = [18, 18, 62, 18, 14, 13, 12]
    taken: set[str] = set()
    for index, block in enumerate(found or [None]):
        sheet = book.active if index == 0 else book.create_sheet()
        sheet.title = spreadsheets.sheet_title(block.naam if block else _("Overtredingen"), taken)
        spreadsheets.append(sheet, [_title()])
        spreadsheets.bold(sheet["A1"], size=13)
        spreadsheets.append(sheet, [_("Vervoerder"), report.vervoerder])
        spreadsheets.append(sheet, [_("Periode"), _period(report)])
        spreadsheets.append(sheet, [])
        if block is None:
            spreadsheets.append(sheet, [_("Geen overtredingen in deze periode.")])
        else:
            spreadsheets.append(sheet, [_("Chauffeur"), block.naam])
            spreadsheets.append(sheet, [_("Kaartnummer"), block.kaartnummer or "—"])
            for row in (2, 3, 5, 6):
                spreadsheets.bold(sheet.cell(row=row, column=1))
            spreadsheets.append(sheet, [])
            spreadsheets.append(sheet, _columns())
            header = sheet.max_row
            spreadsheets.header(sheet, header, rule=True)
            for values in block.rows:
                spreadsheets.append(sheet, values)
                spreadsheets.aligned(sheet[sheet.max_row], wrap=True)
            spreadsheets.append(sheet, [])
            spreadsheets.append(sheet, [_statement()])
            spreadsheets.append(sheet, [])
            for text in (_("Handtekening chauffeur"), _("Datum")):
                spreadsheets.append(sheet, [text])
                row = sheet.max_row
                spreadsheets.bold(sheet.cell(row=row, column=1))
                sheet.row_dimensions[row].height = 34
                spreadsheets.aligned([sheet.cell(row=row, column=1)], vertical="bottom")
                for column in (2, 3):
                    spreadsheets.ruled(sheet.cell(row=row, column=column))
            sheet.print_title_rows = f"{header}:{header}"
        for column, width in enumerate(widths, start=1):
            spreadsheets.column_width(sheet, column, width - 2, most=None)
        sheet.page_setup.orientation = "landscape"
        sheet.page_setup.fitToWidth = 1
        sheet.page_setup.fitToHeight = 0
        sheet.sheet_properties.pageSetUpPr.fitToPage = True
    return spreadsheets.save(book)
