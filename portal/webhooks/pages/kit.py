"""What the webhook pages share: the blueprint, the routes of one endpoint and of one of
its deliveries, the page of an endpoint (also the answer of a refused resend), and the
service's errors at the form's fields."""

from __future__ import annotations

import uuid
from datetime import datetime, timedelta

from flask import Blueprint, current_app, flash, make_response, render_template, request
from flask_babel import ngettext

from portal.accounts.permissions import object_route
from portal.errors import NotFound, TooManyRequests, ValidationFailed
from portal.outbound import ENGLISH as URL_ENGLISH
from portal.problems import say
from portal.web.kit import Pager, current_carrier_id, current_zone, errors_at_fields
from portal.webhooks import failures, service
from portal.webhooks.models import WebhookEndpoint
from portal.webhooks.pages.forms import ResendForm, event_label
from portal.webhooks.signing import HEADER

bp = Blueprint("webhooks", __name__, url_prefix="/beheer/webhooks")
ROLES = ("admin",)
PER_PAGE = 50
STATUS_FILTERS = ("queued", "failed", "sent")


def allow_private() -> bool:
    return bool(current_app.config.get("WEBHOOKS_ALLOW_PRIVATE"))


def context(**extra) -> dict:
    return {
        "event_label": event_label,
        "worded": failures.worded,
        "signature_header": HEADER,
        **extra,
    }


def _refused_address(error: dict) -> str:
    return say(f"url_{error.get('code')}", {}, error.get("message", ""))


# A refused address in the user's language; the other errors as the form words them.
WORDING = {code: _refused_address for code in URL_ENGLISH}


def apply_errors(form, error: ValidationFailed) -> list[str]:
    """The service's errors at the fields, in the user's language."""
    return errors_at_fields(form, error.errors, WORDING)


def endpoint_route(rule: str, methods: tuple[str, ...] = ("GET",)):
    def load(endpoint_id: uuid.UUID):
        return service.get_endpoint(carrier_id=current_carrier_id(), endpoint_id=endpoint_id)

    return object_route(bp, rule, load, methods=methods, roles=ROLES)


def delivery_route(rule: str, methods: tuple[str, ...] = ("GET",)):
    def load(endpoint_id: uuid.UUID, delivery_id: uuid.UUID):
        carrier_id = current_carrier_id()
        endpoint = service.get_endpoint(carrier_id=carrier_id, endpoint_id=endpoint_id)
        delivery = service.get_delivery(carrier_id=carrier_id, delivery_id=delivery_id)
        if delivery.endpoint_id != endpoint.id:
            raise NotFound("webhook delivery not found")
        return endpoint, delivery

    return object_route(bp, rule, load, methods=methods, roles=ROLES)


def endpoint_page(endpoint: WebhookEndpoint) -> str:
    carrier_id = current_carrier_id()
    shown = request.args.get("status")
    shown = shown if shown in STATUS_FILTERS else None
    pager = Pager.asked(PER_PAGE)
    page = service.deliveries(
        carrier_id=carrier_id,
        endpoint_id=endpoint.id,
        status=shown,
        limit=PER_PAGE,
        offset=pager.offset,
    )
    tried = service.attempts_for(
        carrier_id=carrier_id, delivery_ids=[row.delivery.id for row in page.rows]
    )
    today = datetime.now(current_zone()).date()
    resend_form = ResendForm(formdata=None, data={"van": today - timedelta(days=7), "tot": today})
    return render_template(
        "webhooks/endpoint.html",
        **context(
            endpoint=endpoint,
            page=page,
            pager=pager.counted(page.total),
            tried=tried,
            shown=shown,
            resend_form=resend_form,
        ),
    )


def limited(endpoint: WebhookEndpoint, error: TooManyRequests):
    """The endpoint's page, answered 429 with Retry-After, saying when the next may go."""
    wait = max(1, -(-error.retry_after // 60))
    flash(
        ngettext(
            "In de afgelopen %(minutes)s minuten is al %(limit)s keer een testgebeurtenis "
            "gestuurd of een levering opnieuw verstuurd; meer kan nu niet. Probeer het over "
            "%(num)s minuut opnieuw.",
            "In de afgelopen %(minutes)s minuten is al %(limit)s keer een testgebeurtenis "
            "gestuurd of een levering opnieuw verstuurd; meer kan nu niet. Probeer het over "
            "%(num)s minuten opnieuw.",
            wait,
            minutes=error.extra.get("window_seconds", 3600) // 60,
            limit=error.extra.get("limit"),
        ),
        "error",
    )
    response = make_response(endpoint_page(endpoint), 429)
    response.headers["Retry-After"] = str(error.retry_after)
    return response
