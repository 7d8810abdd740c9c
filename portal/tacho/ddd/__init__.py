"""Reading tachograph downloads in full: driver cards (generation 1, 2 and 2 version 2) and
vehicle units, into typed values (see model.py). Pure: no Flask, no database.

    parse(data, filename=..., received_at=...) -> CardDownload | VuDownload

A file that is no tachograph download, or one whose parts do not hold together, raises
DamagedFile (a detect.NotTachograph) with a short `reason`, `where` it broke and one plain
English sentence. Unknown card records are skipped. Signatures are never checked and never
a reason to refuse: handtekening is "niet_geverifieerd".

Before that, detect tells a download apart by its bytes (a driver card or a vehicle unit) and
reads what it says about itself; recorded_text holds the tachograph's text and time. The card
is read by card (with card_records, card_activity and card_usage), the vehicle unit by vu;
build (with build_bytes and build_vu) writes downloads for tests and demo data.
"""

from __future__ import annotations

from datetime import datetime

from portal.tacho.ddd.card import looks_like_card, parse_card
from portal.tacho.ddd.model import (
    NIET_GEVERIFIEERD,
    CardDay,
    CardDownload,
    CardSession,
    CurrentUse,
    DamagedFile,
    GnssPlace,
    Place,
    VehicleUse,
    VuDay,
    VuDownload,
)
from portal.tacho.ddd.vu import looks_like_vu, parse_vu

# Files downloaded through a vehicle unit are sometimes stored with the unit's response
# prefix (SID 76, TREP 06) before the card's records.
CARD_THROUGH_VU = b"\x76\x06"


def parse(
    data: bytes, *, filename: str | None = None, received_at: datetime | None = None
) -> CardDownload | VuDownload:
    """The download read in full; DamagedFile when it is none or does not hold together.

    `filename` and `received_at` only help to find the moment of a card download (see
    CardDownload.gedownload_op)."""
    if not data:
        raise DamagedFile("empty", "the file is empty")
    if data[:2] == CARD_THROUGH_VU and looks_like_card(data[2:]):
        data = data[2:]
    if looks_like_card(data):
        return parse_card(data, filename=filename, received_at=received_at)
    if looks_like_vu(data):
        return parse_vu(data)
    raise DamagedFile(
        "unknown",
        "this is not a tachograph file: it starts like neither a driver card download "
        "(an EF such as EF_ICC, 00 02 00 00 19) nor a vehicle unit download (76 01, 76 21, ...)",
    )


__all__ = [
    "NIET_GEVERIFIEERD",
    "CardDay",
    "CardDownload",
    "CardSession",
    "CurrentUse",
    "DamagedFile",
    "GnssPlace",
    "Place",
    "VehicleUse",
    "VuDay",
    "VuDownload",
    "parse",
]
