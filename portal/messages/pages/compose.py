"""The messages page: compose a message to one or more drivers, and the history of what was
sent with each recipient's status, refreshed by htmx while the page is open."""

from __future__ import annotations

from flask import flash, make_response, redirect, render_template, url_for
from flask_babel import gettext as _
from flask_babel import ngettext
from flask_login import current_user

from portal.accounts.permissions import role_required
from portal.drivers import service as drivers_service
from portal.errors import ValidationFailed
from portal.messages import service
from portal.messages.pages.forms import ComposeForm
from portal.messages.pages.kit import bp, compose_form, history_context, page_response
from portal.unit_of_work import portal_write
from portal.web import is_fragment
from portal.web.kit import current_actor, current_carrier_id


@bp.get("/berichten")
@role_required("planner")
def index():
    """The page; for htmx (the history's refresh and paging) the history alone."""
    if is_fragment():
        return render_template("messages/_history.html", **history_context())
    return page_response(compose_form())


@bp.post("/berichten")
@role_required("planner")
@portal_write
def send():
    form = compose_form()
    if not form.validate():
        return page_response(form, 422)
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
        return page_response(form, 422)
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
    body, status = page_response(fresh, 200, notice=text)
    response = make_response(body, status)
    response.headers["HX-Trigger"] = "messagesChanged"
    return response
