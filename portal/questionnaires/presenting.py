"""Answer sessions as a person reads them: each answer under its question's label, in the
revision it answered, with units, photos behind signed links, and places on a map link.

Shared by the task page and the answer pages, so a session reads the same everywhere. It reads
through the services only; a page of sessions runs a fixed number of queries (the revisions in
one, the files in one).
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from datetime import datetime

import orjson
from flask_babel import format_decimal
from flask_babel import gettext as _

from portal.files import service as files
from portal.questionnaires import service
from portal.questionnaires.wording import format_number

# Signed links on a page live a quarter of an hour: long enough to click a thumbnail a while
# after loading the page, short enough that a copied link soon stops working.
LINK_TTL = 15 * 60
FILE_QUESTION_TYPES = ("photo", "signature", "document_scan")
SHOWN_IMAGE_TYPES = ("image/jpeg", "image/png")  # what every browser shows in <img>


@dataclass
class FileLink:
    """A stored file as the page shows it: a signed link, and whether <img> can show it."""

    id: uuid.UUID
    soort: str
    name: str
    content_type: str
    size: int
    url: str

    @property
    def is_image(self) -> bool:
        return self.content_type in SHOWN_IMAGE_TYPES


@dataclass
class AnswerItem:
    label: str
    depth: int
    text: str | None = None
    unit: str | None = None
    files: list[FileLink] = field(default_factory=list)
    missing_files: int = 0
    lat: float | None = None
    lng: float | None = None
    heading: bool = False


@dataclass
class SessionView:
    id: uuid.UUID
    title: str
    revisie: int | None
    status: str
    created_at: datetime
    ingediend_op: datetime | None
    items: list[AnswerItem]
    taak_id: uuid.UUID | None = None
    chauffeur_id: uuid.UUID | None = None
    activity_type: str | None = None


def osm_url(lat: float, lng: float) -> str:
    """OpenStreetMap centred on a point with a marker: a link, nothing loaded from there."""
    return (
        f"https://www.openstreetmap.org/?mlat={lat:.6f}&mlon={lng:.6f}#map=16/{lat:.6f}/{lng:.6f}"
    )


def number(value) -> str:
    if isinstance(value, bool):
        return _("ja") if value else _("nee")
    if isinstance(value, int | float):
        return format_decimal(value)
    return str(value)


def parse_json(text: str | None):
    if not text:
        return None
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        return text


def file_link(row) -> FileLink:
    url, _expires = files.signed_url(row, expires_in=LINK_TTL)
    return FileLink(
        id=row.id,
        soort=row.soort,
        name=row.bestandsnaam or f"{row.soort}-{row.id.hex[:8]}",
        content_type=row.content_type,
        size=row.grootte,
        url=url,
    )


@dataclass
class Loaded:
    """What presenting sessions needs besides the sessions: revisions, values, file links."""

    definitions: dict[uuid.UUID, dict]
    revisions: dict[uuid.UUID, int]
    values: dict[tuple[uuid.UUID, str], object]


def load(*, carrier_id: uuid.UUID, sessions, extra_revision_ids=()) -> Loaded:
    """The revisions the sessions answered (one query) and their parsed answer values."""
    revision_ids = {s.activity_questionnaire_id for s, _answers in sessions} | set(
        extra_revision_ids
    )
    rows = service.revisions_by_id(carrier_id=carrier_id, revision_ids=revision_ids)
    return Loaded(
        definitions={rid: parse_json(row.definition) or {} for rid, row in rows.items()},
        revisions={rid: row.revisie for rid, row in rows.items()},
        values={
            (session.id, answer.question_id): parse_json(answer.waarde)
            for session, answers in sessions
            for answer in answers
        },
    )


def present(*, carrier_id: uuid.UUID, sessions) -> list[SessionView]:
    """Sessions with their answers → views, in three queries whatever their number."""
    loaded = load(carrier_id=carrier_id, sessions=sessions)
    stored = files.files_by_id(carrier_id=carrier_id, file_ids=answer_file_ids(sessions, loaded))
    links = {file_id: file_link(row) for file_id, row in stored.items()}
    return [session_view(s, answers, loaded, links) for s, answers in sessions]


def walk(questions, depth: int = 0):
    for question in questions or []:
        if not isinstance(question, dict):
            continue
        yield question, depth
        if question.get("type") == "group":
            yield from walk(question.get("questions"), depth + 1)


def _as_uuid(value) -> uuid.UUID | None:
    try:
        return uuid.UUID(str(value))
    except ValueError:
        return None


def _file_ids(value) -> list[uuid.UUID]:
    values = value if isinstance(value, list) else [value]
    found = []
    for item in values:
        if isinstance(item, dict):
            item = item.get("bestand_id") or item.get("id")
        parsed = _as_uuid(item) if item is not None else None
        if parsed is not None:
            found.append(parsed)
    return found


def answer_file_ids(sessions, loaded: Loaded) -> set[uuid.UUID]:
    found: set[uuid.UUID] = set()
    for session, _answers in sessions:
        definition = loaded.definitions.get(session.activity_questionnaire_id) or {}
        for question, _depth in walk(definition.get("questions")):
            if question.get("type") in FILE_QUESTION_TYPES:
                value = loaded.values.get((session.id, question.get("id")))
                if value is not None:
                    found.update(_file_ids(value))
    return found


def _location(value) -> tuple[float, float] | None:
    if isinstance(value, dict):
        lat = value.get("lat", value.get("latitude"))
        lng = value.get("lng", value.get("lon", value.get("longitude")))
    elif isinstance(value, list) and len(value) == 2:
        lat, lng = value
    else:
        return None
    if isinstance(lat, int | float) and isinstance(lng, int | float):
        return float(lat), float(lng)
    return None


def answer_text(kind: str | None, value) -> str:
    if value is None or value == "" or value == []:
        return "—"
    if kind == "boolean" and isinstance(value, bool):
        return _("Ja") if value else _("Nee")
    if isinstance(value, list):
        return ", ".join(answer_text(None, v) for v in value)
    if isinstance(value, dict):
        return ", ".join(f"{k}: {answer_text(None, v)}" for k, v in value.items())
    if kind == "calculated" and isinstance(value, int | float) and not isinstance(value, bool):
        return format_number(value, calculated=True)
    if isinstance(value, bool | int | float):
        return number(value)
    return str(value)


def session_view(session, answers, loaded: Loaded, links: dict) -> SessionView:
    """One session: every answered question under its label, in the revision's order."""
    definition = loaded.definitions.get(session.activity_questionnaire_id) or {}
    answered = {a.question_id for a in answers}
    items: list[AnswerItem] = []
    known: set[str] = set()
    for question, depth in walk(definition.get("questions")):
        qid = question.get("id")
        known.add(qid)
        label = str(question.get("label") or qid)
        kind = question.get("type")
        if kind == "group":
            items.append(AnswerItem(label=label, depth=depth, heading=True))
            continue
        if qid not in answered:
            continue
        value = loaded.values.get((session.id, qid))
        item = AnswerItem(label=label, depth=depth, unit=question.get("unit"))
        if kind in FILE_QUESTION_TYPES:
            ids = _file_ids(value)
            item.files = [links[i] for i in ids if i in links]
            item.missing_files = len(ids) - len(item.files)
            if not ids:
                item.text = answer_text(kind, value)
        elif kind == "location" and _location(value):
            item.lat, item.lng = _location(value)
        else:
            item.text = answer_text(kind, value)
        items.append(item)
    # Answers to questions the revision does not name (should not happen): shown, not lost.
    for answer in answers:
        if answer.question_id not in known:
            value = loaded.values.get((session.id, answer.question_id))
            items.append(
                AnswerItem(label=answer.question_id, depth=0, text=answer_text(None, value))
            )
    # A group heading with nothing answered under it says nothing.
    items = [
        item
        for index, item in enumerate(items)
        if not item.heading or (index + 1 < len(items) and items[index + 1].depth > item.depth)
    ]
    return SessionView(
        id=session.id,
        title=str(definition.get("title") or session.activity_type),
        revisie=loaded.revisions.get(session.activity_questionnaire_id),
        status=session.status,
        created_at=session.created_at,
        ingediend_op=session.ingediend_op,
        items=items,
        taak_id=session.taak_id,
        chauffeur_id=session.chauffeur_id,
        activity_type=session.activity_type,
    )
