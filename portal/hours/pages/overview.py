"""Hours in the portal (planners): every driver's hours over a period, with sorting, the
paid view and the files for payroll (CSV, XLSX).

Every route loads, checks and acts through the hours services, then commits once.
"""

from __future__ import annotations

from datetime import datetime

from flask import Response, make_response, redirect, render_template, request, url_for

from portal.accounts import service as accounts
from portal.accounts.permissions import role_required
from portal.hours import weeks
from portal.hours.models import SOORTEN
from portal.hours.pages.forms import PeriodForm
from portal.hours.pages.kit import MIMETYPES, bp
from portal.hours.payroll import payable
from portal.hours.totals import IsoWeek
from portal.hours.weeks import export
from portal.web.kit import Pager, current_carrier_id, current_zone

PER_PAGE = 100  # drivers per page of the overview
SORTS = ("naam", *SOORTEN, "werktijd", "status")


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
    found = weeks.overview(carrier_id=carrier_id, first_day=van, last_day=tot)
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
    found = weeks.overview(carrier_id=current_carrier_id(), first_day=van, last_day=tot)
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
