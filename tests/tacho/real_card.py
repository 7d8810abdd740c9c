"""The real, anonymised driver card of tests/fixtures/tachograph (see its README and LICENSE):
its elementary files, their expected values, and a whole download assembled from them as a
card reader saves it (each signed EF followed by its signature)."""

from __future__ import annotations

import base64
import json
from pathlib import Path

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "tachograph"
# The vendor's name of a download made on 12 September 2025 at 11:30 (UTC).
NAME = "C_20250912_1130_T_TEST_DRIVER00000001.DDD"


def ef(name: str) -> bytes:
    return base64.b64decode((FIXTURES / f"{name}.b64").read_text())


def golden(name: str) -> dict:
    return json.loads((FIXTURES / f"{name}.golden.json").read_text())


def tlv(fid: int, kind: int, body: bytes) -> bytes:
    return fid.to_bytes(2, "big") + bytes([kind]) + len(body).to_bytes(2, "big") + body


def sig(fid: int, kind: int = 0) -> bytes:
    return tlv(fid, kind + 1, bytes(128 if kind == 0 else 64))


def real_file(*, second: bool = True, extra: bytes = b"") -> bytes:
    """A whole download assembled from the real EFs, signatures after the signed ones."""
    parts = [
        tlv(0x0002, 0, ef("icc")),
        tlv(0x0005, 0, ef("ic")),
        tlv(0x0501, 0, ef("application_identification")) + sig(0x0501),
        tlv(0xC100, 0, bytes(194)),
        tlv(0xC108, 0, bytes(194)),
        tlv(0x0520, 0, ef("identification")) + sig(0x0520),
        tlv(0x0521, 0, ef("driving_licence")) + sig(0x0521),
        tlv(0x0502, 0, ef("events")) + sig(0x0502),
        tlv(0x0503, 0, ef("faults")) + sig(0x0503),
        tlv(0x0504, 0, ef("activity")) + sig(0x0504),
        tlv(0x0505, 0, ef("vehicles")) + sig(0x0505),
        tlv(0x0506, 0, ef("places")) + sig(0x0506),
        tlv(0x0507, 0, ef("current_usage")) + sig(0x0507),
        tlv(0x0508, 0, ef("control_activity")) + sig(0x0508),
        tlv(0x0522, 0, ef("specific_conditions")) + sig(0x0522),
        extra,
    ]
    if second:
        parts += [
            tlv(0x0506, 2, ef("places_g2")) + sig(0x0506, 2),
            tlv(0x0522, 2, ef("specific_conditions_g2")) + sig(0x0522, 2),
            tlv(0x0523, 2, ef("vehicle_units_used")) + sig(0x0523, 2),
            tlv(0x0524, 2, ef("gnss_places")) + sig(0x0524, 2),
        ]
    return b"".join(parts)
