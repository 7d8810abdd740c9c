"""Reading vehicle unit downloads: overview, the days per slot, and the cards inserted."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest
from tacho.samples import events_1, speed_1, technical_1, vu_file_2

from portal.tacho import ddd
from portal.tacho.ddd import build
from portal.tacho.segments import Change

JAN, PIET = "NB00000123456700", "NB00000765432100"


def utc(*args: int) -> datetime:
    return datetime(*args, tzinfo=UTC)


def two_days() -> tuple[bytes, dict]:
    day1 = [
        Change(0, "rust", kaart_in=False),
        Change(350, "werk"),
        Change(360, "rijden"),
        Change(600, "rust"),
        Change(645, "rijden", bemanning=True),
        Change(900, "rijden", kaart_in=False),  # driving after the card came out
        Change(930, "rust", kaart_in=False),
    ]
    day2_driver = [Change(0, "rust", kaart_in=False), Change(480, "rijden"), Change(720, "werk")]
    day2_co = [Change(0, "rust", kaart_in=False, slot=1), Change(480, "beschikbaar", slot=1)]
    sessions = [
        ddd.CardSession(JAN, 0, utc(2026, 3, 2, 5, 50), utc(2026, 3, 2, 15, 0), "JAN DE VRIES",
                        100_000, 100_300),
        ddd.CardSession(JAN, 0, utc(2026, 3, 3, 7, 30), None, "JAN DE VRIES", 100_400),
        ddd.CardSession(PIET, 1, utc(2026, 3, 3, 7, 45), utc(2026, 3, 3, 13, 0), "PIET BOS",
                        100_400, 100_520),
    ]  # fmt: skip
    dagen = {date(2026, 3, 2): {0: day1}, date(2026, 3, 3): {0: day2_driver, 1: day2_co}}
    data = build.vu_file(
        vin="XLRTEH4300G123456",
        kenteken="BX12AB",
        dagen=dagen,
        kaarten=sessions,
        download_time=utc(2026, 3, 3, 14, 0),
    )
    return data, dagen


def test_the_overview_and_days_of_a_first_generation_unit():
    data, dagen = two_days()
    vu = ddd.parse(data + events_1() + speed_1() + technical_1())
    assert isinstance(vu, ddd.VuDownload)
    assert (vu.generatie, vu.vin, vu.kenteken, vu.land) == (
        "1",
        "XLRTEH4300G123456",
        "BX12AB",
        "NL",
    )
    assert vu.gedownload_op == utc(2026, 3, 3, 14, 0)
    assert (vu.periode_van, vu.periode_tot) == (utc(2026, 3, 2), utc(2026, 3, 3, 14, 0))
    assert [d.datum for d in vu.dagen] == [date(2026, 3, 2), date(2026, 3, 3)]
    assert [d.km_middernacht for d in vu.dagen] == [100_000, 100_400]
    assert vu.dagen[0].wijzigingen[0] == dagen[date(2026, 3, 2)][0]
    assert vu.dagen[1].wijzigingen[1] == dagen[date(2026, 3, 3)][1]
    # The unit records the slot's activity without a card too: driving without a card.
    assert Change(900, "rijden", kaart_in=False) in vu.dagen[0].wijzigingen[0]
    assert vu.handtekening == "niet_geverifieerd"


def test_the_card_sessions_are_read_with_their_numbers():
    data, _ = two_days()
    vu = ddd.parse(data)
    sessions = [(s.kaartnummer, s.slot, s.ingestoken, s.uitgenomen) for s in vu.kaarten]
    assert sessions == [
        (JAN, 0, utc(2026, 3, 2, 5, 50), utc(2026, 3, 2, 15, 0)),
        (JAN, 0, utc(2026, 3, 3, 7, 30), None),
        (PIET, 1, utc(2026, 3, 3, 7, 45), utc(2026, 3, 3, 13, 0)),
    ]
    assert vu.kaarten[0].houder == "JAN DE VRIES"


def test_card_days_hold_the_slots_changes_while_the_card_was_in():
    data, _ = two_days()
    days = ddd.parse(data).card_days()
    assert set(days) == {JAN, PIET}
    jan1, jan2 = days[JAN]
    assert jan1.datum == date(2026, 3, 2)
    assert jan1.wijzigingen == [
        Change(0, "onbekend", kaart_in=False),
        Change(350, "werk"),
        Change(360, "rijden"),
        Change(600, "rust"),
        Change(645, "rijden", bemanning=True),
        Change(900, "onbekend", kaart_in=False),  # the card came out at 15:00
    ]
    assert jan1.afstand_km == 300
    # Still inserted at the download (14:00): the slot's changes until then, nothing after.
    assert jan2.wijzigingen == [
        Change(0, "onbekend", kaart_in=False),
        Change(450, "rust"),  # the slot's state when the card went in at 07:30
        Change(480, "rijden"),
        Change(720, "werk"),
        Change(840, "onbekend", kaart_in=False),
    ]
    (piet,) = days[PIET]
    assert piet.wijzigingen == [
        Change(0, "onbekend", kaart_in=False, slot=1),
        Change(465, "rust", slot=1),
        Change(480, "beschikbaar", slot=1),
        Change(780, "onbekend", kaart_in=False, slot=1),
    ]
    assert piet.afstand_km == 120


def test_a_session_over_midnight_gives_both_days():
    dagen = {
        date(2026, 3, 2): [Change(0, "rust", kaart_in=False), Change(1320, "rijden")],
        date(2026, 3, 3): [Change(0, "rijden"), Change(120, "rust", kaart_in=False)],
    }
    session = ddd.CardSession(JAN, 0, utc(2026, 3, 2, 22), utc(2026, 3, 3, 2), "JAN DE VRIES",
                              100_350, 100_600)  # fmt: skip
    vu = ddd.parse(build.vu_file(dagen=dagen, kaarten=[session]))
    first, second = vu.card_days()[JAN]
    assert first.wijzigingen == [Change(0, "onbekend", kaart_in=False), Change(1320, "rijden")]
    assert second.wijzigingen == [Change(0, "rijden"), Change(120, "onbekend", kaart_in=False)]
    assert (first.afstand_km, second.afstand_km) == (50, 200)


@pytest.mark.parametrize(("version_2", "generatie"), [(False, "2"), (True, "2.2")])
def test_a_second_generation_unit_gives_its_overview_and_days(version_2, generatie):
    vu = ddd.parse(vu_file_2(vin="YS2R4X20005399401", kenteken="VZH56E", version_2=version_2))
    assert (vu.generatie, vu.vin, vu.kenteken) == (generatie, "YS2R4X20005399401", "VZH56E")
    assert vu.land == ("NL" if version_2 else None)  # only the VRI carries the nation
    assert [d.datum for d in vu.dagen] == [
        date(2026, 11, 9),
        date(2026, 11, 10),
        date(2026, 11, 11),
    ]
    assert vu.dagen[0].km_middernacht == 100_000
    assert [c.minuut for c in vu.dagen[0].wijzigingen[0]] == [0, 120, 240, 360, 480]
    assert vu.gedownload_op == utc(2026, 11, 12, 10)


def test_the_demo_samples_are_read():
    from portal.tacho import samples

    for generation in (1, 2):
        vu = ddd.parse(
            samples.vu_download(
                vin="XLRTEH4300G123456",
                kenteken="BX-12-AB",
                first_day=date(2026, 10, 20),
                days=30,
                generation=generation,
            )
        )
        assert len(vu.dagen) == 30 and vu.kenteken == "BX12AB"


def test_a_truncated_unit_file_is_refused_naming_the_block():
    data, _ = two_days()
    with pytest.raises(ddd.DamagedFile) as caught:
        ddd.parse(data[:-10])
    error = caught.value
    assert error.reason == "vu_structure"
    assert error.where.startswith("VU block 76 02 at byte ")
    assert "76 02" in str(error)


def test_bytes_after_the_blocks_are_refused():
    data, _ = two_days()
    with pytest.raises(ddd.DamagedFile) as caught:
        ddd.parse(data + b"PK\x03\x04")
    assert caught.value.reason == "vu_structure"
    assert caught.value.where == f"byte {len(data)}"


def test_an_interface_version_alone_is_refused():
    with pytest.raises(ddd.DamagedFile):
        ddd.parse(b"\x76\x00\x02\x02")
