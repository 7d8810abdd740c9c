"""The activity buffer of a driver card download (EF_Driver_Activity_Data): the daily
records of activity changes, oldest first. It must hold together, or the file is refused
with DamagedFile ("activity_buffer") naming where it broke."""

from __future__ import annotations

import itertools
import struct
from collections.abc import Callable
from datetime import date

from portal.tacho.ddd import codes
from portal.tacho.ddd.card_records import Ef
from portal.tacho.ddd.model import CardDay, DamagedFile

MIN_DAY_RECORD = 14  # header (12) and at least the change at 00:00
RING_START = 4  # where the ring starts within the EF value, for messages
_HEAD = struct.Struct(">HHIHH")  # previous length, length, date, presence, distance


def activity_days(ef: Ef, warnings: list[str]) -> list[CardDay]:
    """The daily records of EF_Driver_Activity_Data, oldest first.

    The value is two pointers (oldest and newest day record) and a cyclic buffer. Records are
    found only by walking from the newest one backwards by each record's "previous record
    length"; reads wrap around the end of the buffer, even inside a header. Bytes outside
    that chain are stale records of earlier rounds and are never looked at."""
    opened = _open_ring(ef)
    if opened is None:
        return []
    double, oldest, newest, size = opened

    def where(pos: int) -> str:
        return ef.where(RING_START + pos)

    days: list[CardDay] = []
    pos = newest
    expected = None  # the length the record at pos must have (its successor's prevLen)
    later: date | None = None
    # Each record takes at least 14 bytes: no honest chain is longer than this.
    for _ in range(size // MIN_DAY_RECORD + 1):
        previous, day = _day_record(double, pos, size, expected, later, where, warnings)
        days.append(day)
        later = day.datum
        if pos == oldest or previous == 0:
            if pos != oldest and "activity_chain_short" not in warnings:
                warnings.append("activity_chain_short")
            break
        if previous >= size:
            raise DamagedFile(
                "activity_buffer",
                f"a day record of the activity buffer says its predecessor has {previous} bytes",
                where=where(pos),
            )
        pos = (pos - previous) % size
        expected = previous
    else:
        raise DamagedFile(
            "activity_buffer",
            "the activity buffer's chain does not end at its oldest record",
            where=where(pos),
        )
    days.reverse()
    _check_presence(days, warnings)
    return days


def _open_ring(ef: Ef) -> tuple[bytes, int, int, int] | None:
    """The ring read twice over (so every wrapped read is a plain slice), the oldest and
    newest pointers and the ring's size; None for a card with no day written yet."""
    v = ef.value
    if len(v) < RING_START:
        raise DamagedFile(
            "activity_buffer",
            "EF_Driver_Activity_Data is too short to hold its two pointers",
            where=ef.where(),
        )
    oldest = (v[0] << 8) | v[1]
    newest = (v[2] << 8) | v[3]
    ring = v[RING_START:]
    size = len(ring)
    if size < MIN_DAY_RECORD:
        if size == 0 or not any(ring):
            return None
        raise DamagedFile(
            "activity_buffer", "the activity buffer is too small for one day", where=ef.where()
        )
    if oldest >= size or newest >= size:
        raise DamagedFile(
            "activity_buffer",
            f"the activity buffer's pointers ({oldest}, {newest}) point past its end ({size})",
            where=ef.where(),
        )
    double = ring + ring
    first_length = (double[newest + 2] << 8) | double[newest + 3]
    if first_length == 0:
        return None  # an empty card: nothing has been written yet
    return double, oldest, newest, size


def _day_record(
    double: bytes,
    pos: int,
    size: int,
    expected: int | None,
    later: date | None,
    where: Callable[[int], str],
    warnings: list[str],
) -> tuple[int, CardDay]:
    """The day record at `pos` and the length of the one before it. It must have the length
    its successor says (`expected`), a valid date, and a day before the later record's."""
    previous, length, seconds, presence, distance = _HEAD.unpack_from(double, pos)
    if length < MIN_DAY_RECORD or length % 2 or length > size:
        raise DamagedFile(
            "activity_buffer",
            f"a day record of the activity buffer claims {length} bytes",
            where=where(pos),
        )
    if expected is not None and length != expected:
        raise DamagedFile(
            "activity_buffer",
            f"the activity buffer's chain breaks: a record of {length} bytes where the "
            f"next one says {expected}",
            where=where(pos),
        )
    day = codes.day_of(seconds)
    if day is None:
        raise DamagedFile(
            "activity_buffer",
            "a day record of the activity buffer has no valid date",
            where=where(pos),
        )
    if later is not None and day >= later:
        raise DamagedFile(
            "activity_buffer",
            f"the activity buffer's days go out of order ({day} before {later})",
            where=where(pos),
        )
    n = (length - 12) // 2
    changes = [codes.card_change(w) for w in struct.unpack_from(f">{n}H", double, pos + 12)]
    if any(c.minuut >= 1440 for c in changes):
        changes = [c for c in changes if c.minuut < 1440]
        if "activity_minute_out_of_range" not in warnings:
            warnings.append("activity_minute_out_of_range")
    record = CardDay(
        datum=day,
        aanwezigheid=codes.bcd(presence.to_bytes(2, "big")),
        afstand_km=distance,
        wijzigingen=changes,
    )
    return previous, record


def _check_presence(days: list[CardDay], warnings: list[str]) -> None:
    for older, newer in itertools.pairwise(days):
        if newer.aanwezigheid != (older.aanwezigheid + 1) % 10000:
            warnings.append("presence_counter_gap")
            return
