"""Hours operations of the API by the week: the hours of all drivers of a carrier, a
driver's paid week and the planner's corrections the driver answers (hours.py: the work days
and activities themselves)."""

from __future__ import annotations

import uuid
from datetime import datetime, timedelta

from portal.accounts.service import carrier_zone
from portal.api.core import (
    driver_access,
    integration_of,
    json_response,
    list_response,
    operation,
    parse_body,
    parse_query,
    principal,
    write,
)
from portal.api.hours import CARRIER_ID, USER_TOKEN, WEEK, WHO_NOTE, allow_scope
from portal.errors import Forbidden, ValidationFailed
from portal.hours import weeks
from portal.hours.pay_schemas import BetaaldeWeek, Correctie, CorrectieReactie
from portal.hours.payroll import payable
from portal.hours.review import corrections
from portal.hours.schemas import (
    UrenPerChauffeur,
    UrenQuery,
    serialize_driver_hours,
)
from portal.hours.totals import IsoWeek


@operation(
    "/transporteurs/<uuid:transporteur_id>/uren",
    "GET",
    scope="hours:read",
    summary="Hours of every driver of a carrier (integrations; the caller's own carrier only)",
    tag="hours",
    description="Per driver (by name: every active driver, and inactive ones with time in "
    "the period) the minutes and hours per activity kind, per day, per ISO week (with its "
    "approval) and in total over van..tot. Days are the carrier's calendar days: an activity "
    "crossing midnight counts on each day for its part. A running activity counts up to "
    "now (`lopend`), at most 24 hours after its work day began. Seconds are summed per day "
    "and kind and rounded to whole minutes; weeks and totals add up those day minutes.",
    query=UrenQuery,
    response=UrenPerChauffeur,
    many=True,
    errors=(401, 403, 404, 422),
    path_params=CARRIER_ID,
)
def carrier_hours(transporteur_id: uuid.UUID):
    who = integration_of(transporteur_id, drivers_read="its own work days")
    allow_scope(change=False)
    query = parse_query(UrenQuery)
    zone = carrier_zone(who.carrier_id)
    this_week = IsoWeek.of(datetime.now(zone).date())
    van = query.van or (query.tot - timedelta(days=6) if query.tot else this_week.monday)
    tot = query.tot or (van + timedelta(days=6) if query.van else this_week.sunday)
    found = weeks.overview(carrier_id=who.carrier_id, first_day=van, last_day=tot)
    page = found.rows[query.offset : query.offset + query.limit]
    return list_response(
        [serialize_driver_hours(row, start=van, end=tot, zone=zone) for row in page],
        len(found.rows),
    )


def _week(value: str) -> IsoWeek:
    try:
        return IsoWeek.parse(value)
    except ValueError as error:
        raise ValidationFailed(
            [{"field": "week", "code": "week_ongeldig", "message": str(error)}]
        ) from None


@operation(
    "/users/<user_token:user_token>/weken/<week>",
    "GET",
    scope="hours:read",
    summary="A driver's week as payable hours under the CAO Beroepsgoederenvervoer",
    tag="hours",
    description="The week's recorded work turned into paid minutes per category (normal, "
    "meeruren at 100%, overtime 130%, Saturday 150%, Sunday and public holidays 200%, "
    "irregular-hours windows, the one-day night-trip surcharge, a paid holiday not worked) "
    "per day and for the week, with the time away from the home base and the daily "
    "allowances (decimal strings, euros). Each paid minute gets one rate, the highest "
    "that applies; overtime is counted per week as `overuren_grens` says and never netted "
    "with another week; a shorter week is made up to the contract hours (`aanvulling_min`). "
    "A running work day counts up to now. `status` says whether a planner approved the "
    "week; `correcties` lists the planner's changes of the week's activities with their "
    "reasons and the driver's answers." + WHO_NOTE,
    response=BetaaldeWeek,
    errors=(401, 403, 404, 422),
    path_params={**USER_TOKEN, **WEEK},
)
def driver_payable_week(user_token: str, week: str):
    allow_scope(change=False)
    driver = driver_access(user_token)
    wanted = _week(week)
    found = payable.payable_week(
        carrier_id=principal().carrier_id, driver_id=driver.id, week=wanted
    )
    return json_response(found.to_json())


@operation(
    "/users/<user_token:user_token>/weken/<week>/correcties/<uuid:correctie_id>/reactie",
    "POST",
    scope=None,
    unscoped="the driver app only; API keys get 403",
    summary="The driver accepts a planner's correction of the week or comments on it",
    tag="hours",
    description="A planner who changes a recorded activity gives a reason; the driver sees "
    "the activity as it was and as it became in the week (`correcties`), and answers "
    "`akkoord` or `opmerking` (with `tekst`). The week can be approved once every correction "
    "is answered; an answer may change until then (409 `week_goedgekeurd` after). Only the "
    "driver answers: API keys get 403.",
    body=CorrectieReactie,
    response=Correctie,
    errors=(401, 403, 404, 409, 413, 415, 422),
    path_params={
        **USER_TOKEN,
        **WEEK,
        "correctie_id": {"description": "the correction's id", "uuid": True},
    },
)
@write
def answer_correction(user_token: str, week: str, correctie_id: uuid.UUID):
    driver = driver_access(user_token)  # another carrier's driver: 404 first
    who = principal()
    if who.kind != "driver":
        raise Forbidden("Only the driver answers a correction of their hours.")
    wanted = _week(week)
    body = parse_body(CorrectieReactie)
    row = corrections.answer(
        carrier_id=who.carrier_id,
        driver_id=driver.id,
        week=wanted,
        correction_id=correctie_id,
        reactie=body.reactie,
        tekst=body.tekst,
        actor=who.actor,
    )
    return json_response(corrections.to_json(row))
