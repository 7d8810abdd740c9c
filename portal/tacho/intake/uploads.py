"""Tachograph files in: an upload recognised by its content (portal.tacho.ddd.detect),
stored once per carrier (its SHA-256 is unique: the same file again answers the existing
record), its bytes kept in the file store (portal.files, soort "tacho"), its days read
(portal.tacho.intake.reading); and a stored file read back.

Part of the tacho service: `portal.tacho.service` re-exports what others call.
"""

from __future__ import annotations

import hashlib
import logging
import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import BinaryIO

from flask import current_app
from sqlalchemy import select
from sqlalchemy.exc import IntegrityError

from portal.audit import service as audit
from portal.audit.service import Actor
from portal.drivers import service as drivers
from portal.errors import NotFound, ValidationFailed
from portal.extensions import db
from portal.files import service as files
from portal.fleet import kenteken as plates
from portal.fleet import service as fleet
from portal.tacho import ddd
from portal.tacho.ddd import detect
from portal.tacho.intake import reading
from portal.tacho.models import TachoFile
from portal.tacho.segments import cap_minutes, clock_notes, day_totals
from portal.types import utcnow

logger = logging.getLogger(__name__)

MAX_BYTES = 10 * 1024 * 1024  # far above any real download (a card holds < 100 KB)
FILE_SOORT = "tacho"  # the soort of its bytes in the file store
ENTITY = "tacho_file"


class Refused(ValidationFailed):
    """An upload that is not taken; `reason` says why in a word (too_large, empty, unknown,
    card_structure, vu_structure, other_card), the message at field `file` in plain words."""

    def __init__(self, reason: str, message: str, **params):
        super().__init__([{"field": "file", "message": message}])
        self.reason = reason
        self.params = params


@dataclass(frozen=True)
class Upload:
    """An upload's outcome: the file's record, and whether it is new or was already there."""

    file: TachoFile
    nieuw: bool


def max_bytes() -> int:
    """The largest tachograph file taken: 10 MiB, or less when FILE_MAX_BYTES is lower."""
    return min(MAX_BYTES, int(current_app.config["FILE_MAX_BYTES"]))


# --- upload ------------------------------------------------------------------------------


def _read(stream: BinaryIO) -> bytes:
    limit = max_bytes()
    data = stream.read(limit + 1)
    if len(data) > limit:
        raise Refused("too_large", f"the file is larger than {limit} bytes", limit=limit)
    return data


def identify(data: bytes) -> detect.TachoInfo:
    """What the bytes are; Refused when they are no driver card or vehicle unit download."""
    try:
        return detect.identify(data)
    except detect.NotTachograph as error:
        raise Refused(error.reason, error.detail, card_type=error.card_type) from None


def read(data: bytes, *, filename: str | None, received_at: datetime):
    """The download read in full; Refused (reason "damaged", with where it broke) when a part
    the product uses does not hold together."""
    try:
        return reading.parse(data, filename=filename, received_at=received_at)
    except ddd.DamagedFile as error:
        raise Refused(
            getattr(error, "reason", None) or "damaged",
            str(error),
            where=getattr(error, "where", ""),
        ) from None


def painted(kenteken: str | None) -> str | None:
    """A Dutch registration as painted (BX-12-AB); any other as recorded."""
    if not kenteken:
        return None
    try:
        return plates.painted(kenteken)
    except plates.InvalidKenteken:
        return kenteken[:20]


def check_links(
    carrier_id: uuid.UUID, chauffeur_id: uuid.UUID | None, vehicle_id: uuid.UUID | None
) -> None:
    errors = []
    if chauffeur_id is not None:
        try:
            drivers.get_driver(carrier_id=carrier_id, driver_id=chauffeur_id)
        except NotFound:
            errors.append({"field": "chauffeur", "message": "no such driver"})
    if vehicle_id is not None:
        try:
            fleet.get_vehicle(carrier_id=carrier_id, vehicle_id=vehicle_id)
        except NotFound:
            errors.append({"field": "vehicle_id", "message": "no such vehicle"})
    if errors:
        raise ValidationFailed(errors)


def _by_sha(carrier_id: uuid.UUID, sha256: str) -> TachoFile | None:
    return db.session.scalar(
        select(TachoFile).where(TachoFile.transporteur_id == carrier_id, TachoFile.sha256 == sha256)
    )


def _known_driver_of_card(carrier_id: uuid.UUID, kaartnummer: str) -> uuid.UUID | None:
    """The driver an earlier download of the same card was linked to, the latest first."""
    return db.session.scalar(
        select(TachoFile.chauffeur_id)
        .where(
            TachoFile.transporteur_id == carrier_id,
            TachoFile.kaartnummer == kaartnummer,
            TachoFile.chauffeur_id.is_not(None),
        )
        .order_by(TachoFile.geupload_op.desc())
        .limit(1)
    )


def _vehicle_by_plate(carrier_id: uuid.UUID, kenteken: str) -> uuid.UUID | None:
    found = fleet.find_vehicles(
        carrier_id=carrier_id, filters=fleet.VehicleFilters(kenteken=kenteken, limit=1)
    ).vehicles
    return found[0].id if found else None


def upload(
    *,
    carrier_id: uuid.UUID,
    stream: BinaryIO,
    filename: str | None,
    actor: Actor,
    driver_id: uuid.UUID | None = None,
    vehicle_id: uuid.UUID | None = None,
) -> Upload:
    """Recognise, hash and store a tachograph download, linked to the driver or vehicle given
    (or, when none is given, to the driver of an earlier download of the same card, or the
    carrier's vehicle with the recorded registration). The same bytes again answer the
    existing record, unchanged. Refused for anything that is not a tachograph download;
    ValidationFailed for a driver or vehicle that is not the carrier's."""
    data = _read(stream)
    info = identify(data)
    sha256 = hashlib.sha256(data).hexdigest()
    existing = _by_sha(carrier_id, sha256)
    if existing is not None:
        return Upload(existing, False)
    now = utcnow()
    parsed = read(data, filename=filename, received_at=now)
    check_links(carrier_id, driver_id, vehicle_id)
    kenteken = painted(info.kenteken)
    driver_id, vehicle_id, automatic = _found_links(
        carrier_id, info, kenteken, driver_id, vehicle_id
    )
    name = files.clean_filename(filename) or f"{info.soort}-{utcnow():%Y%m%d-%H%M%S}.ddd"
    stored = None
    try:
        with db.session.begin_nested():
            stored = files.store_checked(
                carrier_id=carrier_id, data=data, filename=name, soort=FILE_SOORT, actor=actor
            )
            row = _new_row(carrier_id, info, stored.id, name, data, sha256, now, parsed, actor)
            row.chauffeur_id, row.vehicle_id, row.kenteken = driver_id, vehicle_id, kenteken
            db.session.add(row)
            db.session.flush()
            adopt_card_number(carrier_id, row, actor)
            dagen = reading.store_days(carrier_id=carrier_id, file=row, parsed=parsed)
    except IntegrityError:
        # The same file arrived at the same moment through another request: it won.
        if stored is not None:
            files.discard(stored)
        existing = _by_sha(carrier_id, sha256)
        if existing is None:
            raise
        return Upload(existing, False)
    _record_upload(carrier_id, actor, row, automatic, dagen)
    return Upload(row, True)


def _found_links(
    carrier_id: uuid.UUID,
    info: detect.TachoInfo,
    kenteken: str | None,
    driver_id: uuid.UUID | None,
    vehicle_id: uuid.UUID | None,
) -> tuple[uuid.UUID | None, uuid.UUID | None, list[str]]:
    """The driver and vehicle of an upload: those given, else the driver of the card (or of
    an earlier download of it) and the vehicle of the registration; with the fields found
    automatically."""
    automatic = []
    if driver_id is None and info.kaartnummer:
        owner = drivers.find_by_card(carrier_id=carrier_id, kaartnummer=info.kaartnummer)
        driver_id = owner.id if owner else _known_driver_of_card(carrier_id, info.kaartnummer)
        if driver_id is not None:
            automatic.append("chauffeur_id")
    if vehicle_id is None and kenteken:
        vehicle_id = _vehicle_by_plate(carrier_id, kenteken)
        if vehicle_id is not None:
            automatic.append("vehicle_id")
    return driver_id, vehicle_id, automatic


def _new_row(
    carrier_id: uuid.UUID,
    info: detect.TachoInfo,
    stored_id: uuid.UUID,
    name: str,
    data: bytes,
    sha256: str,
    now: datetime,
    parsed,
    actor: Actor,
) -> TachoFile:
    """The record of a new upload (its driver, vehicle and registration set by the caller)."""
    return TachoFile(
        transporteur_id=carrier_id,
        bestand_id=stored_id,
        soort=info.soort,
        generatie=info.generatie,
        bestandsnaam=name,
        sha256=sha256,
        grootte=len(data),
        periode_van=info.periode_van,
        periode_tot=info.periode_tot,
        periode_uit_bestand=info.periode_van is not None,
        kaartnummer=info.kaartnummer,
        houder=(info.houder or "")[:100] or None,
        vin=info.vin,
        geupload_op=now,
        gedownload_op=getattr(parsed, "gedownload_op", None),
        gelezen=True,
        geupload_door=actor.label[:200],
        geupload_door_type=actor.type,
        geupload_door_id=actor.id,
    )


def _record_upload(
    carrier_id: uuid.UUID, actor: Actor, row: TachoFile, automatic: list[str], dagen
) -> None:
    """The audit trail's entry and the log line of a new upload."""
    audit.record(
        carrier_id=carrier_id,
        actor=actor,
        entity=ENTITY,
        entity_id=row.id,
        action="uploaded",
        changes={
            "soort": row.soort,
            "bestandsnaam": row.bestandsnaam,
            "chauffeur_id": row.chauffeur_id,
            "vehicle_id": row.vehicle_id,
            "automatisch": automatic,
            "dagen": dagen,
        },
    )
    logger.info(
        "tachograph file %s (%s, %s bytes) uploaded for carrier %s",
        row.id,
        row.soort,
        row.grootte,
        carrier_id,
    )


def adopt_card_number(carrier_id: uuid.UUID, row: TachoFile, actor: Actor) -> None:
    """A card download linked to a driver without a card number gives the driver this one
    (when no other driver of the carrier has it), so the next download finds its driver."""
    if row.soort != detect.BESTUURDERSKAART or not row.kaartnummer or row.chauffeur_id is None:
        return
    driver = drivers.get_driver(carrier_id=carrier_id, driver_id=row.chauffeur_id)
    if driver.kaartnummer or drivers.find_by_card(
        carrier_id=carrier_id, kaartnummer=row.kaartnummer
    ):
        return
    drivers.set_card_number(
        carrier_id=carrier_id, driver_id=driver.id, kaartnummer=row.kaartnummer, actor=actor
    )
    reading.relink_card(carrier_id=carrier_id, kaartnummer=row.kaartnummer, driver_id=driver.id)


def reread(*, carrier_id: uuid.UUID, tacho_file_id: uuid.UUID) -> int:
    """Read a stored file in full again (files stored before downloads were read, or after
    the reader learnt more): its days stored as an upload would; the number written."""
    row = get_file(carrier_id=carrier_id, tacho_file_id=tacho_file_id)
    data = files.read_bytes(carrier_id=carrier_id, file_id=row.bestand_id)
    parsed = read(data, filename=row.bestandsnaam, received_at=row.geupload_op)
    row.gedownload_op = getattr(parsed, "gedownload_op", None) or row.gedownload_op
    row.gelezen = True
    db.session.flush()
    return reading.store_days(carrier_id=carrier_id, file=row, parsed=parsed)


def files_to_read(*, carrier_id: uuid.UUID, everything: bool = False) -> list[TachoFile]:
    """The carrier's files not yet read in full (or all), oldest upload first."""
    stmt = select(TachoFile).where(TachoFile.transporteur_id == carrier_id)
    if not everything:
        stmt = stmt.where(TachoFile.gelezen.is_(False))
    return list(db.session.scalars(stmt.order_by(TachoFile.geupload_op, TachoFile.id)))


@dataclass(frozen=True)
class FileDay:
    """One card day a file holds (a vehicle unit's: per card inserted), with where its data
    ends when it is the download day."""

    kaartnummer: str | None
    day: object  # ddd.CardDay
    until: datetime | None

    @property
    def minuten(self) -> dict[str, int]:
        """Minutes per activity: the recorded changes' durations added up."""
        return day_totals(self.day.datum, self.day.wijzigingen, until=self.until)

    @property
    def notities(self) -> list[tuple[str, dict]]:
        """The day's data notes (code, params): a vehicle unit's clock behind."""
        return clock_notes(self.day.wijzigingen, cap=cap_minutes(self.day.datum, self.until))


def file_days(*, carrier_id: uuid.UUID, tacho_file_id: uuid.UUID) -> list[FileDay]:
    """The days a stored file holds, in date order (then card number): read from its bytes."""
    row, parsed = parsed_file(carrier_id=carrier_id, tacho_file_id=tacho_file_id)
    downloaded = reading.data_end(row, parsed)
    found = [
        FileDay(number, day, reading.day_end(day.datum, downloaded))
        for number, _bron, day in reading.days_of(parsed)
    ]
    return sorted(found, key=lambda d: (d.day.datum, d.kaartnummer or ""))


def parsed_file(*, carrier_id: uuid.UUID, tacho_file_id: uuid.UUID):
    """A stored file and its download read in full (for its days and details)."""
    row = get_file(carrier_id=carrier_id, tacho_file_id=tacho_file_id)
    data = files.read_bytes(carrier_id=carrier_id, file_id=row.bestand_id)
    return row, read(data, filename=row.bestandsnaam, received_at=row.geupload_op)


# --- reads -------------------------------------------------------------------------------


def get_file(*, carrier_id: uuid.UUID, tacho_file_id: uuid.UUID) -> TachoFile:
    """The carrier's tachograph file; NotFound when absent or another carrier's."""
    row = db.session.scalar(
        select(TachoFile).where(
            TachoFile.transporteur_id == carrier_id, TachoFile.id == tacho_file_id
        )
    )
    if row is None:
        raise NotFound("tachograph file not found")
    return row
