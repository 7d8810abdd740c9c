"""Uploading a tachograph download reads it in full: its days stored per driver card per day
(the newest download wins, a card's own beats a vehicle unit's), the card linked to its
driver by the number on the driver, a damaged file refused with nothing stored."""

from __future__ import annotations

import io
import uuid
from datetime import UTC, date, datetime, timedelta

import pytest
from factories import Ref, create_driver, in_carrier

from portal.audit.service import Actor
from portal.extensions import db
from portal.tacho import service
from portal.tacho.ddd import CardSession
from portal.tacho.ddd.build import card_file, changes_from_timeline, vu_file
from portal.tacho.intake import reading
from portal.tacho.models import TachoDay, TachoFile

NUMBER = "NB00000012345600"
DAY1 = date(2026, 10, 5)  # a Monday
ACTOR = Actor("user", uuid.uuid4(), "Els Vos")


def at(day: date, hh: int, mm: int = 0) -> datetime:
    return datetime(day.year, day.month, day.day, hh, mm, tzinfo=UTC)


def shift(day: date, drive_hours: float = 4.0) -> list[tuple]:
    """A plain day: rest until 06:00, work 15 min, driving, a 45-minute break, driving,
    work 15 min, rest."""
    half = int(drive_hours * 60 // 2)
    start = at(day, 6)
    return [
        (at(day, 0), "rust"),
        (start, "werk"),
        (start + timedelta(minutes=15), "rijden"),
        (start + timedelta(minutes=15 + half), "rust"),
        (start + timedelta(minutes=60 + half), "rijden"),
        (start + timedelta(minutes=60 + 2 * half), "werk"),
        (start + timedelta(minutes=75 + 2 * half), "rust"),
    ]


def card(days: list[date], download: datetime, drive_hours: float = 4.0, **kwargs) -> bytes:
    # What happened up to the download: a card holds nothing later.
    timeline = [entry for day in days for entry in shift(day, drive_hours) if entry[0] < download]
    return card_file(
        kaartnummer=kwargs.pop("kaartnummer", NUMBER),
        achternaam="Vos",
        voornamen="Piet",
        dagen=changes_from_timeline(timeline),
        download_time=download,
        **kwargs,
    )


def upload(app, carrier: Ref, data: bytes, name: str = "download.ddd", **links):
    return in_carrier(
        app,
        carrier.id,
        lambda: service.upload(
            carrier_id=carrier.id, stream=io.BytesIO(data), filename=name, actor=ACTOR, **links
        ),
        lambda result: (result.file.id, result.nieuw),
    )


def stored_days(app, carrier: Ref) -> list[tuple]:
    def read():
        rows = db.session.scalars(
            db.select(TachoDay)
            .where(TachoDay.transporteur_id == carrier.id)
            .order_by(TachoDay.kaartnummer, TachoDay.datum)
        )
        return [
            (
                r.kaartnummer,
                r.datum,
                r.chauffeur_id,
                r.tacho_bestand_id,
                r.bron,
                r.rijden_min,
                r.rust_min + r.werk_min + r.beschikbaar_min + r.rijden_min + r.onbekend_min,
            )
            for r in rows
        ]

    return in_carrier(app, carrier.id, read)


def set_card(app, carrier: Ref, driver: Ref, number: str | None):
    return in_carrier(
        app,
        carrier.id,
        lambda: service.assign_card(
            carrier_id=carrier.id, driver_id=driver.id, kaartnummer=number, actor=ACTOR
        ),
        lambda d: d.kaartnummer,
    )


def test_a_card_download_stores_each_day_with_its_totals(app, carrier):
    days = [DAY1 + timedelta(days=n) for n in range(3)]
    download = at(DAY1 + timedelta(days=2), 10, 30)  # mid-morning of the third day
    file_id, new = upload(app, carrier, card(days, download))
    assert new
    rows = stored_days(app, carrier)
    assert [r[1] for r in rows] == days
    assert all(r[3] == file_id and r[4] == "kaart" for r in rows)
    # Two whole days of 4 h driving; every minute of a whole day is accounted for.
    assert [r[5] for r in rows[:2]] == [240, 240]
    assert [r[6] for r in rows[:2]] == [1440, 1440]
    # The download day ends at the download (10:30), not at midnight: 630 minutes, of
    # which driving 06:15-08:15 and 09:00-10:30 (the rest of that shift had not happened).
    assert rows[2][6] == 630
    assert rows[2][5] == 120 + 90


def test_the_card_finds_its_driver_by_the_number_on_the_driver(app, carrier):
    driver = create_driver(app, carrier, naam="Piet Vos")
    # Typed with spaces, in lower case and without the two indexes the card adds.
    assert set_card(app, carrier, driver, "nb 0000001234 56") == "NB000000123456"
    file_id, _new = upload(app, carrier, card([DAY1], at(DAY1, 20)))

    def linked():
        return db.session.get(TachoFile, (carrier.id, file_id)).chauffeur_id

    assert in_carrier(app, carrier.id, linked) == driver.id
    assert {r[2] for r in stored_days(app, carrier)} == {driver.id}


def test_linking_a_card_file_gives_the_driver_its_card_number(app, carrier):
    driver = create_driver(app, carrier, naam="Piet Vos")
    file_id, _new = upload(app, carrier, card([DAY1], at(DAY1, 20)))
    assert {r[2] for r in stored_days(app, carrier)} == {None}
    in_carrier(
        app,
        carrier.id,
        lambda: service.link(
            carrier_id=carrier.id, tacho_file_id=file_id, driver_id=driver.id, actor=ACTOR
        ),
    )
    assert {r[2] for r in stored_days(app, carrier)} == {driver.id}

    def number():
        from portal.drivers.service import get_driver

        return get_driver(carrier_id=carrier.id, driver_id=driver.id).kaartnummer

    assert in_carrier(app, carrier.id, number) == NUMBER
    # Moving the card number to another driver moves the days with it.
    other = create_driver(app, carrier, naam="Kees Bos")
    set_card(app, carrier, driver, None)
    set_card(app, carrier, other, NUMBER)
    assert {r[2] for r in stored_days(app, carrier)} == {other.id}


def test_a_card_number_is_refused_when_malformed_or_another_drivers(app, carrier):
    from portal.errors import ValidationFailed

    first = create_driver(app, carrier, naam="Piet Vos")
    second = create_driver(app, carrier, naam="Kees Bos")
    with pytest.raises(ValidationFailed) as bad:
        set_card(app, carrier, first, "12")
    assert bad.value.errors[0]["field"] == "kaartnummer"
    set_card(app, carrier, first, NUMBER)
    with pytest.raises(ValidationFailed) as taken:
        set_card(app, carrier, second, NUMBER)
    assert "Piet Vos" in taken.value.errors[0]["message"]


def test_the_newest_download_of_a_day_wins_and_the_same_file_changes_nothing(app, carrier):
    older = card([DAY1, DAY1 + timedelta(days=1)], at(DAY1 + timedelta(days=1), 9))
    newer = card(
        [DAY1 + timedelta(days=1), DAY1 + timedelta(days=2)],
        at(DAY1 + timedelta(days=3), 7),
        drive_hours=6,
    )
    first_id, _ = upload(app, carrier, older)
    second_id, _ = upload(app, carrier, newer)
    rows = stored_days(app, carrier)
    assert [(r[1], r[3], r[5]) for r in rows] == [
        (DAY1, first_id, 240),
        # The second day was cut off at 09:00 in the older download; the newer one has it whole.
        (DAY1 + timedelta(days=1), second_id, 360),
        (DAY1 + timedelta(days=2), second_id, 360),
    ]
    # The older one again (same bytes): the existing record, nothing rewritten.
    again_id, new = upload(app, carrier, older)
    assert (again_id, new) == (first_id, False)
    assert stored_days(app, carrier) == rows
    # An older download uploaded later does not overwrite a newer one's days either.
    oldest = card([DAY1 + timedelta(days=1)], at(DAY1 + timedelta(days=1), 12), drive_hours=2)
    upload(app, carrier, oldest, name="late.ddd")
    assert stored_days(app, carrier)[1][3] == second_id


def test_a_vehicle_units_days_count_where_the_card_has_none(app, carrier):
    driver = create_driver(app, carrier, naam="Piet Vos")
    set_card(app, carrier, driver, NUMBER)
    day2 = DAY1 + timedelta(days=1)
    timeline = shift(DAY1) + shift(day2)
    changes = changes_from_timeline(timeline)
    sessions = [
        CardSession(
            kaartnummer=NUMBER,
            slot=0,
            ingestoken=at(d, 5, 55),
            uitgenomen=at(d, 15),
            houder="Piet Vos",
        )
        for d in (DAY1, day2)
    ]
    data = vu_file(dagen=changes, kaarten=sessions, download_time=at(day2 + timedelta(days=1), 8))
    upload(app, carrier, data, name="vu.ddd")
    rows = stored_days(app, carrier)
    assert [(r[1], r[2], r[4], r[5]) for r in rows] == [
        (DAY1, driver.id, "voertuig", 240),
        (day2, driver.id, "voertuig", 240),
    ]
    # The card's own download of the second day replaces the unit's view of it.
    upload(app, carrier, card([day2], at(day2, 23)))
    rows = stored_days(app, carrier)
    assert [(r[1], r[4]) for r in rows] == [(DAY1, "voertuig"), (day2, "kaart")]


@pytest.mark.parametrize("cut", [40, 200, 900])
def test_a_damaged_download_is_refused_and_nothing_is_stored(app, carrier, cut):
    data = card([DAY1, DAY1 + timedelta(days=1)], at(DAY1 + timedelta(days=2), 8))
    broken = data[: len(data) - cut]
    with pytest.raises(service.Refused) as refused:
        upload(app, carrier, broken)
    assert str(refused.value)

    def counts():
        return (
            db.session.scalar(db.select(db.func.count()).select_from(TachoFile)),
            db.session.scalar(db.select(db.func.count()).select_from(TachoDay)),
        )

    assert in_carrier(app, carrier.id, counts) == (0, 0)


def test_reread_reads_files_stored_before_downloads_were_read(app, carrier):
    file_id, _ = upload(app, carrier, card([DAY1], at(DAY1, 22)))

    def forget():
        db.session.execute(db.delete(TachoDay))
        db.session.get(TachoFile, (carrier.id, file_id)).gelezen = False

    in_carrier(app, carrier.id, forget)
    assert stored_days(app, carrier) == []
    todo = in_carrier(
        app, carrier.id, lambda: service.files_to_read(carrier_id=carrier.id), lambda r: len(r)
    )
    assert todo == 1
    written = in_carrier(
        app, carrier.id, lambda: service.reread(carrier_id=carrier.id, tacho_file_id=file_id)
    )
    assert written == 1
    assert [r[1] for r in stored_days(app, carrier)] == [DAY1]


def test_changes_survive_the_round_trip_through_the_database():
    from portal.tacho.segments import Change

    changes = [
        Change(0, "onbekend", kaart_in=False),
        Change(300, "rust", kaart_in=False, handmatig=True),
        Change(360, "rijden", bemanning=True, slot=1),
    ]
    assert reading.changes_of(reading.changes_json(changes)) == changes


def test_a_card_read_mid_drive_and_uploaded_days_later_drives_no_invented_hours(app, carrier):
    """A card read at 08:00 while driving, with no moment of its own: an upload weeks later
    must not make the drive run until midnight, nor beat the same day from a download
    named with its moment."""
    timeline = [entry for entry in shift(DAY1) if entry[0] < at(DAY1, 8)]

    def read_at_eight(**kwargs):
        return card_file(
            kaartnummer=NUMBER, achternaam="Vos", voornamen="Piet",
            dagen=changes_from_timeline(timeline), download_time=None, **kwargs,
        )  # fmt: skip

    upload(app, carrier, read_at_eight(), name="kaart.ddd")
    # The drive began at 06:15 and is known to have lasted a minute, no more.
    assert stored_days(app, carrier)[0][5] == 1
    upload(app, carrier, read_at_eight(generation=2), name=f"C_{DAY1:%Y%m%d}_0800_P_VOS.DDD")
    assert stored_days(app, carrier)[0][5] == 105  # 06:15 to 08:00
    upload(app, carrier, read_at_eight(generation=2, version_2=True), name="opnieuw.ddd")
    assert stored_days(app, carrier)[0][5] == 105  # a moment unknown does not win


def test_an_upload_with_a_record_of_an_unknown_tag_is_read_without_it(app, carrier):
    data = card([DAY1], at(DAY1 + timedelta(days=1), 9))
    _file_id, nieuw = upload(app, carrier, data + b"\x7a\x7a\x00\x00\x03xyz", name="nieuw.ddd")
    assert nieuw
    assert [(row[1], row[5]) for row in stored_days(app, carrier)] == [(DAY1, 240)]


def test_a_card_number_given_later_brings_the_earlier_downloads_and_their_deadline(app, carrier):
    """A card uploaded before anyone had its number counts for its driver's next download
    once the number is on the driver: not "never downloaded"."""
    driver = create_driver(app, carrier, naam="Piet Vos")
    file_id, _new = upload(app, carrier, card([DAY1], at(DAY1, 20)))

    def deadline_of_piet():
        found = service.deadlines(carrier_id=carrier.id, today=DAY1 + timedelta(days=3))
        return next((d.status, d.dagen_over) for d in found if d.naam == "Piet Vos")

    assert in_carrier(app, carrier.id, deadline_of_piet) == ("nooit", None)
    set_card(app, carrier, driver, NUMBER)

    def linked():
        return db.session.get(TachoFile, (carrier.id, file_id)).chauffeur_id

    assert in_carrier(app, carrier.id, linked) == driver.id
    assert in_carrier(app, carrier.id, deadline_of_piet) == ("ok", 25)
    history = in_carrier(
        app, carrier.id, lambda: service.history(carrier_id=carrier.id, tacho_file_id=file_id)
    , lambda rows: [r.action for r in rows])  # fmt: skip
    assert history.count("linked") == 1
