"""Reading tachograph downloads in full: the days of every driver card a download holds, stored
once per card per day in tacho_dagen (the tacho domain's table, like tacho_bestanden).

A driver card's download gives the card's own days; a vehicle unit's gives, per card that was
inserted, what the unit recorded while it was. A day seen in several downloads is stored once:
the card's own record beats a vehicle unit's view of it, and among equals the newest download
wins. Reading the same file again writes its days again as the reader reads them now (the
same, unless the reader changed: `flask tacho-reread --alle`).
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, datetime, timedelta

from sqlalchemy import func, select, update

from portal.drivers import service as drivers
from portal.extensions import db
from portal.tacho import ddd
from portal.tacho.models import TachoDay, TachoFile
from portal.tacho.segments import Change, day_totals, midnight

KAART, VOERTUIG = "kaart", "voertuig"
RANK = {VOERTUIG: 0, KAART: 1}


def parse(data: bytes, *, filename: str | None, received_at: datetime):
    """The download read in full; ddd.DamagedFile when it does not hold together."""
    return ddd.parse(data, filename=filename, received_at=received_at)


def card_number_of(parsed) -> str | None:
    return getattr(parsed, "kaartnummer", None)


def days_of(parsed) -> list[tuple[str, str, object]]:
    """(card number, bron, CardDay) of every card day the download holds."""
    if isinstance(parsed, ddd.CardDownload):
        if not parsed.kaartnummer:
            return []
        return [(parsed.kaartnummer, KAART, day) for day in parsed.dagen]
    out = []
    for number, days in parsed.card_days().items():
        out.extend((number, VOERTUIG, day) for day in days)
    return out


def changes_json(changes: Iterable[Change]) -> list[list]:
    return [[c.minuut, c.activiteit, c.kaart_in, c.bemanning, c.handmatig, c.slot] for c in changes]


def changes_of(raw: list) -> list[Change]:
    return [
        Change(
            minuut=int(item[0]),
            activiteit=str(item[1]),
            kaart_in=bool(item[2]),
            bemanning=bool(item[3]),
            handmatig=bool(item[4]),
            slot=int(item[5]) if len(item) > 5 else 0,
        )
        for item in raw
    ]


def data_end(file: TachoFile, parsed) -> datetime | None:
    """How far a download's data reaches: the moment it was read; for a card read at an
    unknown moment, just after its newest day's last change (time after that is unknown,
    never the driving of a card left in until midnight); else when it was received."""
    if file.gedownload_op is not None:
        return file.gedownload_op
    if isinstance(parsed, ddd.CardDownload) and parsed.dagen:
        return parsed.einde()
    return file.geupload_op


def day_end(day: date, downloaded: datetime | None) -> datetime | None:
    """Where a day's data ends when the download was made that day; None: at midnight."""
    if downloaded is None:
        return None
    start = midnight(day)
    if start <= downloaded < start + timedelta(days=1):
        return downloaded
    return None


def _vehicles_by_day(parsed) -> dict[date, list[str]]:
    """The registrations a card was used in, per day (card downloads only)."""
    found: dict[date, list[str]] = {}
    for use in getattr(parsed, "voertuigen", ()) or ():
        if not use.kenteken or use.eerste_gebruik is None:
            continue
        last = use.laatste_gebruik or use.eerste_gebruik
        day = use.eerste_gebruik.date()
        # A use record spans its first to last use; bounded so a damaged date cannot loop.
        for _ in range(62):
            if day > last.date():
                break
            plates = found.setdefault(day, [])
            if use.kenteken not in plates:
                plates.append(use.kenteken)
            day += timedelta(days=1)
    return found


def _vehicle_uses_by_day(parsed) -> dict[date, list[list]]:
    """The card's time in each vehicle per UTC day, as [kenteken, from minute, to minute]
    (card downloads only); a use still open runs to the end of its day."""
    found: dict[date, list[list]] = {}
    for use in getattr(parsed, "voertuigen", ()) or ():
        if not use.kenteken or use.eerste_gebruik is None:
            continue
        first = use.eerste_gebruik
        last = use.laatste_gebruik if use.laatste_gebruik and use.laatste_gebruik > first else None
        day = first.date()
        for _ in range(62):  # bounded, as _vehicles_by_day
            start = midnight(day)
            if last is not None and start >= last:
                break
            begin = max(0, int((first - start).total_seconds() // 60))
            end = 1440 if last is None else min(1440, -(-int((last - start).total_seconds()) // 60))
            if end > begin:
                found.setdefault(day, []).append([use.kenteken, begin, end])
            if last is None:
                break
            day += timedelta(days=1)
    return found


def store_days(*, carrier_id: uuid.UUID, file: TachoFile, parsed) -> int:
    """Store the card days of a parsed download that are newer than what is known (per card
    per day); the number of days written. Two queries plus one write per day changed."""
    entries = days_of(parsed)
    if not entries:
        return 0
    downloaded = data_end(file, parsed)
    numbers = {number for number, _bron, _day in entries}
    known = {
        (row.kaartnummer, row.datum): row
        for row in db.session.scalars(
            select(TachoDay).where(
                TachoDay.transporteur_id == carrier_id,
                TachoDay.kaartnummer.in_(numbers),
                TachoDay.datum.in_({day.datum for _n, _b, day in entries}),
            )
        )
    }
    owners = {number: _driver_of_card(carrier_id, number, file) for number in numbers}
    plates = _vehicles_by_day(parsed)
    uses = _vehicle_uses_by_day(parsed)
    written = 0
    for number, bron, day in entries:
        row = known.get((number, day.datum))
        if row is not None and not _newer(bron, downloaded, row, file):
            continue
        end = day_end(day.datum, downloaded)
        minutes = day_totals(day.datum, day.wijzigingen, until=end)
        values = {
            "chauffeur_id": owners[number],
            "tacho_bestand_id": file.id,
            "bron": bron,
            "gedownload_op": downloaded,
            "tot": end,
            "aanwezigheid": getattr(day, "aanwezigheid", None),
            "afstand_km": getattr(day, "afstand_km", None),
            "rijden_min": minutes["rijden"],
            "werk_min": minutes["werk"],
            "beschikbaar_min": minutes["beschikbaar"],
            "rust_min": minutes["rust"],
            "onbekend_min": minutes["onbekend"],
            "wijzigingen": changes_json(day.wijzigingen),
            "voertuigen": plates.get(day.datum, [])
            or ([file.kenteken] if bron == VOERTUIG and file.kenteken else []),
            "voertuiggebruik": uses.get(day.datum, [])
            or ([[file.kenteken, 0, 1440]] if bron == VOERTUIG and file.kenteken else []),
        }
        if row is None:
            row = TachoDay(transporteur_id=carrier_id, kaartnummer=number, datum=day.datum)
            db.session.add(row)
        for name, value in values.items():
            setattr(row, name, value)
        written += 1
    db.session.flush()
    return written


def _newer(bron: str, downloaded: datetime | None, row: TachoDay, file: TachoFile) -> bool:
    """Whether a day from this download replaces the stored one: a better source, a newer
    download, or the same file read again (a newer reader may read it better)."""
    if row.tacho_bestand_id == file.id:
        return True
    if RANK[bron] != RANK[row.bron]:
        return RANK[bron] > RANK[row.bron]
    if row.gedownload_op is None:
        return True
    return downloaded is not None and downloaded > row.gedownload_op


def _driver_of_card(carrier_id: uuid.UUID, number: str, file: TachoFile) -> uuid.UUID | None:
    """The driver of a card: the one whose card number it is, else (a card download linked
    to a driver) the file's driver."""
    driver = drivers.find_by_card(carrier_id=carrier_id, kaartnummer=number)
    if driver is not None:
        return driver.id
    if file.kaartnummer == number:
        return file.chauffeur_id
    return None


def relink_card(*, carrier_id: uuid.UUID, kaartnummer: str, driver_id: uuid.UUID | None) -> int:
    """Point the stored days of a card at its driver (after a card number was given or a
    file linked); the number of days changed."""
    result = db.session.execute(
        update(TachoDay)
        .where(TachoDay.transporteur_id == carrier_id, TachoDay.kaartnummer == kaartnummer)
        .values(chauffeur_id=driver_id)
        .execution_options(synchronize_session=False)
    )
    return result.rowcount or 0


def newest_card_day(*, carrier_id: uuid.UUID, driver_id: uuid.UUID) -> date | None:
    """The newest day any stored download holds of a driver's card (None: none yet)."""
    return db.session.scalar(
        select(func.max(TachoDay.datum)).where(
            TachoDay.transporteur_id == carrier_id, TachoDay.chauffeur_id == driver_id
        )
    )


def days_of_driver(
    *, carrier_id: uuid.UUID, driver_id: uuid.UUID, start: date, end: date
) -> list[TachoDay]:
    """A driver's stored card days in [start, end), oldest first: one query."""
    return list(
        db.session.scalars(
            select(TachoDay)
            .where(
                TachoDay.transporteur_id == carrier_id,
                TachoDay.chauffeur_id == driver_id,
                TachoDay.datum >= start,
                TachoDay.datum < end,
            )
            .order_by(TachoDay.datum, TachoDay.kaartnummer)
        )
    )


@dataclass(frozen=True, slots=True)
class StoredDay:
    """What the checker needs of a stored card day (read as columns: a board reads
    thousands)."""

    chauffeur_id: uuid.UUID
    datum: date
    bron: str
    gedownload_op: datetime | None
    tot: datetime | None
    wijzigingen: list
    voertuigen: list | None = None  # registrations of the day
    voertuiggebruik: list | None = None  # [[kenteken, from minute, to minute], ...]; None: not kept


def days_of_drivers(
    *, carrier_id: uuid.UUID, driver_ids: set[uuid.UUID], start: date, end: date
) -> dict[uuid.UUID, list[StoredDay]]:
    """Several drivers' stored card days in [start, end), oldest first: one query."""
    found: dict[uuid.UUID, list[StoredDay]] = {driver_id: [] for driver_id in driver_ids}
    if not driver_ids:
        return found
    rows = db.session.execute(
        select(
            TachoDay.chauffeur_id,
            TachoDay.datum,
            TachoDay.bron,
            TachoDay.gedownload_op,
            TachoDay.tot,
            TachoDay.wijzigingen,
            TachoDay.voertuigen,
            TachoDay.voertuiggebruik,
        )
        .where(
            TachoDay.transporteur_id == carrier_id,
            TachoDay.chauffeur_id.in_(driver_ids),
            TachoDay.datum >= start,
            TachoDay.datum < end,
        )
        .order_by(TachoDay.datum, TachoDay.kaartnummer)
    )
    for row in rows:
        found[row.chauffeur_id].append(StoredDay(*row))
    return found
