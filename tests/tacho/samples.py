"""Synthetic tachograph downloads for the tests, built byte by byte from the layouts of
Annex 1B/1C (Appendix 1 data dictionary, Appendix 7 download protocols). Certificates and
signatures are filler: nothing here is signed, and the detector checks no signatures.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta


def u8(n: int) -> bytes:
    return n.to_bytes(1, "big")


def u16(n: int) -> bytes:
    return n.to_bytes(2, "big")


def u32(n: int) -> bytes:
    return n.to_bytes(4, "big")


def time_real(day: date, hour: int = 0) -> bytes:
    """TimeReal: seconds since 1970-01-01 00:00 UTC."""
    return u32(int(datetime(day.year, day.month, day.day, hour, tzinfo=UTC).timestamp()))


CODECS = {1: "latin_1", 2: "iso8859_2"}


def text(value: str, width: int, fill: bytes = b" ", code_page: int = 1) -> bytes:
    raw = value.encode(CODECS[code_page])
    assert len(raw) <= width
    return raw + fill * (width - len(raw))


def name(value: str, code_page: int = 1) -> bytes:
    """A Name: a code page byte and 35 characters."""
    return u8(code_page) + text(value, 35, code_page=code_page)


def filler(size: int, seed: int = 7) -> bytes:
    return bytes((seed + i * 31) % 251 for i in range(size))


# --- cards: TLV records (file id, type, length, data) -----------------------------------


def record(fid: int, kind: int, body: bytes) -> bytes:
    return u16(fid) + u8(kind) + u16(len(body)) + body


def icc() -> bytes:
    """EF_ICC (25 bytes) and EF_IC (8 bytes): the common files every card download opens with."""
    return record(0x0002, 0, filler(25, 1)) + record(0x0005, 0, filler(8, 2))


def application(card_type: int = 1, kind: int = 0) -> bytes:
    """EF_Application_Identification: card type (1 driver, 2 workshop, 3 control, 4 company)."""
    body = u8(card_type) + u16(0x0100) + u8(12) + u8(24) + u16(13776) + u16(200) + u8(112)
    return record(0x0501, kind, body) + record(0x0501, kind + 1, filler(128 if kind == 0 else 64))


def identification(
    card_number: str = "NB00000123456700",
    surname: str = "DE VRIES",
    first_names: str = "JAN",
    kind: int = 0,
    code_page: int = 1,
) -> bytes:
    """EF_Identification of a driver card: CardIdentification (65) + holder (78) = 143 bytes."""
    body = (
        u8(0x26)  # issuing member state
        + text(card_number, 16)
        + name("RDW Veendam")
        + time_real(date(2024, 3, 1))
        + time_real(date(2024, 3, 1))
        + time_real(date(2029, 2, 28))
        + name(surname, code_page)
        + name(first_names, code_page)
        + bytes.fromhex("19800615")  # birth date, BCD
        + b"nl"
    )
    assert len(body) == 143
    return record(0x0520, kind, body) + record(0x0520, kind + 1, filler(128 if kind == 0 else 64))


def day_record(day: date, previous_length: int, changes: int = 4) -> bytes:
    """A CardActivityDailyRecord: previous length, own length, date, presence counter,
    distance and the activity changes of the day."""
    length = 12 + 2 * changes
    return (
        u16(previous_length)
        + u16(length)
        + time_real(day)
        + bytes.fromhex("0042")
        + u16(312)
        + b"".join(u16((i % 4) << 11 | (i * 90)) for i in range(changes))
    )


def activity(first_day: date, days: int, kind: int = 0, rotate: int = 0, spare: int = 40) -> bytes:
    """EF_Driver_Activity_Data: pointers to the oldest and newest day record in a cyclic
    buffer. `rotate` moves the buffer's start so records wrap around its end."""
    records, offsets, previous = b"", [], 0
    for n in range(days):
        offsets.append(len(records))
        one = day_record(first_day + timedelta(days=n), previous)
        previous = len(one)
        records += one
    ring = records + bytes(spare)
    size = len(ring)
    shift = rotate % size
    ring = ring[size - shift :] + ring[: size - shift]
    oldest, newest = (offsets[0] + shift) % size, (offsets[-1] + shift) % size
    body = u16(oldest) + u16(newest) + ring
    return record(0x0504, kind, body) + record(0x0504, kind + 1, filler(128 if kind == 0 else 64))


def card_file(
    *,
    first_day: date = date(2026, 10, 1),
    days: int = 28,
    card_number: str = "NB00000123456700",
    surname: str = "DE VRIES",
    first_names: str = "JAN",
    with_icc: bool = True,
    second_generation: bool = False,
    card_type: int = 1,
    rotate: int = 0,
) -> bytes:
    """A driver card download: common files, certificates, identification, activities."""
    parts = [icc()] if with_icc else []
    parts += [
        application(card_type),
        record(0xC100, 0, filler(194, 3)),
        record(0xC108, 0, filler(194, 4)),
        identification(card_number, surname, first_names),
        record(0x050E, 0, time_real(first_day + timedelta(days=days), 9)),
        record(0x050E, 1, filler(128, 5)),
        activity(first_day, days, rotate=rotate),
        record(0x0505, 0, u16(0) + filler(31 * 4, 6)),
        record(0x0505, 1, filler(128, 8)),
    ]
    if second_generation:
        parts += [
            application(card_type, kind=2),
            identification(card_number, surname, first_names, kind=2),
            activity(first_day, days, kind=2, rotate=rotate),
        ]
    return b"".join(parts)


# --- vehicle units: TREP blocks ------------------------------------------------------------


def plate(kenteken: str, nation: int = 0x26) -> bytes:
    """VehicleRegistrationIdentification: nation, code page, 13 characters."""
    return u8(nation) + u8(1) + text(kenteken, 13)


def overview_1(vin: str, kenteken: str, downloaded: date, locks: int = 1, controls: int = 1):
    body = (
        filler(194, 11)
        + filler(194, 12)
        + text(vin, 17)
        + plate(kenteken)
        + time_real(downloaded, 10)
        + time_real(downloaded - timedelta(days=365))
        + time_real(downloaded)
        + u8(0x11)
        + time_real(downloaded, 10)
        + filler(18, 13)
        + name("Van der Berg Agrotransport")
        + u8(locks)
        + filler(98 * locks, 14)
        + u8(controls)
        + filler(31 * controls, 15)
        + filler(128, 16)
    )
    return b"\x76\x01" + body


def activities_1(day: date, changes: int = 6) -> bytes:
    body = (
        time_real(day)
        + b"\x01\x86\xa0"  # odometer at midnight
        + u16(1)
        + filler(129, 21)
        + u16(changes)
        + b"".join(u16(i * 120) for i in range(changes))
        + u8(2)
        + filler(28 * 2, 22)
        + u16(1)
        + filler(5, 23)
        + filler(128, 24)
    )
    return b"\x76\x02" + body


def events_1() -> bytes:
    body = (
        u8(1)
        + filler(82, 31)
        + u8(2)
        + filler(83 * 2, 32)
        + filler(9, 33)
        + u8(0)
        + u8(1)
        + filler(98, 34)
        + filler(128, 35)
    )
    return b"\x76\x03" + body


def speed_1(blocks: int = 3) -> bytes:
    return b"\x76\x04" + u16(blocks) + filler(64 * blocks, 41) + filler(128, 42)


def technical_1() -> bytes:
    body = filler(116, 51) + filler(20, 52) + u8(2) + filler(167 * 2, 53) + filler(128)
    return b"\x76\x05" + body


def vu_file_1(
    *,
    vin: str = "XLRTEH4300G123456",
    kenteken: str = "BX12AB",
    first_day: date = date(2026, 11, 2),
    days: int = 7,
    with_everything: bool = True,
) -> bytes:
    """A first-generation vehicle unit download: overview, one block per day, and (by
    default) events, detailed speed and technical data."""
    parts = [overview_1(vin, kenteken, first_day + timedelta(days=days))]
    parts += [activities_1(first_day + timedelta(days=n)) for n in range(days)]
    if with_everything:
        parts += [events_1(), speed_1(), technical_1()]
    return b"".join(parts)


def array(record_type: int, size: int, records: list[bytes]) -> bytes:
    """A second-generation record array: type, record size, count, records."""
    assert all(len(r) == size for r in records)
    return u8(record_type) + u16(size) + u16(len(records)) + b"".join(records)


def overview_2(vin: str, kenteken: str, downloaded: date, version_2: bool = False) -> bytes:
    registration = (
        array(0x24, 15, [plate(kenteken)]) if version_2 else array(0x0B, 14, [plate(kenteken)[1:]])
    )
    body = (
        array(0x04, 204, [filler(204, 61)])
        + array(0x0F, 204, [filler(204, 62)])
        + array(0x0A, 17, [text(vin, 17)])
        + registration
        + array(0x03, 4, [time_real(downloaded, 10)])
        + array(0x13, 8, [time_real(downloaded - timedelta(days=365)) + time_real(downloaded)])
        + array(0x02, 1, [b"\x11"])
        + array(0x14, 58, [filler(58, 63)])
        + array(0x10, 98, [])
        + array(0x11, 31, [filler(31, 64)])
        + array(0x08, 64, [filler(64, 65)])
    )
    return (b"\x76\x31" if version_2 else b"\x76\x21") + body


def activities_2(day: date, version_2: bool = False) -> bytes:
    body = (
        array(0x06, 4, [time_real(day)])
        + array(0x05, 3, [b"\x01\x86\xa0"])
        + array(0x0D, 132, [filler(132, 71)])
        + array(0x01, 2, [u16(i * 120) for i in range(5)])
        + array(0x1C, 21, [])
        + array(0x16, 18, [])
        + array(0x09, 5, [])
        + array(0x08, 64, [filler(64, 72)])
    )
    return (b"\x76\x32" if version_2 else b"\x76\x22") + body


def vu_file_2(
    *,
    vin: str = "YS2R4X20005399401",
    kenteken: str = "VZH56E",
    first_day: date = date(2026, 11, 9),
    days: int = 3,
    version_2: bool = False,
) -> bytes:
    """A second-generation (or version 2) vehicle unit download: overview and days."""
    parts = [b"\x76\x00\x02\x02"] if version_2 else []
    parts.append(overview_2(vin, kenteken, first_day + timedelta(days=days), version_2))
    parts += [activities_2(first_day + timedelta(days=n), version_2) for n in range(days)]
    return b"".join(parts)
