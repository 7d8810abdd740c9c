"""A first-generation vehicle unit download built from activity changes, for tests and demo
data: the overview and one block per day with both slots' changes and the card insertions."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, date, datetime, timedelta

from portal.tacho.ddd import build_bytes as enc
from portal.tacho.ddd import codes
from portal.tacho.ddd.model import CardSession
from portal.tacho.segments import Change


def _full_card_number(number: str, land: int = 0x26) -> bytes:
    return b"\x01" + enc.u8(land) + enc.text(number, 16)


def _iw_record(session: CardSession) -> bytes:
    """A VuCardIWRecord (129 bytes)."""
    first, _, surname = (session.houder or "").rpartition(" ")
    body = (
        enc.name(surname)
        + enc.name(first)
        + _full_card_number(session.kaartnummer)
        + enc.time(date(2030, 1, 1))  # card expiry
        + enc.time(session.ingestoken)
        + enc.u24(session.km_in or 0)
        + enc.u8(session.slot)
        + enc.time(session.uitgenomen)
        + enc.u24(session.km_uit or 0)
        + enc.plate(None, 0)
        + enc.u32(0)  # previous vehicle: none
        + b"\x00"  # no manual input
    )
    assert len(body) == 129
    return body


def vu_file(
    *,
    vin: str = "XLRTEH4300G123456",
    kenteken: str = "BX12AB",
    land: int = 0x26,
    dagen: Mapping[date, Mapping[int, Sequence[Change]] | Sequence[Change]],
    kaarten: Sequence[CardSession] = (),
    download_time: datetime | None = None,
    km_start: int = 100_000,
    km_per_day: int = 400,
) -> bytes:
    """A first-generation vehicle unit download: the overview (VIN, registration, current
    time, downloadable period) and one block per day with the odometer at midnight, the card
    insertions that touch the day, and each slot's activity changes (a list of changes is
    the driver slot's)."""
    days = sorted(dagen)
    downloaded = download_time or (
        datetime.combine(days[-1], datetime.min.time(), tzinfo=UTC) + timedelta(days=1)
        if days
        else datetime(2026, 1, 1, tzinfo=UTC)
    )
    blocks = [b"\x76\x01" + _overview(vin, kenteken, land, downloaded, days[0] if days else None)]
    for n, day in enumerate(days):
        block = _day_block(day, dagen[day], kaarten, km_start + n * km_per_day, filler_seed=11 + n)
        blocks.append(b"\x76\x02" + block)
    return b"".join(blocks)


def _overview(
    vin: str, kenteken: str, land: int, downloaded: datetime, first_day: date | None
) -> bytes:
    """The overview: VIN, registration, current time and downloadable period."""
    period_from = first_day if first_day is not None else downloaded
    return (
        enc.filler(2 * 194, 8)
        + enc.text(vin, 17)
        + enc.plate(kenteken, land)
        + enc.time(downloaded)
        + enc.time(period_from)
        + enc.time(downloaded)
        + b"\x11"  # card slots status
        + enc.time(downloaded)
        + _full_card_number("")
        + enc.name("Rijplan")
        + b"\x00\x00"  # no company locks, no controls
        + enc.filler(128, 10)
    )


def _day_block(
    day: date,
    per_slot: Mapping[int, Sequence[Change]] | Sequence[Change],
    kaarten: Sequence[CardSession],
    km: int,
    filler_seed: int,
) -> bytes:
    """One day's block: the odometer at midnight, the card insertions that touch the day
    and each slot's activity changes (a list of changes is the driver slot's)."""
    start = datetime.combine(day, datetime.min.time(), tzinfo=UTC)
    end = start + timedelta(days=1)
    if not isinstance(per_slot, Mapping):
        per_slot = {0: per_slot}
    words = []
    for slot in (0, 1):
        changes = sorted(per_slot.get(slot, ()), key=lambda c: c.minuut)
        if not changes or changes[0].minuut:
            # Both slots' state at 00:00 opens the day.
            changes.insert(0, Change(0, "rust", kaart_in=False, slot=slot))
        words += [codes.vu_word(enc.in_slot(c, slot)) for c in changes]
    touching = [
        s for s in kaarten if s.ingestoken < end and (s.uitgenomen is None or s.uitgenomen >= start)
    ]
    return (
        enc.time(day)
        + enc.u24(km)
        + enc.u16(len(touching))
        + b"".join(_iw_record(s) for s in touching)
        + enc.u16(len(words))
        + b"".join(enc.u16(w) for w in words)
        + b"\x00"  # no places
        + enc.u16(0)  # no specific conditions
        + enc.filler(128, filler_seed)
    )
