"""Reading a driver card download (Appendix 7 "card downloading"): a row of TLV records,
each an EF of the card (file id, appendix byte, 2-byte length, value).

The parts that matter for driving times (identification and the activity buffer) must hold
together or the file is refused with DamagedFile naming where it broke; vehicles, places and
GNSS places that do not fit their layout are left out with a warning. Unknown records are
skipped. Signatures are not checked (handtekening "niet_geverifieerd").
"""

from __future__ import annotations

import itertools
import re
import struct
from datetime import UTC, date, datetime, timedelta

from portal.tacho.ddd import codes
from portal.tacho.ddd.model import (
    CardDay,
    CardDownload,
    CurrentUse,
    DamagedFile,
    GnssPlace,
    Place,
    VehicleUse,
)
from portal.tacho.detect import CARD_FILES, CARD_TYPES, _coded, _ia5
from portal.tacho.segments import Change, last_change_at, midnight

EF_ICC = 0x0002
EF_APPLICATION = 0x0501
EF_ACTIVITY = 0x0504
EF_VEHICLES = 0x0505
EF_PLACES = 0x0506
EF_CURRENT_USAGE = 0x0507
EF_CARD_DOWNLOAD = 0x050E
EF_IDENTIFICATION = 0x0520
EF_GNSS_PLACES = 0x0524
EF_APPLICATION_V2 = 0x0525

EF_NAMES = {
    0x0002: "ICC",
    0x0005: "IC",
    0x0501: "Application_Identification",
    0x0502: "Events_Data",
    0x0503: "Faults_Data",
    0x0504: "Driver_Activity_Data",
    0x0505: "Vehicles_Used",
    0x0506: "Places",
    0x0507: "Current_Usage",
    0x0508: "Control_Activity_Data",
    0x050E: "Card_Download",
    0x0520: "Identification",
    0x0521: "Driving_Licence_Info",
    0x0522: "Specific_Conditions",
    0x0523: "VehicleUnits_Used",
    0x0524: "GNSS_Places",
    0x0525: "Application_Identification_V2",
}

# A vendor's file name: C_YYYYMMDD_HHMM_... (the moment of the download).
FILENAME_TIME = re.compile(r"(?:^|[\\/])C_(\d{8})_(\d{4})", re.IGNORECASE)

MIN_DAY_RECORD = 14  # header (12) and at least the change at 00:00
# A card download holds some 30 to 80 records; far more is junk that happens to parse.
MAX_RECORDS = 512


class _Ef:
    """One EF of the download: its value and where that value starts in the file."""

    __slots__ = ("fid", "kind", "offset", "value")

    def __init__(self, fid: int, kind: int, offset: int, value: bytes):
        self.fid, self.kind, self.offset, self.value = fid, kind, offset, value

    @property
    def name(self) -> str:
        return f"EF {self.fid:04X} {EF_NAMES.get(self.fid, 'unknown')}"

    def where(self, at: int = 0) -> str:
        return f"{self.name}, byte {self.offset + at}"


def looks_like_card(data: bytes) -> bool:
    return len(data) >= 5 and int.from_bytes(data[:2], "big") in CARD_FILES and data[2] <= 3


def records(data: bytes) -> tuple[list[_Ef], list[str]]:
    """Every record of the file; unknown ones are kept out (with a warning), a record that
    runs past the end of the file is DamagedFile."""
    out: list[_Ef] = []
    warnings: list[str] = []
    pos, size = 0, len(data)
    count = 0
    while pos < size:
        count += 1
        if count > MAX_RECORDS:
            raise DamagedFile(
                "card_structure",
                f"the card file holds more than {MAX_RECORDS} records; byte {pos} and on "
                "are no card data",
                where=f"record at byte {pos}",
            )
        if size - pos < 5:
            raise DamagedFile(
                "card_structure",
                f"the card file breaks off inside a record header at byte {pos}",
                where=f"record header at byte {pos}",
            )
        fid = (data[pos] << 8) | data[pos + 1]
        kind = data[pos + 2]
        length = (data[pos + 3] << 8) | data[pos + 4]
        if pos + 5 + length > size:
            raise DamagedFile(
                "card_structure",
                f"the card record {fid:04X}{kind:02X} at byte {pos} claims {length} bytes, "
                "but the file ends before that",
                where=f"record {fid:04X}{kind:02X} at byte {pos}",
            )
        if fid in CARD_FILES and kind <= 3:
            out.append(_Ef(fid, kind, pos + 5, data[pos + 5 : pos + 5 + length]))
        elif "unknown_tag" not in warnings:
            warnings.append("unknown_tag")
        pos += 5 + length
    return out, warnings


def parse_card(
    data: bytes, *, filename: str | None = None, received_at: datetime | None = None
) -> CardDownload:
    found, warnings = records(data)
    # Data EFs only (appendix 0 or 2); with both, the second generation's one is read.
    efs: dict[int, _Ef] = {}
    for ef in found:
        if ef.kind in (0, 2) and (ef.fid not in efs or ef.kind >= efs[ef.fid].kind):
            efs[ef.fid] = ef
    if not efs.keys() & {EF_ICC, EF_IDENTIFICATION, EF_APPLICATION, EF_APPLICATION_V2}:
        raise DamagedFile(
            "card_structure",
            "the card file holds no card identification (EF_ICC, EF_Identification or "
            "EF_Application_Identification)",
        )
    application = efs.get(EF_APPLICATION)
    if application is not None and application.value:
        card_type = CARD_TYPES.get(application.value[0])
        if card_type is not None and card_type != "driver":
            raise DamagedFile(
                "other_card",
                f"this is a {card_type} card download, not a driver card",
                where=application.where(),
                card_type=card_type,
            )
    generatie = _generation(found, efs)

    identity = _identification(efs.get(EF_IDENTIFICATION))
    days: list[CardDay] = []
    activity = efs.get(EF_ACTIVITY)
    if activity is not None:
        days = activity_days(activity, warnings)

    second = lambda ef: ef is not None and ef.kind == 2  # noqa: E731
    vehicles_ef = efs.get(EF_VEHICLES)
    voertuigen = _guarded(warnings, vehicles_ef, _vehicles, second(vehicles_ef))
    places_ef = efs.get(EF_PLACES)
    plaatsen = _guarded(warnings, places_ef, _places, second(places_ef))
    gnss = _guarded(warnings, efs.get(EF_GNSS_PLACES), _gnss_places, True)

    download_ef = efs.get(EF_CARD_DOWNLOAD)
    card_download = (
        codes.moment(int.from_bytes(download_ef.value[:4], "big"))
        if download_ef is not None and len(download_ef.value) >= 4
        else None
    )
    current = efs.get(EF_CURRENT_USAGE)
    huidig_gebruik = None
    if current is not None and len(current.value) >= 19:
        kenteken, land = _plate(current.value[4:19])
        huidig_gebruik = CurrentUse(
            sessie_begin=codes.moment(int.from_bytes(current.value[:4], "big")),
            kenteken=kenteken,
            land=land,
        )
    gedownload_op = _download_moment(days, filename, card_download, received_at)
    if days and gedownload_op is None:
        warnings.append("open_tail")
    return CardDownload(
        generatie=generatie,
        gedownload_op=gedownload_op,
        dagen=days,
        voertuigen=voertuigen,
        plaatsen=plaatsen,
        gnss=gnss,
        huidig_gebruik=huidig_gebruik,
        waarschuwingen=warnings,
        **identity,
    )


def _generation(found: list[_Ef], efs: dict[int, _Ef]) -> str:
    if EF_APPLICATION_V2 in efs:
        return "2.2"
    application = efs.get(EF_APPLICATION)
    if application is not None and application.kind == 2 and application.value[1:3] == b"\x01\x01":
        return "2.2"  # cardStructureVersion 01 01: generation 2, version 2
    if any(ef.kind in (2, 3) for ef in found):
        return "2"
    return "1"


def _identification(ef: _Ef | None) -> dict:
    empty = dict.fromkeys(
        (
            "kaartnummer",
            "achternaam",
            "voornamen",
            "houder",
            "land",
            "afgifte_instantie",
            "afgiftedatum",
            "vervaldatum",
            "geboortedatum",
        )
    )
    if ef is None:
        return empty
    v = ef.value
    if len(v) < 137:
        raise DamagedFile(
            "card_structure",
            f"EF_Identification holds {len(v)} bytes where a driver card has 143",
            where=ef.where(len(v)),
        )
    # CardIdentification: nation (1), card number (16), authority Name (36), issue,
    # validity begin and expiry TimeReal (3 x 4); holder: surname and first names (Name
    # each), birth date (Datef), preferred language.
    surname = _coded(v[65], v[66:101])
    first = _coded(v[101], v[102:137])
    expiry = codes.moment(int.from_bytes(v[61:65], "big"))
    issued = codes.moment(int.from_bytes(v[53:57], "big"))
    return {
        "kaartnummer": _ia5(v[1:17]),
        "achternaam": surname,
        "voornamen": first,
        "houder": " ".join(part for part in (first, surname) if part) or None,
        "land": codes.nation(v[0]),
        "afgifte_instantie": _coded(v[17], v[18:53]),
        "afgiftedatum": issued.date() if issued else None,
        "vervaldatum": expiry.date() if expiry else None,
        "geboortedatum": codes.datef(v[137:141]) if len(v) >= 141 else None,
    }


# --- the activity buffer -----------------------------------------------------------------


def activity_days(ef: _Ef, warnings: list[str]) -> list[CardDay]:
    """The daily records of EF_Driver_Activity_Data, oldest first.

    The value is two pointers (oldest and newest day record) and a cyclic buffer. Records are
    found only by walking from the newest one backwards by each record's "previous record
    length"; reads wrap around the end of the buffer, even inside a header. Bytes outside
    that chain are stale records of earlier rounds and are never looked at."""
    v = ef.value
    if len(v) < 4:
        raise DamagedFile(
            "activity_buffer",
            "EF_Driver_Activity_Data is too short to hold its two pointers",
            where=ef.where(),
        )
    oldest = (v[0] << 8) | v[1]
    newest = (v[2] << 8) | v[3]
    ring = v[4:]
    size = len(ring)
    base = 4  # where the ring starts within the EF value, for messages

    def where(pos: int) -> str:
        return ef.where(base + pos)

    if size < MIN_DAY_RECORD:
        if size == 0 or not any(ring):
            return []
        raise DamagedFile(
            "activity_buffer", "the activity buffer is too small for one day", where=ef.where()
        )
    if oldest >= size or newest >= size:
        raise DamagedFile(
            "activity_buffer",
            f"the activity buffer's pointers ({oldest}, {newest}) point past its end ({size})",
            where=ef.where(),
        )
    # Reading from the ring twice over makes every wrapped read a plain slice.
    double = ring + ring
    head = struct.Struct(">HHIHH")
    first_length = (double[newest + 2] << 8) | double[newest + 3]
    if first_length == 0:
        # An empty card: nothing has been written yet.
        return []

    days: list[CardDay] = []
    pos = newest
    expected = None  # the length the record at pos must have (its successor's prevLen)
    later: date | None = None
    # Each record takes at least 14 bytes: no honest chain is longer than this.
    for _ in range(size // MIN_DAY_RECORD + 1):
        previous, length, seconds, presence, distance = head.unpack_from(double, pos)
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
        words = struct.unpack_from(f">{n}H", double, pos + 12)
        changes = [codes.card_change(w) for w in words]
        if any(c.minuut >= 1440 for c in changes):
            changes = [c for c in changes if c.minuut < 1440]
            if "activity_minute_out_of_range" not in warnings:
                warnings.append("activity_minute_out_of_range")
        days.append(
            CardDay(
                datum=day,
                aanwezigheid=codes.bcd(presence.to_bytes(2, "big")),
                afstand_km=distance,
                wijzigingen=changes,
            )
        )
        later = day
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


def _check_presence(days: list[CardDay], warnings: list[str]) -> None:
    for older, newer in itertools.pairwise(days):
        if newer.aanwezigheid != (older.aanwezigheid + 1) % 10000:
            warnings.append("presence_counter_gap")
            return


# --- vehicles, places, GNSS places -------------------------------------------------------


class _Layout(Exception):
    """An EF does not fit its record layout."""


def _guarded(warnings: list[str], ef: _Ef | None, read, second: bool) -> list:
    if ef is None or not ef.value:
        return []
    try:
        return read(ef.value, second)
    except _Layout:
        warnings.append(f"ef_{ef.fid:04x}_unreadable")
        return []


def _ring(value: bytes, pointer_size: int, record_size: int) -> list[bytes]:
    """The records of a cyclic EF (pointer to the newest, then records), oldest first."""
    body = value[pointer_size:]
    if len(value) < pointer_size or len(body) % record_size:
        raise _Layout
    count = len(body) // record_size
    newest = int.from_bytes(value[:pointer_size], "big")
    if count == 0:
        return []
    start = (newest + 1) % count if newest < count else 0
    order = [*range(start, count), *range(start)]
    return [body[i * record_size : (i + 1) * record_size] for i in order]


def _plate(raw: bytes) -> tuple[str | None, str | None]:
    """VehicleRegistrationIdentification (15): nation, code page and 13 characters."""
    return _coded(raw[1], raw[2:15]), codes.nation(raw[0])


def _vehicles(value: bytes, second: bool) -> list[VehicleUse]:
    size = 48 if second else 31
    out = []
    for r in _ring(value, 2, size):
        first = codes.moment(int.from_bytes(r[6:10], "big"))
        if first is None:
            continue
        kenteken, land = _plate(r[14:29])
        out.append(
            VehicleUse(
                eerste_gebruik=first,
                laatste_gebruik=codes.moment(int.from_bytes(r[10:14], "big")),
                km_begin=int.from_bytes(r[0:3], "big"),
                km_eind=int.from_bytes(r[3:6], "big"),
                kenteken=kenteken,
                land=land,
                vin=_ia5(r[31:48]) if second else None,
            )
        )
    out.sort(key=lambda u: u.eerste_gebruik)
    return out


def _places(value: bytes, second: bool) -> list[Place]:
    # Gen1: a 1-byte pointer and 10-byte records; the G2 application: a 2-byte pointer and
    # 21-byte records ending in a GNSS place.
    pointer, size = (2, 21) if second else (1, 10)
    out = []
    for r in _ring(value, pointer, size):
        when = codes.moment(int.from_bytes(r[0:4], "big"))
        if when is None:
            continue
        entry = r[4]
        lat = lon = None
        if second:
            lat, lon = codes.geo(r[15:18]), codes.geo(r[18:21])
        out.append(
            Place(
                tijd=when,
                # 0/1 begin/end at insertion or withdrawal, 2/3 entered by hand, 4/5 assumed
                # by the vehicle unit.
                soort="begin" if entry % 2 == 0 else "einde",
                handmatig=entry in (2, 3),
                land=codes.nation(r[5]),
                regio=r[6] or None,
                km=int.from_bytes(r[7:10], "big"),
                lat=lat,
                lon=lon,
            )
        )
    out.sort(key=lambda p: p.tijd)
    return out


def _gnss_places(value: bytes, second: bool) -> list[GnssPlace]:
    # GNSSAccumulatedDrivingRecord: time (4), GNSSPlaceRecord (time 4, accuracy 1,
    # latitude 3, longitude 3), odometer (3).
    out = []
    for r in _ring(value, 2, 18):
        when = codes.moment(int.from_bytes(r[0:4], "big"))
        if when is None:
            continue
        out.append(
            GnssPlace(
                tijd=when,
                lat=codes.geo(r[9:12]),
                lon=codes.geo(r[12:15]),
                km=int.from_bytes(r[15:18], "big"),
            )
        )
    out.sort(key=lambda p: p.tijd)
    return out


# --- the moment of the download ----------------------------------------------------------


def filename_moment(filename: str | None) -> datetime | None:
    """The moment in a vendor's file name C_YYYYMMDD_HHMM_..., taken as UTC."""
    if not filename:
        return None
    match = FILENAME_TIME.search(filename)
    if not match:
        return None
    try:
        when = datetime.strptime(match.group(1) + match.group(2), "%Y%m%d%H%M")
    except ValueError:
        return None
    return when.replace(tzinfo=UTC)


def _download_moment(
    days: list[CardDay],
    filename: str | None,
    card_download: datetime | None,
    received_at: datetime | None,
) -> datetime | None:
    """The best known moment of the download: the file name's, else EF_Card_Download's,
    else when the file was received; each only when it is not before the newest day's last
    change (a download cannot precede what it holds: EF_Card_Download often holds the
    previous download). When that last change has the card inserted, the card was read that
    same day (a card left in past midnight starts a new day's record, a withdrawal is a
    change): a moment on a later day, such as a file uploaded days after it was read, says
    nothing about when, and the time after the last change stays unknown (None)."""
    if received_at is not None and received_at.tzinfo is None:
        received_at = received_at.replace(tzinfo=UTC)
    earliest = latest = None
    if days:
        newest = days[-1]
        # The last change as recorded (not the largest minute: a lagging unit's clock can
        # record a later change at an earlier minute), where it lies on the timeline.
        last: Change | None = newest.wijzigingen[-1] if newest.wijzigingen else None
        earliest = last_change_at(newest.datum, newest.wijzigingen)
        if last is not None and last.kaart_in:
            latest = midnight(newest.datum) + timedelta(days=1)
    for candidate in (filename_moment(filename), card_download, received_at):
        if candidate is None:
            continue
        candidate = candidate.astimezone(UTC)
        if earliest is not None and candidate < earliest:
            continue
        if latest is not None and candidate >= latest:
            continue
        return candidate
    return None


__all__ = ["activity_days", "filename_moment", "looks_like_card", "parse_card", "records"]
