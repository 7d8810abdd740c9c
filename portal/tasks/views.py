"""The tasks section of the portal."""

from __future__ import annotations

import math

from flask import Blueprint, redirect, render_template, request, url_for
from flask_login import current_user

from portal.accounts.permissions import role_required
from portal.drivers import service as drivers
from portal.fleet import service as fleet
from portal.tasks import service
from portal.tasks.forms import STATUS_LABELS, TaskFilterForm
from portal.web import is_fragment

bp = Blueprint("tasks", __name__)

PAGE_SIZE = 50


@bp.route("/")
def home():
    return redirect(url_for("tasks.index"))


@bp.route("/taken")
@role_required("planner")
def index():
    form = TaskFilterForm(request.args)
    valid = form.validate()
    page_number = (form.pagina.data or 1) if valid else 1
    carrier_id = current_user.transporteur_id
    filters = service.TaskFilters(
        statuses=(form.status.data,) if valid and form.status.data else (),
        search=form.q.data if valid else None,
        limit=PAGE_SIZE,
        offset=(page_number - 1) * PAGE_SIZE,
    )
    page = service.list_tasks(carrier_id=carrier_id, filters=filters)
    names = drivers.names_by_id(
        carrier_id=carrier_id, driver_ids={t.chauffeur_id for t in page.tasks}
    )
    plates = fleet.plates_by_id(
        carrier_id=carrier_id, vehicle_ids={t.vehicle_id for t in page.tasks}
    )
    pages = max(1, math.ceil(page.total / PAGE_SIZE))
    context = {
        "form": form,
        "page": page,
        "names": names,
        "plates": plates,
        "page_number": page_number,
        "pages": pages,
        "status_labels": STATUS_LABELS,
    }
    template = "tasks/index.html"
    if is_fragment():
        return render_template("tasks/_table.html", **context)
    return render_template(template, **context)
