"""The admin pages of webhooks (/beheer/webhooks, role admin): the endpoints, registering
one (its signing secret shown once, on the response to the POST that made it), changing,
pausing and resuming, rotating the secret, deleting; per endpoint its deliveries with every
attempt, resending one or every failed one of a period, and a test event.

Failures show here only: planners' pages (the board, a task) never show webhook trouble.
"""

from __future__ import annotations

import uuid
from datetime import datetime, time, timedelta

import orjson
from flask import (
    Blueprint,
    current_app,
    flash,
    make_response,
    redirect,
    render_template,
    request,
    url_for,
)
from flask_babel import gettext as _
from flask_babel import ngettext

from portal.accounts.permissions import object_route, role_required
from portal.errors import NotFound, TooManyRequests, ValidationFailed
from portal.problems import say
from portal.types import utcnow
from portal.unit_of_work import portal_write, refused
from portal.web import errors_at_fields
from portal.web.kit import Pager, current_actor, current_carrier_id, current_zone, format_when
from portal.webhooks import failures, resending, service
from portal.webhooks.models import WebhookEndpoint
from portal.webhooks.pages.forms import EVENT_LABELS, EndpointForm, ResendForm, event_label
from portal.webhooks.signing import HEADER

bp = Blueprint("webhooks", __name__, url_prefix="/beheer/webhooks")
ROLES = ("admin",)
PER_PAGE = 50
# Deliveries due this long ago and still waiting: the worker seems not to run.
STALLED_AFTER = timedelta(minutes=5)
STATUS_FILTERS = ("queued", "failed", "sent")


def _allow_private() -> bool:
    return bool(current_app.config.get("WEBHOOKS_ALLOW_PRIVATE"))


def _context(**extra) -> dict:
    return {
        "event_label": event_label,
        "worded": failures.worded,
        "signature_header": HEADER,
        **extra,
    }


def _apply(form, error: ValidationFailed) -> list[str]:
    """The service's errors at the fields, in the user's language."""
    worded = []
    for item in error.errors:
        code = item.get("code")
        if item.get("field") == "url" and code and code not in ("required", "too_long"):
            worded.append({**item, "message": say(f"url_{code}", {}, item.get("message", ""))})
        else:
            worded.append(item)
    return errors_at_fields(form, worded, {})


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
        **_context(rows=rows, stalled=format_when(oldest, "date_time") if stalled else None),
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
                    allow_private=_allow_private(),
                )
            except ValidationFailed as error:
                general = _apply(form, error)
            else:
                return _secret_page(endpoint, secret, created=True)
    html = render_template(
        "webhooks/form.html", **_context(form=form, general=general, endpoint=None)
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
        "webhooks/secret.html", **_context(endpoint=endpoint, secret=secret, created=created)
    )
    response = make_response(html, 201 if created else 200)
    response.headers["Cache-Control"] = "no-store"
    return response


def endpoint_route(rule: str, methods: tuple[str, ...] = ("GET",)):
    def load(endpoint_id: uuid.UUID):
        return service.get_endpoint(carrier_id=current_carrier_id(), endpoint_id=endpoint_id)

    return object_route(bp, rule, load, methods=methods, roles=ROLES)


@endpoint_route("/<uuid:endpoint_id>")
def endpoint(endpoint: WebhookEndpoint):
    """One endpoint: its settings and state, and its deliveries with their attempts."""
    return _endpoint_page(endpoint)


def _endpoint_page(endpoint: WebhookEndpoint) -> str:
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
        **_context(
            endpoint=endpoint,
            page=page,
            pager=pager.counted(page.total),
            tried=tried,
            shown=shown,
            resend_form=resend_form,
        ),
    )


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
                    allow_private=_allow_private(),
                )
            except ValidationFailed as error:
                general = _apply(form, error)
            else:
                flash(_("Het endpoint is opgeslagen."))
                return redirect(url_for("webhooks.endpoint", endpoint_id=endpoint.id), code=303)
        html = render_template(
            "webhooks/form.html", **_context(form=form, general=general, endpoint=endpoint)
        )
        return make_response(html, 422)
    return render_template(
        "webhooks/form.html", **_context(form=form, general=general, endpoint=endpoint)
    )


def _limited(endpoint: WebhookEndpoint, error: TooManyRequests):
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
    response = make_response(_endpoint_page(endpoint), 429)
    response.headers["Retry-After"] = str(error.retry_after)
    return response


def _set_active(endpoint: WebhookEndpoint, active: bool) -> None:
    service.set_active(
        carrier_id=current_carrier_id(),
        endpoint_id=endpoint.id,
        active=active,
        actor=current_actor(),
    )


@endpoint_route("/<uuid:endpoint_id>/pauzeren", methods=("POST",))
def pause_endpoint(endpoint: WebhookEndpoint):
    service.set_active(
        carrier_id=current_carrier_id(),
        endpoint_id=endpoint.id,
        active=False,
        actor=current_actor(),
    )
    flash(_("Het endpoint is gepauzeerd; nieuwe gebeurtenissen wachten tot je het hervat."))
    return redirect(url_for("webhooks.endpoint", endpoint_id=endpoint.id), code=303)


@endpoint_route("/<uuid:endpoint_id>/hervatten", methods=("POST",))
def resume_endpoint(endpoint: WebhookEndpoint):
    _set_active(endpoint, True)
    flash(_("Het endpoint is hervat; wachtende gebeurtenissen worden nu verstuurd."))
    return redirect(url_for("webhooks.endpoint", endpoint_id=endpoint.id), code=303)


@endpoint_route("/<uuid:endpoint_id>/test", methods=("POST",))
def test_endpoint(endpoint: WebhookEndpoint):
    try:
        resending.send_test(
            carrier_id=current_carrier_id(), endpoint_id=endpoint.id, actor=current_actor()
        )
    except TooManyRequests as error:
        return _limited(endpoint, error)
    if endpoint.actief:
        flash(_("De testgebeurtenis staat klaar; hieronder zie je zo of ze aankwam."))
    else:
        flash(_("De testgebeurtenis wacht tot je het endpoint hervat."))
    return redirect(url_for("webhooks.endpoint", endpoint_id=endpoint.id), code=303)


@endpoint_route("/<uuid:endpoint_id>/geheim", methods=("GET", "POST"))
def rotate_secret(endpoint: WebhookEndpoint):
    """A new signing secret, after confirmation; the old one stops at once."""
    if request.method == "GET":
        return render_template(
            "admin/confirm.html",
            title=_("Nieuw geheim voor %(url)s?", url=endpoint.url),
            text=_(
                "Handtekeningen met het huidige geheim kloppen daarna niet meer: zet het nieuwe "
                "geheim meteen in je eigen systeem."
            ),
            button=_("Ja, nieuw geheim maken"),
            danger=True,
            action=url_for("webhooks.rotate_secret", endpoint_id=endpoint.id),
            back=url_for("webhooks.endpoint", endpoint_id=endpoint.id),
            problem=None,
        )
    secret = service.rotate_secret(
        carrier_id=current_carrier_id(), endpoint_id=endpoint.id, actor=current_actor()
    )
    return _secret_page(endpoint, secret, created=False)


@endpoint_route("/<uuid:endpoint_id>/verwijderen", methods=("GET", "POST"))
def delete_endpoint(endpoint: WebhookEndpoint):
    if request.method == "GET":
        return render_template(
            "admin/confirm.html",
            title=_("Endpoint %(url)s verwijderen?", url=endpoint.url),
            text=_(
                "Er gaan geen gebeurtenissen meer naartoe, en de geschiedenis van zijn "
                "leveringen verdwijnt. Tijdelijk stoppen kan ook: pauzeer het dan."
            ),
            button=_("Ja, verwijderen"),
            danger=True,
            action=url_for("webhooks.delete_endpoint", endpoint_id=endpoint.id),
            back=url_for("webhooks.endpoint", endpoint_id=endpoint.id),
            problem=None,
        )
    url = endpoint.url
    service.delete_endpoint(
        carrier_id=current_carrier_id(), endpoint_id=endpoint.id, actor=current_actor()
    )
    flash(_("Endpoint %(url)s is verwijderd.", url=url))
    return redirect(url_for("webhooks.endpoints"), code=303)


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
        return _limited(endpoint, error)
    if count:
        flash(_("%(count)s mislukte levering(en) opnieuw in de wachtrij gezet.", count=count))
    else:
        flash(_("Er waren geen mislukte leveringen in die periode."))
    return redirect(back, code=303)


def delivery_route(rule: str, methods: tuple[str, ...] = ("GET",)):
    def load(endpoint_id: uuid.UUID, delivery_id: uuid.UUID):
        carrier_id = current_carrier_id()
        endpoint = service.get_endpoint(carrier_id=carrier_id, endpoint_id=endpoint_id)
        delivery = service.get_delivery(carrier_id=carrier_id, delivery_id=delivery_id)
        if delivery.endpoint_id != endpoint.id:
            raise NotFound("webhook delivery not found")
        return endpoint, delivery

    return object_route(bp, rule, load, methods=methods, roles=ROLES)


@delivery_route("/<uuid:endpoint_id>/leveringen/<uuid:delivery_id>")
def delivery(endpoint: WebhookEndpoint, delivery):
    """One delivery: the event as sent, and every attempt."""
    carrier_id = current_carrier_id()
    body = service.event_body(carrier_id=carrier_id, event_id=delivery.gebeurtenis_id)
    return render_template(
        "webhooks/delivery.html",
        **_context(
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
    back = request.form.get("terug") or url_for("webhooks.endpoint", endpoint_id=endpoint.id)
    if not back.startswith("/beheer/webhooks/"):
        back = url_for("webhooks.endpoint", endpoint_id=endpoint.id)
    if delivery.status == "queued":
        flash(_("Deze levering staat al in de wachtrij."), "error")
        return refused(redirect(back, code=303))
    try:
        resending.resend(
            carrier_id=current_carrier_id(), delivery_id=delivery.id, actor=current_actor()
        )
    except TooManyRequests as error:
        return _limited(endpoint, error)
    flash(_("De levering staat opnieuw in de wachtrij, met dezelfde gebeurtenis-id."))
    return redirect(back, code=303)
