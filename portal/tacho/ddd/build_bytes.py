"""The small encodings the built downloads (portal.tacho.ddd.build, build_vu) are made of:
big-endian integers, TimeReal, fixed-width text and names, records and their filler
signatures, a registration; and a change moved to a slot."""

from __future__ import annotations

from datetime import date, datetime

from portal.tacho.ddd import codes
from portal.tacho.segments import Change


def u8(n: int) -> bytes:
    return (n & 0xFF).to_bytes(1, "big")


def u16(n: int) -> bytes:
    return (n & 0xFFFF).to_bytes(2, "big")


def u24(n: int) -> bytes:
    return (n & 0xFFFFFF).to_bytes(3, "big")


def u32(n: int) -> bytes:
    return (n & 0xFFFFFFFF).to_bytes(4, "big")


def time(when: datetime | date | None) -> bytes:
    return u32(codes.seconds_of(when))


def text(value: str | None, width: int) -> bytes:
    return (value or "").encode("latin_1", errors="replace")[:width].ljust(width, b" ")


def name(value: str | None) -> bytes:
    """A Name: code page 1 (ISO 8859-1) and 35 characters."""
    return b"\x01" + text(value, 35)


def filler(size: int, seed: int) -> bytes:
    return bytes((seed * 7 + i * 13) % 256 for i in range(size))


def record(fid: int, kind: int, body: bytes) -> bytes:
    if len(body) > 0xFFFF:
        raise ValueError(f"EF {fid:04X} would hold {len(body)} bytes; at most 65535 fit")
    return u16(fid) + u8(kind) + u16(len(body)) + body


def signed(fid: int, kind: int, body: bytes) -> bytes:
    """An EF and its signature record (filler: 128 bytes Gen1, 64 bytes Gen2)."""
    return record(fid, kind, body) + record(fid, kind + 1, filler(128 if kind == 0 else 64, fid))


def plate(kenteken: str | None, land: str | int | None) -> bytes:
    nation = codes.NATION_CODES.get(land, 0) if isinstance(land, str) else land or 0
    return u8(nation) + b"\x01" + text(kenteken, 13)


def in_slot(change: Change, slot: int) -> Change:
    return Change(
        change.minuut, change.activiteit, change.kaart_in, change.bemanning, change.handmatig, slot
    )
