"""Hours in the portal (planners): every driver's hours over a period with sorting and the
export for payroll, a driver's week with its timeline, approving and reopening a week, and
correcting an activity.

Every route loads, checks and acts through the hours services, then commits once. A route
with a driver or an activity in its path loads it before the CSRF check, so another
carrier's id is a 404 whatever the method.
"""

from __future__ import annotations

import uuid
from datetime import datetime

from flask import (
    Blueprint,
    Response,
    abort,
    flash,
    make_response,
    redirect,
    render_template,
    request,
    url_for,
)
from flask_babel import force_locale
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from flask_login import current_user

from portal.accounts import service as accounts
from portal.accounts.permissions import object_route, role_required
from portal.drivers import service as drivers
from portal.hours import service, weeks
from portal.hours.models import SOORTEN
from portal.hours.pages import timeline, wording
from portal.hours.pages.forms import SOORT_LABELS, ActivityForm, ApproveForm, PeriodForm, ReopenForm
from portal.hours.pages.wording import explain
from portal.hours.payroll import payable
from portal.hours.review import corrections
from portal.hours.review import week as review
from portal.hours.schemas import duration_minutes
from portal.hours.service import HoursConflict, HoursInvalid
from portal.hours.totals import IsoWeek
from portal.hours.weeks import export
from portal.messages import service as messages
from portal.messages.models import TEXT_MAX, TITLE_MAX
from portal.types import utcnow
from portal.unit_of_work import refused
from portal.web.kit import Pager, current_actor, current_carrier_id, current_zone

bp = Blueprint("hours", __name__)

PER_PAGE = 100  # drivers per page of the overview
SORTS = ("naam", *SOORTEN, "werktijd", "status")
MIMETYPES = {
    "csv": "text/csv",  # Response adds "; charset=utf-8" to a text/* type
    "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
}


WEEK_STATES = {
    "open": _l("open"),
    "wacht_op_chauffeur": _l("wacht op chauffeur"),
    "goedgekeurd": _l("goedgekeurd"),
    "geexporteerd": _l("geëxporteerd"),
}
WEEK_STATE_ICONS = {"open": "○", "wacht_op_chauffeur": "…", "goedgekeurd": "✓", "geexporteerd": "⇪"}


@bp.context_processor
def _helpers():
    return {
        "hm": timeline.hm,
        "soort_labels": SOORT_LABELS,
        "soorten": SOORTEN,
        "week_states": WEEK_STATES,
        "week_state_icons": WEEK_STATE_ICONS,
    }


# --- the overview ----------------------------------------------------------------------


def _period(form: PeriodForm, valid: bool):
    """The period the form names (a week, or van..tot), else the current week."""
    if valid and form.week.data is not None:
        week = form.week.data
        return week.monday, week.sunday, week
    if valid and form.van.data and form.tot.data:
        van, tot = form.van.data, form.tot.data
        week = IsoWeek.of(van)
        exact = van == week.monday and tot == week.sunday
        return van, tot, week if exact else None
    week = IsoWeek.of(datetime.now(current_zone()).date())
    return week.monday, week.sunday, week


def _sorting() -> tuple[str, bool]:
    sort = request.args.get("sort", "naam")
    if sort not in SORTS:
        sort = "naam"
    return sort, request.args.get("richting") == "desc"


def _sorted(rows: list, sort: str, descending: bool) -> list:
    def name(row):
        return (row.driver.naam.lower(), str(row.driver.id))

    if sort == "naam":
        return sorted(rows, key=name, reverse=descending)
    if sort == "status":
        value = lambda row: row.approved_count / max(len(row.weeks), 1)  # noqa: E731
    else:
        value = lambda row: row.hours.totaal.value(sort)  # noqa: E731
    # Ties stay by name, whichever the direction.
    ordered = sorted(rows, key=name)
    return sorted(ordered, key=value, reverse=descending)


def _pay_total(pay: dict) -> payable.PaySum:
    total = payable.PaySum()
    for row in pay.values():
        total.add(row)
    return total


@bp.get("/uren")
@role_required("planner")
def index():
    """Every driver's hours over a period: totals per kind, working time, approvals."""
    carrier_id = current_carrier_id()
    form = PeriodForm(request.args)
    valid = form.validate()
    van, tot, week = _period(form, valid)
    found = weeks.overview(carrier_id=carrier_id, van=van, tot=tot)
    sort, descending = _sorting()
    rows = _sorted(found.rows, sort, descending)
    pager, shown = Pager.asked(PER_PAGE).of(rows)
    paid = request.args.get("weergave") == "betaald"
    pay = {}
    if paid:
        pay = payable.sums(
            carrier_id=carrier_id,
            driver_ids={row.driver.id for row in found.rows},
            weeks=found.weeks,
        )
    approvers = accounts.user_names(
        carrier_id=carrier_id,
        user_ids={a.goedgekeurd_door for r in shown for a in r.approvals.values()},
    )
    period_args = {"week": week.label} if week else {"van": van.isoformat(), "tot": tot.isoformat()}
    sort_args = {} if sort == "naam" and not descending else {"sort": sort}
    if descending:
        sort_args["richting"] = "desc"
    if paid:
        period_args["weergave"] = sort_args["weergave"] = "betaald"
    if not any(getattr(f, "raw", None) for f in (form.week, form.van, form.tot)):
        form.week.data = week
    context = {
        "form": form,
        "van": van,
        "tot": tot,
        "week": week,
        "overview": found,
        "rows": shown,
        "total": found.total,
        "count": len(rows),
        "sort": sort,
        "descending": descending,
        "pager": pager,
        "approvers": approvers,
        "period_args": period_args,
        "sort_args": sort_args,
        "page_args": {**period_args, **sort_args},
        "today": datetime.now(current_zone()).date(),
        "paid": paid,
        "pay": pay,
        "pay_total": _pay_total(pay),
    }
    return make_response(render_template("hours/index.html", **context), 200 if valid else 422)


def _export(fmt: str) -> Response:
    form = PeriodForm(request.args)
    if not form.validate():
        return redirect(url_for("hours.index", **request.args), code=303)
    van, tot, _week = _period(form, True)
    found = weeks.overview(carrier_id=current_carrier_id(), van=van, tot=tot)
    body = export.to_csv(found) if fmt == "csv" else export.to_xlsx(found)
    response = Response(body, mimetype=MIMETYPES[fmt])
    name = f"uren-{van.isoformat()}-{tot.isoformat()}.{fmt}"
    response.headers["Content-Disposition"] = f"attachment; filename={name}"
    return response


@bp.get("/uren/export.csv")
@role_required("planner")
def export_csv():
    return _export("csv")


@bp.get("/uren/export.xlsx")
@role_required("planner")
def export_xlsx():
    return _export("xlsx")


# --- a driver's week -------------------------------------------------------------------


def week_route(rule: str, methods: tuple[str, ...] = ("GET",)):
    """A planner's route of one driver's week: the driver and the week load first (404 when
    unknown or another carrier's), then a POST's CSRF token is checked."""

    def load(user_token: str, week: str):
        driver = drivers.find_by_token(carrier_id=current_carrier_id(), user_token=user_token)
        if driver is None:
            abort(404)
        try:
            return driver, IsoWeek.parse(week)
        except ValueError:
            abort(404)

    return object_route(bp, rule, load, methods=methods)


def _week_url(driver, week: IsoWeek) -> str:
    return url_for("hours.week", user_token=driver.user_token, week=week.label)


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


# --- correcting an activity ------------------------------------------------------------


def activity_route(rule: str, methods: tuple[str, ...] = ("GET",)):
    """A planner's route of one recorded activity (another carrier's id: 404 first)."""

    def load(activiteit_id: uuid.UUID):
        return service.get_activity(carrier_id=current_carrier_id(), activity_id=activiteit_id)

    return object_route(bp, rule, load, methods=methods)


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


@activity_route("/uren/activiteiten/<uuid:activiteit_id>/wijzigen", methods=("GET", "POST"))
def edit_activity(activity):
    """A planner corrects an activity; the same rules hold as in the driver app."""
    carrier_id = current_carrier_id()
    zone = current_zone()
    now = utcnow()
    day = service.get_work_day(carrier_id=carrier_id, work_day_id=activity.werkdag_id)
    driver = drivers.get_driver(carrier_id=carrier_id, driver_id=activity.chauffeur_id)
    week = IsoWeek.of(activity.begin.astimezone(zone).date())
    back = _week_url(driver, week)
    approved = service.approved_weeks(
        carrier_id=carrier_id,
        driver_ids={driver.id},
        weeks=service.touched_weeks(day, zone, now),
    )
    locked = min((w for _, w in approved), default=None)

    def local(moment):
        return moment.astimezone(zone).replace(tzinfo=None) if moment else None

    form = ActivityForm(
        data=None
        if request.method == "POST"
        else {
            "soort": activity.soort,
            "begin": local(activity.begin),
            "einde": local(activity.einde),
            "opmerking": activity.opmerking or "",
        }
    )
    problem = None
    status = 200
    if locked is not None:
        problem = _(
            "Week %(week)s is goedgekeurd: heropen de week om iets te wijzigen.", week=locked.label
        )
        status = 409 if request.method == "POST" else 200
    elif request.method == "POST":
        if form.validate():
            data = {
                "soort": form.soort.data,
                "begin": form.begin.data.replace(tzinfo=zone),
                "einde": form.einde.data.replace(tzinfo=zone) if form.einde.data else None,
                "opmerking": form.opmerking.data,
            }
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
                else:
                    problem = explain(error)
                status = 422
            except HoursConflict as error:
                problem = explain(error)
                status = 409
            else:
                if correction is not None and driver.actief:
                    _tell_driver(carrier_id, driver, correction, zone)
                flash(
                    _("De activiteit is gecorrigeerd; de chauffeur ziet de correctie in de app.")
                    if correction is not None
                    else _("De activiteit is gewijzigd.")
                )
                return redirect(back, code=303)
        else:
            status = 422
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
