"""Notification operations of the API: messages to a driver, the driver's inbox, marking a
message read, and the push subscriptions of the driver's devices."""

from __future__ import annotations

import logging
import uuid

from flask import Response, current_app

from portal.api.core import (
    driver_access,
    json_response,
    list_response,
    operation,
    parse_body,
    parse_query,
    principal,
    require_scope,
    write,
)
from portal.errors import Forbidden, NotFound, ValidationFailed
from portal.messages import service
from portal.messages.models import Message
from portal.messages.push import public_key_of
from portal.messages.schemas import (
    InboxQuery,
    NotificationCreate,
    NotificationOut,
    PushSubscriptionIn,
    PushSubscriptionOut,
    UnsubscribeQuery,
    WebPushOut,
    serialize_message,
    serialize_subscription,
)
from portal.outbound import endpoint_problem

logger = logging.getLogger(__name__)

USER_TOKEN = {"user_token": {"description": "the driver's public id", "max_length": 64}}
NOTIFICATION_ID = {"notification_id": {"description": "the message's id", "uuid": True}}
SCOPE_NOTE = (
    "API keys need the scope messages:read to read and messages:write to send, mark read or "
    "register devices; a driver acts on its own messages only."
)


def _allow(scope: str) -> None:
    """A driver may (its own: checked by the caller); an API key needs scope."""
    who = principal()
    if who.kind == "api_key" and scope not in who.scopes:
        if scope == "messages:read" and "messages:write" in who.scopes:
            return
        raise Forbidden(f"The API key lacks the scope {scope!r}.")


def _message_for_caller(notification_id: uuid.UUID) -> Message:
    """The message, when the caller may see it: a driver its own (another's is 404: messages
    are personal), an API key every message of its carrier."""
    who = principal()
    message = service.get_message(carrier_id=who.carrier_id, message_id=notification_id)
    if who.kind == "driver" and message.chauffeur_id != who.id:
        raise NotFound("message not found")
    return message


@operation(
    "/users/<user_token:user_token>/notificaties",
    "POST",
    scope="messages:write",
    summary="Send a message to a driver (integrations)",
    tag="notifications",
    description="Queues the message (status queued); the outbox worker pushes it to the "
    "driver's registered devices through Web Push and retries with backoff. It is in the "
    "driver's inbox at once, whether or not a push arrives. " + SCOPE_NOTE,
    body=NotificationCreate,
    response=NotificationOut,
    status=201,
    headers={"Location": "the message's address"},
    errors=(401, 403, 404, 409, 413, 415, 422),
    path_params=USER_TOKEN,
)
@write
def create_notification(user_token: str):
    driver = driver_access(user_token)  # another carrier's driver is 404 before anything else
    require_scope("messages:write")
    body = parse_body(NotificationCreate)
    who = principal()
    try:
        (message,) = service.send_message(
            carrier_id=who.carrier_id,
            driver_ids=[driver.id],
            titel=body.titel,
            tekst=body.tekst,
            actor=who.actor,
        )
    except ValidationFailed as error:
        fields = {e["field"] for e in error.errors}
        if "ontvangers" in fields:
            raise ValidationFailed(
                [{"field": "user_token", "message": "the driver is not active"}]
            ) from None
        raise
    return json_response(
        serialize_message(message),
        status=201,
        headers={"Location": f"/api/v1/notificaties/{message.id}"},
    )


@operation(
    "/users/<user_token:user_token>/notificaties",
    "GET",
    scope="messages:read",
    summary="The driver's inbox, newest first",
    tag="notifications",
    description="`ongelezen=true` lists unread messages only. X-Unread-Count tells how many "
    "are unread in all (for a badge). " + SCOPE_NOTE,
    query=InboxQuery,
    response=NotificationOut,
    many=True,
    headers={"X-Unread-Count": "unread messages of the driver"},
    errors=(401, 403, 404, 422),
    path_params=USER_TOKEN,
)
def driver_notifications(user_token: str):
    driver = driver_access(user_token)
    _allow("messages:read")
    query = parse_query(InboxQuery)
    page = service.inbox(
        carrier_id=principal().carrier_id,
        driver_id=driver.id,
        unread_only=bool(query.ongelezen),
        limit=query.limit,
        offset=query.offset,
    )
    return list_response(
        [serialize_message(m) for m in page.messages],
        page.total,
        {"X-Unread-Count": str(page.unread)},
    )


@operation(
    "/notificaties/<uuid:notification_id>",
    "GET",
    scope="messages:read",
    summary="One message with its delivery status",
    tag="notifications",
    description=SCOPE_NOTE,
    response=NotificationOut,
    errors=(401, 403, 404),
    path_params=NOTIFICATION_ID,
)
def get_notification(notification_id: uuid.UUID):
    message = _message_for_caller(notification_id)
    _allow("messages:read")
    return json_response(serialize_message(message))


@operation(
    "/notificaties/<uuid:notification_id>/gelezen",
    "POST",
    scope="messages:write",
    summary="Mark a message read (the driver opened it)",
    tag="notifications",
    description="Status becomes read and gelezen_op is stamped; again answers the same "
    "(idempotent). A message still waiting for its push is not pushed any more. " + SCOPE_NOTE,
    response=NotificationOut,
    errors=(401, 403, 404, 409, 422),
    path_params=NOTIFICATION_ID,
)
@write
def mark_notification_read(notification_id: uuid.UUID):
    _message_for_caller(notification_id)
    _allow("messages:write")
    message = service.mark_read(carrier_id=principal().carrier_id, message_id=notification_id)
    return json_response(serialize_message(message))


# --- push subscriptions -----------------------------------------------------------------


@operation(
    "/users/<user_token:user_token>/push_abonnementen",
    "POST",
    scope="messages:write",
    summary="Register a device for push messages (Web Push subscription)",
    tag="notifications",
    description="Send the browser's `PushSubscription.toJSON()`, made with the "
    "applicationServerKey from GET /webpush. The same endpoint again refreshes its keys (also "
    "when the device moved to another driver). The endpoint must be an https URL of a public "
    "push service. " + SCOPE_NOTE,
    body=PushSubscriptionIn,
    response=PushSubscriptionOut,
    status=201,
    errors=(401, 403, 404, 409, 413, 415, 422),
    path_params=USER_TOKEN,
)
@write
def register_push_subscription(user_token: str):
    driver = driver_access(user_token)
    _allow("messages:write")
    body = parse_body(PushSubscriptionIn)
    problem = endpoint_problem(
        body.endpoint, allow_private=current_app.config.get("WEBPUSH_ALLOW_PRIVATE", False)
    )
    if problem:
        raise ValidationFailed([{"field": "endpoint", "message": problem}])
    subscription, _ = service.subscribe(
        carrier_id=principal().carrier_id,
        driver_id=driver.id,
        endpoint=body.endpoint,
        p256dh=body.keys.p256dh,
        auth=body.keys.auth,
        verloopt_op=body.expires_at,
    )
    return json_response(serialize_subscription(subscription), status=201)


@operation(
    "/users/<user_token:user_token>/push_abonnementen",
    "DELETE",
    scope="messages:write",
    summary="Forget a device (by endpoint) or all of the driver's devices",
    tag="notifications",
    description="With `endpoint`: that device; without: every device of the driver (e.g. "
    "when the app signs out). Answers 204 also when there was nothing to forget. " + SCOPE_NOTE,
    query=UnsubscribeQuery,
    status=204,
    errors=(401, 403, 404, 409, 422),
    path_params=USER_TOKEN,
)
@write
def delete_push_subscriptions(user_token: str):
    driver = driver_access(user_token)
    _allow("messages:write")
    query = parse_query(UnsubscribeQuery)
    service.unsubscribe(
        carrier_id=principal().carrier_id, driver_id=driver.id, endpoint=query.endpoint
    )
    return Response(status=204)


@operation(
    "/webpush",
    "GET",
    scope="messages:read",
    summary="What the app needs to subscribe to push messages: the VAPID public key",
    tag="notifications",
    response=WebPushOut,
    errors=(401,),
)
def webpush_settings():
    return json_response({"vapid_public_key": vapid_public_key()})


def vapid_public_key() -> str | None:
    """The configured VAPID key's public half, derived once per process."""
    private_key = current_app.config.get("VAPID_PRIVATE_KEY")
    if not private_key:
        return None
    cache = current_app.extensions.setdefault("rijplan_vapid_public", {})
    if private_key not in cache:
        try:
            cache[private_key] = public_key_of(private_key)
        except (ValueError, TypeError):
            logger.warning("VAPID_PRIVATE_KEY is not a valid P-256 private key")
            cache[private_key] = None
    return cache[private_key]
