"""Demo answers and uploads: the demo's tasks filled in as a driver would.

Completed demo tasks carry submitted answers (completion demands them); tasks under way a
half-filled session. Answers go through the answering service and files through the files
service, so they pass the same checks as the driver app's. Kept apart from tasks.py, which
builds carriers, people and tasks and moves the tasks through their lifecycle.
"""

from __future__ import annotations

import io
import math
import struct
import uuid
import zlib
from datetime import datetime

from portal.audit.service import SYSTEM, Actor
from portal.files import service as files
from portal.questionnaires import answering

# Farmyards near the demo's places, for the AGR-GPS location of manure loads.
YARDS = [(52.3114, 6.6585), (52.2215, 6.8937), (52.4461, 6.4410), (52.1574, 6.5129)]


def answers_for(
    kind: str, n: int, signature: uuid.UUID | None = None, scan: uuid.UUID | None = None
) -> tuple[dict, dict]:
    """(answers a driver gives by the end, the part given halfway) for an activity type."""
    if kind == "mest_laden":
        lat, lng = YARDS[n % len(YARDS)]
        sample = n % 2 == 0
        full = {
            "vdm_bevestigd": True,
            "gewicht_vol": 38_000 + (n * 370) % 4_000,
            "gewicht_leeg": 15_200 + (n * 130) % 600,
            "monster_genomen": sample,
            **({"monster_barcode": f"87{n:06d}12"} if sample else {}),
            "agr_locatie": {"lat": lat, "lng": lng},
            **({"opmerking": "Kelder bijna leeg, volgende keer kleinere vracht."} if n % 3 else {}),
        }
        half = {"vdm_bevestigd": True, "gewicht_vol": full["gewicht_vol"]}
    elif kind == "koel_transport":
        warm = n % 5 == 0  # a cold chain broken: each demo carrier has one
        full = {
            "temp_laden": 3.5,
            "temp_lossen": 6.5 if warm else 4.0,
            **({"reden": "Deur lang open tijdens lossen bij de klant."} if warm else {}),
            "zegel": f"NL{(n * 7919) % 1_000_000:06d}",
        }
        half = {"temp_laden": 3.5}
    elif kind == "vee_transport":
        full = {
            "diersoort": "Varkens",
            "aantal": 160 + n % 40,
            "ontsmet": True,
            "ontsmet_tijd": "05:45",
            **({"ontsmet_bon": [str(scan)]} if scan else {}),
        }
        half = {"diersoort": "Varkens", "aantal": 160 + n % 40}
    elif kind == "voer_leveren":
        clean = n % 4 != 0
        full = {
            "silo": f"Silo {1 + n % 4}",
            "geleverd": 18 + (n % 8) * 2.5,
            "silo_schoon": clean,
            **({} if clean else {"afwijking": "Restant oud voer in de silo, boer ingelicht."}),
            **({"handtekening": [str(signature)]} if signature else {}),
        }
        half = {"silo": full["silo"]}
    else:
        return {}, {}
    return full, half


def answer(
    *, carrier_id: uuid.UUID, task, answers: dict, submit: bool, actor: Actor, at: datetime
) -> None:
    """The driver saves (or submits) the task's answers through the answering service."""
    answering.save(
        carrier_id=carrier_id,
        driver_id=task.chauffeur_id,
        revision_id=task.activity_questionnaire_id,
        answers=answers,
        submit=submit,
        task=answering.TaskRef(task.id, task.activity_questionnaire_id),
        actor=actor,
        at=at,
    )


# --- files the driver's phone uploads: small generated images ---------------------------


def _png(width: int, height: int, pixel, *, colour: bool) -> bytes:
    """A PNG of pixel(x, y) -> grey level or (r, g, b), written without an imaging library."""
    rows = []
    for y in range(height):
        row = bytearray()
        for x in range(width):
            value = pixel(x, y)
            row += bytes(value) if colour else bytes((value,))
        rows.append(b"\x00" + bytes(row))
    raw = zlib.compress(b"".join(rows))

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", width, height, 8, 2 if colour else 0, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", raw) + chunk(b"IEND", b"")


def _store(carrier_id: uuid.UUID, data: bytes, name: str, soort: str, actor: Actor) -> uuid.UUID:
    stored = files.store_file(
        carrier_id=carrier_id, stream=io.BytesIO(data), filename=name, soort=soort, actor=actor
    )
    return stored.id


def signature_file(carrier_id: uuid.UUID, *, n: int = 0, actor: Actor = SYSTEM) -> uuid.UUID:
    """A customer's signature as a small PNG: a wavy stroke on white, a little different each
    time."""
    width, height = 160, 48
    stretch = 7.0 + n % 5

    def pixel(x: int, y: int) -> int:
        if not 12 <= x < width - 12:
            return 0xFF
        # A hand-drawn look: a wave whose height changes along the stroke.
        wave = 24 + int(14 * math.sin(x / stretch) * (0.4 + 0.6 * (x % 53) / 53))
        return 0x20 if abs(y - wave) <= 1 else 0xFF

    return _store(carrier_id, _png(width, height, pixel, colour=False), "handtekening.png",
                  "signature", actor)  # fmt: skip


def photo_file(carrier_id: uuid.UUID, *, n: int, actor: Actor) -> uuid.UUID:
    """A photo of the load as a small PNG: pallets (light blocks) in a trailer (dark)."""
    width, height = 160, 120
    shade = 30 * (n % 3)

    def pixel(x: int, y: int) -> tuple[int, int, int]:
        pallet = 20 <= y < 100 and (x // 36) % 2 == 0 and 8 <= x < 152
        if pallet:
            return (190 - shade, 160 - shade // 2, 110)
        return (40 + y // 6, 48 + y // 6, 60 + y // 5)

    return _store(carrier_id, _png(width, height, pixel, colour=True), f"lading-{n}.png",
                  "photo", actor)  # fmt: skip


def scan_file(carrier_id: uuid.UUID, *, n: int, actor: Actor) -> uuid.UUID:
    """A scanned disinfection receipt as a small PNG: lines of text on paper."""
    width, height = 120, 160

    def pixel(x: int, y: int) -> int:
        line = 16 <= y < 150 and y % 12 in (0, 1) and 10 <= x < 110 - (y * 7 + n) % 40
        return 0x30 if line else 0xF4

    return _store(carrier_id, _png(width, height, pixel, colour=False), f"ontsmettingsbon-{n}.png",
                  "document_scan", actor)  # fmt: skip
