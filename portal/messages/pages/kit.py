"""What the messages page's routes share: the blueprint, the compose form with its drivers,
the history with each recipient's status, and the page (or the form alone, for htmx)."""

from __future__ import annotations

from flask import Blueprint, current_app, render_template, url_for

from portal.drivers import service as drivers_service
from portal.messages import failures, service, worker
from portal.messages.models import TEXT_MAX, TITLE_MAX
from portal.messages.pages.forms import STATUS_LABELS, ComposeForm
from portal.types import utcnow
from portal.web import is_fragment
from portal.web.kit import Pager, current_carrier_id

bp = Blueprint("messages", __name__)

PER_PAGE = 20
REFRESH_SECONDS = 10


def compose_form() -> ComposeForm:
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


def history_context() -> dict:
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


def page_response(form: ComposeForm, status: int = 200, notice: str | None = None):
    """The compose form (a fragment for htmx) or the whole page."""
    if is_fragment():
        return render_template("messages/_compose.html", **_compose_context(form, notice)), status
    context = {**_compose_context(form, notice), **history_context()}
    return render_template("messages/index.html", **context), status
