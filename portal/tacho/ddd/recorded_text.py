"""Text and time as a tachograph records them (Annex 1B/1C Appendix 1): fixed-width IA5
text, names in a code page, and TimeReal seconds as days. Shared by recognising a download
(portal.tacho.ddd.detect) and reading it in full (the rest of portal.tacho.ddd)."""

from __future__ import annotations

from datetime import UTC, datetime

# Dates a tachograph can hold: digital tachographs exist since 2006 (cards since 2005).
EARLIEST = datetime(2000, 1, 1, tzinfo=UTC)
LATEST = datetime(2100, 1, 1, tzinfo=UTC)

# Code pages of names and plates (Appendix 1, "codePage"): ISO/IEC 8859 parts and KOI8.
CODE_PAGES = {
    1: "latin_1",
    2: "iso8859_2",
    3: "iso8859_3",
    5: "iso8859_5",
    7: "iso8859_7",
    9: "iso8859_9",
    13: "iso8859_13",
    15: "iso8859_15",
    16: "iso8859_16",
    80: "koi8_r",
    85: "koi8_u",
}


def ia5(raw: bytes) -> str | None:
    """Fixed-width ASCII text without its padding (spaces, NUL, 0xFF); None when blank."""
    text = raw.decode("latin_1").strip(" \x00\xff")
    text = "".join(ch for ch in text if ch.isprintable())
    return text or None


def coded(code_page: int, raw: bytes) -> str | None:
    """Text in one of the tachograph's code pages, without its padding; None when blank."""
    if not raw.strip(b" \x00\xff"):
        return None
    text = raw.decode(CODE_PAGES.get(code_page, "latin_1"), errors="replace")
    text = " ".join("".join(ch for ch in text if ch.isprintable()).split())
    return text.strip(" \x00\xff") or None


def day_of(seconds: int) -> datetime | None:
    """A TimeReal (seconds since 1970 UTC) as the start of its day; None when out of range."""
    try:
        moment = datetime.fromtimestamp(seconds, UTC)
    except (OverflowError, OSError, ValueError):
        return None
    if not EARLIEST <= moment < LATEST:
        return None
    return moment.replace(hour=0, minute=0, second=0, microsecond=0)
