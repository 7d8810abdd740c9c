"""Reading driver card downloads in full: the real anonymised EFs of tests/fixtures/tachograph
assembled into whole files, and files written by portal.tacho.ddd.build."""

from __future__ import annotations

import base64
import itertools
from datetime import UTC, date, datetime, timedelta

import pytest
from tacho.real_card import NAME, ef, golden, real_file, sig, tlv

from portal.tacho import ddd
from portal.tacho.ddd import build, codes
from portal.tacho.ddd.detect import NotTachograph
from portal.tacho.segments import Change, totals


def utc(*args: int) -> datetime:
    return datetime(*args, tzinfo=UTC)


def ts(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


@pytest.fixture(scope="module")
def real() -> ddd.CardDownload:
    return ddd.parse(real_file(), filename=NAME)


# --- the real card: goldens ---------------------------------------------------------------


def test_identification_matches_the_golden(real):
    g = golden("identification")
    card, holder = g["card"], g["driverCardHolder"]
    number = card["driverIdentification"]
    assert real.kaartnummer == (
        number["driverIdentificationNumber"]["value"]
        + number["cardReplacementIndex"]["value"]
        + number["cardRenewalIndex"]["value"]
    )
    assert real.land == "FI"  # FINLAND, NationNumeric 0x12
    assert real.afgifte_instantie == card["cardIssuingAuthorityName"]["value"]
    assert real.afgiftedatum == ts(card["cardIssueDate"]).date()
    assert real.vervaldatum == ts(card["cardExpiryDate"]).date() == date(2024, 12, 31)
    assert real.achternaam == holder["cardHolderSurname"]["value"]
    assert real.voornamen == holder["cardHolderFirstNames"]["value"]
    assert real.houder == "TEST_FIRSTNAME TEST_SURNAME"
    birth = holder["cardHolderBirthDate"]
    assert real.geboortedatum == date(birth["year"], birth["month"], birth["day"])
    assert real.handtekening == "niet_geverifieerd"


def test_application_identification_makes_a_driver_card_of_the_first_generation():
    g = golden("application_identification")
    assert g["typeOfTachographCardId"] == "DRIVER_CARD"
    assert g["driver"]["activityStructureLength"] == len(ef("activity")) - 4
    assert ddd.parse(real_file(second=False)).generatie == "1"
    assert ddd.parse(real_file()).generatie == "2"


def test_vehicles_match_the_golden(real):
    records = golden("vehicles")["records"]
    expected = sorted(
        (
            ts(r["vehicleFirstUse"]),
            ts(r["vehicleLastUse"]),
            r["vehicleOdometerBeginKm"],
            r["vehicleOdometerEndKm"],
            r["vehicleRegistration"]["number"]["value"],
        )
        for r in records
    )
    got = [
        (v.eerste_gebruik, v.laatste_gebruik, v.km_begin, v.km_eind, v.kenteken)
        for v in real.voertuigen
    ]
    assert got == expected
    assert {v.land for v in real.voertuigen} == {"FI"}
    assert all(v.vin is None for v in real.voertuigen)  # Gen1 records carry no VIN


def _places(records: list[dict]) -> list[tuple]:
    return sorted(
        (
            ts(r["entryTime"]),
            "begin" if r["entryTypeDailyWorkPeriod"].startswith("BEGIN") else "einde",
            r["vehicleOdometerKm"],
            base64.b64decode(r["dailyWorkPeriodRegion"])[0],
        )
        for r in records
    )


def test_places_match_the_golden():
    card = ddd.parse(real_file(second=False))
    assert [(p.tijd, p.soort, p.km, p.regio) for p in card.plaatsen] == _places(
        golden("places")["records"]
    )
    assert {p.land for p in card.plaatsen} == {"FI"}
    assert all(p.lat is None for p in card.plaatsen)


def test_second_generation_places_match_the_golden_with_their_position(real):
    records = golden("places_g2")["records"]
    assert [(p.tijd, p.soort, p.km, p.regio) for p in real.plaatsen] == _places(records)
    coordinates = records[0]["entryGnssPlaceRecord"]["geoCoordinates"]
    assert (coordinates["latitude"], coordinates["longitude"]) == (60100, 24560)
    first = real.plaatsen[0]
    # ±DDMM.M x 10: 60100 is 60 degrees 10.0 minutes (Helsinki).
    assert first.lat == pytest.approx(60 + 10 / 60)
    assert first.lon == pytest.approx(24 + 56 / 60)


def test_gnss_places_match_the_golden(real):
    records = [r for r in golden("gnss_places")["records"] if r.get("timestamp")]
    expected = sorted((ts(r["timestamp"]), r["vehicleOdometerKm"]) for r in records)
    assert [(g.tijd, g.km) for g in real.gnss] == expected
    assert len(real.gnss) == 293
    assert real.gnss[0].lat == pytest.approx(60.1666667)


def test_current_usage_matches_the_golden(real):
    g = golden("current_usage")
    assert real.huidig_gebruik == ddd.CurrentUse(
        sessie_begin=ts(g["sessionOpenTime"]),
        kenteken=g["sessionOpenVehicle"]["number"]["value"],
        land="FI",
    )


# --- the real card: the wrapped activity buffer ------------------------------------------


def test_the_real_wrapped_buffer_is_walked_from_newest_to_oldest(real):
    value = ef("activity")
    oldest, newest = int.from_bytes(value[0:2], "big"), int.from_bytes(value[2:4], "big")
    assert oldest > newest, "the fixture's buffer wraps around its end"
    assert len(real.dagen) == 145
    assert real.dagen[0].datum == date(2025, 4, 15)
    assert real.dagen[-1].datum == date(2025, 9, 12)
    dates = [d.datum for d in real.dagen]
    assert dates == sorted(set(dates))
    # 151 calendar days, 6 without a record.
    assert (dates[-1] - dates[0]).days + 1 - len(dates) == 6
    assert "presence_counter_gap" not in real.waarschuwingen
    assert [d.aanwezigheid for d in real.dagen[:2]] == [210, 211]


def test_the_worked_example_of_the_first_day(real):
    first = real.dagen[0].wijzigingen[:4]
    # 0x6000: card out, manually entered REST from 00:00.
    assert first[0] == Change(0, "rust", kaart_in=False, handmatig=True)
    # 0x00F2, 0x18F5, 0x10F6: inserted, single: REST 04:02, DRIVING 04:05, WORK 04:06.
    assert first[1:] == [
        Change(4 * 60 + 2, "rust"),
        Change(4 * 60 + 5, "rijden"),
        Change(4 * 60 + 6, "werk"),
    ]


def test_the_last_day_ends_driving_at_11_26_and_is_capped_at_the_download(real):
    last = real.dagen[-1]
    assert last.wijzigingen[-1] == Change(11 * 60 + 26, "rijden")
    assert real.gedownload_op == utc(2025, 9, 12, 11, 30)  # from the file name
    segments = real.segments()
    assert segments[-1].activiteit == "rijden"
    assert segments[-1].begin == utc(2025, 9, 12, 11, 26)
    assert segments[-1].eind == utc(2025, 9, 12, 11, 30)  # not 24:00: no 12.5 h invented


def test_days_without_a_record_are_unknown(real):
    segments = real.segments()
    assert segments[0].begin == utc(2025, 4, 15)
    missing = sorted(
        {real.dagen[0].datum + timedelta(days=n) for n in range(151)}
        - {d.datum for d in real.dagen}
    )
    assert len(missing) == 6
    for day in missing:
        start = datetime(day.year, day.month, day.day, tzinfo=UTC)
        covering = [s for s in segments if s.begin <= start < s.eind]
        assert covering and covering[0].activiteit == "onbekend"
    # Without gaps: the segments tile the whole period.
    assert all(a.eind == b.begin for a, b in itertools.pairwise(segments))


def test_the_same_activity_from_both_applications_prefers_the_second_generations():
    card = build.card_file(
        kaartnummer="NB00000123456700",
        achternaam="DE VRIES",
        voornamen="JAN",
        dagen={date(2026, 3, 2): [Change(0, "rust"), Change(360, "rijden")]},
    )
    other = build.activity_buffer({date(2026, 3, 2): [Change(0, "rust"), Change(400, "werk")]})
    data = card + tlv(0x0504, 2, other) + sig(0x0504, 2)
    assert ddd.parse(data).dagen[0].wijzigingen[-1] == Change(400, "werk")


# --- the activity word: bit polarity pinned ----------------------------------------------


@pytest.mark.parametrize(
    ("word", "change"),
    [
        # s c p aa t: 0 1 1 00 0 -> card out, entered by hand: REST
        (0x6000, Change(0, "rust", kaart_in=False, handmatig=True)),
        # 0 0 1 00 -> card out, nothing entered: UNKNOWN, never rest
        (0x2000, Change(0, "onbekend", kaart_in=False)),
        # 0 0 1 11 -> card out unknown: aa does not matter
        (0x3800 | 75, Change(75, "onbekend", kaart_in=False)),
        # 0 0 0 11 t=245 -> inserted, single, DRIVING
        (0x18F5, Change(245, "rijden")),
        # 0 1 0 10 -> inserted, CREW, WORK
        (0x5000 | 600, Change(600, "werk", bemanning=True)),
        # 1 0 0 01 -> co-driver slot, AVAILABILITY
        (0x8800 | 1439, Change(1439, "beschikbaar", slot=1)),
        # 0 1 1 10 -> card out, entered by hand: WORK
        (0x7000 | 30, Change(30, "werk", kaart_in=False, handmatig=True)),
    ],
)
def test_activity_change_bits(word, change):
    assert codes.card_change(word) == change
    # Written back, the word is the same (an unknown period is written with aa = 00).
    assert codes.change_word(change) == (
        word & ~0x1800 if change.activiteit == "onbekend" else word
    )


# --- generated cards ---------------------------------------------------------------------

NUMBER = "NB00000123456700"


def card(dagen, **kwargs) -> bytes:
    return build.card_file(
        kaartnummer=NUMBER, achternaam="DE VRIES", voornamen="JAN", dagen=dagen, **kwargs
    )


def timeline_days(days: int = 5) -> dict[date, list[Change]]:
    entries = []
    for n in range(days):
        day = utc(2026, 3, 2) + timedelta(days=n)
        entries += [
            (day + timedelta(hours=6), "werk"),
            (day + timedelta(hours=6, minutes=20), "rijden"),
            (day + timedelta(hours=10, minutes=50), "rust"),
            (day + timedelta(hours=11, minutes=35), "rijden"),
            (day + timedelta(hours=15), "werk"),
            (day + timedelta(hours=15, minutes=30), "onbekend"),
        ]
    return build.changes_from_timeline(entries)


@pytest.mark.parametrize(
    ("generation", "version_2", "generatie"), [(1, False, "1"), (2, False, "2"), (2, True, "2.2")]
)
def test_a_generated_card_reads_back_as_written(generation, version_2, generatie):
    dagen = timeline_days(5)
    vehicles = [
        ddd.VehicleUse(utc(2026, 3, 2, 6), utc(2026, 3, 2, 15, 30), 1000, 1600, "BX12AB", "NL",
                       "XLRTEH4300G123456" if generation == 2 else None)
    ]  # fmt: skip
    places = [
        ddd.Place(utc(2026, 3, 2, 6), "begin", False, "NL", None, 1000, 52.1, 5.1),
        ddd.Place(utc(2026, 3, 2, 15, 30), "einde", True, "DE", 3, 1600, 51.5, 7.25),
    ]
    gnss = [ddd.GnssPlace(utc(2026, 3, 2, 9), 52.5, 6.0, 1250)]
    data = card(
        dagen,
        generation=generation,
        version_2=version_2,
        vervaldatum=date(2030, 5, 31),
        download_time=utc(2026, 3, 6, 16),
        vehicles=vehicles,
        places=places,
        gnss=gnss,
    )
    parsed = ddd.parse(data)
    assert parsed.generatie == generatie
    assert (parsed.kaartnummer, parsed.houder, parsed.land) == (NUMBER, "JAN DE VRIES", "NL")
    assert parsed.vervaldatum == date(2030, 5, 31)
    assert [d.datum for d in parsed.dagen] == sorted(dagen)
    assert {d.datum: d.wijzigingen for d in parsed.dagen} == dagen
    assert [d.aanwezigheid for d in parsed.dagen] == [1, 2, 3, 4, 5]
    assert parsed.dagen[0].afstand_km == (4 * 60 + 30 + 3 * 60 + 25) * 70 // 60
    assert parsed.gedownload_op == utc(2026, 3, 6, 16)
    assert parsed.voertuigen == vehicles
    if generation == 1:
        assert parsed.plaatsen == [
            ddd.Place(p.tijd, p.soort, p.handmatig, p.land, p.regio, p.km) for p in places
        ]
        assert parsed.gnss == []
    else:
        assert parsed.plaatsen == places
        assert parsed.gnss == gnss
    assert parsed.waarschuwingen == []


def test_a_card_downloaded_mid_drive_does_not_drive_until_midnight():
    dagen = build.changes_from_timeline(
        [(utc(2026, 3, 2, 6), "werk"), (utc(2026, 3, 2, 6, 15), "rijden")]
    )
    parsed = ddd.parse(card(dagen), received_at=utc(2026, 3, 2, 9, 45))
    assert parsed.gedownload_op == utc(2026, 3, 2, 9, 45)
    minutes = totals(parsed.segments())
    assert minutes["rijden"] == 3 * 60 + 30  # 06:15 to the download at 09:45, not to 24:00
    assert parsed.segments()[-1].eind == utc(2026, 3, 2, 9, 45)


def test_the_download_moment_prefers_the_file_name_then_the_card_then_the_upload():
    dagen = {date(2026, 3, 2): [Change(0, "rust"), Change(360, "rijden")]}
    received = utc(2026, 3, 3, 8)
    on_card = utc(2026, 3, 2, 10)
    data = card(dagen, download_time=on_card)
    named = ddd.parse(data, filename="C_20260302_1105_J_DE_VRIES.DDD", received_at=received)
    assert named.gedownload_op == utc(2026, 3, 2, 11, 5)
    assert ddd.parse(data, received_at=received).gedownload_op == on_card
    # EF_Card_Download from an earlier download says nothing about this one.
    stale = card(dagen, download_time=utc(2026, 2, 20, 10))
    same_day = utc(2026, 3, 2, 18)
    assert ddd.parse(stale, received_at=same_day).gedownload_op == same_day


def test_a_file_received_days_later_leaves_the_tail_of_a_card_still_in_unknown():
    """The card was in at its last change, so it was read that day: an upload days later
    says nothing about when. The drive goes on for no more than a minute, not to midnight."""
    dagen = {date(2026, 3, 2): [Change(0, "rust"), Change(360, "rijden")]}
    parsed = ddd.parse(card(dagen), filename="kaart.DDD", received_at=utc(2026, 3, 5, 9))
    assert parsed.gedownload_op is None
    assert parsed.segments()[-1].eind == utc(2026, 3, 2, 6, 1)
    assert totals(parsed.segments())["rijden"] == 1
    # A card taken out at its last change may have been read any time after.
    out = {date(2026, 3, 2): [Change(0, "rust"), Change(360, "onbekend", kaart_in=False)]}
    later = ddd.parse(card(out), received_at=utc(2026, 3, 5, 9))
    assert later.gedownload_op == utc(2026, 3, 5, 9)


def test_without_a_download_moment_the_tail_is_open():
    dagen = {date(2026, 3, 2): [Change(0, "rust"), Change(360, "rijden")]}
    parsed = ddd.parse(card(dagen))
    assert parsed.gedownload_op is None
    assert "open_tail" in parsed.waarschuwingen
    # The last change is known to have begun, no more: it lasts one minute.
    assert parsed.segments()[-1].eind == utc(2026, 3, 2, 6, 1)


def test_time_with_the_card_out_is_unknown_and_manual_entries_count_as_entered():
    dagen = {
        date(2026, 3, 2): [
            Change(0, "rust", kaart_in=False, handmatig=True),
            Change(360, "rijden"),
            Change(600, "onbekend", kaart_in=False),
        ]
    }
    parsed = ddd.parse(card(dagen), received_at=utc(2026, 3, 5))
    segments = parsed.segments()
    assert [(s.activiteit, s.bron, s.minuten) for s in segments] == [
        ("rust", "kaart_handmatig", 360),
        ("rijden", "kaart", 240),
        ("onbekend", "kaart", 840),
    ]


def test_the_crew_flag_and_the_slot_are_kept():
    dagen = {
        date(2026, 3, 2): [
            Change(0, "rust", bemanning=True, slot=1),
            Change(60, "rijden", bemanning=True),
        ]
    }
    parsed = ddd.parse(card(dagen), received_at=utc(2026, 3, 3))
    assert parsed.dagen[0].wijzigingen == dagen[date(2026, 3, 2)]
    assert all(s.bemanning for s in parsed.segments())


@pytest.mark.parametrize("buffer_size", [None, 400, 1000])
def test_records_that_wrap_around_the_buffer_end_are_read_whole(buffer_size):
    dagen = timeline_days(6)
    data = card(dagen, wrap=True, buffer_size=buffer_size)
    value = _activity_value(data)
    oldest, newest = int.from_bytes(value[0:2], "big"), int.from_bytes(value[2:4], "big")
    assert oldest > newest or buffer_size is None
    parsed = ddd.parse(data, received_at=utc(2026, 3, 10))
    assert {d.datum: d.wijzigingen for d in parsed.dagen} == dagen


def test_a_header_that_wraps_is_read():
    dagen = timeline_days(3)
    data = card(dagen, wrap=True, buffer_size=300)
    value = _activity_value(data)
    ring_size = len(value) - 4
    # The middle record starts two bytes before the end: its header is split.
    first = int.from_bytes(value[0:2], "big")
    length = int.from_bytes(value[4 + first + 2 : 4 + first + 4], "big")
    assert (first + length) % ring_size == ring_size - 2
    assert [d.datum for d in ddd.parse(data).dagen] == sorted(dagen)


def test_an_overwritten_buffer_gives_only_the_days_it_still_holds():
    dagen = timeline_days(20)
    parsed = ddd.parse(card(dagen, buffer_size=500))
    kept = [d.datum for d in parsed.dagen]
    assert kept == sorted(dagen)[-len(kept) :]
    assert 10 < len(kept) < 20
    assert parsed.dagen[0].wijzigingen == dagen[kept[0]]


def test_an_empty_card_has_no_days():
    parsed = ddd.parse(card({}), received_at=utc(2026, 3, 3))
    assert parsed.dagen == [] and parsed.segments() == []
    assert parsed.periode_van is None
    assert parsed.kaartnummer == NUMBER


def test_an_unknown_tag_is_skipped():
    data = card(timeline_days(2))
    parsed = ddd.parse(tlv(0x0002, 0, bytes(25)) + tlv(0x7A7A, 0, b"future stuff") + data[30:])
    assert len(parsed.dagen) == 2
    assert "unknown_tag" in parsed.waarschuwingen


def test_a_file_stored_with_the_vu_prefix_is_read():
    data = card(timeline_days(2))
    assert ddd.parse(b"\x76\x06" + data).kaartnummer == NUMBER


def test_a_truncated_file_is_refused_saying_where():
    data = card(timeline_days(3))
    with pytest.raises(ddd.DamagedFile) as caught:
        ddd.parse(data[:-50])
    error = caught.value
    assert error.reason == "card_structure"
    assert "at byte" in error.where and "at byte" in str(error)
    assert isinstance(error, NotTachograph)  # callers of detect keep working


def test_a_broken_activity_chain_is_refused_naming_the_ef():
    data = bytearray(card(timeline_days(4)))
    at = bytes(data).index(b"\x05\x04\x00") + 5  # the activity EF's value
    newest = int.from_bytes(data[at + 2 : at + 4], "big")
    data[at + 4 + newest] = 0x7F  # the newest record's previous length: far too long
    with pytest.raises(ddd.DamagedFile) as caught:
        ddd.parse(bytes(data))
    assert caught.value.reason == "activity_buffer"
    assert caught.value.where.startswith("EF 0504 Driver_Activity_Data, byte ")


def test_days_out_of_order_are_refused():
    data = bytearray(card(timeline_days(3)))
    at = bytes(data).index(b"\x05\x04\x00") + 5
    # The oldest record's date moved after the newest one's.
    data[at + 4 + 4 : at + 4 + 8] = codes.seconds_of(date(2027, 1, 1)).to_bytes(4, "big")
    with pytest.raises(ddd.DamagedFile) as caught:
        ddd.parse(bytes(data))
    assert caught.value.reason == "activity_buffer"


def test_a_workshop_card_is_refused_as_another_card():
    data = bytearray(real_file(second=False))
    data[data.index(b"\x05\x01\x00\x00\x0a") + 5] = 2
    with pytest.raises(ddd.DamagedFile) as caught:
        ddd.parse(bytes(data))
    assert (caught.value.reason, caught.value.card_type) == ("other_card", "workshop")


def test_a_presence_counter_gap_is_a_warning():
    dagen = timeline_days(3)
    data = bytearray(card(dagen))
    at = bytes(data).index(b"\x05\x04\x00") + 5
    data[at + 4 + 8 : at + 4 + 10] = b"\x00\x50"  # the oldest record's counter
    parsed = ddd.parse(bytes(data))
    assert "presence_counter_gap" in parsed.waarschuwingen
    assert len(parsed.dagen) == 3


def test_empty_and_foreign_files_are_refused():
    with pytest.raises(ddd.DamagedFile) as caught:
        ddd.parse(b"")
    assert caught.value.reason == "empty"
    with pytest.raises(ddd.DamagedFile) as caught:
        ddd.parse(b"%PDF-1.7\n" + bytes(100))
    assert caught.value.reason == "unknown"


def _activity_value(data: bytes) -> bytes:
    at = data.index(b"\x05\x04\x00")
    length = int.from_bytes(data[at + 3 : at + 5], "big")
    return data[at + 5 : at + 5 + length]


def test_a_built_card_downloaded_after_midnight_has_the_download_days_record():
    """The test builder, as a card does: driving that goes on past midnight up to the
    download starts the download day at 00:00, so the remaining time reads it at any hour."""
    download = datetime(2026, 11, 29, 0, 2, tzinfo=UTC)
    timeline = [(download - timedelta(hours=50), "rust"), (download - timedelta(hours=3), "rijden")]

    days = build.changes_from_timeline(timeline, until=download)

    assert sorted(days)[-1] == date(2026, 11, 29)
    assert days[date(2026, 11, 29)] == [Change(0, "rijden")]
    assert max(build.changes_from_timeline(timeline)) == date(2026, 11, 28)  # without: none
