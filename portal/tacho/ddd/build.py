"""Whole tachograph downloads built from activity changes, for tests and demo data.

`card_file` writes a driver card download as a card reader would save it (ICC, IC,
application identification, identification, card download, the cyclic activity buffer with
correct pointers, vehicles, places); `vu_file` a first-generation vehicle unit download
(overview and one block per day with both slots' changes and the card insertions).
Certificates and signatures are filler: nothing here is signed, and the parser checks no
signatures. `changes_from_timeline` turns "from this moment, this activity" into the changes
of each day.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, date, datetime, timedelta

from portal.tacho.ddd import build_bytes as enc
from portal.tacho.ddd import codes
from portal.tacho.ddd.build_vu import vu_file
from portal.tacho.ddd.model import GnssPlace, Place, VehicleUse
from portal.tacho.segments import DAY_MIN, ONBEKEND, RIJDEN, Change

DEFAULT_BUFFER = 13776  # the largest first-generation buffer, the second generation's size
MAX_BUFFER = 0xFFFF - 4  # an EF's length is two bytes
SPARE = 64  # bytes a grown buffer keeps free


# --- activity ----------------------------------------------------------------------------


def changes_from_timeline(
    timeline: Iterable[tuple], *, slot: int = 0, until: datetime | None = None
) -> dict[date, list[Change]]:
    """The changes of each day from a timeline of (moment, activiteit[, options]) entries,
    each lasting until the next. `activiteit` is rijden/werk/beschikbaar/rust, or onbekend
    for the card out with nothing entered; options (a dict) may set kaart_in, handmatig,
    bemanning and slot. An activity going on at midnight starts the next day at 00:00, as a
    card records it; the first day starts unknown (card out) until its first entry. With
    `until` (the download), the last entry goes on over each midnight up to that moment, so
    the download day has its record as on a real card."""
    entries = sorted(timeline, key=lambda e: e[0])
    days: dict[date, list[Change]] = {}
    if not entries:
        return days
    previous: Change | None = None
    for entry in entries:
        when, activiteit = entry[0].astimezone(UTC), entry[1]
        options = dict(entry[2]) if len(entry) > 2 else {}
        options.setdefault("slot", slot)
        if activiteit == ONBEKEND:
            options.setdefault("kaart_in", False)
        change = Change(when.hour * 60 + when.minute, activiteit, **options)
        day = when.date()
        if previous is not None:
            last_day = max(days)
            # Carry the activity going on over each midnight in between.
            gap = last_day + timedelta(days=1)
            while gap <= day:
                days.setdefault(gap, []).append(_at(previous, 0))
                gap += timedelta(days=1)
        elif change.minuut:
            days.setdefault(day, []).append(Change(0, ONBEKEND, kaart_in=False, slot=change.slot))
        bucket = days.setdefault(day, [])
        bucket[:] = [c for c in bucket if c.minuut != change.minuut]
        bucket.append(change)
        previous = change
    if until is not None:
        gap = max(days) + timedelta(days=1)
        while gap <= until.astimezone(UTC).date():
            days.setdefault(gap, []).append(_at(previous, 0))
            gap += timedelta(days=1)
    return days


def _at(change: Change, minute: int) -> Change:
    return Change(
        minute, change.activiteit, change.kaart_in, change.bemanning, change.handmatig, change.slot
    )


def _day_record(
    day: date, previous: int, presence: int, changes: Sequence[Change], distance: int | None
) -> bytes:
    # In the order given, as a card records them (a lagging unit's clock can step back).
    ordered = list(changes)
    if not ordered or ordered[0].minuut != 0:
        # A day record always opens with the state at 00:00.
        ordered.insert(0, Change(0, ONBEKEND, kaart_in=False))
    if distance is None:
        distance = _driven_km(ordered)
    words = b"".join(enc.u16(codes.change_word(c)) for c in ordered)
    length = 12 + len(words)
    return (
        enc.u16(previous)
        + enc.u16(length)
        + enc.time(day)
        + codes.to_bcd(presence % 10000, 2)
        + enc.u16(distance)
        + words
    )


def _driven_km(changes: Sequence[Change]) -> int:
    """About 70 km for each hour of driving: what a day of the generator covers."""
    minutes = 0
    for i, change in enumerate(changes):
        end = changes[i + 1].minuut if i + 1 < len(changes) else DAY_MIN
        if change.activiteit == RIJDEN and change.kaart_in:
            minutes += max(0, end - change.minuut)
    return minutes * 70 // 60


def activity_buffer(
    dagen: Mapping[date, Sequence[Change]],
    *,
    buffer_size: int | None = None,
    wrap: bool = False,
    first_presence: int = 1,
    distances: Mapping[date, int] | None = None,
) -> bytes:
    """EF_Driver_Activity_Data: the two pointers and the cyclic buffer, written as a card
    writes it: each record after the previous one, on at byte 0 past the end (even inside a
    record), the oldest records given up once overwritten (the new oldest record's previous
    length set to 0). `wrap` starts writing so that a record's header straddles the end."""
    records = [
        _day_record(day, 0, first_presence + n, dagen[day], (distances or {}).get(day))
        for n, day in enumerate(sorted(dagen))
    ]
    total = sum(len(r) for r in records)
    size = buffer_size or max(DEFAULT_BUFFER, total + SPARE)
    if size > MAX_BUFFER:
        raise ValueError(f"the activity of these days needs {total} bytes; at most {MAX_BUFFER}")
    ring = bytearray(size)
    if not records:
        return enc.u16(0) + enc.u16(0) + bytes(ring)
    # Where writing starts: 0, or (wrap) such that a record's header crosses the end.
    start = 0
    if wrap:
        target = len(records) // 2
        offset = sum(len(r) for r in records[:target])
        start = (size - 2 - offset) % size
    # Only the newest records that fit stay whole; older ones are (partly) overwritten.
    kept, used = 0, 0
    for record in reversed(records):
        if used + len(record) > size:
            break
        kept += 1
        used += len(record)
    skipped = sum(len(r) for r in records[: len(records) - kept])
    pos = start
    offsets = []
    previous = 0
    for record in records:
        body = bytearray(record)
        body[0:2] = enc.u16(previous)
        previous = len(record)
        offsets.append(pos)
        for j, byte in enumerate(body):
            ring[(pos + j) % size] = byte
        pos = (pos + len(body)) % size
    oldest = (start + skipped) % size
    newest = offsets[-1]
    # The oldest complete record has no predecessor any more.
    ring[oldest % size] = 0
    ring[(oldest + 1) % size] = 0
    return enc.u16(oldest) + enc.u16(newest) + bytes(ring)


# --- card files --------------------------------------------------------------------------


def _identification(
    kaartnummer: str,
    achternaam: str,
    voornamen: str,
    land: int,
    issued: date,
    vervaldatum: date,
) -> bytes:
    body = (
        enc.u8(land)
        + enc.text(kaartnummer, 16)
        + enc.name("RDW")
        + enc.time(issued)
        + enc.time(issued)
        + enc.time(vervaldatum)
        + enc.name(achternaam)
        + enc.name(voornamen)
        + bytes.fromhex("19800615")  # birth date, BCD
        + b"nl"
    )
    assert len(body) == 143
    return body


def _application(kind: int, size: int, version_2: bool) -> bytes:
    if kind == 0:
        return b"\x01\x00\x00\x0c\x18" + enc.u16(size) + enc.u16(200) + enc.u8(112)
    version = b"\x01\x01" if version_2 else b"\x01\x00"
    return (
        b"\x01"
        + version
        + b"\x0c\x18"
        + enc.u16(size)
        + enc.u16(200)  # vehicle records
        + enc.u16(112)  # place records
        + enc.u16(252)  # GNSS accumulated driving records
        + enc.u16(112)  # specific conditions
        + enc.u16(200)  # vehicle units
    )


def _vehicles(vehicles: Sequence[VehicleUse], second: bool, count: int = 200) -> bytes:
    size = 48 if second else 31
    rows = []
    for use in list(vehicles)[-count:]:
        row = (
            enc.u24(use.km_begin)
            + enc.u24(use.km_eind)
            + enc.time(use.eerste_gebruik)
            + enc.time(use.laatste_gebruik)
            + enc.plate(use.kenteken, use.land)
            + enc.u16(0)
        )
        if second:
            row += enc.text(use.vin, 17)
        rows.append(row)
    newest = len(rows) - 1 if rows else 0
    rows += [bytes(size)] * (count - len(rows))
    return enc.u16(newest) + b"".join(rows)


PLACE_TYPES = {("begin", False): 0, ("einde", False): 1, ("begin", True): 2, ("einde", True): 3}


def _places(places: Sequence[Place], second: bool, count: int = 112) -> bytes:
    size = 21 if second else 10
    rows = []
    for place in list(places)[-count:]:
        nation = codes.NATION_CODES.get(place.land, 0) if place.land else 0
        row = (
            enc.time(place.tijd)
            + enc.u8(PLACE_TYPES[place.soort, place.handmatig])
            + enc.u8(nation)
            + enc.u8(place.regio or 0)
            + enc.u24(place.km)
        )
        if second:
            row += _gnss_place(place.tijd, place.lat, place.lon)
        rows.append(row)
    newest = len(rows) - 1 if rows else 0
    rows += [bytes(size)] * (count - len(rows))
    pointer = enc.u16(newest) if second else enc.u8(newest)
    return pointer + b"".join(rows)


def _gnss_place(when: datetime, lat: float | None, lon: float | None) -> bytes:
    if lat is None or lon is None:
        return enc.time(when) + b"\x00" + b"\x7f\xff\xff" * 2
    return enc.time(when) + b"\x05" + codes.to_geo(lat) + codes.to_geo(lon)


def _gnss(places: Sequence[GnssPlace], count: int = 252) -> bytes:
    rows = [
        enc.time(p.tijd) + _gnss_place(p.tijd, p.lat, p.lon) + enc.u24(p.km)
        for p in list(places)[-count:]
    ]
    newest = len(rows) - 1 if rows else 0
    rows += [bytes(18)] * (count - len(rows))
    return enc.u16(newest) + b"".join(rows)


def card_file(
    *,
    kaartnummer: str,
    achternaam: str,
    voornamen: str,
    dagen: Mapping[date, Sequence[Change]],
    generation: int = 1,
    version_2: bool = False,
    vervaldatum: date | None = None,
    land: int = 0x26,
    download_time: datetime | None = None,
    buffer_size: int | None = None,
    wrap: bool = False,
    vehicles: Sequence[VehicleUse] = (),
    places: Sequence[Place] = (),
    gnss: Sequence[GnssPlace] = (),
) -> bytes:
    """A whole driver card download. `generation` 2 adds the second-generation application
    (its EFs carry appendix 02/03, with 48-byte vehicle and 21-byte place records, and the
    GNSS places); `version_2` makes it generation 2 version 2. The activity is the same in
    both applications. `download_time` goes into EF_Card_Download (none when None)."""
    first = min(dagen) if dagen else date(2026, 1, 1)
    expiry = vervaldatum or first + timedelta(days=5 * 365)
    issued = expiry - timedelta(days=5 * 365)
    identification = _identification(kaartnummer, achternaam, voornamen, land, issued, expiry)
    activity = activity_buffer(dagen, buffer_size=buffer_size, wrap=wrap)
    size = len(activity) - 4
    parts = [
        enc.record(0x0002, 0, enc.filler(25, 1)),
        enc.record(0x0005, 0, enc.filler(8, 2)),
        enc.signed(0x0501, 0, _application(0, size, False)),
        enc.record(0xC100, 0, enc.filler(194, 3)),
        enc.record(0xC108, 0, enc.filler(194, 4)),
        enc.signed(0x0520, 0, identification),
    ]
    if download_time is not None:
        parts.append(enc.signed(0x050E, 0, enc.time(download_time)))
    parts += [
        enc.signed(0x0504, 0, activity),
        enc.signed(0x0505, 0, _vehicles(vehicles, second=False)),
        enc.signed(0x0506, 0, _places(places, second=False)),
    ]
    if generation >= 2 or version_2:
        parts += [
            enc.signed(0x0501, 2, _application(2, size, version_2)),
            enc.record(0xC101, 0, enc.filler(204, 5)),
            enc.signed(0x0520, 2, identification),
        ]
        if download_time is not None:
            parts.append(enc.signed(0x050E, 2, enc.time(download_time)))
        parts += [
            enc.signed(0x0504, 2, activity),
            enc.signed(0x0505, 2, _vehicles(vehicles, second=True)),
            enc.signed(0x0506, 2, _places(places, second=True)),
            enc.signed(0x0524, 2, _gnss(gnss)),
        ]
        if version_2:
            parts.append(enc.signed(0x0525, 2, enc.u16(0) * 4))
    return b"".join(parts)


__all__ = ["activity_buffer", "card_file", "changes_from_timeline", "vu_file"]
