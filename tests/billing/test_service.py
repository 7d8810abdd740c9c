"""Billing lines and their export batches."""

from __future__ import annotations

import csv
import io
from datetime import UTC, date, datetime
from zoneinfo import ZoneInfo

import pytest
from factories import create_carrier, create_driver, create_task, create_vehicle, in_carrier

from portal.billing import service as billing
from portal.errors import Conflict, NotFound, ValidationFailed
from portal.tasks import service as tasks

AMS = ZoneInfo("Europe/Amsterdam")
MARCH = {"van": date(2025, 3, 1), "tot": date(2025, 3, 31)}


def local(*parts) -> datetime:
    return datetime(*parts, tzinfo=AMS)


def completed(app, carrier, driver, at: datetime, **fields):
    return create_task(app, carrier, driver, status="afgerond", afgerond_op=at, **fields)


def record(app, carrier, task, **values) -> dict:
    """record_line for a task; the line as plain values."""

    def go():
        found = tasks.get_task(carrier_id=carrier.id, task_id=task.id)
        return billing.record_line(carrier_id=carrier.id, task=found, **values)

    return in_carrier(
        app,
        carrier.id,
        go,
        lambda line: {
            "id": line.id,
            "hoeveelheid": line.hoeveelheid,
            "eenheid": line.eenheid,
            "kilometers": line.kilometers,
            "wachttijd_minuten": line.wachttijd_minuten,
            "opmerkingen": line.opmerkingen,
            "chauffeur_id": line.chauffeur_id,
            "afgerond_op": line.afgerond_op,
        },
    )


def unexported(app, carrier, **period):
    period = period or MARCH
    return in_carrier(app, carrier.id, lambda: billing.unexported(carrier_id=carrier.id, **period))


def export(app, carrier, **period):
    period = period or MARCH
    return in_carrier(
        app,
        carrier.id,
        lambda: billing.export(carrier_id=carrier.id, actor_label="planner@example.nl", **period),
        lambda batch: (batch.id, batch.regels),
    )


def export_rows(app, carrier, export_id):
    return in_carrier(
        app,
        carrier.id,
        lambda: billing.export_rows(carrier_id=carrier.id, export_id=export_id)[1],
    )


# --- record_line ------------------------------------------------------------------------


def test_a_line_takes_quantity_unit_driver_and_time_from_the_task(app, carrier, driver):
    at = local(2025, 3, 10, 14, 5)
    task = completed(app, carrier, driver, at, hoeveelheid=30.0, eenheid="ton")

    line = record(app, carrier, task, kilometers=42.5, wachttijd_minuten=15)

    assert line["hoeveelheid"] == 30.0 and line["eenheid"] == "ton"
    assert line["chauffeur_id"] == driver.id
    assert line["afgerond_op"] == at.astimezone(UTC)
    assert line["kilometers"] == 42.5 and line["wachttijd_minuten"] == 15


def test_recording_again_updates_the_unexported_line(app, carrier, driver):
    task = completed(app, carrier, driver, local(2025, 3, 10, 14), hoeveelheid=30.0, eenheid="ton")
    first = record(app, carrier, task, hoeveelheid=28.0)

    second = record(app, carrier, task, hoeveelheid=29.5, eenheid="m3", opmerkingen="Nat")

    assert second["id"] == first["id"]
    assert (second["hoeveelheid"], second["eenheid"], second["opmerkingen"]) == (29.5, "m3", "Nat")
    rows = unexported(app, carrier)
    assert [(r.hoeveelheid, r.eenheid) for r in rows] == [(29.5, "m3")]


def test_recording_a_line_that_was_exported_is_a_conflict(app, carrier, driver):
    task = completed(app, carrier, driver, local(2025, 3, 10, 14))
    record(app, carrier, task)
    export(app, carrier)

    with pytest.raises(Conflict, match=r"already billed in export \d{4}-\d{2}-\d{2}"):
        record(app, carrier, task, hoeveelheid=1.0)


def test_a_task_that_is_not_completed_gets_no_line(app, carrier, driver):
    task = create_task(app, carrier, driver, status="gestart")
    with pytest.raises(ValidationFailed) as error:
        record(app, carrier, task)
    assert error.value.errors[0]["field"] == "afgerond_op"


def test_impossible_amounts_are_refused(app, carrier, driver):
    task = completed(app, carrier, driver, local(2025, 3, 10, 14))
    with pytest.raises(ValidationFailed) as error:
        record(app, carrier, task, kilometers=-3.0, hoeveelheid=float("nan"), eenheid="x" * 21)
    assert {e["field"] for e in error.value.errors} == {"kilometers", "hoeveelheid", "eenheid"}


# --- unexported -------------------------------------------------------------------------


def test_the_period_is_whole_days_in_the_carriers_time_zone(app, carrier, driver):
    # Amsterdam is UTC+1 in February and UTC+2 after 30 March 2025.
    inside = {
        "first minute": local(2025, 3, 1, 0, 30),  # 28 Feb 23:30 UTC
        "last evening": local(2025, 3, 31, 23, 30),  # 31 Mar 21:30 UTC
    }
    outside = {
        "day before": local(2025, 2, 28, 23, 59),
        "day after": local(2025, 4, 1, 0, 15),  # still 31 Mar 22:15 in UTC
    }
    for naam, at in {**inside, **outside}.items():
        record(app, carrier, completed(app, carrier, driver, at, naam=naam))

    rows = unexported(app, carrier)

    assert [r.naam for r in rows] == ["first minute", "last evening"]
    assert rows[1].afgerond_op.strftime("%Y-%m-%d %H:%M") == "2025-03-31 23:30"
    assert rows[1].afgerond_op.utcoffset().total_seconds() == 2 * 3600


def test_rows_carry_what_an_invoice_needs(app, carrier, driver):
    vehicle = create_vehicle(app, carrier, "BX-12-AB")
    task = completed(
        app,
        carrier,
        driver,
        local(2025, 3, 10, 14),
        naam="Mest laden Enter",
        type="mest_laden",
        adres="Dorpsstraat 1",
        postcode="7468 AB",
        stad="Enter",
        vdm_nummer="VDM77",
        vehicle_id=vehicle.id,
        gepland_op=local(2025, 3, 10, 8),
        hoeveelheid=30.0,
        eenheid="ton",
    )
    record(app, carrier, task, kilometers=12.5, wachttijd_minuten=20, opmerkingen="Modder")

    [row] = unexported(app, carrier)

    assert (row.naam, row.type, row.adres, row.postcode, row.stad, row.vdm_nummer) == (
        "Mest laden Enter",
        "mest_laden",
        "Dorpsstraat 1",
        "7468 AB",
        "Enter",
        "VDM77",
    )
    assert (row.chauffeur, row.kenteken) == ("Jan Chauffeur", "BX-12-AB")
    assert row.gepland_op == local(2025, 3, 10, 8)
    assert (row.hoeveelheid, row.eenheid, row.kilometers) == (30.0, "ton", 12.5)
    assert (row.wachttijd_minuten, row.opmerkingen, row.taak_id) == (20, "Modder", task.id)


def test_a_driver_filter_selects_that_drivers_lines(app, carrier, driver):
    other = create_driver(app, carrier, "Piet Pols")
    record(app, carrier, completed(app, carrier, driver, local(2025, 3, 3, 9), naam="Jan rit"))
    record(app, carrier, completed(app, carrier, other, local(2025, 3, 4, 9), naam="Piet rit"))

    rows = unexported(app, carrier, **MARCH, driver_id=other.id)

    assert [r.naam for r in rows] == ["Piet rit"]


def test_a_reopened_task_is_not_billed_until_completed_again(app, carrier, driver):
    task = completed(app, carrier, driver, local(2025, 3, 10, 14))
    record(app, carrier, task)

    def reopen():
        tasks.get_task(carrier_id=carrier.id, task_id=task.id).status = "gestart"

    in_carrier(app, carrier.id, reopen)

    assert unexported(app, carrier) == []
    with pytest.raises(ValidationFailed):
        export(app, carrier)


def test_another_carriers_lines_stay_out(app, carrier, driver):
    other = create_carrier(app, "Ander")
    record(app, other, completed(app, other, create_driver(app, other), local(2025, 3, 3, 9)))
    assert unexported(app, carrier) == []


def test_unexported_runs_a_fixed_number_of_queries(app, carrier, count_queries):
    def add(n):
        driver = create_driver(app, carrier, f"Chauffeur {n}")
        vehicle = create_vehicle(app, carrier)
        at = local(2025, 3, 1 + n, 10)
        record(app, carrier, completed(app, carrier, driver, at, vehicle_id=vehicle.id))

    add(0)
    with count_queries() as few:
        assert len(unexported(app, carrier)) == 1
    for n in range(1, 12):
        add(n)
    with count_queries() as many:
        assert len(unexported(app, carrier)) == 12
    assert many.count == few.count <= 4


@pytest.mark.parametrize(
    ("van", "tot", "field"),
    [
        (date(2025, 3, 31), date(2025, 3, 1), "tot"),
        (date(2025, 1, 1), date(2026, 1, 1), "tot"),
        (date(1999, 12, 31), date(2000, 1, 5), "van"),
        (date(2099, 12, 1), date(9999, 12, 31), "tot"),
    ],
)
def test_a_bad_period_is_refused(app, carrier, van, tot, field):
    with pytest.raises(ValidationFailed) as error:
        unexported(app, carrier, van=van, tot=tot)
    assert error.value.errors[0]["field"] == field


def test_a_year_is_a_valid_period_even_a_leap_year(app, carrier):
    assert unexported(app, carrier, van=date(2024, 1, 1), tot=date(2024, 12, 31)) == []


# --- export -----------------------------------------------------------------------------


def test_an_export_marks_the_lines_once(app, carrier, driver):
    for day in (3, 4, 5):
        record(app, carrier, completed(app, carrier, driver, local(2025, 3, day, 9)))
    record(app, carrier, completed(app, carrier, driver, local(2025, 4, 1, 9), naam="April"))

    export_id, count = export(app, carrier)

    assert count == 3
    assert unexported(app, carrier) == []
    assert [r.naam for r in unexported(app, carrier, van=date(2025, 4, 1), tot=date(2025, 4, 30))]
    with pytest.raises(ValidationFailed, match="nothing to export"):
        export(app, carrier)
    exports = in_carrier(
        app,
        carrier.id,
        lambda: billing.list_exports(carrier_id=carrier.id, limit=10),
        lambda found: [(b.id, b.regels, b.van, b.tot, b.gemaakt_door) for b in found],
    )
    assert exports == [(export_id, 3, MARCH["van"], MARCH["tot"], "planner@example.nl")]


def test_an_export_takes_only_new_lines_the_next_time(app, carrier, driver):
    record(app, carrier, completed(app, carrier, driver, local(2025, 3, 3, 9), naam="Eerste"))
    first, _ = export(app, carrier)
    record(app, carrier, completed(app, carrier, driver, local(2025, 3, 20, 9), naam="Later"))

    second, count = export(app, carrier)

    assert count == 1
    assert [r.naam for r in export_rows(app, carrier, first)] == ["Eerste"]
    assert [r.naam for r in export_rows(app, carrier, second)] == ["Later"]


def test_an_earlier_export_gives_the_same_rows_again(app, carrier, driver):
    for day in (3, 4):
        task = completed(app, carrier, driver, local(2025, 3, day, 9), hoeveelheid=float(day))
        record(app, carrier, task, kilometers=10.0 * day)
    before = unexported(app, carrier)
    export_id, _ = export(app, carrier)

    assert export_rows(app, carrier, export_id) == before
    assert export_rows(app, carrier, export_id) == before


def test_an_export_of_another_carrier_is_not_found(app, carrier, driver):
    record(app, carrier, completed(app, carrier, driver, local(2025, 3, 3, 9)))
    export_id, _ = export(app, carrier)
    other = create_carrier(app, "Ander")
    with pytest.raises(NotFound):
        export_rows(app, other, export_id)


# --- files ------------------------------------------------------------------------------


def sample_rows(app, carrier, driver) -> list:
    vehicle = create_vehicle(app, carrier, "BX-12-AB")
    task = completed(
        app,
        carrier,
        driver,
        local(2025, 3, 31, 23, 30),
        naam='=HYPERLINK("http://x")',
        stad="Enter; Twente",
        vdm_nummer="VDM77",
        vehicle_id=vehicle.id,
        gepland_op=local(2025, 3, 31, 8, 0),
        hoeveelheid=12.5,
        eenheid="ton",
    )
    record(
        app, carrier, task, kilometers=1234.25, wachttijd_minuten=35, opmerkingen="Regel 1\nRegel 2"
    )
    plain = completed(app, carrier, None, local(2025, 3, 2, 9), naam="Zonder chauffeur")
    record(app, carrier, plain)
    return unexported(app, carrier)


def test_the_csv_reads_back_in_dutch_excel_format(app, carrier, driver):
    data = billing.to_csv(sample_rows(app, carrier, driver))

    assert data.startswith(b"\xef\xbb\xbf")
    reader = csv.DictReader(io.StringIO(data.decode("utf-8-sig"), newline=""), delimiter=";")
    assert reader.fieldnames[:5] == ["naam", "klant", "type", "adres", "postcode"]
    assert {"vdm_nummer", "hoeveelheid", "eenheid", "kilometers", "wachttijd_minuten"} <= set(
        reader.fieldnames
    )
    empty, row = list(reader)
    assert empty["naam"] == "Zonder chauffeur"
    assert empty["chauffeur"] == "" and empty["hoeveelheid"] == ""
    assert row["naam"] == '\'=HYPERLINK("http://x")'  # not a formula in Excel
    assert row["stad"] == "Enter; Twente"
    assert row["chauffeur"] == "Jan Chauffeur" and row["kenteken"] == "BX-12-AB"
    assert row["afgerond_op"] == "2025-03-31 23:30" and row["gepland_op"] == "2025-03-31 08:00"
    assert row["hoeveelheid"] == "12,5" and row["eenheid"] == "ton"
    assert row["kilometers"] == "1234,25" and row["wachttijd_minuten"] == "35"
    assert row["opmerkingen"] == "Regel 1\nRegel 2"


def test_the_xlsx_holds_real_numbers_and_dates(app, carrier, driver):
    from openpyxl import load_workbook
    from openpyxl.utils import get_column_letter

    rows = sample_rows(app, carrier, driver)
    sheet = load_workbook(io.BytesIO(billing.to_xlsx(rows))).active

    header = [c.value for c in sheet[1]]
    assert header == list(billing.COLUMNS)
    assert sheet.freeze_panes == "A2"
    last = get_column_letter(len(billing.COLUMNS))  # one column per field
    assert sheet.auto_filter.ref == f"A1:{last}{len(rows) + 1}"
    row = {name: cell for name, cell in zip(header, sheet[3], strict=True)}
    assert row["afgerond_op"].value == datetime(2025, 3, 31, 23, 30)
    assert row["afgerond_op"].is_date
    assert row["hoeveelheid"].value == 12.5 and row["hoeveelheid"].data_type == "n"
    assert row["kilometers"].value == 1234.25
    assert row["wachttijd_minuten"].value == 35
    assert row["naam"].value == '=HYPERLINK("http://x")' and row["naam"].data_type == "s"
    assert sheet.column_dimensions["A"].width > 10


# --- every completion makes a line --------------------------------------------------------


def for_completion(app, carrier, task) -> dict:
    def go():
        found = tasks.get_task(carrier_id=carrier.id, task_id=task.id)
        line = billing.line_for_completion(carrier_id=carrier.id, task=found)
        return line

    return in_carrier(
        app,
        carrier.id,
        go,
        lambda line: {
            "id": line.id,
            "hoeveelheid": line.hoeveelheid,
            "kilometers": line.kilometers,
            "exported": line.export_id is not None,
        },
    )


def test_a_completion_bills_the_planned_quantity_until_the_actual_one_is_reported(
    app, carrier, driver
):
    task = completed(app, carrier, driver, local(2025, 3, 10, 14), hoeveelheid=30, eenheid="ton")

    made = for_completion(app, carrier, task)
    [planned] = unexported(app, carrier)
    reported = record(app, carrier, task, hoeveelheid=27.5, kilometers=8)
    [actual] = unexported(app, carrier)

    assert made["hoeveelheid"] == 30 and planned.gepland
    assert reported["id"] == made["id"]
    assert actual.hoeveelheid == 27.5 and not actual.gepland


def test_completing_again_leaves_an_exported_line_as_billed(app, carrier, driver):
    task = completed(app, carrier, driver, local(2025, 3, 10, 14), hoeveelheid=30)
    record(app, carrier, task, kilometers=8)
    export(app, carrier)

    again = for_completion(app, carrier, task)

    assert again["exported"] and again["kilometers"] == 8
    assert unexported(app, carrier) == []


def test_reopened_after_export_lists_what_changed_since_the_invoice(app, carrier, driver):
    task = completed(app, carrier, driver, local(2025, 3, 10, 14), naam="Heropend")
    other = completed(app, carrier, driver, local(2025, 3, 11, 9), naam="Ongewijzigd")
    record(app, carrier, task)
    record(app, carrier, other)
    export(app, carrier)

    def reopen():
        tasks.get_task(carrier_id=carrier.id, task_id=task.id).status = "gestart"

    in_carrier(app, carrier.id, reopen)
    rows = in_carrier(
        app, carrier.id, lambda: billing.reopened_after_export(carrier_id=carrier.id, **MARCH)
    )

    assert [(r.naam, r.status) for r in rows] == [("Heropend", "gestart")]
    assert rows[0].gefactureerd_op == local(2025, 3, 10, 14)
