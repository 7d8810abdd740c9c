"""Tachograph files of a carrier: the only door to the tacho_bestanden table.

An upload is recognised by its content (portal.tacho.detect), stored once per carrier (its
SHA-256 is unique: the same file again answers the existing record), its bytes go through the
file store (portal.files, soort "tacho") and it is handed out through that store's signed,
expiring links.
"""

from __future__ import annotations

import hashlib
import logging
import uuid
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import BinaryIO
from zoneinfo import ZoneInfo

from flask import current_app
from sqlalchemy import and_, func, or_, select
from sqlalchemy.exc import IntegrityError

from portal.audit import service as audit
from portal.audit.service import Actor
from portal.drivers import service as drivers
from portal.errors import Conflict, NotFound, ValidationFailed
from portal.extensions import db
from portal.files import service as files
from portal.fleet import kenteken as plates
from portal.fleet import service as fleet
from portal.tacho import ddd, detect, reading
from portal.tacho.models import TachoDay, TachoFile
from portal.tacho.segments import day_segments, totals
from portal.types import period_bound, utcnow

logger = logging.getLogger(__name__)

UTC_ZONE = ZoneInfo("UTC")  # tachographs count days in UTC

MAX_BYTES = 10 * 1024 * 1024  # far above any real download (a card holds < 100 KB)
FILE_SOORT = "tacho"  # the soort of its bytes in the file store
ENTITY = "tacho_file"
# How long a link handed to an inspector or payroll office may work, in seconds: the choices
# of the portal, and the bounds of the API's `geldig`.
LINK_CHOICES = (5 * 60, 60 * 60, 24 * 60 * 60, 7 * 24 * 60 * 60)
API_LINK_MIN, API_LINK_MAX = 60, 60 * 60


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


def _check_links(
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
    chauffeur_id: uuid.UUID | None = None,
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
    _check_links(carrier_id, chauffeur_id, vehicle_id)
    kenteken = painted(info.kenteken)
    automatic = []
    if chauffeur_id is None and info.kaartnummer:
        owner = drivers.find_by_card(carrier_id=carrier_id, kaartnummer=info.kaartnummer)
        chauffeur_id = owner.id if owner else _known_driver_of_card(carrier_id, info.kaartnummer)
        if chauffeur_id is not None:
            automatic.append("chauffeur_id")
    if vehicle_id is None and kenteken:
        vehicle_id = _vehicle_by_plate(carrier_id, kenteken)
        if vehicle_id is not None:
            automatic.append("vehicle_id")
    name = files.clean_filename(filename) or f"{info.soort}-{utcnow():%Y%m%d-%H%M%S}.ddd"
    stored = None
    try:
        with db.session.begin_nested():
            stored = files.store_checked(
                carrier_id=carrier_id, data=data, filename=name, soort=FILE_SOORT, actor=actor
            )
            row = TachoFile(
                transporteur_id=carrier_id,
                bestand_id=stored.id,
                soort=info.soort,
                generatie=info.generatie,
                bestandsnaam=name,
                sha256=sha256,
                grootte=len(data),
                chauffeur_id=chauffeur_id,
                vehicle_id=vehicle_id,
                periode_van=info.periode_van,
                periode_tot=info.periode_tot,
                periode_uit_bestand=info.periode_van is not None,
                kaartnummer=info.kaartnummer,
                houder=(info.houder or "")[:100] or None,
                vin=info.vin,
                kenteken=kenteken,
                geupload_op=now,
                gedownload_op=getattr(parsed, "gedownload_op", None),
                gelezen=True,
                geupload_door=actor.label[:200],
                geupload_door_type=actor.type,
                geupload_door_id=actor.id,
            )
            db.session.add(row)
            db.session.flush()
            _adopt_card_number(carrier_id, row, actor)
            dagen = reading.store_days(carrier_id=carrier_id, file=row, parsed=parsed)
    except IntegrityError:
        # The same file arrived at the same moment through another request: it won.
        if stored is not None:
            files.discard(stored)
        existing = _by_sha(carrier_id, sha256)
        if existing is None:
            raise
        return Upload(existing, False)
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
    return Upload(row, True)


def _adopt_card_number(carrier_id: uuid.UUID, row: TachoFile, actor: Actor) -> None:
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
    reading.relink_card(carrier_id=carrier_id, kaartnummer=row.kaartnummer, chauffeur_id=driver.id)


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
        return totals(day_segments(self.day.datum, self.day.wijzigingen, until=self.until))


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
    chauffeur_id: uuid.UUID | object | None = KEEP,
    vehicle_id: uuid.UUID | object | None = KEEP,
) -> TachoFile:
    """Link the file to a driver and/or vehicle of the carrier (None unlinks; KEEP leaves a
    side as it is); ValidationFailed for a driver or vehicle that is not the carrier's."""
    row = get_file(carrier_id=carrier_id, tacho_file_id=tacho_file_id)
    _check_links(
        carrier_id,
        chauffeur_id if isinstance(chauffeur_id, uuid.UUID) else None,
        vehicle_id if isinstance(vehicle_id, uuid.UUID) else None,
    )
    changes = {}
    for name, value in (("chauffeur_id", chauffeur_id), ("vehicle_id", vehicle_id)):
        if value is KEEP or getattr(row, name) == value:
            continue
        changes[name] = [getattr(row, name), value]
        setattr(row, name, value)
    if changes:
        db.session.flush()
        if "chauffeur_id" in changes and row.kaartnummer:
            _adopt_card_number(carrier_id, row, actor)
            owner = drivers.find_by_card(carrier_id=carrier_id, kaartnummer=row.kaartnummer)
            reading.relink_card(
                carrier_id=carrier_id,
                kaartnummer=row.kaartnummer,
                chauffeur_id=owner.id if owner else row.chauffeur_id,
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
        reading.relink_card(carrier_id=carrier_id, kaartnummer=old, chauffeur_id=None)
        for number in _card_numbers_like(carrier_id, old):
            reading.relink_card(carrier_id=carrier_id, kaartnummer=number, chauffeur_id=None)
    if driver.kaartnummer:
        for number in _card_numbers_like(carrier_id, driver.kaartnummer):
            reading.relink_card(carrier_id=carrier_id, kaartnummer=number, chauffeur_id=driver.id)
        _adopt_card_files(carrier_id, driver.id, driver.kaartnummer, actor)
    return driver


def _adopt_card_files(
    carrier_id: uuid.UUID, driver_id: uuid.UUID, number: str, actor: Actor
) -> None:
    """Card downloads of this card number that were linked to nobody are the driver's now,
    as a new upload of the card would be (its history says so): the download deadline and
    the driver's file list count them. A file a planner linked to someone else stays."""
    same_card = (
        or_(TachoFile.kaartnummer == number, TachoFile.kaartnummer.like(f"{number[:14]}__"))
        if len(number) == 14
        else TachoFile.kaartnummer == number
    )
    orphans = db.session.scalars(
        select(TachoFile).where(
            TachoFile.transporteur_id == carrier_id,
            TachoFile.soort == detect.BESTUURDERSKAART,
            TachoFile.chauffeur_id.is_(None),
            same_card,
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


def _card_numbers_like(carrier_id: uuid.UUID, number: str) -> set[str]:
    """The full card numbers of stored days that this number names (the same, or the same
    14 characters with any replacement and renewal index)."""
    return set(
        db.session.scalars(
            select(TachoDay.kaartnummer)
            .where(
                TachoDay.transporteur_id == carrier_id,
                or_(TachoDay.kaartnummer == number, TachoDay.kaartnummer.like(f"{number[:14]}__"))
                if len(number) == 14
                else TachoDay.kaartnummer == number,
            )
            .distinct()
        )
    )


# --- download deadlines ------------------------------------------------------------------

CARD_EVERY_DAYS = 28  # a driver card at least every 28 days (Reg. 581/2010)
VU_EVERY_DAYS = 90  # a vehicle unit at least every 90 days
SOON_DAYS = 7
# Vehicles that carry a tachograph: not trailers.
VU_KINDS = ("vrachtwagen", "trekker", "landbouwtrekker", "bestelbus", "overig")


@dataclass(frozen=True)
class Deadline:
    soort: str  # kaart or voertuig
    id: uuid.UUID  # the driver's or vehicle's
    naam: str  # the driver's name or the registration
    laatste: datetime | None  # the last download
    uiterlijk: date | None  # the day the next is due
    dagen_over: int | None  # days left (negative: overdue)
    status: str  # te_laat, binnenkort, ok, nooit


def _deadline(soort, ident, naam, last: datetime | None, every: int, today: date) -> Deadline:
    if last is None:
        return Deadline(soort, ident, naam, None, None, None, "nooit")
    due = last.date() + timedelta(days=every)
    left = (due - today).days
    status = "te_laat" if left < 0 else "binnenkort" if left <= SOON_DAYS else "ok"
    return Deadline(soort, ident, naam, last, due, left, status)


ORDER = {"te_laat": 0, "nooit": 1, "binnenkort": 2, "ok": 3}


def deadlines(*, carrier_id: uuid.UUID, today: date) -> list[Deadline]:
    """When each active driver's card and each vehicle's unit must next be downloaded,
    overdue first, then never downloaded, then the soonest: four queries."""
    moment = func.coalesce(TachoFile.gedownload_op, TachoFile.geupload_op)
    card_last = dict(
        db.session.execute(
            select(TachoFile.chauffeur_id, func.max(moment))
            .where(
                TachoFile.transporteur_id == carrier_id,
                TachoFile.soort == detect.BESTUURDERSKAART,
                TachoFile.chauffeur_id.is_not(None),
            )
            .group_by(TachoFile.chauffeur_id)
        ).all()
    )
    vu_last = dict(
        db.session.execute(
            select(TachoFile.vehicle_id, func.max(moment))
            .where(
                TachoFile.transporteur_id == carrier_id,
                TachoFile.soort == detect.VOERTUIGEENHEID,
                TachoFile.vehicle_id.is_not(None),
            )
            .group_by(TachoFile.vehicle_id)
        ).all()
    )
    out = [
        _deadline("kaart", d.id, d.naam, _aware(card_last.get(d.id)), CARD_EVERY_DAYS, today)
        for d in drivers.list_drivers(carrier_id=carrier_id)
    ]
    out += [
        _deadline("voertuig", v.id, v.kenteken, _aware(vu_last.get(v.id)), VU_EVERY_DAYS, today)
        for v in fleet.list_vehicles(carrier_id=carrier_id, active_only=True)
        if v.soort in VU_KINDS or v.id in vu_last
    ]
    out.sort(
        key=lambda d: (
            ORDER[d.status],
            d.dagen_over if d.dagen_over is not None else 0,
            d.naam.lower(),
        )
    )
    return out


def _aware(moment: datetime | None) -> datetime | None:
    """func.max over a UTC column comes back naive on SQLite."""
    if moment is None:
        return None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)
