"""Synthetic tachograph downloads for the demo data: a driver card (generation 1) and a
vehicle unit (generation 1 or 2) with the structure of real downloads, but filler where
certificates, signatures and recorded activities would be. Nothing here is signed."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta


def _seconds(day: date, hour: int = 0) -> bytes:
    moment = datetime(day.year, day.month, day.day, hour, tzinfo=UTC)
    return int(moment.timestamp()).to_bytes(4, "big")


def _text(value: str, width: int) -> bytes:
    return value.encode("latin_1")[:width].ljust(width, b" ")


def _name(value: str) -> bytes:
    return b"\x01" + _text(value, 35)


def _filler(size: int, seed: int) -> bytes:
    return bytes((seed * 7 + i * 13) % 256 for i in range(size))


def _record(fid: int, kind: int, body: bytes) -> bytes:
    return fid.to_bytes(2, "big") + bytes([kind]) + len(body).to_bytes(2, "big") + body


def card_download(
    *, card_number: str, surname: str, first_names: str, first_day: date, days: int
) -> bytes:
    """A driver card download covering `days` days from first_day."""
    identification = (
        b"\x26"  # issued in the Netherlands
        + _text(card_number, 16)
        + _name("RDW")
        + _seconds(first_day - timedelta(days=700)) * 2
        + _seconds(first_day + timedelta(days=1100))
        + _name(surname.upper())
        + _name(first_names.upper())
        + bytes.fromhex("19780412")
        + b"nl"
    )
    ring = b""
    newest = previous = 0
    for n in range(days):
        changes = b"".join(((i % 4) << 11 | (360 + i * 75)).to_bytes(2, "big") for i in range(8))
        newest = len(ring)
        length = 12 + len(changes)
        ring += (
            previous.to_bytes(2, "big")
            + length.to_bytes(2, "big")
            + _seconds(first_day + timedelta(days=n))
            + (n + 1).to_bytes(2, "big")
            + (180 + n * 17 % 240).to_bytes(2, "big")
            + changes
        )
        previous = length
    activity = (0).to_bytes(2, "big") + newest.to_bytes(2, "big") + ring + bytes(64)
    application = b"\x01\x00\x01\x0c\x0c" + len(ring).to_bytes(2, "big") + b"\x00\x54\x70"
    parts = [
        _record(0x0002, 0, _filler(25, 1)),
        _record(0x0005, 0, _filler(8, 2)),
        _record(0x0501, 0, application),
        _record(0x0501, 1, _filler(128, 3)),
        _record(0xC100, 0, _filler(194, 4)),
        _record(0xC108, 0, _filler(194, 5)),
        _record(0x0520, 0, identification),
        _record(0x0520, 1, _filler(128, 6)),
        _record(0x050E, 0, _seconds(first_day + timedelta(days=days), 8)),
        _record(0x0504, 0, activity),
        _record(0x0504, 1, _filler(128, 7)),
    ]
    return b"".join(parts)


def _array(record_type: int, size: int, records: list[bytes]) -> bytes:
    return (
        bytes([record_type])
        + size.to_bytes(2, "big")
        + len(records).to_bytes(2, "big")
        + b"".join(records)
    )


def vu_download(*, vin: str, kenteken: str, first_day: date, days: int, generation: int) -> bytes:
    """A vehicle unit download: the overview and one block per day."""
    plate = b"\x26\x01" + _text(kenteken.replace("-", ""), 13)
    downloaded = first_day + timedelta(days=days)
    if generation == 1:
        blocks = [
            b"\x76\x01"
            + _filler(388, 8)
            + _text(vin, 17)
            + plate
            + _seconds(downloaded, 9)
            + _seconds(downloaded - timedelta(days=365))
            + _seconds(downloaded)
            + b"\x11"
            + _seconds(downloaded, 9)
            + _filler(18, 9)
            + _name("Van der Berg Agrotransport")
            + b"\x00\x00"  # no company locks, no controls
            + _filler(128, 10)
        ]
        for n in range(days):
            blocks.append(
                b"\x76\x02"
                + _seconds(first_day + timedelta(days=n))
                + b"\x03\x0d\x40"
                + b"\x00\x00"
                + b"\x00\x04"
                + b"\x18\x00\x1b\x48\x08\x98\x1e\x00"
                + b"\x00"
                + b"\x00\x00"
                + _filler(128, 11 + n)
            )
        return b"".join(blocks)
    blocks = [
        b"\x76\x21"
        + _array(0x04, 204, [_filler(204, 12)])
        + _array(0x0F, 204, [_filler(204, 13)])
        + _array(0x0A, 17, [_text(vin, 17)])
        + _array(0x0B, 14, [plate[1:]])
        + _array(0x03, 4, [_seconds(downloaded, 9)])
        + _array(0x13, 8, [_seconds(downloaded - timedelta(days=365)) + _seconds(downloaded)])
        + _array(0x02, 1, [b"\x11"])
        + _array(0x14, 58, [_filler(58, 14)])
        + _array(0x10, 98, [])
        + _array(0x11, 31, [])
        + _array(0x08, 64, [_filler(64, 15)])
    ]
    for n in range(days):
        blocks.append(
            b"\x76\x22"
            + _array(0x06, 4, [_seconds(first_day + timedelta(days=n))])
            + _array(0x05, 3, [b"\x03\x0d\x40"])
            + _array(0x01, 2, [b"\x18\x00", b"\x1b\x48", b"\x08\x98"])
            + _array(0x08, 64, [_filler(64, 16 + n)])
        )
    return b"".join(blocks)
