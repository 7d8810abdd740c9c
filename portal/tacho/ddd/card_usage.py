"""What a driver card download says of its use beside the days: the vehicles used, the
places where days began and ended, GNSS places, and the vehicle of the current session.
An EF that does not fit its layout is left out with a warning ("ef_XXXX_unreadable").
"""

from __future__ import annotations

from portal.tacho.ddd import codes
from portal.tacho.ddd.card_records import Ef
from portal.tacho.ddd.model import CurrentUse, GnssPlace, Place, VehicleUse
from portal.tacho.ddd.recorded_text import coded, ia5


class _Layout(Exception):
    """An EF does not fit its record layout."""


def guarded(warnings: list[str], ef: Ef | None, read, second: bool) -> list:
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
    return coded(raw[1], raw[2:15]), codes.nation(raw[0])


def vehicles(value: bytes, second: bool) -> list[VehicleUse]:
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
                vin=ia5(r[31:48]) if second else None,
            )
        )
    out.sort(key=lambda u: u.eerste_gebruik)
    return out


def places(value: bytes, second: bool) -> list[Place]:
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


def gnss_places(value: bytes, second: bool) -> list[GnssPlace]:
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


def current_use(ef: Ef | None) -> CurrentUse | None:
    """EF_Current_Usage: when the session began and in which vehicle."""
    if ef is None or len(ef.value) < 19:
        return None
    kenteken, land = _plate(ef.value[4:19])
    return CurrentUse(
        sessie_begin=codes.moment(int.from_bytes(ef.value[:4], "big")),
        kenteken=kenteken,
        land=land,
    )
