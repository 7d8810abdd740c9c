"""A driver's week in the portal (planners): the timeline, the totals per day, the work days
with their activities, the review's figures and warnings, and approving and reopening the
week."""

from __future__ import annotations

from datetime import datetime

from flask import flash, make_response, redirect, render_template, request, url_for
from flask_babel import gettext as _

from portal.accounts import service as accounts
from portal.hours import weeks
from portal.hours.pages import timeline, wording
from portal.hours.pages.forms import SOORT_LABELS, ApproveForm, ReopenForm
from portal.hours.pages.kit import week_route
from portal.hours.pages.wording import explain
from portal.hours.review import week as review
from portal.hours.schemas import duration_minutes
from portal.hours.service import HoursConflict, HoursInvalid
from portal.hours.totals import IsoWeek
from portal.types import utcnow
from portal.unit_of_work import refused
from portal.web.kit import current_actor, current_carrier_id, current_zone


def _week_context(driver, week: IsoWeek) -> dict:
    carrier_id = current_carrier_id()
    now = utcnow()
    zone = current_zone()
    detail = weeks.week_detail(carrier_id=carrier_id, driver_id=driver.id, week=week, now=now)
    labels = {soort: str(label) for soort, label in SOORT_LABELS.items()}
    chart = timeline.build(
        week=week,
        days=detail.days,
        activities=detail.activities,
        per_day=detail.hours.per_dag,
        zone=zone,
        now=now,
        labels=labels,
        task_names=detail.task_names,
    )
    people = accounts.user_names(
        carrier_id=carrier_id,
        user_ids={r.goedgekeurd_door for r in detail.history}
        | {r.heropend_door for r in detail.history},
    )
    today = now.astimezone(zone).date()
    found = review.week_review(carrier_id=carrier_id, driver_id=driver.id, week=week, now=now)
    return {
        **wording.review_context(found, zone),
        "driver": driver,
        "week": week,
        "detail": detail,
        "chart": chart,
        "people": people,
        "now": now,
        "today": today,
        "can_approve": detail.approval is None
        and not detail.running
        and week.monday <= today
        and found.can_approve,
        "previous": week.shifted(-1),
        "next": week.shifted(1) if week.shifted(1).monday <= today else None,
        "overview_url": url_for("hours.index", week=week.label),
        "duration": lambda activity, day: timeline.hm(
            duration_minutes(activity, day.gestart_op, now)
        ),
    }


@week_route("/uren/<user_token:user_token>/<week>")
def week(driver, week: IsoWeek):
    """A driver's week: the timeline, the totals per day, the work days with their
    activities, and the approval with its history."""
    return render_template("hours/week.html", **_week_context(driver, week))


@week_route("/uren/<user_token:user_token>/<week>/goedkeuren", methods=("GET", "POST"))
def approve(driver, week: IsoWeek):
    """Approve a week, after a confirmation: its hours are locked until it is reopened. A
    week that has not ended is approved only from the page that says so; a post without
    that answer gets the question instead."""
    early = datetime.now(current_zone()).date() <= week.sunday
    if request.method == "GET" or (early and request.form.get("voor_einde") != "ja"):
        context = _week_context(driver, week)
        return render_template("hours/approve.html", form=ApproveForm(), **context)
    naam, user_token = driver.naam, driver.user_token
    try:
        weeks.approve_week(
            carrier_id=current_carrier_id(),
            driver_id=driver.id,
            week=week,
            actor=current_actor(),
        )
    except HoursConflict as error:
        flash(explain(error), "error")
        return refused(
            redirect(url_for("hours.week", user_token=user_token, week=week.label), code=303)
        )
    flash(_("Week %(week)s van %(naam)s is goedgekeurd.", week=week.week, naam=naam))
    return redirect(url_for("hours.week", user_token=user_token, week=week.label), code=303)


@week_route("/uren/<user_token:user_token>/<week>/heropenen", methods=("GET", "POST"))
def reopen(driver, week: IsoWeek):
    """Reopen an approved week, for a reason that is kept."""
    form = ReopenForm()
    if request.method == "POST" and form.validate():
        naam, user_token = driver.naam, driver.user_token
        try:
            weeks.reopen_week(
                carrier_id=current_carrier_id(),
                driver_id=driver.id,
                week=week,
                reden=form.reden.data,
                actor=current_actor(),
            )
        except HoursInvalid as error:
            form.reden.errors = [explain(error)]
        except HoursConflict as error:
            flash(explain(error), "error")
            return refused(
                redirect(url_for("hours.week", user_token=user_token, week=week.label), code=303)
            )
        else:
            flash(_("Week %(week)s van %(naam)s is heropend.", week=week.week, naam=naam))
            return redirect(url_for("hours.week", user_token=user_token, week=week.label), code=303)
    status = 422 if request.method == "POST" else 200
    context = _week_context(driver, week)
    return make_response(render_template("hours/reopen.html", form=form, **context), status)
