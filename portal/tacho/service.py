"""Tachograph files of a carrier: the only door to the tacho_bestanden table.

An upload is recognised by its content (portal.tacho.ddd.detect), stored once per carrier (its
SHA-256 is unique: the same file again answers the existing record), its bytes go through the
file store (portal.files, soort "tacho") and it is handed out through that store's signed,
expiring links.

This module holds the reads, the changes (links, period, card numbers) and the signed links;
the upload and reading back of files live in portal.tacho.intake.uploads and the download deadlines
in portal.tacho.deadlines, both re-exported here so callers keep `service.upload(...)`.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import date, datetime
from zoneinfo import ZoneInfo

from sqlalchemy import and_, func, or_, select

from portal.audit import service as audit
from portal.audit.service import Actor
from portal.drivers import service as drivers
from portal.errors import Conflict, ValidationFailed
from portal.extensions import db
from portal.files import service as files
from portal.tacho.ddd import detect
from portal.tacho.deadlines import (
    CARD_EVERY_DAYS,
    SOON_DAYS,
    VU_EVERY_DAYS,
    VU_KINDS,
    Deadline,
    deadlines,
)
from portal.tacho.intake import reading
from portal.tacho.intake.uploads import (
    ENTITY,
    FILE_SOORT,
    MAX_BYTES,
    FileDay,
    Refused,
    Upload,
    adopt_card_number,
    check_links,
    file_days,
    files_to_read,
    get_file,
    identify,
    max_bytes,
    painted,
    parsed_file,
    read,
    reread,
    upload,
)
from portal.tacho.models import TachoDay, TachoFile
from portal.types import period_bound

__all__ = [
    "API_LINK_MAX",
    "API_LINK_MIN",
    "CARD_EVERY_DAYS",
    "ENTITY",
    "FILE_SOORT",
    "KEEP",
    "LINK_CHOICES",
    "MAX_BYTES",
    "SOON_DAYS",
    "VU_EVERY_DAYS",
    "VU_KINDS",
    "Deadline",
    "FileDay",
    "Refused",
    "SignedLink",
    "TachoFilters",
    "TachoPage",
    "Upload",
    "assign_card",
    "deadlines",
    "file_days",
    "files_to_read",
    "get_file",
    "history",
    "identify",
    "link",
    "list_files",
    "max_bytes",
    "painted",
    "parsed_file",
    "read",
    "reread",
    "set_period",
    "share_link",
    "signed_link",
    "upload",
]

UTC_ZONE = ZoneInfo("UTC")  # tachographs count days in UTC

# How long a link handed to an inspector or payroll office may work, in seconds: the choices
# of the portal, and the bounds of the API's `geldig`.
LINK_CHOICES = (5 * 60, 60 * 60, 24 * 60 * 60, 7 * 24 * 60 * 60)
API_LINK_MIN, API_LINK_MAX = 60, 60 * 60


@dataclass(frozen=True)
class TachoFilters:
    """A selection of tachograph files, newest upload first. van/tot select files whose
    period overlaps [van, tot); a file without a known period counts by its upload time."""

    chauffeur_id: uuid.UUID | None = None
    vehicle_id: uuid.UUID | None = None
    soort: str | None = None
    van: datetime | None = None
    tot: datetime | None = None
    limit: int = 100
    offset: int = 0


@dataclass(frozen=True)
class TachoPage:
    files: list[TachoFile]
    total: int


@dataclass(frozen=True)
class SignedLink:
    url: str  # a path below the site root; needs no sign-in
    expires_at: datetime


KEEP = object()  # link(): leave this side of the link as it is


# --- reads -------------------------------------------------------------------------------


def list_files(*, carrier_id: uuid.UUID, filters: TachoFilters) -> TachoPage:
    """A page of the carrier's tachograph files, newest upload first, and the selection's
    size: two queries, whatever the page size."""
    where = [TachoFile.transporteur_id == carrier_id]
    if filters.chauffeur_id is not None:
        where.append(TachoFile.chauffeur_id == filters.chauffeur_id)
    if filters.vehicle_id is not None:
        where.append(TachoFile.vehicle_id == filters.vehicle_id)
    if filters.soort:
        where.append(TachoFile.soort == filters.soort)
    if filters.van is not None:
        where.append(
            or_(
                and_(TachoFile.periode_tot.is_not(None), TachoFile.periode_tot > filters.van),
                and_(TachoFile.periode_tot.is_(None), TachoFile.geupload_op >= filters.van),
            )
        )
    if filters.tot is not None:
        where.append(func.coalesce(TachoFile.periode_van, TachoFile.geupload_op) < filters.tot)
    total = db.session.scalar(select(func.count()).select_from(TachoFile).where(*where)) or 0
    rows = db.session.scalars(
        select(TachoFile)
        .where(*where)
        .order_by(TachoFile.geupload_op.desc(), TachoFile.id.desc())
        .limit(filters.limit)
        .offset(filters.offset)
    )
    return TachoPage(files=list(rows), total=total)


def history(*, carrier_id: uuid.UUID, tacho_file_id: uuid.UUID) -> list:
    """The file's audit trail, oldest first."""
    return audit.entries_for(carrier_id=carrier_id, entity=ENTITY, entity_id=tacho_file_id)


# --- changes -----------------------------------------------------------------------------


def link(
    *,
    carrier_id: uuid.UUID,
    tacho_file_id: uuid.UUID,
    actor: Actor,
    driver_id: uuid.UUID | object | None = KEEP,
    vehicle_id: uuid.UUID | object | None = KEEP,
) -> TachoFile:
    """Link the file to a driver and/or vehicle of the carrier (None unlinks; KEEP leaves a
    side as it is); ValidationFailed for a driver or vehicle that is not the carrier's."""
    row = get_file(carrier_id=carrier_id, tacho_file_id=tacho_file_id)
    check_links(
        carrier_id,
        driver_id if isinstance(driver_id, uuid.UUID) else None,
        vehicle_id if isinstance(vehicle_id, uuid.UUID) else None,
    )
    changes = {}
    for name, value in (("chauffeur_id", driver_id), ("vehicle_id", vehicle_id)):
        if value is KEEP or getattr(row, name) == value:
            continue
        changes[name] = [getattr(row, name), value]
        setattr(row, name, value)
    if changes:
        db.session.flush()
        if "chauffeur_id" in changes and row.kaartnummer:
            adopt_card_number(carrier_id, row, actor)
            owner = drivers.find_by_card(carrier_id=carrier_id, kaartnummer=row.kaartnummer)
            reading.relink_card(
                carrier_id=carrier_id,
                kaartnummer=row.kaartnummer,
                driver_id=owner.id if owner else row.chauffeur_id,
            )
        audit.record(
            carrier_id=carrier_id,
            actor=actor,
            entity=ENTITY,
            entity_id=row.id,
            action="linked",
            changes=changes,
        )
    return row


def set_period(
    *,
    carrier_id: uuid.UUID,
    tacho_file_id: uuid.UUID,
    van: date | None,
    tot: date | None,
    actor: Actor,
) -> TachoFile:
    """Give the period of a file whose period could not be read from it: the days van
    through tot (both None: unknown again). Days are UTC days, as a tachograph records them.
    Conflict when the file itself says its period; ValidationFailed for half a period or one
    that ends first."""
    row = get_file(carrier_id=carrier_id, tacho_file_id=tacho_file_id)
    if row.periode_uit_bestand:
        raise Conflict("the file states its own period")
    if (van is None) != (tot is None):
        field = "periode_tot" if tot is None else "periode_van"
        raise ValidationFailed([{"field": field, "message": "give both days, or neither"}])
    if van is not None and tot is not None and tot < van:
        raise ValidationFailed([{"field": "periode_tot", "message": "must not precede van"}])
    start = period_bound(van, UTC_ZONE, end=False) if van is not None else None
    end = period_bound(tot, UTC_ZONE, end=True) if tot is not None else None
    if (row.periode_van, row.periode_tot) != (start, end):
        changes = {"periode": [[row.periode_van, row.periode_tot], [start, end]]}
        row.periode_van, row.periode_tot = start, end
        db.session.flush()
        audit.record(
            carrier_id=carrier_id,
            actor=actor,
            entity=ENTITY,
            entity_id=row.id,
            action="period_set",
            changes=changes,
        )
    return row


# --- signed links ------------------------------------------------------------------------


def signed_link(*, carrier_id: uuid.UUID, tacho_file: TachoFile, seconds: int) -> SignedLink:
    """A download link of the file's bytes that works without sign-in for `seconds`: the file
    store's HMAC over carrier, file and expiry, so an altered or expired link is refused."""
    stored = files.get_file(carrier_id=carrier_id, file_id=tacho_file.bestand_id)
    url, expires_at = files.signed_url(stored, expires_in=seconds)
    return SignedLink(url, expires_at)


def share_link(
    *, carrier_id: uuid.UUID, tacho_file_id: uuid.UUID, seconds: int, actor: Actor
) -> SignedLink:
    """A link to hand to an inspector or payroll office, valid for one of LINK_CHOICES;
    kept in the file's audit trail (who made one, valid until when)."""
    if seconds not in LINK_CHOICES:
        raise ValidationFailed(
            [{"field": "geldigheid", "message": f"one of {', '.join(map(str, LINK_CHOICES))}"}]
        )
    row = get_file(carrier_id=carrier_id, tacho_file_id=tacho_file_id)
    link_ = signed_link(carrier_id=carrier_id, tacho_file=row, seconds=seconds)
    audit.record(
        carrier_id=carrier_id,
        actor=actor,
        entity=ENTITY,
        entity_id=row.id,
        action="link_created",
        changes={"geldig_tot": link_.expires_at},
    )
    return link_


# --- driver cards ------------------------------------------------------------------------


def assign_card(
    *, carrier_id: uuid.UUID, driver_id: uuid.UUID, kaartnummer: str | None, actor: Actor
):
    """Give a driver its card number (or clear it); the days already read of that card (and
    of the old one) follow: they belong to whoever has the card number now."""
    driver = drivers.get_driver(carrier_id=carrier_id, driver_id=driver_id)
    old = driver.kaartnummer
    driver = drivers.set_card_number(
        carrier_id=carrier_id, driver_id=driver_id, kaartnummer=kaartnummer, actor=actor
    )
    if old and old != driver.kaartnummer:
        reading.relink_card(carrier_id=carrier_id, kaartnummer=old, driver_id=None)
        for number in _card_numbers_like(carrier_id, old):
            reading.relink_card(carrier_id=carrier_id, kaartnummer=number, driver_id=None)
    if driver.kaartnummer:
        for number in _card_numbers_like(carrier_id, driver.kaartnummer):
            reading.relink_card(carrier_id=carrier_id, kaartnummer=number, driver_id=driver.id)
        _adopt_card_files(carrier_id, driver.id, driver.kaartnummer, actor)
    return driver


def _adopt_card_files(
    carrier_id: uuid.UUID, driver_id: uuid.UUID, number: str, actor: Actor
) -> None:
    """Card downloads of this card number that were linked to nobody are the driver's now,
    as a new upload of the card would be (its history says so): the download deadline and
    the driver's file list count them. A file a planner linked to someone else stays."""
    orphans = db.session.scalars(
        select(TachoFile).where(
            TachoFile.transporteur_id == carrier_id,
            TachoFile.soort == detect.BESTUURDERSKAART,
            TachoFile.chauffeur_id.is_(None),
            _same_card(TachoFile.kaartnummer, number),
        )
    ).all()
    for row in orphans:
        row.chauffeur_id = driver_id
        audit.record(
            carrier_id=carrier_id,
            actor=actor,
            entity=ENTITY,
            entity_id=row.id,
            action="linked",
            changes={"chauffeur_id": [None, driver_id], "automatisch": ["chauffeur_id"]},
        )
    if orphans:
        db.session.flush()


def _same_card(column, number: str):
    """Where column holds this card number: the same, or, for the 14 characters without the
    replacement and renewal index, that card in any of its issues."""
    if len(number) == 14:
        return or_(column == number, column.like(f"{number}__"))
    return column == number


def _card_numbers_like(carrier_id: uuid.UUID, number: str) -> set[str]:
    """The full card numbers of stored days that this number names (the same, or the same
    14 characters with any replacement and renewal index)."""
    return set(
        db.session.scalars(
            select(TachoDay.kaartnummer)
            .where(
                TachoDay.transporteur_id == carrier_id,
                _same_card(TachoDay.kaartnummer, number),
            )
            .distinct()
        )
    )
