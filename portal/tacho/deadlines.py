"""When each driver card and vehicle unit must next be downloaded (Reg. 581/2010).

Part of the tacho service: `portal.tacho.service` re-exports what others call.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta

from sqlalchemy import func, select

from portal.drivers import service as drivers
from portal.extensions import db
from portal.fleet import service as fleet
from portal.tacho.ddd import detect
from portal.tacho.models import TachoFile

CARD_EVERY_DAYS = 28  # a driver card at least every 28 days (Reg. 581/2010)
VU_EVERY_DAYS = 90  # a vehicle unit at least every 90 days
SOON_DAYS = 7
# Vehicles that carry a tachograph: not trailers.
VU_KINDS = ("vrachtwagen", "opleggertrekker", "landbouwtrekker", "bestelbus", "overig")


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
