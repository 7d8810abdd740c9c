"""Telling tachograph downloads apart by their bytes: a driver card or a vehicle unit.

An EU digital tachograph (Annex 1B, and the smart tachograph of Annex 1C) gives two kinds of
download, whatever the file is called (.DDD, .TGD, .C1B, .V1B, .ESM, ...):

- A card download (Appendix 7, "card downloading") is a row of the card's elementary files
  (EFs), each a 2-byte file identifier, a type byte (0 data, 1 its signature; 2 and 3 the
  same for second-generation data) and a 2-byte big-endian length, followed by that many
  bytes. It usually opens with EF_ICC (`00 02 00 00 19`) and EF_IC (`00 05 00 00 08`).
- A vehicle unit download (Appendix 7, "data downloading protocol") is a row of transfer
  responses: the service id 0x76 and a TREP byte (01 overview, 02 the activities of one day,
  03 events and faults, 04 detailed speed, 05 technical data; 0x21..0x25 the second
  generation, 0x31..0x35 its version 2, and 0x00 that version's interface version), each
  followed by data without a length: its size follows from its structure.

A file is recognised only when its structure holds: every record of a card file, and at
least the first block of a vehicle unit file, must parse exactly. What can be read on the way
is kept: the card number and holder, or the VIN and registration, and the days the data
covers. Signatures are not checked; names are never looked at.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta

from portal.tacho.ddd.recorded_text import EARLIEST, LATEST, coded, day_of, ia5

BESTUURDERSKAART = "bestuurderskaart"
VOERTUIGEENHEID = "voertuigeenheid"

# Elementary files a card download holds (Appendix 2; 0x052x and 0x053x/0x054x the second
# generation's, 0xC1xx the certificates).
CARD_FILES = frozenset(
    {0x0002, 0x0005, *range(0x0501, 0x0509), 0x050E, *range(0x0520, 0x052A), 0x0530, 0x0540}
    | {0xC100, 0xC101, 0xC108, 0xC109}
)
EF_ICC, EF_IDENTIFICATION, EF_APPLICATION, EF_ACTIVITY = 0x0002, 0x0520, 0x0501, 0x0504
EF_APPLICATION_V2 = 0x0525
# What the first byte of EF_Application_Identification says the card is (EquipmentType).
CARD_TYPES = {1: "driver", 2: "workshop", 3: "control", 4: "company"}

SID = 0x76
TREP_GEN1 = {0x01, 0x02, 0x03, 0x04, 0x05}
TREP_GEN2 = {0x21, 0x22, 0x23, 0x24, 0x25}
TREP_GEN2_V2 = {0x00, 0x31, 0x32, 0x33, 0x35}
TREPS = TREP_GEN1 | TREP_GEN2 | TREP_GEN2_V2

# Second-generation record types (Appendix 1, RecordType) that this reader uses; 0x01..0x24
# are defined, 0x80..0xFF belong to manufacturers, the rest is reserved.
RT_DATE_OF_DAY, RT_SIGNATURE, RT_VIN, RT_VRN, RT_VRI = 0x06, 0x08, 0x0A, 0x0B, 0x24
MAX_RECORD_ARRAYS = 64  # per block: far more than any block defines


class NotTachograph(ValueError):
    """Not a tachograph download this product takes; `reason` says why in a word:
    `empty`, `unknown` (neither a card nor a vehicle unit), `card_structure` or `vu_structure`
    (it starts like one but does not hold together), `other_card` (a workshop, control or
    company card: `card_type` names it)."""

    def __init__(self, reason: str, detail: str, card_type: str | None = None):
        super().__init__(detail)
        self.reason = reason
        self.detail = detail
        self.card_type = card_type


@dataclass
class TachoInfo:
    """What a tachograph download is and what it says about itself."""

    soort: str  # bestuurderskaart or voertuigeenheid
    generatie: str  # "1", "2" or "2.2"
    kaartnummer: str | None = None
    houder: str | None = None  # the card holder: first names and surname
    vin: str | None = None
    kenteken: str | None = None  # the registration as recorded, without its country
    periode_van: datetime | None = None  # the first day with data, 00:00 UTC
    periode_tot: datetime | None = None  # the end of the last day with data (exclusive)
    days: list[datetime] = field(default_factory=list, repr=False)

    def close_period(self) -> None:
        """The period from the days seen: first day through the end of the last."""
        days = [d for d in self.days if EARLIEST <= d < LATEST]
        if days:
            self.periode_van = min(days)
            self.periode_tot = max(days) + timedelta(days=1)


def identify(data: bytes) -> TachoInfo:
    """What the bytes are: a driver card or a vehicle unit download; NotTachograph otherwise."""
    if not data:
        raise NotTachograph("empty", "the file is empty")
    if len(data) >= 5 and int.from_bytes(data[:2], "big") in CARD_FILES and data[2] <= 3:
        return _card(data)
    if len(data) >= 2 and data[0] == SID and data[1] in TREPS:
        return _vehicle_unit(data)
    raise NotTachograph(
        "unknown",
        "not a tachograph file: it starts like neither a driver card download (an EF such as "
        "EF_ICC, 00 02 00 00 19) nor a vehicle unit download (76 01, 76 21, 76 31, ...)",
    )


# --- cards -------------------------------------------------------------------------------


def _card_records(data: bytes) -> list[tuple[int, int, bytes]]:
    """Every (file id, type, data) of a card download's known EFs; NotTachograph when a
    record runs past the end."""
    records = []
    pos = 0
    while pos < len(data):
        if len(data) - pos < 5:
            raise NotTachograph(
                "card_structure", f"the card file breaks off in a record header at byte {pos}"
            )
        fid = int.from_bytes(data[pos : pos + 2], "big")
        kind = data[pos + 2]
        length = int.from_bytes(data[pos + 3 : pos + 5], "big")
        if pos + 5 + length > len(data):
            raise NotTachograph(
                "card_structure",
                f"the card record {fid:04X} at byte {pos} claims {length} bytes; the file ends "
                "before that",
            )
        if fid in CARD_FILES and kind <= 3:
            records.append((fid, kind, data[pos + 5 : pos + 5 + length]))
        # else a record of a tag not known here (a newer generation's): skipped, as the
        # reader skips it; the file still needs a card's identification to be one
        pos += 5 + length
    return records


def _newest(records, fid: int) -> bytes | None:
    """The data of an EF, the second generation's when both are there."""
    found = {kind: body for f, kind, body in records if f == fid and kind in (0, 2)}
    return found.get(2) or found.get(0)


def _card(data: bytes) -> TachoInfo:
    records = _card_records(data)
    present = {fid for fid, _kind, _body in records}
    if not present & {EF_ICC, EF_IDENTIFICATION, EF_APPLICATION, EF_APPLICATION_V2}:
        raise NotTachograph(
            "card_structure",
            "the records hold no card identification (EF_ICC, EF_Identification or "
            "EF_Application_Identification)",
        )
    application = _newest(records, EF_APPLICATION) or _newest(records, EF_APPLICATION_V2)
    if application:
        card_type = CARD_TYPES.get(application[0])
        if card_type is not None and card_type != "driver":
            raise NotTachograph(
                "other_card",
                f"this is a {card_type} card download, not a driver card",
                card_type=card_type,
            )
    second = any(kind in (2, 3) for _fid, kind, _body in records)
    info = TachoInfo(
        soort=BESTUURDERSKAART,
        generatie="2.2" if EF_APPLICATION_V2 in present else "2" if second else "1",
    )
    identification = _newest(records, EF_IDENTIFICATION)
    if identification and len(identification) >= 137:
        # CardIdentification: issuing state (1), card number (16), authority (36), issue,
        # validity and expiry dates (3 x 4); then the holder's surname and first names, each
        # a code page byte and 35 bytes.
        info.kaartnummer = ia5(identification[1:17])
        surname = coded(identification[65], identification[66:101])
        first = coded(identification[101], identification[102:137])
        info.houder = " ".join(part for part in (first, surname) if part) or None
    activity = _newest(records, EF_ACTIVITY)
    if activity:
        info.days = _card_days(activity)
    info.close_period()
    return info


def _card_days(activity: bytes) -> list[datetime]:
    """The oldest and newest day of EF_Driver_Activity_Data: two pointers into a cyclic
    buffer of day records (previous length, length, date, ...); [] when they make no sense."""
    if len(activity) < 4 + 12:
        return []
    oldest = int.from_bytes(activity[0:2], "big")
    newest = int.from_bytes(activity[2:4], "big")
    ring = activity[4:]
    size = len(ring)
    if oldest >= size or newest >= size:
        return []

    def header(at: int) -> tuple[int, datetime | None]:
        # The header may wrap around the end of the buffer.
        raw = bytes(ring[(at + i) % size] for i in range(8))
        length = int.from_bytes(raw[2:4], "big")
        return length, day_of(int.from_bytes(raw[4:8], "big"))

    days = []
    for pointer in (oldest, newest):
        length, day = header(pointer)
        if not 12 <= length <= size or day is None:
            return []
        days.append(day)
    if days[0] > days[1]:
        return []
    return days


# --- vehicle units -----------------------------------------------------------------------


class _Short(Exception):
    """The data ends inside a structure."""


class _Reader:
    def __init__(self, data: bytes, pos: int):
        self.data = data
        self.pos = pos

    def take(self, n: int) -> bytes:
        if n < 0 or self.pos + n > len(self.data):
            raise _Short
        chunk = self.data[self.pos : self.pos + n]
        self.pos += n
        return chunk

    def skip(self, n: int) -> None:
        self.take(n)

    def u8(self) -> int:
        return self.take(1)[0]

    def u16(self) -> int:
        return int.from_bytes(self.take(2), "big")

    def u32(self) -> int:
        return int.from_bytes(self.take(4), "big")


# First-generation blocks (Appendix 1 and 7, Annex 1B): fixed parts and counted records.
CERTIFICATE_1, SIGNATURE_1 = 194, 128


def _overview_1(r: _Reader, info: TachoInfo) -> None:
    r.skip(2 * CERTIFICATE_1)  # member state and VU certificates
    info.vin = info.vin or ia5(r.take(17))
    r.skip(1)  # registration nation
    plate = r.take(14)  # code page and 13 characters
    info.kenteken = info.kenteken or coded(plate[0], plate[1:])
    r.skip(4 + 8 + 1)  # current time, downloadable period, card slots
    r.skip(4 + 18 + 36)  # last download: time, card, company or workshop
    r.skip(r.u8() * 98)  # company locks
    r.skip(r.u8() * 31)  # control activities
    r.skip(SIGNATURE_1)


def _activities_1(r: _Reader, info: TachoInfo) -> None:
    day = day_of(r.u32())
    r.skip(3)  # odometer at midnight
    r.skip(r.u16() * 129)  # card insertions and withdrawals
    r.skip(r.u16() * 2)  # activity changes
    r.skip(r.u8() * 28)  # places
    r.skip(r.u16() * 5)  # specific conditions
    r.skip(SIGNATURE_1)
    if day is not None:
        info.days.append(day)


def _events_1(r: _Reader, info: TachoInfo) -> None:
    r.skip(r.u8() * 82)  # faults
    r.skip(r.u8() * 83)  # events
    r.skip(9)  # overspeeding control
    r.skip(r.u8() * 31)  # overspeeding events
    r.skip(r.u8() * 98)  # time adjustments
    r.skip(SIGNATURE_1)


def _speed_1(r: _Reader, info: TachoInfo) -> None:
    r.skip(r.u16() * 64)  # one minute of speeds per block
    r.skip(SIGNATURE_1)


def _technical_1(r: _Reader, info: TachoInfo) -> None:
    r.skip(116 + 20)  # VU identification, paired sensor
    r.skip(r.u8() * 167)  # calibrations
    r.skip(SIGNATURE_1)


def _interface_version(r: _Reader, info: TachoInfo) -> None:
    r.skip(2)  # generation and version


def _record_arrays(r: _Reader, info: TachoInfo) -> None:
    """A second-generation block: record arrays (type, record size, count, records), the
    signature's array last. What it says counts only once the whole block has been read."""
    found: dict[str, str | None] = {}
    days: list[datetime] = []
    for _ in range(MAX_RECORD_ARRAYS):
        record_type = r.u8()
        size = r.u16()
        count = r.u16()
        if not (0x01 <= record_type <= RT_VRI or record_type >= 0x80):
            raise _Short
        body = r.take(size * count)
        if record_type == RT_VIN and size == 17 and count:
            found["vin"] = ia5(body[:17])
        elif record_type == RT_VRN and size == 14 and count:
            found["kenteken"] = coded(body[0], body[1:14])
        elif record_type == RT_VRI and size == 15 and count:
            found["kenteken"] = coded(body[1], body[2:15])
        elif record_type == RT_DATE_OF_DAY and size == 4:
            for i in range(count):
                day = day_of(int.from_bytes(body[i * 4 : i * 4 + 4], "big"))
                if day is not None:
                    days.append(day)
        if record_type == RT_SIGNATURE:
            info.vin = info.vin or found.get("vin")
            info.kenteken = info.kenteken or found.get("kenteken")
            info.days.extend(days)
            return
    raise _Short


BLOCKS = {
    0x00: _interface_version,
    0x01: _overview_1,
    0x02: _activities_1,
    0x03: _events_1,
    0x04: _speed_1,
    0x05: _technical_1,
    **dict.fromkeys(TREP_GEN2 | (TREP_GEN2_V2 - {0x00}), _record_arrays),
}


def _vehicle_unit(data: bytes) -> TachoInfo:
    info = TachoInfo(soort=VOERTUIGEENHEID, generatie="1")
    treps = []
    solid = False  # a data block (not just the interface version) has been read whole
    pos = 0
    while pos < len(data):
        trep = data[pos + 1] if pos + 1 < len(data) else None
        if data[pos] != SID or trep not in TREPS:
            if not solid:
                raise NotTachograph(
                    "vu_structure", f"byte {pos} of the vehicle unit file starts no block"
                )
            break  # what follows is not understood; what came before stands
        reader = _Reader(data, pos + 2)
        try:
            BLOCKS[trep](reader, info)
        except _Short:
            if not solid:
                raise NotTachograph(
                    "vu_structure",
                    f"the vehicle unit block 76 {trep:02X} at byte {pos} does not hold together",
                ) from None
            break
        if not solid and trep != 0x00:
            following = data[reader.pos : reader.pos + 2]
            if following and (
                len(following) < 2 or following[0] != SID or following[1] not in TREPS
            ):
                raise NotTachograph(
                    "vu_structure",
                    f"the vehicle unit block 76 {trep:02X} at byte {pos} is followed by neither "
                    "another block nor the end of the file",
                )
            solid = True
        treps.append(trep)
        pos = reader.pos
    if not solid:
        raise NotTachograph("vu_structure", "the vehicle unit file holds no data block")
    if any(t in TREP_GEN2_V2 for t in treps):
        info.generatie = "2.2"
    elif any(t in TREP_GEN2 for t in treps):
        info.generatie = "2"
    info.close_period()
    return info
