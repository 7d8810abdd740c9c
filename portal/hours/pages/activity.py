"""Correcting a driver's recorded activity in the portal (planners): the same rules hold as
in the driver app; a correction needs a reason and reaches the driver's phone as a message."""

from __future__ import annotations

from flask import flash, make_response, redirect, render_template, request
from flask_babel import force_locale
from flask_babel import gettext as _
from flask_login import current_user

from portal.drivers import service as drivers
from portal.hours import service
from portal.hours.pages import wording
from portal.hours.pages.forms import ActivityForm
from portal.hours.pages.kit import activity_route, week_url
from portal.hours.pages.wording import explain
from portal.hours.review import corrections
from portal.hours.service import HoursConflict, HoursInvalid
from portal.hours.totals import IsoWeek
from portal.messages import service as messages
from portal.messages.service import TEXT_MAX, TITLE_MAX
from portal.types import utcnow
from portal.web.kit import current_actor, current_carrier_id, current_zone


def _tell_driver(carrier_id, driver, correction, zone) -> None:
    """A message to the driver's phone, in the driver's language: what changed and why."""
    with force_locale(driver.taal or "nl"):
        what = wording.correction_change(correction.oud, correction.nieuw, zone)
        titel = _("Je uren van week %(week)s zijn gecorrigeerd", week=correction.week)
        tekst = _(
            "%(wie)s wijzigde: %(wat)s. Reden: %(reden)s. Bekijk de correctie bij je uren en "
            "geef aan of je akkoord bent.",
            wie=correction.door,
            wat=what,
            reden=correction.reden,
        )
    messages.send_message(
        carrier_id=carrier_id,
        driver_ids=[driver.id],
        titel=titel[:TITLE_MAX],
        tekst=tekst[:TEXT_MAX],
        actor=current_actor(),
        user_id=current_user.id,
    )


def _locked_week(carrier_id, driver, day, zone, now) -> IsoWeek | None:
    """The first approved week the work day touches: while it stands, nothing changes."""
    approved = service.approved_weeks(
        carrier_id=carrier_id,
        driver_ids={driver.id},
        weeks=service.touched_weeks(day, zone, now),
    )
    return min((w for _, w in approved), default=None)


def _form(activity, zone) -> ActivityForm:
    """The form, filled with the activity on the carrier's clock (a POST fills it itself)."""
    if request.method == "POST":
        return ActivityForm(data=None)

    def local(moment):
        return moment.astimezone(zone).replace(tzinfo=None) if moment else None

    return ActivityForm(
        data={
            "soort": activity.soort,
            "begin": local(activity.begin),
            "einde": local(activity.einde),
            "opmerking": activity.opmerking or "",
        }
    )


def _correct(form: ActivityForm, activity, driver, zone) -> tuple[bool, str | None, int]:
    """Correct the activity as the form says: (done, problem, status); a refusal at a field
    lands on that field."""
    data = {
        "soort": form.soort.data,
        "begin": form.begin.data.replace(tzinfo=zone),
        "einde": form.einde.data.replace(tzinfo=zone) if form.einde.data else None,
        "opmerking": form.opmerking.data,
    }
    carrier_id = current_carrier_id()
    try:
        correction = corrections.correct_activity(
            carrier_id=carrier_id,
            activity_id=activity.id,
            data=data,
            reden=form.reden.data,
            actor=current_actor(),
        )
    except HoursInvalid as error:
        field = form._fields.get(error.field)
        if field is not None and field.name != "csrf_token":
            field.errors = [*field.errors, explain(error)]
            return False, None, 422
        return False, explain(error), 422
    except HoursConflict as error:
        return False, explain(error), 409
    if correction is not None and driver.actief:
        _tell_driver(carrier_id, driver, correction, zone)
    flash(
        _("De activiteit is gecorrigeerd; de chauffeur ziet de correctie in de app.")
        if correction is not None
        else _("De activiteit is gewijzigd.")
    )
    return True, None, 303


@activity_route("/uren/activiteiten/<uuid:activiteit_id>/wijzigen", methods=("GET", "POST"))
def edit_activity(activity):
    """A planner corrects an activity; the same rules hold as in the driver app."""
    carrier_id = current_carrier_id()
    zone = current_zone()
    day = service.get_work_day(carrier_id=carrier_id, work_day_id=activity.werkdag_id)
    driver = drivers.get_driver(carrier_id=carrier_id, driver_id=activity.chauffeur_id)
    week = IsoWeek.of(activity.begin.astimezone(zone).date())
    back = week_url(driver, week)
    locked = _locked_week(carrier_id, driver, day, zone, utcnow())
    form = _form(activity, zone)
    problem = None
    status = 200
    if locked is not None:
        problem = _(
            "Week %(week)s is goedgekeurd: heropen de week om iets te wijzigen.", week=locked.label
        )
        status = 409 if request.method == "POST" else 200
    elif request.method == "POST":
        status = 422
        if form.validate():
            done, problem, status = _correct(form, activity, driver, zone)
            if done:
                return redirect(back, code=303)
        activity = service.get_activity(carrier_id=carrier_id, activity_id=activity.id)
        day = service.get_work_day(carrier_id=carrier_id, work_day_id=activity.werkdag_id)
    context = {
        "form": form,
        "activity": activity,
        "day": day,
        "driver": driver,
        "week": week,
        "back": back,
        "problem": problem,
        "locked": locked,
        "zone_name": zone.key,
    }
    return make_response(render_template("hours/activity.html", **context), status)
