"""Corrections (uren_correcties): a planner changes a driver's recorded activity, always with
a reason; the driver sees the activity as it was and as it became, with the reason, and
accepts it (`akkoord`) or comments (`opmerking`). A week with an unanswered correction
cannot be approved (weeks.approve_week), so no change of hours reaches payroll unseen.

Every correction and every answer is in the audit trail (who, when, old, new, reason).
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from datetime import datetime

from sqlalchemy import select

from portal.accounts.service import carrier_zone
from portal.audit import service as audit
from portal.audit.service import Actor
from portal.errors import NotFound
from portal.extensions import db
from portal.hours.days import activities
from portal.hours.days.checks import REDEN_MAX, HoursConflict, HoursInvalid, clean_text
from portal.hours.days.queries import approved_weeks, get_activity
from portal.hours.pay_models import REACTIES, HoursCorrection
from portal.hours.totals import IsoWeek
from portal.types import iso, utcnow

# What a correction is about: the fields that change what the driver is paid.
FIELDS = ("soort", "begin", "einde")


def _state(activity) -> dict:
    return {
        "soort": activity.soort,
        "begin": iso(activity.begin),
        "einde": iso(activity.einde),
    }


def correct_activity(
    *,
    carrier_id: uuid.UUID,
    activity_id: uuid.UUID,
    data: dict,
    reden: str | None,
    actor: Actor,
    now: datetime | None = None,
) -> HoursCorrection | None:
    """A planner's change of an activity (the same rules as activities.update_activity),
    recorded as a correction for the driver when its kind or times change. HoursInvalid
    (`reden_verplicht`) without a reason. None when only the note changed."""
    reden = clean_text("reden", reden, REDEN_MAX)
    if not reden:
        raise HoursInvalid("reden", "a correction needs a reason", code="reden_verplicht")
    before = _state(get_activity(carrier_id=carrier_id, activity_id=activity_id))
    activity = activities.update_activity(
        carrier_id=carrier_id, activity_id=activity_id, data=data, actor=actor, now=now
    )
    after = _state(activity)
    if before == after:
        return None
    week = IsoWeek.of(activity.begin.astimezone(carrier_zone(carrier_id)).date())
    correction = HoursCorrection(
        transporteur_id=carrier_id,
        chauffeur_id=activity.chauffeur_id,
        jaar=week.jaar,
        week=week.week,
        activiteit_id=activity.id,
        oud=before,
        nieuw=after,
        reden=reden,
        door=actor.label,
        gemaakt_op=now or utcnow(),
    )
    db.session.add(correction)
    db.session.flush()
    audit.record(
        carrier_id=carrier_id,
        actor=actor,
        entity="uren_correctie",
        entity_id=correction.id,
        action="created",
        changes={
            "activiteit_id": [None, str(activity.id)],
            **{name: [before[name], after[name]] for name in FIELDS if before[name] != after[name]},
            "reden": [None, reden],
        },
    )
    return correction


def of_weeks(
    *, carrier_id: uuid.UUID, driver_ids: set[uuid.UUID], weeks: Iterable[IsoWeek]
) -> dict[tuple[uuid.UUID, IsoWeek], list[HoursCorrection]]:
    """The corrections of some drivers' weeks, oldest first: one query."""
    keys = {week.key for week in weeks}
    if not keys or not driver_ids:
        return {}
    found: dict[tuple[uuid.UUID, IsoWeek], list[HoursCorrection]] = {}
    for row in db.session.scalars(
        select(HoursCorrection)
        .where(
            HoursCorrection.transporteur_id == carrier_id,
            HoursCorrection.chauffeur_id.in_(driver_ids),
            (HoursCorrection.jaar * 100 + HoursCorrection.week).in_(keys),
        )
        .order_by(HoursCorrection.gemaakt_op, HoursCorrection.id)
    ):
        found.setdefault((row.chauffeur_id, IsoWeek(row.jaar, row.week)), []).append(row)
    return found


def unanswered(*, carrier_id: uuid.UUID, driver_id: uuid.UUID, week: IsoWeek) -> int:
    """How many corrections of the driver's week wait for the driver's answer."""
    rows = of_weeks(carrier_id=carrier_id, driver_ids={driver_id}, weeks=[week])
    return sum(1 for row in rows.get((driver_id, week), []) if row.reactie is None)


def answer(
    *,
    carrier_id: uuid.UUID,
    driver_id: uuid.UUID,
    week: IsoWeek,
    correction_id: uuid.UUID,
    reactie: str,
    tekst: str | None,
    actor: Actor,
    now: datetime | None = None,
) -> HoursCorrection:
    """The driver accepts a correction of their week or comments on it; an answer may be
    changed until the week is approved. NotFound for another driver's or week's correction;
    HoursInvalid for an unknown answer or a comment without text; HoursConflict
    (`week_goedgekeurd`) once the week is approved."""
    row = db.session.scalar(
        select(HoursCorrection)
        .where(
            HoursCorrection.transporteur_id == carrier_id,
            HoursCorrection.id == correction_id,
            HoursCorrection.chauffeur_id == driver_id,
            HoursCorrection.jaar == week.jaar,
            HoursCorrection.week == week.week,
        )
        .with_for_update()
    )
    if row is None:
        raise NotFound("correction not found")
    if reactie not in REACTIES:
        raise HoursInvalid(
            "reactie", "akkoord or opmerking", code="reactie_onbekend", params={"waarde": reactie}
        )
    tekst = clean_text("tekst", tekst, REDEN_MAX) or None
    if reactie == "opmerking" and not tekst:
        raise HoursInvalid("tekst", "a comment needs text", code="opmerking_verplicht")
    if approved_weeks(carrier_id=carrier_id, driver_ids={driver_id}, weeks=[week]):
        raise HoursConflict(
            f"week {week.label} is approved",
            code="week_goedgekeurd",
            params={"week": week.label},
        )
    old = [row.reactie, row.reactie_tekst]
    row.reactie, row.reactie_tekst, row.reactie_op = reactie, tekst, now or utcnow()
    db.session.flush()
    audit.record(
        carrier_id=carrier_id,
        actor=actor,
        entity="uren_correctie",
        entity_id=row.id,
        action="answered",
        changes={"reactie": [old[0], reactie], "reactie_tekst": [old[1], tekst]},
    )
    return row


def to_json(row: HoursCorrection) -> dict:
    """A correction as the API shows it to the driver and to the carrier's systems."""
    return {
        "id": str(row.id),
        "activiteit_id": str(row.activiteit_id),
        "oud": dict(row.oud),
        "nieuw": dict(row.nieuw),
        "reden": row.reden,
        "door": row.door,
        "gemaakt_op": iso(row.gemaakt_op),
        "reactie": row.reactie,
        "reactie_tekst": row.reactie_tekst,
        "reactie_op": iso(row.reactie_op),
    }
