"""Telling driver card and vehicle unit downloads apart by their bytes, and what is read."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tacho.samples import (
    activities_1,
    card_file,
    icc,
    identification,
    overview_1,
    record,
    vu_file_1,
    vu_file_2,
)

from portal.tacho.ddd.detect import NotTachograph, identify


def utc(y: int, m: int, d: int) -> datetime:
    return datetime(y, m, d, tzinfo=UTC)


def refused(data: bytes) -> NotTachograph:
    with pytest.raises(NotTachograph) as caught:
        identify(data)
    return caught.value


# --- driver cards ------------------------------------------------------------------------


def test_a_driver_card_download_is_recognised_with_its_number_holder_and_days():
    data = card_file(first_day=date(2026, 10, 1), days=28)
    assert data.startswith(bytes.fromhex("0002000019")), "EF_ICC opens the file"
    assert data[30:35] == bytes.fromhex("0005000008"), "EF_IC follows"

    info = identify(data)

    assert info.soort == "bestuurderskaart"
    assert info.generatie == "1"
    assert info.kaartnummer == "NB00000123456700"
    assert info.houder == "JAN DE VRIES"
    assert info.periode_van == utc(2026, 10, 1)
    assert info.periode_tot == utc(2026, 10, 29)  # the end of 28 October, exclusive
    assert info.vin is None and info.kenteken is None


def test_a_card_download_without_the_optional_common_files_is_recognised():
    info = identify(card_file(with_icc=False))
    assert info.soort == "bestuurderskaart"
    assert info.kaartnummer == "NB00000123456700"


def test_a_second_generation_card_is_told_by_its_record_types():
    info = identify(card_file(second_generation=True))
    assert (info.soort, info.generatie) == ("bestuurderskaart", "2")


def test_a_holders_name_is_read_in_its_code_page():
    data = icc() + identification(surname="ŁUKASIEWICZ", first_names="PIOTR", code_page=2)
    assert identify(data).houder == "PIOTR ŁUKASIEWICZ"


# 20 records of 20 bytes and 40 spare bytes: a 440-byte ring with the newest record at 380.
# Rotated by 55 or 58 the newest record's header itself wraps around the ring's end.
@pytest.mark.parametrize("rotate", [0, 3, 55, 58, 300])
def test_the_days_are_read_when_the_activity_records_wrap_around_the_buffer(rotate):
    info = identify(card_file(first_day=date(2026, 9, 14), days=20, rotate=rotate))
    assert (info.periode_van, info.periode_tot) == (utc(2026, 9, 14), utc(2026, 10, 4))


def test_a_card_without_activity_data_has_no_period():
    info = identify(icc() + identification())
    assert info.soort == "bestuurderskaart"
    assert info.periode_van is None and info.periode_tot is None


@pytest.mark.parametrize(("card_type", "name"), [(2, "workshop"), (3, "control"), (4, "company")])
def test_a_workshop_control_or_company_card_is_no_driver_card(card_type, name):
    error = refused(card_file(card_type=card_type))
    assert error.reason == "other_card"
    assert error.card_type == name


def test_a_card_download_that_breaks_off_is_refused():
    error = refused(card_file()[:-10])
    assert error.reason == "card_structure"


def test_a_record_of_an_unknown_tag_in_between_is_skipped_not_refused():
    """A newer generation may add EFs: the file is still the card download it says it is."""
    plain = identify(icc() + identification())
    data = icc() + b"\x12\x34\x00\x00\x04abcd" + identification()
    assert identify(data) == plain
    assert plain.soort == "bestuurderskaart"


def test_card_records_without_any_identification_are_refused():
    data = record(0x0505, 0, bytes(20)) + record(0x0506, 0, bytes(20))
    assert refused(data).reason == "card_structure"


# --- vehicle units -----------------------------------------------------------------------


def test_a_first_generation_vehicle_unit_download_is_recognised():
    data = vu_file_1(vin="XLRTEH4300G123456", kenteken="BX12AB", first_day=date(2026, 11, 2))
    assert data[:2] == b"\x76\x01"

    info = identify(data)

    assert info.soort == "voertuigeenheid"
    assert info.generatie == "1"
    assert info.vin == "XLRTEH4300G123456"
    assert info.kenteken == "BX12AB"
    assert info.periode_van == utc(2026, 11, 2)
    assert info.periode_tot == utc(2026, 11, 9)  # seven days
    assert info.kaartnummer is None


def test_an_overview_alone_is_a_vehicle_unit_without_a_period():
    info = identify(overview_1("XLRTEH4300G123456", "BX12AB", date(2026, 11, 2)))
    assert info.soort == "voertuigeenheid"
    assert info.periode_van is None


def test_a_vehicle_unit_download_may_start_with_a_days_activities():
    info = identify(activities_1(date(2026, 5, 4)) + activities_1(date(2026, 5, 5)))
    assert (info.periode_van, info.periode_tot) == (utc(2026, 5, 4), utc(2026, 5, 6))


def test_a_second_generation_vehicle_unit_is_read_from_its_record_arrays():
    data = vu_file_2(vin="YS2R4X20005399401", kenteken="VZH56E", first_day=date(2026, 11, 9))
    assert data[:2] == b"\x76\x21"
    info = identify(data)
    assert (info.soort, info.generatie) == ("voertuigeenheid", "2")
    assert (info.vin, info.kenteken) == ("YS2R4X20005399401", "VZH56E")
    assert (info.periode_van, info.periode_tot) == (utc(2026, 11, 9), utc(2026, 11, 12))


def test_a_version_2_vehicle_unit_starts_with_its_interface_version():
    data = vu_file_2(version_2=True, kenteken="12BLK3")
    assert data[:6] == b"\x76\x00\x02\x02\x76\x31"
    info = identify(data)
    assert (info.soort, info.generatie, info.kenteken) == ("voertuigeenheid", "2.2", "12BLK3")


def test_a_first_block_that_breaks_off_is_refused():
    assert refused(vu_file_1()[:400]).reason == "vu_structure"


def test_a_first_block_followed_by_something_else_is_refused():
    data = overview_1("XLRTEH4300G123456", "BX12AB", date(2026, 11, 2)) + b"PK\x03\x04 zip"
    assert refused(data).reason == "vu_structure"


def test_an_interface_version_alone_is_refused():
    assert refused(b"\x76\x00\x02\x02").reason == "vu_structure"


def test_what_follows_whole_blocks_does_not_undo_them():
    info = identify(vu_file_1(days=2) + b"\x76\x02 broken off")
    assert info.soort == "voertuigeenheid"
    assert (info.periode_van, info.periode_tot) == (utc(2026, 11, 2), utc(2026, 11, 4))


# --- anything else -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "data",
    [
        b"\x89PNG\r\n\x1a\n" + bytes(40),
        b"%PDF-1.7\n" + bytes(40),
        b"PK\x03\x04" + bytes(40),
        b"Datum;Chauffeur\n2026-11-02;Jan\n",
        b"\x76\x99" + bytes(600),  # the service id with an unknown TREP
        b"\x00\x02",  # too short for a card record
        bytes(range(256)) * 4,
    ],
    ids=["png", "pdf", "zip", "csv", "unknown-trep", "two-bytes", "noise"],
)
def test_other_content_is_refused_as_no_tachograph_file(data):
    assert refused(data).reason in {"unknown", "card_structure", "vu_structure"}


def test_an_empty_file_is_refused():
    assert refused(b"").reason == "empty"


def test_text_that_merely_starts_with_the_vu_marker_is_refused():
    assert refused(b"\x76\x01" + b"not really a tachograph" * 3).reason == "vu_structure"


def test_the_demo_data_samples_are_recognised():
    from portal.tacho import samples

    card = samples.card_download(
        card_number="NB00000412345600",
        surname="de Vries",
        first_names="Jan",
        first_day=date(2026, 10, 20),
        days=28,
    )
    info = identify(card)
    assert (info.soort, info.kaartnummer, info.houder) == (
        "bestuurderskaart",
        "NB00000412345600",
        "JAN DE VRIES",
    )
    assert (info.periode_van, info.periode_tot) == (utc(2026, 10, 20), utc(2026, 11, 17))
    for generation, generatie in ((1, "1"), (2, "2")):
        unit = samples.vu_download(
            vin="XLRTEH4300G123456",
            kenteken="BX-12-AB",
            first_day=date(2026, 10, 20),
            days=30,
            generation=generation,
        )
        info = identify(unit)
        assert (info.soort, info.generatie, info.kenteken) == (
            "voertuigeenheid",
            generatie,
            "BX12AB",
        )
        assert (info.periode_van, info.periode_tot) == (utc(2026, 10, 20), utc(2026, 11, 19))


# --- robustness: whatever the bytes, a clear answer and never a crash ---------------------

SAMPLES = [card_file(days=5), card_file(second_generation=True, days=3), vu_file_1(days=2)]
SAMPLES += [vu_file_2(days=2), vu_file_2(version_2=True, days=1)]


def _answer(data: bytes) -> None:
    try:
        info = identify(data)
    except NotTachograph as error:
        assert error.reason in {
            "empty",
            "unknown",
            "card_structure",
            "vu_structure",
            "other_card",
        }
        return
    assert info.soort in {"bestuurderskaart", "voertuigeenheid"}
    assert info.periode_van is None or info.periode_van < info.periode_tot


@settings(max_examples=300, deadline=None, derandomize=True, database=None)
@given(st.binary(max_size=2048))
def test_any_bytes_get_a_clear_answer(data):
    _answer(data)


@settings(max_examples=300, deadline=None, derandomize=True, database=None)
@given(
    st.sampled_from(SAMPLES),
    st.integers(min_value=0, max_value=4000),
    st.integers(min_value=0, max_value=255),
    st.integers(min_value=1, max_value=4000),
)
def test_damaged_downloads_get_a_clear_answer(sample, at, value, cut):
    damaged = bytearray(sample)
    damaged[at % len(damaged)] = value
    _answer(bytes(damaged))
    _answer(bytes(damaged[: cut % len(damaged)]))
