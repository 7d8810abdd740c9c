"""Webhook operations of the API, for integrations with a key (scopes webhooks:read and
webhooks:write): register endpoints, read their deliveries and attempts, resend, test."""

from __future__ import annotations

import uuid

from flask import current_app

from portal.api.core import (
    json_response,
    list_response,
    operation,
    parse_body,
    parse_query,
    principal,
    write,
)
from portal.errors import Forbidden, NotFound
from portal.webhooks import resending, service
from portal.webhooks.schemas import (
    DeliveryQuery,
    ResendOut,
    ResendPeriod,
    WebhookDeliveryOut,
    WebhookEndpointIn,
    WebhookEndpointOut,
    WebhookEndpointUpdate,
    WebhookSecretOut,
    serialize_delivery,
    serialize_endpoint,
)

ENDPOINT_ID = {"endpoint_id": {"description": "the endpoint's id", "uuid": True}}
DELIVERY_ID = {
    **ENDPOINT_ID,
    "delivery_id": {"description": "the delivery's id", "uuid": True},
}
SIGNING = (
    "Every delivery is a POST of the JSON envelope `{id, type, created_at, transporteur_id, "
    "data}` (data in the API's own shapes) with the headers Rijplan-Event-Id, "
    "Rijplan-Event-Type, Rijplan-Delivery-Attempt and Rijplan-Signature `t=<unix seconds>,"
    "v1=<hex HMAC-SHA256 of '<t>.<raw body>' keyed with the secret>`. Deliveries are at least "
    "once: deduplicate by the event id. Answer 2xx within 10 seconds; network errors, "
    "timeouts, 429 and 5xx are retried for about a day (1, 5, 15, 30 minutes, 1, 2, 4, 8, 8 "
    "hours), then the delivery fails and the endpoint is paused. Redirects are not followed. "
    "Events of one task reach an endpoint in order."
)

SHOWN_ONCE = (
    "The secret is in this answer only: a retry with the same Idempotency-Key answers the same "
    "endpoint with `geheim` null (the secret is not kept with the stored answer); "
    "`geheim_vernieuwen` says where to POST for a new one. "
)

MANUAL_LIMIT = (
    "Test events and resends (of one delivery or of a period) count together against a limit "
    "per carrier, 30 an hour by default: past it, 429 with code `too_many_sends` and "
    "Retry-After (seconds)."
)


def _who(_scope: str):
    """Integrations only (their key's scope is checked before the handler runs)."""
    who = principal()
    if who.kind != "api_key":
        raise Forbidden("Webhooks are managed by integrations (API keys) and in the portal.")
    return who


def _allow_private() -> bool:
    return bool(current_app.config.get("WEBHOOKS_ALLOW_PRIVATE"))


@operation(
    "/webhooks",
    "GET",
    scope="webhooks:read",
    summary="The carrier's webhook endpoints",
    tag="webhooks",
    description="Oldest first. " + SIGNING,
    response=WebhookEndpointOut,
    many=True,
    errors=(401, 403),
)
def list_webhooks():
    who = _who("webhooks:read")
    rows = service.list_endpoints(carrier_id=who.carrier_id)
    return list_response([serialize_endpoint(row.endpoint) for row in rows], len(rows))


@operation(
    "/webhooks",
    "POST",
    scope="webhooks:write",
    summary="Register a webhook endpoint; its signing secret is in this answer only",
    tag="webhooks",
    description="The URL must be https on a public host, without user name or password "
    "(422 `url` with a code: not_https, bad_host, private_host, credentials, ...). At most 20 "
    "endpoints per carrier (409). " + SHOWN_ONCE + SIGNING,
    body=WebhookEndpointIn,
    response=WebhookSecretOut,
    reveals=("geheim",),
    status=201,
    headers={"Location": "the endpoint's address"},
    errors=(401, 403, 409, 413, 415, 422),
)
@write
def create_webhook():
    who = _who("webhooks:write")
    body = parse_body(WebhookEndpointIn)
    endpoint, secret = service.create_endpoint(
        carrier_id=who.carrier_id,
        data=service.EndpointIn(
            url=body.url, gebeurtenissen=list(body.gebeurtenissen), omschrijving=body.omschrijving
        ),
        actor=who.actor,
        allow_private=_allow_private(),
    )
    return json_response(
        serialize_endpoint(endpoint, secret),
        status=201,
        headers={"Location": f"/api/v1/webhooks/{endpoint.id}", "Cache-Control": "no-store"},
    )


@operation(
    "/webhooks/<uuid:endpoint_id>",
    "GET",
    scope="webhooks:read",
    summary="One webhook endpoint, with why it was paused",
    tag="webhooks",
    response=WebhookEndpointOut,
    errors=(401, 403, 404),
    path_params=ENDPOINT_ID,
)
def get_webhook(endpoint_id: uuid.UUID):
    who = _who("webhooks:read")
    return json_response(
        serialize_endpoint(service.get_endpoint(carrier_id=who.carrier_id, endpoint_id=endpoint_id))
    )


@operation(
    "/webhooks/<uuid:endpoint_id>",
    "PATCH",
    scope="webhooks:write",
    summary="Change, pause or resume a webhook endpoint",
    tag="webhooks",
    description="`actief: false` pauses it: new deliveries wait; `true` resumes it and what "
    "waited is sent.",
    body=WebhookEndpointUpdate,
    response=WebhookEndpointOut,
    errors=(401, 403, 404, 413, 415, 422),
    path_params=ENDPOINT_ID,
)
@write
def update_webhook(endpoint_id: uuid.UUID):
    who = _who("webhooks:write")
    endpoint = service.get_endpoint(carrier_id=who.carrier_id, endpoint_id=endpoint_id)
    body = parse_body(WebhookEndpointUpdate)
    if body.url is not None or body.omschrijving is not None or body.gebeurtenissen is not None:
        service.update_endpoint(
            carrier_id=who.carrier_id,
            endpoint_id=endpoint.id,
            data=service.EndpointIn(
                url=body.url if body.url is not None else endpoint.url,
                gebeurtenissen=list(body.gebeurtenissen or endpoint.event_types),
                omschrijving=(
                    body.omschrijving if body.omschrijving is not None else endpoint.omschrijving
                ),
            ),
            actor=who.actor,
            allow_private=_allow_private(),
        )
    if body.actief is not None:
        service.set_active(
            carrier_id=who.carrier_id, endpoint_id=endpoint.id, active=body.actief, actor=who.actor
        )
    return json_response(serialize_endpoint(endpoint))


@operation(
    "/webhooks/<uuid:endpoint_id>",
    "DELETE",
    scope="webhooks:write",
    summary="Delete a webhook endpoint with its deliveries",
    tag="webhooks",
    status=204,
    errors=(401, 403, 404),
    path_params=ENDPOINT_ID,
)
@write
def delete_webhook(endpoint_id: uuid.UUID):
    who = _who("webhooks:write")
    service.delete_endpoint(carrier_id=who.carrier_id, endpoint_id=endpoint_id, actor=who.actor)
    return current_app.response_class(status=204)


@operation(
    "/webhooks/<uuid:endpoint_id>/geheim",
    "POST",
    scope="webhooks:write",
    summary="A new signing secret for the endpoint (in this answer only); the old one stops",
    tag="webhooks",
    description=SHOWN_ONCE,
    response=WebhookSecretOut,
    reveals=("geheim",),
    errors=(401, 403, 404),
    path_params=ENDPOINT_ID,
)
@write
def rotate_webhook_secret(endpoint_id: uuid.UUID):
    who = _who("webhooks:write")
    secret = service.rotate_secret(
        carrier_id=who.carrier_id, endpoint_id=endpoint_id, actor=who.actor
    )
    endpoint = service.get_endpoint(carrier_id=who.carrier_id, endpoint_id=endpoint_id)
    return json_response(
        serialize_endpoint(endpoint, secret), headers={"Cache-Control": "no-store"}
    )


@operation(
    "/webhooks/<uuid:endpoint_id>/test",
    "POST",
    scope="webhooks:write",
    summary="Queue a `webhook.test` event for this endpoint",
    tag="webhooks",
    description="Sent like any event (signed, retried); whatever the endpoint subscribed to. "
    "Its delivery shows in GET .../leveringen. " + MANUAL_LIMIT,
    status=202,
    response=WebhookEndpointOut,
    errors=(401, 403, 404, 429),
    path_params=ENDPOINT_ID,
)
@write
def test_webhook(endpoint_id: uuid.UUID):
    who = _who("webhooks:write")
    resending.send_test(carrier_id=who.carrier_id, endpoint_id=endpoint_id, actor=who.actor)
    endpoint = service.get_endpoint(carrier_id=who.carrier_id, endpoint_id=endpoint_id)
    return json_response(serialize_endpoint(endpoint), status=202)


@operation(
    "/webhooks/<uuid:endpoint_id>/leveringen",
    "GET",
    scope="webhooks:read",
    summary="The endpoint's deliveries, newest first, each with its attempts",
    tag="webhooks",
    query=DeliveryQuery,
    response=WebhookDeliveryOut,
    many=True,
    errors=(401, 403, 404, 422),
    path_params=ENDPOINT_ID,
)
def list_webhook_deliveries(endpoint_id: uuid.UUID):
    who = _who("webhooks:read")
    endpoint = service.get_endpoint(carrier_id=who.carrier_id, endpoint_id=endpoint_id)
    query = parse_query(DeliveryQuery)
    page = service.deliveries(
        carrier_id=who.carrier_id,
        endpoint_id=endpoint.id,
        status=query.status,
        limit=query.limit,
        offset=query.offset,
    )
    tried = service.attempts_for(
        carrier_id=who.carrier_id, delivery_ids=[row.delivery.id for row in page.rows]
    )
    return list_response(
        [serialize_delivery(row.delivery, tried[row.delivery.id]) for row in page.rows],
        page.total,
    )


@operation(
    "/webhooks/<uuid:endpoint_id>/leveringen/<uuid:delivery_id>/opnieuw",
    "POST",
    scope="webhooks:write",
    summary="Send a delivery again, as the same event (same id and body)",
    tag="webhooks",
    description="A queued delivery answers 409 `already_queued`. " + MANUAL_LIMIT,
    status=202,
    response=WebhookDeliveryOut,
    errors=(401, 403, 404, 409, 429),
    path_params=DELIVERY_ID,
)
@write
def resend_webhook_delivery(endpoint_id: uuid.UUID, delivery_id: uuid.UUID):
    who = _who("webhooks:write")
    endpoint = service.get_endpoint(carrier_id=who.carrier_id, endpoint_id=endpoint_id)
    delivery = service.get_delivery(carrier_id=who.carrier_id, delivery_id=delivery_id)
    if delivery.endpoint_id != endpoint.id:
        raise NotFound("webhook delivery not found")
    delivery = resending.resend(carrier_id=who.carrier_id, delivery_id=delivery.id, actor=who.actor)
    tried = service.attempts(carrier_id=who.carrier_id, delivery_id=delivery.id)
    return json_response(serialize_delivery(delivery, tried), status=202)


@operation(
    "/webhooks/<uuid:endpoint_id>/opnieuw",
    "POST",
    scope="webhooks:write",
    summary="Queue every failed delivery of a period again (after the receiver's outage)",
    tag="webhooks",
    description=MANUAL_LIMIT,
    body=ResendPeriod,
    response=ResendOut,
    errors=(401, 403, 404, 413, 415, 422, 429),
    path_params=ENDPOINT_ID,
)
@write
def resend_failed_webhooks(endpoint_id: uuid.UUID):
    who = _who("webhooks:write")
    service.get_endpoint(carrier_id=who.carrier_id, endpoint_id=endpoint_id)  # 404 first
    body = parse_body(ResendPeriod)
    count = resending.resend_failed(
        carrier_id=who.carrier_id,
        endpoint_id=endpoint_id,
        since=body.van,
        until=body.tot,
        actor=who.actor,
    )
    return json_response({"aantal": count})
