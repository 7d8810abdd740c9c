"""The hours overview as files for payroll: a line per driver per day (days with time), with
the minutes of each activity kind, the working time in minutes and in hours, and whether the
day's week is approved.

CSV for Dutch Excel as every export writes it (`portal/spreadsheets.py`: UTF-8 with BOM,
';', decimal comma, formulas defused); XLSX with real numbers and dates, a second
sheet with each driver's totals over the period.
"""

from __future__ import annotations

from datetime import date

from portal import spreadsheets
from portal.hours import totals
from portal.hours.models import SOORTEN
from portal.hours.totals import IsoWeek
from portal.hours.weeks.overview import Overview

DAY_COLUMNS = (
    "chauffeur",
    "datum",
    "week",
    *(f"{soort}_min" for soort in SOORTEN),
    "werktijd_min",
    "werktijd_uren",
    "totaal_min",
    "week_goedgekeurd",
)
TOTAL_COLUMNS = (
    "chauffeur",
    *(f"{soort}_min" for soort in SOORTEN),
    "werktijd_min",
    "werktijd_uren",
    "totaal_min",
    "weken_goedgekeurd",
)


def day_lines(overview: Overview) -> list[list]:
    """One line per driver per day with time, in DAY_COLUMNS order."""
    lines = []
    for row in overview.rows:
        for day, t in row.hours.per_dag.items():
            week = IsoWeek.of(day)
            lines.append(
                [
                    row.driver.naam,
                    day,
                    week.label,
                    *(t.minuten[soort] for soort in SOORTEN),
                    t.werktijd,
                    totals.hours(t.werktijd),
                    t.totaal,
                    "ja" if week in row.approvals else "nee",
                ]
            )
    return lines


def total_lines(overview: Overview) -> list[list]:
    """One line per driver with the period's totals, in TOTAL_COLUMNS order."""
    return [
        [
            row.driver.naam,
            *(row.hours.totaal.minuten[soort] for soort in SOORTEN),
            row.hours.totaal.werktijd,
            totals.hours(row.hours.totaal.werktijd),
            row.hours.totaal.totaal,
            f"{row.approved_count}/{len(row.weeks)}",
        ]
        for row in overview.rows
    ]


def to_csv(overview: Overview) -> bytes:
    """The day lines as CSV for Dutch Excel, with a header row of column names."""
    return spreadsheets.to_csv([DAY_COLUMNS, *day_lines(overview)])


def to_xlsx(overview: Overview) -> bytes:
    """Two sheets: the day lines, and each driver's totals; numbers and dates as such."""
    book = spreadsheets.new_book()
    sheets = (
        (book.active, "Uren per dag", DAY_COLUMNS, day_lines(overview)),
        (book.create_sheet(), "Totalen", TOTAL_COLUMNS, total_lines(overview)),
    )
    for sheet, title, columns, lines in sheets:
        sheet.title = title
        spreadsheets.append(sheet, columns)
        spreadsheets.header(sheet)
        widths = [len(name) for name in columns]
        for number, line in enumerate(lines, start=2):
            for column, value in enumerate(line, start=1):
                cell = spreadsheets.put_at(sheet, number, column, value)
                if isinstance(value, date):
                    cell.number_format = "yyyy-mm-dd"
                elif isinstance(value, float):
                    cell.number_format = "0.00"
                widths[column - 1] = max(widths[column - 1], len(str(value)))
        for column, width in enumerate(widths, start=1):
            spreadsheets.column_width(sheet, column, width)
        sheet.freeze_panes = "B2"
        spreadsheets.filter_on(sheet, len(columns), len(lines))
    return spreadsheets.save(book)
