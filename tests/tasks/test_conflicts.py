"""Planning checks (portal/tasks/conflicts.py through the tasks service): double-booked
drivers and vehicles, duplicate and malformed VDM numbers, re-imported rows. Warnings only."""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

import pytest
from factories import create_carrier, create_driver, create_task, create_vehicle, in_carrier

from portal.tasks import conflicts

AMS = ZoneInfo("Europe/Amsterdam")
DAY = date(2031, 3, 12)


def at(clock: str, day: date = DAY) -> datetime:
    return datetime.combine(day, time.fromisoformat(clock), tzinfo=AMS).astimezone(UTC)


@pytest.fixture(autouse=True)
def manure_needs_nothing(app, carrier):
    """The conflicts alone: this carrier's manure runs need no tank (what a combination
    lacks: tests/tasks/test_capability_warnings.py)."""
    from portal.audit.service import SYSTEM
    from portal.fleet import catalogue

    for kind in ("mest_laden", "mest_lossen"):
        in_carrier(
            app,
            carrier.id,
            lambda kind=kind: catalogue.set_needs(
                carrier_id=carrier.id, activity_type=kind, kenmerken=(), actor=SYSTEM
            ),
        )


def board_warnings(app, carrier) -> dict:
    """Every task's warnings as {task name: [(code, other task's name or row)]}."""
    from portal.tasks import service

    def run():
        page = service.list_tasks(
            carrier_id=carrier.id,
            filters=service.TaskFilters(limit=1000),
            with_definitions=False,
        )
        found = service.planning_warnings(carrier_id=carrier.id, tasks=page.tasks)
        return {
            t.naam: [(w.code, w.params.get("naam") or w.params.get("vdm")) for w in found[t.id]]
            for t in page.tasks
            if t.id in found
        }

    return in_carrier(app, carrier.id, run)


def codes(warnings: dict, naam: str) -> list[str]:
    return [code for code, _ in warnings.get(naam, [])]


# --- double bookings ----------------------------------------------------------------------


def test_overlapping_tasks_of_one_driver_warn_both_naming_the_other(app, carrier, driver):
    create_task(app, carrier, driver, naam="Mest Enter", gepland_op=at("08:00"))  # 60 min
    create_task(app, carrier, driver, naam="Mest Goor", gepland_op=at("08:30"))
    create_task(app, carrier, driver, naam="Mest Delden", gepland_op=at("12:00"))

    found = board_warnings(app, carrier)

    assert found["Mest Enter"] == [(conflicts.DRIVER, "Mest Goor")]
    assert found["Mest Goor"] == [(conflicts.DRIVER, "Mest Enter")]
    assert "Mest Delden" not in found


def test_touching_windows_do_not_conflict(app, carrier, driver):
    create_task(app, carrier, driver, naam="Eerst", gepland_op=at("08:00"), duur_min=60)
    create_task(app, carrier, driver, naam="Daarna", gepland_op=at("09:00"), duur_min=30)
    create_task(app, carrier, driver, naam="Zonder tijd")

    assert board_warnings(app, carrier) == {}


def test_the_expected_duration_comes_from_the_task_else_its_activity_type(app, carrier):
    long_job, cattle, manure = (create_driver(app, carrier, n) for n in ("A", "B", "C"))
    create_task(app, carrier, long_job, naam="Lang", gepland_op=at("08:00"), duur_min=150)
    create_task(app, carrier, long_job, naam="Na lang", gepland_op=at("10:29"))
    # vee_transport lasts 180 minutes unless the task says otherwise.
    create_task(app, carrier, cattle, naam="Vee", type="vee_transport", gepland_op=at("08:00"))
    create_task(app, carrier, cattle, naam="Na vee", gepland_op=at("10:59"))
    # mest_laden lasts 60: 09:00 is free again.
    create_task(app, carrier, manure, naam="Mest", gepland_op=at("08:00"))
    create_task(app, carrier, manure, naam="Na mest", gepland_op=at("09:00"))

    found = board_warnings(app, carrier)

    assert codes(found, "Lang") == [conflicts.DRIVER] and codes(found, "Vee") == [conflicts.DRIVER]
    assert "Mest" not in found and "Na mest" not in found
    assert conflicts.DEFAULT_DURATION_MIN["vee_transport"] == 180


def test_completed_cancelled_and_archived_tasks_do_not_count(app, carrier, driver):
    create_task(app, carrier, driver, naam="Open", gepland_op=at("08:00"))
    create_task(app, carrier, driver, naam="Klaar", gepland_op=at("08:10"), status="afgerond")
    create_task(app, carrier, driver, naam="Weg", gepland_op=at("08:20"), status="geannuleerd")
    archived = create_task(app, carrier, driver, naam="Archief", gepland_op=at("08:30"))
    in_carrier(app, carrier.id, lambda: _archive(carrier, archived.id))

    assert board_warnings(app, carrier) == {}


def _archive(carrier, task_id):
    from portal.tasks import service

    task = service.get_task(carrier_id=carrier.id, task_id=task_id)
    task.gearchiveerd_op = datetime.now(UTC)


def test_one_vehicle_with_several_drivers_at_once_warns_each(app, carrier):
    truck = create_vehicle(app, carrier, "BX-12-AB")
    anna, bram, chris = (create_driver(app, carrier, n) for n in ("Anna", "Bram", "Chris"))
    create_task(app, carrier, anna, naam="Anna rijdt", gepland_op=at("07:00"), vehicle_id=truck.id)
    create_task(app, carrier, bram, naam="Bram rijdt", gepland_op=at("07:30"), vehicle_id=truck.id)
    create_task(app, carrier, chris, naam="Chris rijdt", gepland_op=at("07:45"),
                vehicle_id=truck.id)  # fmt: skip

    found = board_warnings(app, carrier)

    assert found["Anna rijdt"] == [
        (conflicts.VEHICLE, "Bram rijdt"), (conflicts.VEHICLE, "Chris rijdt"),
    ]  # fmt: skip
    assert sorted(codes(found, "Chris rijdt")) == [conflicts.VEHICLE] * 2


def test_another_carriers_tasks_never_count(app, carrier, driver):
    create_task(app, carrier, driver, naam="Van ons", gepland_op=at("08:00"),
                vdm_nummer="3103120001")  # fmt: skip
    other = create_carrier(app, "Ander BV")
    theirs = create_driver(app, other)
    create_task(app, other, theirs, naam="Van hen", gepland_op=at("08:00"),
                vdm_nummer="3103120001")  # fmt: skip

    assert board_warnings(app, carrier) == {}
    assert board_warnings(app, other) == {}


# --- VDM numbers --------------------------------------------------------------------------


def test_a_vdm_number_twice_on_the_same_kind_of_work_warns(app, carrier, driver):
    create_task(app, carrier, driver, naam="Laden 1", vdm_nummer="3103120001")
    create_task(app, carrier, driver, naam="Laden 2", vdm_nummer="3103120001")
    # Loading and unloading of one transport share their VDM number: no duplicate.
    create_task(app, carrier, driver, naam="Lossen", type="mest_lossen", vdm_nummer="3103120001")
    create_task(app, carrier, driver, naam="Geannuleerd", vdm_nummer="3103120002",
                status="geannuleerd")  # fmt: skip
    create_task(app, carrier, driver, naam="Nieuw", vdm_nummer="3103120002")

    found = board_warnings(app, carrier)

    assert found["Laden 1"] == [(conflicts.VDM_DUPLICATE, "Laden 2")]
    assert found["Laden 2"] == [(conflicts.VDM_DUPLICATE, "Laden 1")]
    assert "Lossen" not in found and "Nieuw" not in found


@pytest.mark.parametrize(
    ("vdm", "land", "warns"),
    [
        ("3103120001", "NL", False),
        ("3103120001", None, False),
        ("VDM-0042", "NL", True),
        ("31031200", None, True),
        ("VDM-0042", "BE", False),  # no format known outside the Netherlands
    ],
)
def test_the_vdm_number_format_is_checked_where_it_is_known(app, carrier, driver, vdm, land, warns):
    create_task(app, carrier, driver, naam="Mest", vdm_nummer=vdm, land=land)

    found = board_warnings(app, carrier)

    assert found.get("Mest", []) == ([(conflicts.VDM_FORMAT_WRONG, vdm)] if warns else [])


# --- a form's draft and an import's rows -----------------------------------------------


def test_an_edited_task_is_checked_as_the_form_would_save_it(app, carrier, driver):
    from portal.tasks import service

    busy = create_task(app, carrier, driver, naam="Vast", gepland_op=at("10:00"))
    mine = create_task(app, carrier, driver, naam="Mijn taak", gepland_op=at("14:00"))

    def draft(clock):
        def run():
            task = service.get_task(carrier_id=carrier.id, task_id=mine.id)
            data = {"type": "mest_laden", "naam": "Mijn taak", "gepland_op": at(clock)}
            found = service.draft_warnings(
                carrier_id=carrier.id, driver_id=driver.id, data=data, task=task
            )
            return [(w.code, w.params["task_id"]) for w in found]

        return in_carrier(app, carrier.id, run)

    assert draft("14:00") == []  # not in conflict with its own stored self
    assert draft("10:30") == [(conflicts.DRIVER, busy.id)]


def test_import_rows_identical_to_a_task_or_an_earlier_row_warn(app, carrier, driver):
    from portal.tasks import service

    create_task(app, carrier, driver, naam="Mest Enter", gepland_op=at("08:00"), stad="Enter")
    row = {"type": "mest_laden", "naam": "Mest Enter", "gepland_op": at("08:00"), "stad": "Enter"}
    fresh = {"type": "mest_laden", "naam": "Mest Goor", "gepland_op": at("13:00")}

    def run():
        found = service.import_warnings(
            carrier_id=carrier.id,
            rows=[(2, driver.id, row), (3, driver.id, fresh), (4, driver.id, dict(fresh))],
        )
        return [[(w.code, w.params.get("naam"), w.params.get("row")) for w in f] for f in found]

    found = in_carrier(app, carrier.id, run)

    # The same task again says so, without also calling it a double booking of itself.
    assert found[0] == [(conflicts.IMPORT_EXISTING, "Mest Enter", None)]
    assert found[1] == []
    assert found[2] == [(conflicts.IMPORT_REPEATED, None, 3)]


def test_import_rows_double_booking_each_other_warn(app, carrier, driver):
    from portal.tasks import service

    first = {"type": "mest_laden", "naam": "Rij een", "gepland_op": at("08:00")}
    second = {"type": "voer_leveren", "naam": "Rij twee", "gepland_op": at("08:30")}

    def run():
        found = service.import_warnings(
            carrier_id=carrier.id, rows=[(2, driver.id, first), (3, driver.id, second)]
        )
        return [[(w.code, w.params.get("row")) for w in f] for f in found]

    assert in_carrier(app, carrier.id, run) == [[(conflicts.DRIVER, 3)], [(conflicts.DRIVER, 2)]]


def test_a_board_of_tasks_far_apart_is_checked_in_fixed_queries(
    app, carrier, driver, count_queries
):
    from portal.tasks import service

    for n in range(6):
        create_task(app, carrier, driver, naam=f"Taak {n}", vdm_nummer=f"31031200{n:02d}",
                    gepland_op=at("08:00", DAY + timedelta(days=n)))  # fmt: skip

    def run():
        page = service.list_tasks(
            carrier_id=carrier.id, filters=service.TaskFilters(), with_definitions=False
        )
        with count_queries() as queries:
            found = service.planning_warnings(carrier_id=carrier.id, tasks=page.tasks)
        return found, queries.count

    found, count = in_carrier(app, carrier.id, run)
    # One for the conflicts, three for the driver's driving and rest times.
    assert found == {} and count == 4


def test_a_row_repeating_a_task_is_not_named_twice_by_others(app, carrier, driver):
    from portal.tasks import service

    create_task(app, carrier, driver, naam="Mest Enter", gepland_op=at("08:00"))
    again = {"type": "mest_laden", "naam": "Mest Enter", "gepland_op": at("08:00")}
    overlapping = {"type": "mest_laden", "naam": "Mest Goor", "gepland_op": at("08:30")}

    def run():
        found = service.import_warnings(
            carrier_id=carrier.id,
            rows=[(2, driver.id, again), (3, driver.id, dict(again)), (4, driver.id, overlapping)],
        )
        return [[(w.code, w.params.get("row")) for w in f] for f in found]

    found = in_carrier(app, carrier.id, run)

    assert found[2] == [(conflicts.DRIVER, None)]  # the stored task, once
    assert found[1] == [(conflicts.IMPORT_EXISTING, None), (conflicts.IMPORT_REPEATED, 2),
                        (conflicts.DRIVER, 4)]  # fmt: skip
