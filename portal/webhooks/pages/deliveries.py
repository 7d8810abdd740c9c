"""Sending to an endpoint from its page: a test event, every failed delivery of a period
again, one delivery again; and one delivery with the event as sent and every attempt."""

from __future__ import annotations

from datetime import datetime, time, timedelta

import orjson
from flask import flash, redirect, render_template, request, url_for
from flask_babel import gettext as _

from portal.errors import TooManyRequests
from portal.unit_of_work import refused
from portal.web.kit import current_actor, current_carrier_id, current_zone, safe_back
from portal.webhooks import resending, service
from portal.webhooks.models import WebhookEndpoint
from portal.webhooks.pages.forms import ResendForm
from portal.webhooks.pages.kit import context, delivery_route, endpoint_route, limited


@endpoint_route("/<uuid:endpoint_id>/test", methods=("POST",))
def test_endpoint(endpoint: WebhookEndpoint):
    try:
        resending.send_test(
            carrier_id=current_carrier_id(), endpoint_id=endpoint.id, actor=current_actor()
        )
    except TooManyRequests as error:
        return limited(endpoint, error)
    if endpoint.actief:
        flash(_("De testgebeurtenis staat klaar; hieronder zie je zo of ze aankwam."))
    else:
        flash(_("De testgebeurtenis wacht tot je het endpoint hervat."))
    return redirect(url_for("webhooks.endpoint", endpoint_id=endpoint.id), code=303)


@endpoint_route("/<uuid:endpoint_id>/opnieuw", methods=("POST",))
def resend_failed(endpoint: WebhookEndpoint):
    """Every failed delivery of a period, queued again."""
    form = ResendForm()
    back = url_for("webhooks.endpoint", endpoint_id=endpoint.id)
    if not form.validate():
        problems = [e for errors in form.errors.values() for e in errors]
        flash(_("Niets opnieuw verstuurd: %(why)s", why=" ".join(map(str, problems))), "error")
        return refused(redirect(back, code=303))
    zone = current_zone()
    since = datetime.combine(form.van.data, time(), zone)
    until = datetime.combine(form.tot.data + timedelta(days=1), time(), zone)
    try:
        count = resending.resend_failed(
            carrier_id=current_carrier_id(),
            endpoint_id=endpoint.id,
            since=since,
            until=until,
            actor=current_actor(),
        )
    except TooManyRequests as error:
        return limited(endpoint, error)
    if count:
        flash(_("%(count)s mislukte levering(en) opnieuw in de wachtrij gezet.", count=count))
    else:
        flash(_("Er waren geen mislukte leveringen in die periode."))
    return redirect(back, code=303)


@delivery_route("/<uuid:endpoint_id>/leveringen/<uuid:delivery_id>")
def delivery(endpoint: WebhookEndpoint, delivery):
    """One delivery: the event as sent, and every attempt."""
    carrier_id = current_carrier_id()
    body = service.event_body(carrier_id=carrier_id, event_id=delivery.gebeurtenis_id)
    return render_template(
        "webhooks/delivery.html",
        **context(
            endpoint=endpoint,
            delivery=delivery,
            body=_pretty(body),
            attempts=service.attempts(carrier_id=carrier_id, delivery_id=delivery.id),
        ),
    )


def _pretty(body: str) -> str:
    return orjson.dumps(orjson.loads(body), option=orjson.OPT_INDENT_2).decode()


@delivery_route("/<uuid:endpoint_id>/leveringen/<uuid:delivery_id>/opnieuw", methods=("POST",))
def resend(endpoint: WebhookEndpoint, delivery):
    own_page = url_for("webhooks.endpoint", endpoint_id=endpoint.id)
    back = safe_back(request.form.get("terug"), within="/beheer/webhooks/", fallback=own_page)
    if delivery.status == "queued":
        flash(_("Deze levering staat al in de wachtrij."), "error")
        return refused(redirect(back, code=303))
    try:
        resending.resend(
            carrier_id=current_carrier_id(), delivery_id=delivery.id, actor=current_actor()
        )
    except TooManyRequests as error:
        return limited(endpoint, error)
    flash(_("De levering staat opnieuw in de wachtrij, met dezelfde gebeurtenis-id."))
    return redirect(back, code=303)
