"""The small encodings of the tachograph data dictionary (Annex 1B/1C Appendix 1): times,
BCD dates and counters, nations, and the 2-byte activity change word."""

from __future__ import annotations

from datetime import UTC, date, datetime

from portal.tacho.segments import BESCHIKBAAR, ONBEKEND, RIJDEN, RUST, WERK, Change

# Moments a tachograph can hold: digital tachographs exist since 2006 (cards since 2005).
EARLIEST = datetime(2000, 1, 1, tzinfo=UTC)
LATEST = datetime(2100, 1, 1, tzinfo=UTC)
_EARLIEST_S = int(EARLIEST.timestamp())
_LATEST_S = int(LATEST.timestamp())

# NationNumeric (App.1 §2.101) to ISO 3166-1 alpha-2. 0x33 (Yugoslavia), 0xFD (European
# Community), 0xFE (rest of Europe), 0xFF (rest of the world) have no alpha-2 code: None.
NATIONS = {
    0x01: "AT", 0x02: "AL", 0x03: "AD", 0x04: "AM", 0x05: "AZ", 0x06: "BE", 0x07: "BG",
    0x08: "BA", 0x09: "BY", 0x0A: "CH", 0x0B: "CY", 0x0C: "CZ", 0x0D: "DE", 0x0E: "DK",
    0x0F: "ES", 0x10: "EE", 0x11: "FR", 0x12: "FI", 0x13: "LI", 0x14: "FO", 0x15: "GB",
    0x16: "GE", 0x17: "GR", 0x18: "HU", 0x19: "HR", 0x1A: "IT", 0x1B: "IE", 0x1C: "IS",
    0x1D: "KZ", 0x1E: "LU", 0x1F: "LT", 0x20: "LV", 0x21: "MT", 0x22: "MC", 0x23: "MD",
    0x24: "MK", 0x25: "NO", 0x26: "NL", 0x27: "PT", 0x28: "PL", 0x29: "RO", 0x2A: "SM",
    0x2B: "RU", 0x2C: "SE", 0x2D: "SK", 0x2E: "SI", 0x2F: "TM", 0x30: "TR", 0x31: "UA",
    0x32: "VA", 0x34: "ME", 0x35: "RS", 0x36: "UZ", 0x37: "TJ", 0x38: "KG",
}  # fmt: skip
NATION_CODES = {alpha: numeric for numeric, alpha in NATIONS.items()}

ACTIVITIES = (RUST, BESCHIKBAAR, WERK, RIJDEN)  # aa = 00, 01, 10, 11
ACTIVITY_CODES = {name: code for code, name in enumerate(ACTIVITIES)}


def nation(code: int) -> str | None:
    return NATIONS.get(code)


def moment(seconds: int) -> datetime | None:
    """A TimeReal (seconds since 1970 UTC); None when 0, all ones or out of range."""
    if not _EARLIEST_S <= seconds < _LATEST_S:
        return None
    return datetime.fromtimestamp(seconds, UTC)


def day_of(seconds: int) -> date | None:
    found = moment(seconds)
    return found.date() if found else None


def seconds_of(when: datetime | date | None) -> int:
    """The TimeReal of a moment (a date: its 00:00 UTC); 0 for None."""
    if when is None:
        return 0
    if not isinstance(when, datetime):
        when = datetime(when.year, when.month, when.day, tzinfo=UTC)
    return int(when.timestamp())


def bcd(raw: bytes) -> int:
    """A BCD number; nibbles above 9 count as their value (garbage in, a number out)."""
    value = 0
    for byte in raw:
        value = value * 100 + (byte >> 4) * 10 + (byte & 0x0F)
    return value


def to_bcd(value: int, width: int) -> bytes:
    digits = f"{value:0{width * 2}d}"[-width * 2 :]
    return bytes.fromhex(digits)


def datef(raw: bytes) -> date | None:
    """A Datef: BCD yyyymmdd; None for 00000000 or an impossible date."""
    if len(raw) != 4 or not any(raw):
        return None
    try:
        return date(bcd(raw[:2]), bcd(raw[2:3]), bcd(raw[3:4]))
    except ValueError:
        return None


def geo(raw: bytes) -> float | None:
    """A GeoCoordinates half (3 bytes, signed, +-DDMM.M times 10) in decimal degrees; None when
    the position is unknown or out of range."""
    value = int.from_bytes(raw, "big", signed=True)
    sign = -1 if value < 0 else 1
    value = abs(value)
    degrees, tenth_minutes = divmod(value, 1000)
    if degrees > 180 or tenth_minutes >= 600:
        return None
    return sign * round(degrees + tenth_minutes / 600, 6)


def to_geo(degrees: float) -> bytes:
    sign = -1 if degrees < 0 else 1
    whole = int(abs(degrees))
    tenth_minutes = round((abs(degrees) - whole) * 600)
    if tenth_minutes == 600:
        whole, tenth_minutes = whole + 1, 0
    return (sign * (whole * 1000 + tenth_minutes)).to_bytes(3, "big", signed=True)


# --- ActivityChangeInfo: 'scpaattttttttttt' ----------------------------------------------


def _fields(word: int) -> tuple[int, int, int, int, int]:
    return word >> 15, (word >> 14) & 1, (word >> 13) & 1, (word >> 11) & 3, word & 0x7FF


_CARD_CHANGES: dict[int, Change] = {}
_VU_CHANGES: dict[int, Change] = {}


def card_change(word: int) -> Change:
    """A card's activity change word as a Change (App.1 §2.1):

    s slot (0 driver, 1 co-driver); p 0 card inserted, 1 not inserted; with p = 0, c is the
    crew flag; with p = 1, c = 1 means the following activity was entered by hand and c = 0
    that it is unknown; aa the activity; t the minute of the day. A word depends on nothing
    else, so each is decoded once."""
    found = _CARD_CHANGES.get(word)
    if found is None:
        s, c, p, a, t = _fields(word)
        if p == 0:
            found = Change(t, ACTIVITIES[a], kaart_in=True, bemanning=bool(c), slot=s)
        elif c == 1:
            found = Change(t, ACTIVITIES[a], kaart_in=False, handmatig=True, slot=s)
        else:
            found = Change(t, ONBEKEND, kaart_in=False, slot=s)
        _CARD_CHANGES[word] = found
    return found


def vu_change(word: int) -> Change:
    """A vehicle unit's activity change word: as on a card, but the unit records the slot's
    activity whether a card is in or not, so `activiteit` is always aa (driving without a
    card shows as rijden with kaart_in False) and c is always the crew flag."""
    found = _VU_CHANGES.get(word)
    if found is None:
        s, c, p, a, t = _fields(word)
        found = Change(t, ACTIVITIES[a], kaart_in=p == 0, bemanning=bool(c), slot=s)
        _VU_CHANGES[word] = found
    return found


def change_word(change: Change) -> int:
    """The word of a Change, as a card stores it (the inverse of card_change)."""
    if change.kaart_in:
        p, c, a = 0, int(change.bemanning), ACTIVITY_CODES.get(change.activiteit, 0)
    elif change.handmatig:
        p, c, a = 1, 1, ACTIVITY_CODES.get(change.activiteit, 0)
    else:
        p, c, a = 1, 0, 0
    return (change.slot & 1) << 15 | c << 14 | p << 13 | a << 11 | (change.minuut & 0x7FF)


def vu_word(change: Change) -> int:
    """The word of a Change as a vehicle unit stores it (the inverse of vu_change)."""
    a = ACTIVITY_CODES.get(change.activiteit, 0)
    p = 0 if change.kaart_in else 1
    c = int(change.bemanning)
    return (change.slot & 1) << 15 | c << 14 | p << 13 | a << 11 | (change.minuut & 0x7FF)
