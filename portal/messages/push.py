"""Delivery channels for messages: the Channel interface and Web Push (VAPID, pywebpush).

A channel hands one message to one subscription and says what happened; it never touches the
database. The worker (portal/messages/worker.py) decides, from these outcomes, whether a
message is sent, retried later or failed, and records every attempt.
"""

from __future__ import annotations

import base64
import logging
from dataclasses import dataclass
from datetime import datetime
from typing import Literal, Protocol
from urllib.parse import urlsplit

import orjson
import requests
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from py_vapid import Vapid
from pywebpush import WebPushException, webpush

from portal.messages.failures import failure
from portal.outbound import AddressRefused, NameNotResolved, PinnedSession
from portal.outbox.retry import retry_after_seconds
from portal.types import iso

logger = logging.getLogger(__name__)

# The push payload carries the start of the text; the app fetches the whole message from the
# API. Web Push limits an encrypted payload to about 4 KB.
PUSH_TEXT_MAX = 500
RETRY_STATUSES = {408, 425, 429, 500, 502, 503, 504}
GONE_STATUSES = {404, 410}

Outcome = Literal["sent", "retry", "gone", "rejected"]


@dataclass(frozen=True)
class PushTarget:
    """Where to push: a driver's subscription as the browser gave it."""

    endpoint: str
    p256dh: str
    auth: str

    @property
    def host(self) -> str:
        return (urlsplit(self.endpoint).hostname or "")[:255]


@dataclass(frozen=True)
class PushMessage:
    """What a push says: enough for the notification; the app reads the rest from the API."""

    id: str
    verzending_id: str
    titel: str
    tekst: str
    created_at: datetime

    def payload(self) -> bytes:
        tekst = self.tekst
        if len(tekst) > PUSH_TEXT_MAX:
            tekst = tekst[: PUSH_TEXT_MAX - 1].rstrip() + "…"
        return orjson.dumps(
            {
                "type": "bericht",
                "id": self.id,
                "verzending_id": self.verzending_id,
                "titel": self.titel,
                "tekst": tekst,
                "created_at": iso(self.created_at),
                "url": f"/api/v1/notificaties/{self.id}",
            }
        )


@dataclass(frozen=True)
class SendResult:
    """One push attempt: sent (the push service accepted it), retry (try again later), gone
    (the subscription no longer exists: forget it) or rejected (retrying will not help)."""

    outcome: Outcome
    http_status: int | None = None
    fout: str | None = None
    retry_after: int | None = None  # seconds, when the push service asked for a pause


class Channel(Protocol):
    """Hands a message to one subscription."""

    def send(self, target: PushTarget, message: PushMessage) -> SendResult: ...


# --- VAPID keys -----------------------------------------------------------------------


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def generate_vapid_keys() -> tuple[str, str]:
    """A new VAPID key pair: (private key, public key), both base64url without padding.
    The private key is the raw 32-byte P-256 scalar; the public key the uncompressed point
    the app passes as applicationServerKey."""
    key = ec.generate_private_key(ec.SECP256R1())
    private = key.private_numbers().private_value.to_bytes(32, "big")
    return b64url(private), public_key_of(b64url(private))


def load_vapid(private_key: str) -> Vapid:
    """The VAPID signer of a configured private key (raw base64url, or DER/PEM base64)."""
    text = private_key.strip()
    if text.startswith("-----BEGIN"):
        return Vapid.from_pem(text.encode())
    return Vapid.from_string(text)


def public_key_of(private_key: str) -> str:
    """The applicationServerKey (base64url uncompressed point) of a VAPID private key."""
    point = load_vapid(private_key).public_key.public_bytes(
        serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
    )
    return b64url(point)


# --- Web Push -------------------------------------------------------------------------


class WebPushChannel:
    """Web Push (RFC 8030) with an aes128gcm-encrypted body (RFC 8291) and VAPID (RFC 8292)."""

    def __init__(
        self,
        *,
        private_key: str,
        subject: str,
        ttl: int = 86400,
        timeout: float = 10.0,
        allow_private: bool = False,
    ):
        self.vapid = load_vapid(private_key)
        self.subject = subject
        self.ttl = ttl
        self.timeout = timeout
        self.allow_private = allow_private
        # Resolves the push service's name once and connects only to an address it checked
        # (portal/outbound.py), so a name that points inward by now reaches nothing.
        self.session = PinnedSession(allow_private=allow_private)

    def send(self, target: PushTarget, message: PushMessage) -> SendResult:
        try:
            response = webpush(
                subscription_info={
                    "endpoint": target.endpoint,
                    "keys": {"p256dh": target.p256dh, "auth": target.auth},
                },
                data=message.payload(),
                vapid_private_key=self.vapid,
                # A fresh dict per call: webpush adds aud and exp to the one it is given.
                vapid_claims={"sub": self.subject},
                ttl=self.ttl,
                timeout=self.timeout,
                headers={"Urgency": "high"},
                requests_session=self.session,
            )
        except WebPushException as exc:
            return _classify(exc.status_code, exc.retry_after, exc.message)
        except AddressRefused as refused:
            return SendResult("rejected", fout=failure("endpoint_refused", detail=str(refused)))
        except NameNotResolved as unresolved:
            return SendResult("retry", fout=failure("network_error", error=str(unresolved)))
        except requests.RequestException as exc:
            return SendResult("retry", fout=failure("network_error", error=type(exc).__name__))
        except (ValueError, TypeError) as exc:
            # Keys that are no valid P-256 point or auth secret: this subscription is broken.
            return SendResult(
                "rejected", fout=failure("subscription_invalid", detail=type(exc).__name__)
            )
        return SendResult("sent", http_status=response.status_code)


def _classify(status: int | None, retry_after: str | None, message: str) -> SendResult:
    if status is None:
        return SendResult("rejected", fout=failure("subscription_invalid", detail=message))
    if status in GONE_STATUSES:
        return SendResult("gone", status, failure("subscription_gone", http=status))
    if status in RETRY_STATUSES:
        return SendResult(
            "retry",
            status,
            failure("service_unavailable", http=status),
            retry_after_seconds(retry_after),
        )
    return SendResult("rejected", status, failure("service_refused", http=status))
