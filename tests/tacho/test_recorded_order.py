"""A card day keeps the order in which the card recorded its activity changes (issue 29, part
8): each change lasts until the next recorded one, max(0, next minute - its minute), and where
the card went to a vehicle unit whose clock was behind, the step back is a note on the day.
The real anonymised card of tests/fixtures/tachograph has such a day (5 September 2025);
every one of its 145 days is held against an independent decoding written from the
regulation's text (tacho/annex_decoder.py), minute for minute."""

from __future__ import annotations

import itertools
from datetime import UTC, date, datetime, timedelta

import pytest
from factories import bearer, create_driver, in_carrier, login
from tacho import annex_decoder
from tacho.real_card import NAME, ef, real_file

from portal.extensions import db
from portal.tacho import ddd, rules, service
from portal.tacho.ddd.build import card_file
from portal.tacho.intake import reading
from portal.tacho.models import TachoDay
from portal.tacho.schemas import TachoDag
from portal.tacho.segments import (
    DAY_MIN,
    KLOK_ACHTER,
    Change,
    cap_minutes,
    clock_notes,
    day_segments,
    day_totals,
    midnight,
    periods,
)

# The regulation's activities and the portal's names of them.
NAMES = {
    "driving": "rijden",
    "work": "werk",
    "availability": "beschikbaar",
    "rest": "rust",
    "unknown": "onbekend",
}
DOWNLOADED = datetime(2025, 9, 12, 11, 30, tzinfo=UTC)  # the moment in the file's name, NAME
LAG_DAY = date(2025, 9, 5)
DASH = "\u2013"  # an en dash between two times


def utc(*args: int) -> datetime:
    return datetime(*args, tzinfo=UTC)


def portal_totals(totals: dict[str, int]) -> dict[str, int]:
    return {NAMES[kind]: minutes for kind, minutes in totals.items()}


def expected_notes(day: annex_decoder.Day) -> list[tuple[str, dict]]:
    return [
        (KLOK_ACHTER, {"minuten": behind, "van": before, "naar": after})
        for before, after, behind in day.steps_back
    ]


@pytest.fixture(scope="module")
def decoded() -> dict[date, annex_decoder.Day]:
    """The independent decoding of the real card's activity EF."""
    return {d.date: d for d in annex_decoder.days(ef("activity"), downloaded=DOWNLOADED)}


@pytest.fixture(scope="module")
def real() -> ddd.CardDownload:
    return ddd.parse(real_file(), filename=NAME)


# --- the real card against the independent decoding --------------------------------------


def test_every_day_of_the_real_card_matches_the_independent_decoding(real, decoded):
    assert real.gedownload_op == DOWNLOADED
    assert [d.datum for d in real.dagen] == sorted(decoded) and len(decoded) == 145
    for day in real.dagen:
        expected = decoded[day.datum]
        until = reading.day_end(day.datum, real.gedownload_op)
        cap = cap_minutes(day.datum, until)
        # Minute for minute: every change, in the order recorded, and what it lasted.
        got = [
            (p.change.minuut, p.activiteit, p.minuten)
            for p in periods(day.wijzigingen, cap=cap)
            if p.change.minuut < cap
        ]
        assert got == [(m, NAMES[kind], n) for m, kind, n in expected.spans], day.datum
        assert day_totals(day.datum, day.wijzigingen, until=until) == portal_totals(
            expected.totals
        ), day.datum
        assert clock_notes(day.wijzigingen, cap=cap) == expected_notes(expected), day.datum
        assert (day.aanwezigheid, day.afstand_km) == (expected.presence, expected.distance)


def test_the_real_cards_lagging_clock_day_keeps_its_19_minutes_of_driving(real, decoded):
    noted = {d.datum: clock_notes(d.wijzigingen) for d in real.dagen if clock_notes(d.wijzigingen)}
    # One day of the 145: withdrawn at 15:01, inserted at 14:53 by the next unit's clock.
    assert noted == {LAG_DAY: [(KLOK_ACHTER, {"minuten": 8, "van": 15 * 60 + 1, "naar": 893})]}
    day = next(d for d in real.dagen if d.datum == LAG_DAY)
    totals = day_totals(day.datum, day.wijzigingen)
    assert totals["rijden"] == decoded[LAG_DAY].totals["driving"] == 5 * 60 + 41
    # The day counts 8 minutes more than 24 hours: no minute of either clock is lost.
    assert sum(totals.values()) == DAY_MIN + 8
    # Sorted by minute (the reading before), the overlap ate 19 minutes of driving.
    words = sorted(decoded[LAG_DAY].words, key=lambda w: w.minute)
    following = [w.minute for w in words[1:]] + [DAY_MIN]
    sorted_driving = sum(
        n - w.minute for w, n in zip(words, following, strict=True) if w.kind == "driving"
    )
    assert totals["rijden"] - sorted_driving == 19


def _per_day(segments) -> dict[date, dict[str, int]]:
    """Minutes per UTC day and activity of a timeline (a segment may cross midnight)."""
    out: dict[date, dict[str, int]] = {}
    for s in segments:
        day = s.begin.date()
        while midnight(day) < s.eind:
            begin, end = max(s.begin, midnight(day)), min(s.eind, midnight(day + timedelta(1)))
            minutes = int((end - begin).total_seconds() // 60)
            found = out.setdefault(day, dict.fromkeys(NAMES.values(), 0))
            found[s.activiteit] += minutes
            day += timedelta(days=1)
    return out


def test_the_checkers_timeline_counts_each_activity_of_every_day_once(real, decoded):
    segments = real.segments()
    assert all(a.eind == b.begin for a, b in itertools.pairwise(segments))  # no overlap, no gap
    per_day = _per_day(segments)
    for day, expected in decoded.items():
        want = portal_totals(expected.totals)
        lag = sum(behind for _b, _a, behind in expected.steps_back)
        # Driving, work, availability and rest exactly; the card-out time after a step back
        # takes the clock's difference back, so the timeline stays 24 hours a day.
        assert per_day[day] == {**want, "onbekend": want["onbekend"] - lag}, day


def test_the_lagging_day_lies_on_the_timeline_one_change_after_the_other(real):
    day = next(d for d in real.dagen if d.datum == LAG_DAY)
    tail = [
        (s.begin.strftime("%H:%M"), s.eind.strftime("%H:%M"), s.activiteit)
        for s in day_segments(day.datum, day.wijzigingen)
        if s.begin >= utc(2025, 9, 5, 14, 35)
    ]
    assert tail == [
        ("14:35", "14:56", "rijden"),
        ("14:56", "15:01", "werk"),
        # Recorded from 14:53 by a clock 8 minutes behind: placed after what came before.
        ("15:01", "15:02", "rust"),
        ("15:02", "15:04", "werk"),
        ("15:04", "15:25", "rijden"),
        ("15:25", "15:26", "werk"),
        ("15:26", "00:00", "onbekend"),
    ]


# --- the rules in recorded order -----------------------------------------------------------


def lagging_day(day: date) -> list[Change]:
    """Driving from 06:00 to 10:20 in one truck; the card then goes to a truck whose
    tachograph's clock is 15 minutes behind, which records 23 more minutes of driving from
    10:07, then a break; the card comes out at 11:40 and rest is entered by hand."""
    return [
        Change(0, "rust", kaart_in=False, handmatig=True),
        Change(6 * 60, "rijden"),
        Change(10 * 60 + 20, "onbekend", kaart_in=False),
        Change(10 * 60 + 7, "rijden"),
        Change(10 * 60 + 30, "rust"),
        Change(11 * 60 + 40, "rust", kaart_in=False, handmatig=True),
    ]


def test_driving_on_both_sides_of_a_lagging_clock_needs_its_break():
    day = date(2026, 3, 4)
    data = card_file(
        kaartnummer="NB00000012345600",
        achternaam="Vos",
        voornamen="Piet",
        dagen={day: lagging_day(day), day + timedelta(days=1): [Change(0, "rust")]},
        download_time=utc(2026, 3, 5, 9),
    )
    card = ddd.parse(data)
    assert card.dagen[0].wijzigingen == lagging_day(day)  # written and read in recorded order
    assert day_totals(day, card.dagen[0].wijzigingen)["rijden"] == 260 + 23
    found = [f for f in rules.check(card.segments()) if f.regel == "onderbreking"]
    # 4 h 43 of driving without a break: sorted by minute it was 4 h 20 and passed.
    assert [(f.soort, f.gemeten_min, f.grens_min) for f in found] == [("overtreding", 283, 270)]


def test_two_steps_back_in_a_day_are_two_notes_and_the_day_ends_at_midnight():
    changes = [
        Change(0, "rust"),
        Change(600, "rijden"),
        Change(620, "werk"),  # 20 of driving
        Change(610, "rijden"),  # 10 behind; work lasted 0
        Change(640, "werk"),  # 30 of driving
        Change(637, "rijden"),  # 3 behind
        Change(700, "rust"),
    ]
    assert [(p.change.minuut, p.minuten, p.achter) for p in periods(changes)] == [
        (0, 600, 0),
        (600, 20, 0),
        (620, 0, 10),
        (610, 30, 0),
        (640, 0, 3),
        (637, 63, 0),
        (700, DAY_MIN - 700, 0),
    ]
    assert clock_notes(changes) == [
        (KLOK_ACHTER, {"minuten": 10, "van": 620, "naar": 610}),
        (KLOK_ACHTER, {"minuten": 3, "van": 640, "naar": 637}),
    ]
    day = date(2026, 3, 4)
    assert day_totals(day, changes)["rijden"] == 20 + 30 + 63
    segments = day_segments(day, changes)
    # Without card-out time to take the 13 minutes back, the last rest ends at midnight.
    assert segments[-1].activiteit == "rust" and segments[-1].eind == midnight(day + timedelta(1))
    assert sum(s.minuten for s in segments if s.activiteit == "rijden") == 113
    # The download day: nothing counts after the download, also not of a lagging clock.
    until = midnight(day) + timedelta(minutes=650)
    assert day_totals(day, changes, until=until)["rijden"] == 20 + 30 + 13
    assert day_totals(day, changes, until=until)["rust"] == 600


def test_a_day_that_does_not_open_at_midnight_is_unknown_until_its_first_change():
    changes = [Change(300, "rijden"), Change(360, "rust")]
    first = periods(changes)[0]
    assert (first.change.minuut, first.activiteit, first.minuten) == (0, "onbekend", 300)
    assert day_totals(date(2026, 3, 4), changes)["onbekend"] == 300


def test_the_card_state_decides_what_the_time_counts_as():
    # p = 1, c = 1: entered by hand, counts as its activity; p = 1, c = 0: unknown whatever aa.
    changes = [
        Change(0, "rust", kaart_in=False, handmatig=True),
        Change(60, "onbekend", kaart_in=False),
        Change(120, "beschikbaar", bemanning=True, slot=1),
    ]
    totals = day_totals(date(2026, 3, 4), changes)
    assert (totals["rust"], totals["onbekend"], totals["beschikbaar"]) == (60, 60, DAY_MIN - 120)


def test_a_card_read_mid_drive_in_a_lagging_truck_drives_no_invented_hours():
    """The newest day ends in driving with the card in (recorded at 11:30 by a clock 10
    minutes behind), though its largest minute is the withdrawal at 11:40 from the truck
    before: an upload days later is no download moment, so nothing runs until midnight."""
    day = date(2026, 3, 4)
    changes = [
        Change(0, "rust", kaart_in=False, handmatig=True),
        Change(600, "rijden"),
        Change(700, "onbekend", kaart_in=False),
        Change(690, "rijden"),
    ]
    data = card_file(
        kaartnummer="NB00000012345600", achternaam="Vos", voornamen="Piet", dagen={day: changes}
    )
    card = ddd.parse(data, filename="download.ddd", received_at=utc(2026, 3, 7, 9))
    assert card.gedownload_op is None and "open_tail" in card.waarschuwingen
    driving = sum(s.minuten for s in card.segments() if s.activiteit == "rijden")
    assert driving == 100 + 1  # up to a minute after the last change, 11:40 on the timeline


# --- what users and integrations see of the real card ------------------------------------


@pytest.fixture
def real_upload(app, carrier, store_tacho):
    """The real card uploaded under the vendor's name, linked to a driver."""
    driver = create_driver(app, carrier, "Test Driver")
    file, _ = store_tacho(carrier, real_file(), NAME, driver_id=driver.id)
    return file, driver


def test_the_api_gives_every_day_as_the_independent_decoding_does(
    client, api_key, real_upload, decoded
):
    file, _driver = real_upload
    response = client.get(
        f"/api/v1/tacho_files/{file.id}/activiteiten", headers=bearer(api_key.key)
    )
    assert response.status_code == 200, response.get_data(as_text=True)
    days = response.get_json()
    assert [d["datum"] for d in days] == [d.isoformat() for d in sorted(decoded)]
    for found in days:  # every day fits the schema the OpenAPI document publishes
        TachoDag.model_validate(found)
    for found in days:
        expected = decoded[date.fromisoformat(found["datum"])]
        start = midnight(expected.date)
        assert {k: found[f"{k}_min"] for k in NAMES.values()} == portal_totals(expected.totals)
        assert [(w["tijd"], w["activiteit"], w["minuten"]) for w in found["wijzigingen"]] == [
            ((start + timedelta(minutes=m)).isoformat().replace("+00:00", ".000Z"), NAMES[k], n)
            for m, k, n in expected.spans
        ], found["datum"]
        assert [(n["code"], n["minuten"]) for n in found["notities"]] == [
            (KLOK_ACHTER, behind) for _b, _a, behind in expected.steps_back
        ]
    lag = next(d for d in days if d["datum"] == LAG_DAY.isoformat())
    assert lag["notities"] == [
        {
            "code": "klok_achter",
            "minuten": 8,
            "van": "2025-09-05T15:01:00.000Z",
            "naar": "2025-09-05T14:53:00.000Z",
            "melding": "clock of another vehicle unit behind by 8 minutes",
        }
    ]


def test_the_openapi_document_carries_the_days_notes(client):
    document = client.get("/api/v1/openapi.json").get_json()
    schemas = document["components"]["schemas"]
    day = schemas["TachoDag"]["properties"]
    assert "notities" in day and "TachoNotitie" in str(day["notities"])
    assert "klok_achter" in str(schemas["TachoNotitie"]["properties"]["code"])
    assert "minuten" in schemas["TachoWijziging"]["properties"]


def test_stored_days_total_as_the_independent_decoding(app, carrier, real_upload, decoded):
    def rows():
        return db.session.scalars(
            db.select(TachoDay).where(TachoDay.transporteur_id == carrier.id)
        ).all()

    stored = in_carrier(
        app,
        carrier.id,
        rows,
        lambda found: {r.datum: {k: getattr(r, f"{k}_min") for k in NAMES.values()} for r in found},
    )
    assert stored == {day: portal_totals(d.totals) for day, d in decoded.items()}


def test_reading_a_file_again_rewrites_its_days_as_the_reader_reads_them_now(
    app, carrier, real_upload, decoded
):
    file, _driver = real_upload

    def spoil():  # as the reader before this one stored the day: sorted, 19 minutes short
        row = db.session.scalar(
            db.select(TachoDay).where(
                TachoDay.transporteur_id == carrier.id, TachoDay.datum == LAG_DAY
            )
        )
        row.rijden_min -= 19

    in_carrier(app, carrier.id, spoil)
    written = in_carrier(
        app, carrier.id, lambda: service.reread(carrier_id=carrier.id, tacho_file_id=file.id)
    )
    assert written == 145
    driving = in_carrier(
        app,
        carrier.id,
        lambda: db.session.scalar(
            db.select(TachoDay.rijden_min).where(
                TachoDay.transporteur_id == carrier.id, TachoDay.datum == LAG_DAY
            )
        ),
    )
    assert driving == decoded[LAG_DAY].totals["driving"] == 341


def _text(response) -> str:
    import re

    text = re.sub(r"<[^>]+>", " ", response.get_data(as_text=True))
    return re.sub(r"\s+", " ", text.replace("&#39;", "'"))


def test_the_day_view_shows_the_note_and_counts_each_activity_once(
    client, planner, real_upload, decoded
):
    _file, driver = real_upload
    login(client, planner)
    url = f"/rijtijden/chauffeurs/{driver.id}/dagen/{LAG_DAY.isoformat()}"
    dutch = _text(client.get(url))
    assert "Opmerking bij de gegevens: Klok van een andere voertuigeenheid 8 min achter." in dutch
    assert "Na de wijziging van 15:01 UTC staat de volgende op 14:53 UTC" in dutch
    # The totals: 5 h 41 of driving (341 minutes, as decoded), 8 h 42 unknown (522).
    assert "Rijden 5 u 41" in dutch and "Onbekend 8 u 42" in dutch
    # The list keeps the recorded order: 15:01 card out, the step back, 14:53 on.
    position = [dutch.index(t) for t in (f"14:56{DASH}15:01", "15:01 ", "↶", f"14:53{DASH}14:54")]
    assert position == sorted(position)
    english = _text(client.get(url, headers={"Accept-Language": "en"}))
    assert "Data note: Clock of another vehicle unit behind by 8 min." in english
    assert "After the change at 15:01 UTC the next one is recorded at 14:53 UTC" in english
    # A day without a step back says nothing of clocks.
    other = _text(client.get(url.replace(LAG_DAY.isoformat(), "2025-09-04")))
    assert "voertuigeenheid" not in other and "Opmerking bij de gegevens" not in other


def test_the_28_days_and_the_files_days_name_the_note(client, planner, real_upload):
    file, driver = real_upload
    login(client, planner)
    overview = _text(client.get(f"/rijtijden/chauffeurs/{driver.id}?tot=2025-09-12"))
    assert overview.count("Klok van een andere voertuigeenheid 8 min achter") == 1
    days = _text(client.get(f"/tachograaf/{file.id}"))
    assert days.count("Klok van een andere voertuigeenheid 8 min achter") == 1


def test_the_demo_changes_trucks_into_one_whose_clock_lags_without_losing_driving():
    from portal.demo.tacho import LAGGING_CLOCK_MIN, _truck_swap
    from portal.tacho.ddd.build import changes_from_timeline

    day = date(2026, 11, 26)
    timeline = [
        (utc(2026, 11, 26, 0), "rust", {"kaart_in": False, "handmatig": True}),
        (utc(2026, 11, 26, 6), "rijden"),
        (utc(2026, 11, 26, 8), "werk"),
        (utc(2026, 11, 26, 9, 30), "rijden"),
        (utc(2026, 11, 26, 11), "rust", {"kaart_in": False, "handmatig": True}),
    ]
    days = changes_from_timeline(timeline)
    before = day_totals(day, days[day])
    _truck_swap(days, date(2026, 11, 27))
    assert clock_notes(days[day]) == [
        (KLOK_ACHTER, {"minuten": LAGGING_CLOCK_MIN, "van": 570, "naar": 570 - LAGGING_CLOCK_MIN})
    ]
    after = day_totals(day, days[day])
    assert after["rijden"] == before["rijden"] == 120 + 90
    assert after["rust"] == before["rust"] + LAGGING_CLOCK_MIN
