"""Demo answers: the questionnaires of the demo's tasks filled in as a driver would.

Completed demo tasks carry submitted answers (completion demands them); tasks under way a
half-filled session. Answers go through the answering service, so they pass the same checks
as the driver app's. Kept apart from demo.py, which builds carriers, people and tasks.
"""

from __future__ import annotations

import io
import math
import struct
import uuid
import zlib

from portal.audit.service import SYSTEM
from portal.files import service as files
from portal.questionnaires import answering

# Farmyards near the demo's places, for the AGR-GPS location of manure loads.
YARDS = [(52.3114, 6.6585), (52.2215, 6.8937), (52.4461, 6.4410), (52.1574, 6.5129)]


def answers_for(kind: str, n: int, signature: uuid.UUID | None) -> tuple[dict, dict]:
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
        warm = n % 3 == 0
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


def answer_task(*, carrier_id: uuid.UUID, task, n: int, signature: uuid.UUID | None) -> None:
    """Fill in the task's pinned questionnaire as far as its status says."""
    if task.activity_questionnaire_id is None or task.status not in ("gestart", "afgerond"):
        return
    full, half = answers_for(task.type, n, signature)
    done = task.status == "afgerond"
    answering.save(
        carrier_id=carrier_id,
        chauffeur_id=task.chauffeur_id,
        revision_id=task.activity_questionnaire_id,
        answers=full if done else half,
        submit=done,
        task=answering.TaskRef(task.id, task.activity_questionnaire_id),
        actor=SYSTEM,
        at=task.afgerond_op if done else task.gestart_op,
    )


def signature_file(carrier_id: uuid.UUID) -> uuid.UUID:
    """A customer's signature as a small PNG: a wavy stroke on white."""
    width, height = 160, 48
    rows = []
    for y in range(height):
        row = bytearray(b"\xff" * width)
        for x in range(12, width - 12):
            # A hand-drawn look: a wave whose height changes along the stroke.
            wave = 24 + int(14 * math.sin(x / 9.0) * (0.4 + 0.6 * (x % 53) / 53))
            if abs(y - wave) <= 1:
                row[x] = 0x20
        rows.append(b"\x00" + bytes(row))
    raw = zlib.compress(b"".join(rows))

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    png = (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0))
        + chunk(b"IDAT", raw)
        + chunk(b"IEND", b"")
    )
    stored = files.store_file(
        carrier_id=carrier_id,
        stream=io.BytesIO(png),
        filename="handtekening.png",
        soort="signature",
        actor=SYSTEM,
    )
    return stored.id
