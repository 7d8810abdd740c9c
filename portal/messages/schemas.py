"""JSON shapes of messages (notificaties) and push subscriptions."""

from __future__ import annotations

import base64
import binascii
import uuid
from datetime import UTC, datetime

from cryptography.hazmat.primitives.asymmetric import ec
from pydantic import BaseModel, ConfigDict, Field, field_validator

from portal.messages import failures
from portal.messages.models import STATUSES, TEXT_MAX, TITLE_MAX, Message, PushSubscription
from portal.schemas import InModel, Timestamp
from portal.types import iso

BASE64URL = r"^[A-Za-z0-9_-]+={0,2}$"


class NotificationCreate(InModel):
    """A message to the driver of the path: queued at once, pushed by the worker."""

    model_config = ConfigDict(title="CreateNotificationBody")

    titel: str = Field(min_length=1, max_length=TITLE_MAX, description="the notification's title")
    tekst: str = Field(min_length=1, max_length=TEXT_MAX, description="the message")


class NotificationOut(BaseModel):
    """A message to one driver and where its delivery stands."""

    model_config = ConfigDict(title="Notificatie")

    id: uuid.UUID
    transporteur_id: uuid.UUID
    chauffeur_id: uuid.UUID
    verzending_id: uuid.UUID = Field(description="shared by the messages of one send")
    titel: str
    tekst: str
    status: str = Field(
        description="queued (waiting for a push), sent (a push service accepted it), failed "
        "(no push reached the phone; see fout: the message is still in the inbox), read",
        json_schema_extra={"enum": list(STATUSES)},
    )
    afzender: str = Field(description="who sent it: a planner's name or an integration")
    created_at: Timestamp
    verzonden_op: Timestamp | None = Field(description="when a push service accepted it")
    gelezen_op: Timestamp | None
    fout: str | None = Field(description="why the last push failed, if it did (English)")
    fout_code: str | None = Field(
        description="the stable code of that failure",
        json_schema_extra={"enum": [*failures.CODES, None]},
    )
    pogingen: int = Field(description="push attempts so far")


def serialize_message(message: Message) -> dict:
    return {
        "id": str(message.id),
        "transporteur_id": str(message.transporteur_id),
        "chauffeur_id": str(message.chauffeur_id),
        "verzending_id": str(message.verzending_id),
        "titel": message.titel,
        "tekst": message.tekst,
        "status": message.status,
        "afzender": message.afzender,
        "created_at": iso(message.created_at),
        "verzonden_op": iso(message.verzonden_op),
        "gelezen_op": iso(message.gelezen_op),
        "fout": failures.english(message.fout),
        "fout_code": failures.code_of(message.fout),
        "pogingen": message.pogingen,
    }


class InboxQuery(BaseModel):
    """Query of GET /users/{user_token}/notificaties: newest first."""

    model_config = ConfigDict(extra="forbid")

    ongelezen: bool | None = Field(default=None, description="true: unread messages only")
    limit: int = Field(default=100, ge=1, le=1000)
    offset: int = Field(default=0, ge=0, le=1_000_000)


class PushKeys(InModel):
    p256dh: str = Field(
        min_length=80, max_length=100, pattern=BASE64URL, description="the P-256 public key"
    )
    auth: str = Field(
        min_length=16, max_length=32, pattern=BASE64URL, description="the 16-byte auth secret"
    )

    @field_validator("p256dh")
    @classmethod
    def _point(cls, value: str) -> str:
        raw = _decode(value)
        try:
            ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), raw)
        except ValueError:
            raise ValueError("must be an uncompressed P-256 public key") from None
        if len(raw) != 65:
            raise ValueError("must be an uncompressed P-256 public key")
        return value

    @field_validator("auth")
    @classmethod
    def _secret(cls, value: str) -> str:
        if len(_decode(value)) != 16:
            raise ValueError("must be 16 bytes, base64url")
        return value


def _decode(value: str) -> bytes:
    try:
        return base64.urlsafe_b64decode(value.rstrip("=") + "=" * (-len(value.rstrip("=")) % 4))
    except (binascii.Error, ValueError):
        raise ValueError("not base64url") from None


class PushSubscriptionIn(InModel):
    """The browser's PushSubscription as `subscription.toJSON()` gives it."""

    model_config = ConfigDict(title="PushSubscription")

    endpoint: str = Field(min_length=1, max_length=1024, description="the push service's URL")
    expirationTime: int | None = Field(  # the browser's field name
        default=None, ge=0, le=4102444800000, description="ms since 1970, when it ends"
    )
    keys: PushKeys

    @field_validator("endpoint")
    @classmethod
    def _no_whitespace(cls, value: str) -> str:
        if any(c.isspace() for c in value):
            raise ValueError("must not contain spaces")
        return value

    @property
    def expires_at(self) -> datetime | None:
        if self.expirationTime is None:
            return None
        return datetime.fromtimestamp(self.expirationTime / 1000, UTC)


class PushSubscriptionOut(BaseModel):
    model_config = ConfigDict(title="PushSubscriptionRegistered")

    id: uuid.UUID
    chauffeur_id: uuid.UUID
    endpoint: str
    verloopt_op: Timestamp | None
    created_at: Timestamp


def serialize_subscription(subscription: PushSubscription) -> dict:
    return {
        "id": str(subscription.id),
        "chauffeur_id": str(subscription.chauffeur_id),
        "endpoint": subscription.endpoint,
        "verloopt_op": iso(subscription.verloopt_op),
        "created_at": iso(subscription.created_at),
    }


class UnsubscribeQuery(BaseModel):
    model_config = ConfigDict(extra="forbid")

    endpoint: str | None = Field(
        default=None, max_length=1024, description="the device to forget; without it: all"
    )


class WebPushOut(BaseModel):
    model_config = ConfigDict(title="WebPushSettings")

    vapid_public_key: str | None = Field(
        description="applicationServerKey for PushManager.subscribe (base64url); null when "
        "this server sends no pushes"
    )
