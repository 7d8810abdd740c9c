"""The admin pages of webhooks' endpoints (/beheer/webhooks, role admin): the endpoints,
registering one (its signing secret shown once, on the response to the POST that made it),
changing, pausing and resuming, rotating the secret, deleting.

Failures show here only: planners' pages (the board, a task) never show webhook trouble.
"""

from __future__ import annotations

from datetime import timedelta

from flask import flash, make_response, redirect, render_template, request, url_for
from flask_babel import gettext as _

from portal.accounts.permissions import role_required
from portal.errors import ValidationFailed
from portal.types import utcnow
from portal.unit_of_work import portal_write
from portal.web.kit import current_actor, current_carrier_id, format_when
from portal.webhooks import service
from portal.webhooks.models import WebhookEndpoint
from portal.webhooks.pages.forms import EVENT_LABELS, EndpointForm
from portal.webhooks.pages.kit import (
    ROLES,
    allow_private,
    apply_errors,
    bp,
    context,
    endpoint_page,
    endpoint_route,
)

# Deliveries due this long ago and still waiting: the worker seems not to run.
STALLED_AFTER = timedelta(minutes=5)


@bp.get("")
@role_required(*ROLES)
def endpoints():
    """The carrier's endpoints with how their deliveries stand."""
    carrier_id = current_carrier_id()
    rows = service.list_endpoints(carrier_id=carrier_id)
    oldest = service.oldest_due(carrier_id=carrier_id)
    stalled = oldest is not None and oldest < utcnow() - STALLED_AFTER
    return render_template(
        "webhooks/endpoints.html",
        **context(rows=rows, stalled=format_when(oldest, "date_time") if stalled else None),
    )


@bp.route("/nieuw", methods=["GET", "POST"])
@role_required(*ROLES)
@portal_write
def new_endpoint():
    """Register an endpoint; its secret is shown once, on the response."""
    form = EndpointForm()
    if request.method == "GET":
        form.gebeurtenissen.data = list(EVENT_LABELS)[:5]
    status, general = 200, []
    if request.method == "POST":
        status = 422
        if form.validate():
            try:
                endpoint, secret = service.create_endpoint(
                    carrier_id=current_carrier_id(),
                    data=_endpoint_in(form),
                    actor=current_actor(),
                    allow_private=allow_private(),
                )
            except ValidationFailed as error:
                general = apply_errors(form, error)
            else:
                return _secret_page(endpoint, secret, created=True)
    html = render_template(
        "webhooks/form.html", **context(form=form, general=general, endpoint=None)
    )
    return make_response(html, status)


def _endpoint_in(form: EndpointForm) -> service.EndpointIn:
    return service.EndpointIn(
        url=form.url.data or "",
        gebeurtenissen=list(form.gebeurtenissen.data or []),
        omschrijving=form.omschrijving.data or "",
    )


def _secret_page(endpoint: WebhookEndpoint, secret: str, *, created: bool):
    html = render_template(
        "webhooks/secret.html", **context(endpoint=endpoint, secret=secret, created=created)
    )
    response = make_response(html, 201 if created else 200)
    response.headers["Cache-Control"] = "no-store"
    return response


@endpoint_route("/<uuid:endpoint_id>")
def endpoint(endpoint: WebhookEndpoint):
    """One endpoint: its settings and state, and its deliveries with their attempts."""
    return endpoint_page(endpoint)


@endpoint_route("/<uuid:endpoint_id>/bewerken", methods=("GET", "POST"))
def edit_endpoint(endpoint: WebhookEndpoint):
    form = EndpointForm(obj=None if request.method == "POST" else endpoint)
    if request.method == "GET":
        form.gebeurtenissen.data = endpoint.event_types
    general: list[str] = []
    if request.method == "POST":
        if form.validate():
            try:
                service.update_endpoint(
                    carrier_id=current_carrier_id(),
                    endpoint_id=endpoint.id,
                    data=_endpoint_in(form),
                    actor=current_actor(),
                    allow_private=allow_private(),
                )
            except ValidationFailed as error:
                general = apply_errors(form, error)
            else:
                flash(_("Het endpoint is opgeslagen."))
                return redirect(url_for("webhooks.endpoint", endpoint_id=endpoint.id), code=303)
        html = render_template(
            "webhooks/form.html", **context(form=form, general=general, endpoint=endpoint)
        )
        return make_response(html, 422)
    return render_template(
        "webhooks/form.html", **context(form=form, general=general, endpoint=endpoint)
    )


def _set_active(endpoint: WebhookEndpoint, active: bool) -> None:
    service.set_active(
        carrier_id=current_carrier_id(),
        endpoint_id=endpoint.id,
        active=active,
        actor=current_actor(),
    )


@endpoint_route("/<uuid:endpoint_id>/pauzeren", methods=("POST",))
def pause_endpoint(endpoint: WebhookEndpoint):
    _set_active(endpoint, False)
    flash(_("Het endpoint is gepauzeerd; nieuwe gebeurtenissen wachten tot je het hervat."))
    return redirect(url_for("webhooks.endpoint", endpoint_id=endpoint.id), code=303)


@endpoint_route("/<uuid:endpoint_id>/hervatten", methods=("POST",))
def resume_endpoint(endpoint: WebhookEndpoint):
    _set_active(endpoint, True)
    flash(_("Het endpoint is hervat; wachtende gebeurtenissen worden nu verstuurd."))
    return redirect(url_for("webhooks.endpoint", endpoint_id=endpoint.id), code=303)


def _confirm(endpoint: WebhookEndpoint, action: str, *, title: str, text: str, button: str):
    """The page that asks before an irreversible step on the endpoint (posting to action)."""
    return render_template(
        "admin/confirm.html",
        title=title,
        text=text,
        button=button,
        danger=True,
        action=url_for(action, endpoint_id=endpoint.id),
        back=url_for("webhooks.endpoint", endpoint_id=endpoint.id),
        problem=None,
    )


@endpoint_route("/<uuid:endpoint_id>/geheim", methods=("GET", "POST"))
def rotate_secret(endpoint: WebhookEndpoint):
    """A new signing secret, after confirmation; the old one stops at once."""
    if request.method == "GET":
        return _confirm(
            endpoint,
            "webhooks.rotate_secret",
            title=_("Nieuw geheim voor %(url)s?", url=endpoint.url),
            text=_(
                "Handtekeningen met het huidige geheim kloppen daarna niet meer: zet het nieuwe "
                "geheim meteen in je eigen systeem."
            ),
            button=_("Ja, nieuw geheim maken"),
        )
    secret = service.rotate_secret(
        carrier_id=current_carrier_id(), endpoint_id=endpoint.id, actor=current_actor()
    )
    return _secret_page(endpoint, secret, created=False)


@endpoint_route("/<uuid:endpoint_id>/verwijderen", methods=("GET", "POST"))
def delete_endpoint(endpoint: WebhookEndpoint):
    if request.method == "GET":
        return _confirm(
            endpoint,
            "webhooks.delete_endpoint",
            title=_("Endpoint %(url)s verwijderen?", url=endpoint.url),
            text=_(
                "Er gaan geen gebeurtenissen meer naartoe, en de geschiedenis van zijn "
                "leveringen verdwijnt. Tijdelijk stoppen kan ook: pauzeer het dan."
            ),
            button=_("Ja, verwijderen"),
        )
    url = endpoint.url
    service.delete_endpoint(
        carrier_id=current_carrier_id(), endpoint_id=endpoint.id, actor=current_actor()
    )
    flash(_("Endpoint %(url)s is verwijderd.", url=url))
    return redirect(url_for("webhooks.endpoints"), code=303)
