"""The messages page: compose a message to one or more drivers, and the history of what was
sent with each recipient's status, refreshed by htmx while the page is open."""

from __future__ import annotations

from flask import (
    Blueprint,
    current_app,
    flash,
    make_response,
    redirect,
    render_template,
    url_for,
)
from flask_babel import gettext as _
from flask_babel import ngettext
from flask_login import current_user

from portal.accounts.permissions import role_required
from portal.drivers import service as drivers_service
from portal.errors import ValidationFailed
from portal.messages import failures, service, worker
from portal.messages.models import TEXT_MAX, TITLE_MAX
from portal.messages.pages.forms import STATUS_LABELS, ComposeForm
from portal.types import utcnow
from portal.unit_of_work import portal_write
from portal.web import is_fragment
from portal.web.kit import Pager, current_actor, current_carrier_id

bp = Blueprint("messages", __name__)

PER_PAGE = 20
REFRESH_SECONDS = 10


def _compose_form() -> ComposeForm:
    form = ComposeForm()
    form.set_drivers(drivers_service.list_drivers(carrier_id=current_carrier_id()))
    return form


def _compose_context(form: ComposeForm, notice: str | None = None) -> dict:
    return {
        "form": form,
        "notice": notice,
        "with_push_ids": {
            str(i) for i in service.drivers_with_push(carrier_id=current_carrier_id())
        },
        "title_max": TITLE_MAX,
        "text_max": TEXT_MAX,
        "drivers_url": url_for("drivers.index"),
    }


def _history_context() -> dict:
    pager = Pager.asked(PER_PAGE)
    history = service.history(carrier_id=current_carrier_id(), limit=PER_PAGE, offset=pager.offset)
    return {
        "history": history,
        "pager": pager.counted(history.total),
        "status_labels": STATUS_LABELS,
        "failure_text": failures.worded,
        "refresh_seconds": REFRESH_SECONDS,
        # Whether anyone pushes: without a worker a queued message promises nothing.
        "worker": service.worker_state(configured=worker.config_problem(current_app) is None),
        "now": utcnow(),
    }


def _page_response(form: ComposeForm, status: int = 200, notice: str | None = None):
    """The compose form (a fragment for htmx) or the whole page."""
    if is_fragment():
        return render_template("messages/_compose.html", **_compose_context(form, notice)), status
    context = {**_compose_context(form, notice), **_history_context()}
    return render_template("messages/index.html", **context), status


@bp.get("/berichten")
@role_required("planner")
def index():
    """The page; for htmx (the history's refresh and paging) the history alone."""
    if is_fragment():
        return render_template("messages/_history.html", **_history_context())
    return _page_response(_compose_form())


@bp.post("/berichten")
@role_required("planner")
@portal_write
def send():
    form = _compose_form()
    if not form.validate():
        return _page_response(form, 422)
    try:
        rows = service.send_message(
            carrier_id=current_carrier_id(),
            driver_ids=form.chauffeur_ids,
            titel=form.titel.data,
            tekst=form.tekst.data,
            actor=current_actor(),
            user_id=current_user.id,
        )
    except ValidationFailed as error:
        # The form checks the same rules; this is a driver deactivated in between.
        for problem in error.errors:
            field = getattr(form, problem["field"], form.ontvangers)
            field.errors = [*field.errors, _("Kies opnieuw: een chauffeur is niet meer actief.")]
        return _page_response(form, 422)
    text = ngettext(
        "Bericht verstuurd naar %(num)s chauffeur.",
        "Bericht verstuurd naar %(num)s chauffeurs.",
        len(rows),
    )
    if not is_fragment():
        flash(text, "info")
        return redirect(url_for("messages.index"), code=303)
    fresh = ComposeForm(formdata=None)
    fresh.set_drivers(drivers_service.list_drivers(carrier_id=current_carrier_id()))
    body, status = _page_response(fresh, 200, notice=text)
    response = make_response(body, status)
    response.headers["HX-Trigger"] = "messagesChanged"
    return response
