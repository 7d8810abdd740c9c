"""Reading a vehicle unit download (Appendix 7 "data downloading protocol"): a row of
transfer responses, each the service id 0x76, a TREP byte and data without a length.

First generation (TREP 01..05): each block's size follows from its structure. The overview
(01) and the day blocks (02) are read; events (03), detailed speed (04) and technical data
(05) are skipped by structure. Second generation (0x21..0x25, version 2 0x31..0x35, and
0x00 for the interface version): every block is a row of record arrays (type, record size,
count) ending with the signature's array; the overview's VIN, registration and period and
each day's odometer, card insertions and activity changes are read from them.

Any block that does not hold together, or bytes that start no block, refuse the whole file
(DamagedFile naming the block and its byte): nothing is half read. Signatures are not checked.
"""

from __future__ import annotations

import struct
from datetime import date, datetime, timedelta

from portal.tacho.ddd import codes
from portal.tacho.ddd.detect import TREP_GEN2, TREP_GEN2_V2, TREPS
from portal.tacho.ddd.model import CardSession, DamagedFile, VuDay, VuDownload
from portal.tacho.ddd.recorded_text import coded, ia5
from portal.tacho.segments import Change, midnight

SID = 0x76
CERTIFICATE_1, SIGNATURE_1 = 194, 128
IW_RECORD_1 = 129
MAX_RECORD_ARRAYS = 64  # per block: far more than any block defines

# Second-generation record types (Appendix 1, RecordType) read here.
RT_ACTIVITY_CHANGE = 0x01
RT_CURRENT_TIME = 0x03
RT_ODOMETER_MIDNIGHT = 0x05
RT_DATE_OF_DAY = 0x06
RT_SIGNATURE = 0x08
RT_VIN = 0x0A
RT_VRN = 0x0B
RT_CARD_IW = 0x0D
RT_DOWNLOADABLE_PERIOD = 0x13
RT_VRI = 0x24


class _Short(Exception):
    """The data ends inside a structure, or the structure makes no sense."""


class _Reader:
    __slots__ = ("data", "pos")

    def __init__(self, data: bytes, pos: int):
        self.data = data
        self.pos = pos

    def take(self, n: int) -> bytes:
        end = self.pos + n
        if n < 0 or end > len(self.data):
            raise _Short
        chunk = self.data[self.pos : end]
        self.pos = end
        return chunk

    def skip(self, n: int) -> None:
        end = self.pos + n
        if n < 0 or end > len(self.data):
            raise _Short
        self.pos = end

    def u8(self) -> int:
        if self.pos >= len(self.data):
            raise _Short
        self.pos += 1
        return self.data[self.pos - 1]

    def u16(self) -> int:
        return int.from_bytes(self.take(2), "big")

    def u32(self) -> int:
        return int.from_bytes(self.take(4), "big")


class _State:
    def __init__(self) -> None:
        self.vin: str | None = None
        self.kenteken: str | None = None
        self.land: str | None = None
        self.now: datetime | None = None
        self.period: tuple[datetime | None, datetime | None] = (None, None)
        self.days: dict[date, VuDay] = {}
        self.sessions: dict[tuple[str, int, datetime], CardSession] = {}
        self.data_blocks = 0
        self.warnings: list[str] = []

    def registration(self, raw: bytes, with_nation: bool) -> None:
        if with_nation:
            self.land = self.land or codes.nation(raw[0])
            raw = raw[1:]
        self.kenteken = self.kenteken or coded(raw[0], raw[1:14])

    def day(self, when: date, km: int | None, words: list[int]) -> None:
        per_slot: dict[int, list[Change]] = {}
        for word in words:
            change = codes.vu_change(word)
            if change.minuut < 1440:
                per_slot.setdefault(change.slot, []).append(change)
        for changes in per_slot.values():
            changes.sort(key=lambda c: c.minuut)
        if when in self.days and "duplicate_day" not in self.warnings:
            self.warnings.append("duplicate_day")
        self.days[when] = VuDay(datum=when, km_middernacht=km, wijzigingen=per_slot)

    def session(self, raw: bytes, number_at: int, expiry_at: int) -> None:
        """A VuCardIWRecord: holder (72), full card number (type, nation, 16), [generation],
        expiry (4), insertion (4), odometer (3), slot (1), withdrawal (4), odometer (3)."""
        number = ia5(raw[number_at + 2 : number_at + 18])
        at = expiry_at + 4
        inserted = codes.moment(int.from_bytes(raw[at : at + 4], "big"))
        if not number or inserted is None:
            return
        km_in = int.from_bytes(raw[at + 4 : at + 7], "big")
        slot = raw[at + 7] & 1
        withdrawn = codes.moment(int.from_bytes(raw[at + 8 : at + 12], "big"))
        if withdrawn is not None and withdrawn < inserted:
            withdrawn = None
        km_out = int.from_bytes(raw[at + 12 : at + 15], "big")
        surname = coded(raw[0], raw[1:36])
        first = coded(raw[36], raw[37:72])
        key = (number, slot, inserted)
        known = self.sessions.get(key)
        if known is not None and known.uitgenomen is not None:
            return
        self.sessions[key] = CardSession(
            kaartnummer=number,
            slot=slot,
            ingestoken=inserted,
            uitgenomen=withdrawn,
            houder=" ".join(p for p in (first, surname) if p) or None,
            km_in=km_in,
            km_uit=km_out if withdrawn is not None else None,
        )


# --- first generation --------------------------------------------------------------------


def _overview_1(r: _Reader, s: _State) -> None:
    r.skip(2 * CERTIFICATE_1)  # member state and VU certificates
    s.vin = s.vin or ia5(r.take(17))
    s.registration(r.take(15), with_nation=True)
    s.now = codes.moment(r.u32())
    s.period = (codes.moment(r.u32()), codes.moment(r.u32()))
    r.skip(1)  # card slots status
    r.skip(4 + 18 + 36)  # last download: time, card, company or workshop
    r.skip(r.u8() * 98)  # company locks
    r.skip(r.u8() * 31)  # control activities
    r.skip(SIGNATURE_1)
    s.data_blocks += 1


def _activities_1(r: _Reader, s: _State) -> None:
    when = codes.day_of(r.u32())
    km = int.from_bytes(r.take(3), "big")
    records = [r.take(IW_RECORD_1) for _ in range(r.u16())]
    count = r.u16()
    raw = r.take(count * 2)
    r.skip(r.u8() * 28)  # places
    r.skip(r.u16() * 5)  # specific conditions
    r.skip(SIGNATURE_1)
    s.data_blocks += 1
    if when is None:
        if "day_without_date" not in s.warnings:
            s.warnings.append("day_without_date")
        return
    for record in records:
        s.session(record, number_at=72, expiry_at=90)
    s.day(when, km, list(struct.unpack(f">{count}H", raw)))


def _events_1(r: _Reader, s: _State) -> None:
    r.skip(r.u8() * 82)  # faults
    r.skip(r.u8() * 83)  # events
    r.skip(9)  # overspeeding control
    r.skip(r.u8() * 31)  # overspeeding events
    r.skip(r.u8() * 98)  # time adjustments
    r.skip(SIGNATURE_1)
    s.data_blocks += 1


def _speed_1(r: _Reader, s: _State) -> None:
    r.skip(r.u16() * 64)  # one minute of speeds per block
    r.skip(SIGNATURE_1)
    s.data_blocks += 1


def _technical_1(r: _Reader, s: _State) -> None:
    r.skip(116 + 20)  # VU identification, paired sensor
    r.skip(r.u8() * 167)  # calibrations
    r.skip(SIGNATURE_1)
    s.data_blocks += 1


def _interface_version(r: _Reader, s: _State) -> None:
    r.skip(2)  # generation and version


# --- second generation -------------------------------------------------------------------


def _arrays(r: _Reader) -> dict[int, tuple[int, list[bytes]]]:
    """The record arrays of a block, up to and including the signature's: type -> (record
    size, records). The first array of a type counts."""
    found: dict[int, tuple[int, list[bytes]]] = {}
    for _ in range(MAX_RECORD_ARRAYS):
        record_type = r.u8()
        size = r.u16()
        count = r.u16()
        if not (0x01 <= record_type <= 0x3F or record_type >= 0x80):
            raise _Short
        body = r.take(size * count)
        if record_type not in found:
            found[record_type] = (size, [body[i * size : (i + 1) * size] for i in range(count)])
        if record_type == RT_SIGNATURE:
            return found
    raise _Short


def _first(arrays, record_type: int, min_size: int) -> bytes | None:
    size, items = arrays.get(record_type, (0, []))
    return items[0] if items and size >= min_size else None


def _overview_2(r: _Reader, s: _State) -> None:
    arrays = _arrays(r)
    s.data_blocks += 1
    if vin := _first(arrays, RT_VIN, 17):
        s.vin = s.vin or ia5(vin[:17])
    if vri := _first(arrays, RT_VRI, 15):
        s.registration(vri, with_nation=True)
    elif vrn := _first(arrays, RT_VRN, 14):
        s.registration(vrn, with_nation=False)
    if now := _first(arrays, RT_CURRENT_TIME, 4):
        s.now = codes.moment(int.from_bytes(now[:4], "big"))
    if period := _first(arrays, RT_DOWNLOADABLE_PERIOD, 8):
        s.period = (
            codes.moment(int.from_bytes(period[0:4], "big")),
            codes.moment(int.from_bytes(period[4:8], "big")),
        )


def _activities_2(r: _Reader, s: _State) -> None:
    arrays = _arrays(r)
    s.data_blocks += 1
    raw_day = _first(arrays, RT_DATE_OF_DAY, 4)
    when = codes.day_of(int.from_bytes(raw_day[:4], "big")) if raw_day else None
    if when is None:
        if "day_without_date" not in s.warnings:
            s.warnings.append("day_without_date")
        return
    odometer = _first(arrays, RT_ODOMETER_MIDNIGHT, 3)
    km = int.from_bytes(odometer[:3], "big") if odometer else None
    size, records = arrays.get(RT_CARD_IW, (0, []))
    if size >= 110:  # VuCardIWRecord_G2: the full card number carries its generation
        for record in records:
            s.session(record, number_at=72, expiry_at=91)
    size, changes = arrays.get(RT_ACTIVITY_CHANGE, (0, []))
    words = [int.from_bytes(c[:2], "big") for c in changes] if size >= 2 else []
    s.day(when, km, words)


def _other_2(r: _Reader, s: _State) -> None:
    _arrays(r)
    s.data_blocks += 1


BLOCKS = {
    0x00: _interface_version,
    0x01: _overview_1,
    0x02: _activities_1,
    0x03: _events_1,
    0x04: _speed_1,
    0x05: _technical_1,
    0x21: _overview_2,
    0x31: _overview_2,
    0x22: _activities_2,
    0x32: _activities_2,
    **dict.fromkeys((TREP_GEN2 | TREP_GEN2_V2) - {0x00, 0x21, 0x31, 0x22, 0x32}, _other_2),
}


def looks_like_vu(data: bytes) -> bool:
    return len(data) >= 2 and data[0] == SID and data[1] in TREPS


def parse_vu(data: bytes) -> VuDownload:
    s = _State()
    treps: list[int] = []
    pos = 0
    while pos < len(data):
        trep = data[pos + 1] if pos + 1 < len(data) else None
        if data[pos] != SID or trep not in BLOCKS:
            raise DamagedFile(
                "vu_structure",
                f"byte {pos} of the vehicle unit file starts no block (76 01, 76 02, ...)",
                where=f"byte {pos}",
            )
        reader = _Reader(data, pos + 2)
        try:
            BLOCKS[trep](reader, s)
        except _Short:
            raise DamagedFile(
                "vu_structure",
                f"the vehicle unit block 76 {trep:02X} at byte {pos} breaks off or does not "
                "hold together",
                where=f"VU block 76 {trep:02X} at byte {pos}",
            ) from None
        treps.append(trep)
        pos = reader.pos
    if not s.data_blocks:
        raise DamagedFile("vu_structure", "the vehicle unit file holds no data block")
    generatie = "1"
    if any(t in TREP_GEN2_V2 for t in treps):
        generatie = "2.2"
    elif any(t in TREP_GEN2 for t in treps):
        generatie = "2"
    days = [s.days[d] for d in sorted(s.days)]
    start, end = s.period
    if start is None or end is None or end < start:
        start = midnight(days[0].datum) if days else None
        end = midnight(days[-1].datum) + timedelta(days=1) if days else None
    sessions = sorted(s.sessions.values(), key=lambda c: (c.ingestoken, c.slot))
    return VuDownload(
        generatie=generatie,
        vin=s.vin,
        kenteken=s.kenteken,
        land=s.land,
        periode_van=start,
        periode_tot=end,
        gedownload_op=s.now,
        dagen=days,
        kaarten=sessions,
        waarschuwingen=s.warnings,
    )
