"""Gathering a completed task's proof of delivery into a bundle, from stored data only.

A bundle is a set of parts (the facts as canonical JSON, the photos downscaled, signatures,
scans) and a manifest that lists every part with its SHA-256 and the bundle's own hash. It
reads through the other domains' services, holds no time of its own (no "now", no random
ids) and sorts what it lists, so it is the same bytes each time it is built from the same
data; a later change to the task or a file changes a part's hash and the bundle's.
"""

from __future__ import annotations

import hashlib
import io
import math
import uuid
from dataclasses import dataclass, field
from datetime import datetime

import orjson
from flask_babel import force_locale
from PIL import Image, ImageOps, UnidentifiedImageError

from portal.accounts import service as accounts
from portal.drivers import service as drivers
from portal.english_names import TASK_STATUS, english
from portal.errors import Conflict
from portal.files import service as files
from portal.fleet import service as fleet
from portal.questionnaires import presenting
from portal.questionnaires import service as questionnaires
from portal.tasks import lifecycle
from portal.tasks import service as tasks

MAX_SIDE = 1200  # the long side of a photo in the bundle, in pixels
JPEG_QUALITY = 80
FACTS = "bewijs.json"
KIND_PREFIX = {"photo": "foto", "signature": "handtekening", "document_scan": "scan"}
EXTENSION = {"image/jpeg": "jpg", "image/png": "png", "application/pdf": "pdf"}
# The audit trail's actions that move a task's status
MOVES = ("status", "reopened", "completed_on_paper")
# Text questions whose answer names the person who signed (label or id holds one of these).
SIGNER_WORDS = ("naam", "name", "ondertekend", "ontvanger")


class TaskNotCompleted(Conflict):
    """Only a completed task has a proof of delivery."""

    title = "Task not completed"


@dataclass(frozen=True)
class Part:
    """One file of the bundle, by its name in the manifest."""

    name: str
    kind: str  # facts, photo, signature, document_scan
    content_type: str
    data: bytes
    shown: bool = True  # an image a browser and the PDF can show (JPEG or PNG)
    signer: str | None = None  # a signature's signer, when the answers name them

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.data).hexdigest()


@dataclass
class Bundle:
    """A task's proof of delivery: its facts, its parts (sorted by name), and its hash."""

    facts: dict
    parts: list[Part] = field(default_factory=list)

    def part(self, name: str) -> Part | None:
        return next((p for p in self.parts if p.name == name), None)

    def of_kind(self, kind: str) -> list[Part]:
        return [p for p in self.parts if p.kind == kind]

    @property
    def completed_at(self) -> datetime:
        return datetime.fromisoformat(self.facts["taak"]["afgerond_op"])

    def manifest_lines(self) -> str:
        """`sha256sum` lines of every part: `sha256sum -c` checks a saved bundle."""
        return "".join(f"{p.sha256}  {p.name}\n" for p in self.parts)

    @property
    def sha256(self) -> str:
        """The bundle's own hash: the SHA-256 of its manifest lines."""
        return hashlib.sha256(self.manifest_lines().encode()).hexdigest()

    def manifest(self) -> dict:
        return {
            "taak_id": self.facts["taak"]["id"],
            "afgerond_op": self.facts["taak"]["afgerond_op"],
            "algoritme": "sha256",
            "delen": [
                {"naam": p.name, "sha256": p.sha256, "grootte": len(p.data), "type": p.content_type}
                for p in self.parts
            ],
            "bundel_sha256": self.sha256,
        }


def verify(manifest: dict, parts: dict[str, bytes]) -> list[str]:
    """The names of the manifest's parts that are missing or changed in `parts` (name →
    bytes), plus `bundel_sha256` when the manifest's own hash does not match its lines."""
    changed = [
        entry["naam"]
        for entry in manifest.get("delen", [])
        if entry["naam"] not in parts
        or hashlib.sha256(parts[entry["naam"]]).hexdigest() != entry["sha256"]
    ]
    lines = "".join(f"{e['sha256']}  {e['naam']}\n" for e in manifest.get("delen", []))
    if hashlib.sha256(lines.encode()).hexdigest() != manifest.get("bundel_sha256"):
        changed.append("bundel_sha256")
    return changed


# --- images ------------------------------------------------------------------------------


def downscale(data: bytes, *, flatten_png: bool = False) -> tuple[bytes, str] | None:
    """An image at most MAX_SIDE pixels on its long side, turned upright, without metadata:
    JPEG at a fixed quality (a PNG signature stays PNG, on white). None when Pillow cannot
    read it (HEIC): the original is kept then."""
    try:
        with Image.open(io.BytesIO(data)) as source:
            image = ImageOps.exif_transpose(source)
            image.load()
    except (UnidentifiedImageError, OSError, ValueError):
        return None
    if flatten_png:
        canvas = Image.new("RGB", image.size, (255, 255, 255))
        rgba = image.convert("RGBA")
        canvas.paste(rgba, mask=rgba.getchannel("A"))
        image = canvas
    else:
        image = image.convert("RGB")
    image.thumbnail((MAX_SIDE, MAX_SIDE), Image.Resampling.LANCZOS)
    out = io.BytesIO()
    if flatten_png:
        image.save(out, "PNG", optimize=False, compress_level=6)
        return out.getvalue(), "image/png"
    image.save(out, "JPEG", quality=JPEG_QUALITY, optimize=False, progressive=False)
    return out.getvalue(), "image/jpeg"


def _part(kind: str, number: int, stored, data: bytes, signer: str | None = None) -> Part:
    prefix = f"{KIND_PREFIX[kind]}-{number:02d}"
    shown = downscale(data, flatten_png=kind == "signature")
    if shown is not None:
        out, content_type = shown
        return Part(f"{prefix}.{EXTENSION[content_type]}", kind, content_type, out, True, signer)
    ext = EXTENSION.get(stored.content_type) or stored.content_type.rsplit("/", 1)[-1][:5]
    return Part(f"{prefix}.{ext}", kind, stored.content_type, data, False, signer)


# --- facts -------------------------------------------------------------------------------


def distance_m(lat1: float, lng1: float, lat2: float, lng2: float) -> int:
    """Great-circle distance in whole metres (haversine, mean earth radius)."""
    p1, p2 = math.radians(lat1), math.radians(lat2)
    dp, dl = p2 - p1, math.radians(lng2 - lng1)
    a = math.sin(dp / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dl / 2) ** 2
    return round(2 * 6_371_000 * math.asin(math.sqrt(min(1.0, a))))


def _iso(value: datetime | None) -> str | None:
    return value.isoformat() if value else None


def delivered_by(name: str | None, form: str) -> str | None:
    """Who delivered, as a consignment note names them: the driver's first name, or their
    initials ("J.d.V." for Jan de Vries) when the carrier chose so; never the full name."""
    words = (name or "").split()
    if not words:
        return None
    if form == "initialen":
        return "".join(f"{word[0]}." for word in words)
    return words[0]


def _status_times(entries) -> list[dict]:
    """Every status the audit trail records for the task, oldest first: when, not who (the
    proof goes to shippers, who are not told the names of the carrier's staff)."""
    times = []
    for entry in entries:
        changes = presenting.parse_json(entry.changes)
        pair = changes.get("status") if isinstance(changes, dict) else None
        if entry.action == "created":
            status = pair[1] if isinstance(pair, list) and len(pair) == 2 else "gepland"
            times.append({"status": status, "op": _iso(entry.at)})
        elif entry.action in MOVES and isinstance(pair, list) and len(pair) == 2:
            times.append(
                {
                    "status": pair[1],
                    "van": pair[0],
                    "op": _iso(entry.at),
                    "heropend": entry.action == "reopened",
                }
            )
    return times


def _signer(sessions, loaded) -> str | None:
    """The name a text answer gives for whoever signed (e.g. "Naam ontvanger"), if any."""
    for session, _answers in sessions:
        definition = loaded.definitions.get(session.activity_questionnaire_id) or {}
        for question, _depth in presenting.walk(definition.get("questions")):
            if question.get("type") != "text":
                continue
            words = f"{question.get('id', '')} {question.get('label', '')}".lower()
            value = loaded.values.get((session.id, question.get("id")))
            if any(w in words for w in SIGNER_WORDS) and isinstance(value, str) and value.strip():
                return value.strip()
    return None


def _sessions(sessions, loaded, part_of: dict) -> list[dict]:
    out = []
    for session, answers in sessions:
        view = presenting.session_view(session, answers, loaded, part_of)
        out.append(
            {
                "titel": view.title,
                "revisie": view.revisie,
                "revisie_id": str(session.activity_questionnaire_id),
                "status": view.status,
                "ingediend_op": _iso(view.ingediend_op),
                "antwoorden": [
                    {
                        "vraag": item.label,
                        "diepte": item.depth,
                        "kop": item.heading,
                        "tekst": item.text,
                        "eenheid": item.unit,
                        "delen": list(item.files),
                        "ontbrekend": item.missing_files,
                        "locatie": [item.lat, item.lng] if item.lat is not None else None,
                    }
                    for item in view.items
                ],
            }
        )
    return out


def build(*, carrier_id: uuid.UUID, task_id: uuid.UUID) -> Bundle:
    """The bundle of a completed task; NotFound for another carrier's task, TaskNotCompleted
    (409, code task_not_completed) for one that is not completed."""
    task = _completed_task(carrier_id, task_id)
    carrier = accounts.get_carrier(carrier_id=carrier_id)
    evidence = lifecycle.evidence_of(carrier_id=carrier_id, task_id=task.id)
    sessions = questionnaires.sessions_for_task(carrier_id=carrier_id, task_id=task.id)
    # Answers are stored as the driver gave them: worded once, in Dutch, whoever asks.
    with force_locale("nl"):
        loaded = presenting.load(carrier_id=carrier_id, sessions=sessions)
        signer = _signer(sessions, loaded)
        parts, part_of = _file_parts(carrier_id, evidence, sessions, loaded, signer)
        answered = _sessions(sessions, loaded, part_of)
    names = drivers.names_by_id(carrier_id=carrier_id, driver_ids={task.chauffeur_id})
    plates = fleet.plates_by_id(carrier_id=carrier_id, vehicle_ids={task.vehicle_id})
    facts = {
        "transporteur": carrier.naam,
        "tijdzone": accounts.carrier_zone(carrier_id).key,
        "taak": _task_facts(
            task,
            # The planner's remarks stay inside: a shipper sees what a consignment note shows.
            driver=delivered_by(names.get(task.chauffeur_id), carrier.bewijs_chauffeur),
            plate=plates.get(task.vehicle_id),
        ),
        "statussen": _status_times(tasks.history(carrier_id=carrier_id, task_id=task.id)),
        "afronding": _completion_facts(task, signer, part_of),
        "vragenlijsten": answered,
    }
    facts_part = Part(
        FACTS, "facts", "application/json", orjson.dumps(facts, option=orjson.OPT_SORT_KEYS)
    )
    return Bundle(facts=facts, parts=sorted([facts_part, *parts], key=lambda p: p.name))


def _completed_task(carrier_id: uuid.UUID, task_id: uuid.UUID):
    """The carrier's task (archived ones too) when it is completed; TaskNotCompleted else."""
    task = tasks.get_task(carrier_id=carrier_id, task_id=task_id, archived=True)
    if task.status != "afgerond" or task.afgerond_op is None:
        raise TaskNotCompleted(
            f"The task is {english(TASK_STATUS, task.status)}: only a completed task has a "
            "proof of delivery.",
            code="task_not_completed",
            current=task.status,
        )
    return task


def _file_parts(
    carrier_id: uuid.UUID, evidence, sessions, loaded, signer: str | None
) -> tuple[list[Part], dict[uuid.UUID, str]]:
    """The parts of the task's files (evidence first in the order it came, then the files
    given in the answers by id), and each file's part name by its id."""
    answer_files = presenting.answer_file_ids(sessions, loaded)
    stored = files.files_by_id(
        carrier_id=carrier_id, file_ids={r.bestand_id for r in evidence} | answer_files
    )
    order = [r.bestand_id for r in evidence]
    order += sorted(f for f in answer_files if f not in set(order))
    parts: list[Part] = []
    part_of: dict[uuid.UUID, str] = {}
    counts = dict.fromkeys(KIND_PREFIX, 0)
    for file_id in order:
        row = stored.get(file_id)
        if row is None or row.soort not in KIND_PREFIX or file_id in part_of:
            continue
        counts[row.soort] += 1
        data = files.read_bytes(carrier_id=carrier_id, file_id=file_id)
        part = _part(row.soort, counts[row.soort], row, data, signer)
        parts.append(part)
        part_of[file_id] = part.name
    return parts, part_of


def _task_facts(task, *, driver: str | None, plate: str | None) -> dict:
    """What, where and when the task was, and who delivered it with which vehicle."""
    planned = task.locatie_lat is not None and task.locatie_lng is not None
    return {
        "id": str(task.id),
        "naam": task.naam,
        "type": task.type,
        "omschrijving": task.omschrijving,
        "artikel": task.artikel,
        "hoeveelheid": task.hoeveelheid,
        "eenheid": task.eenheid,
        "vdm_nummer": task.vdm_nummer,
        "adres": task.adres,
        "postcode": task.postcode,
        "stad": task.stad,
        "land": task.land,
        "contactpersoon": task.contactpersoon,
        "locatie": [task.locatie_lat, task.locatie_lng] if planned else None,
        "gepland_op": _iso(task.gepland_op),
        "afgerond_op": _iso(task.afgerond_op),
        "chauffeur": driver,
        "kenteken": plate,
    }


def _completion_facts(task, signer: str | None, part_of: dict[uuid.UUID, str]) -> dict:
    """Where the task was completed (and how far from its address), temperature and
    disinfection, who signed, and the paper note's scan when completed on paper."""
    here = task.afgerond_lat is not None and task.afgerond_lng is not None
    planned = task.locatie_lat is not None and task.locatie_lng is not None
    return {
        "locatie": [task.afgerond_lat, task.afgerond_lng] if here else None,
        "afstand_m": distance_m(
            task.afgerond_lat, task.afgerond_lng, task.locatie_lat, task.locatie_lng
        )
        if here and planned
        else None,
        "temperatuur_gemeten": task.gemeten_temperatuur,
        "temperatuur_vereist": task.required_temperatuur,
        "desinfectie_vereist": task.required_desinfectie,
        "desinfectie_bevestigd": task.desinfectie_bevestigd,
        "ondertekenaar": signer,
        # Completed by a planner on a paper delivery note: its scan's part (the reason
        # is the office's own, so it is not told here).
        "papieren_bon": part_of.get(task.papieren_bon_id) if task.papieren_bon_id else None,
    }
