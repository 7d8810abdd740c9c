"""The QR sticker in a vehicle's cab: a signed payload that names the vehicle, and its SVG.

Payload: ``RPV1.<carrier and vehicle ids, base64url>.<sticker version>.<signature>``. The
signature is an HMAC-SHA256 over the rest, keyed by a key derived from the app's SECRET_KEY,
so nobody can make a sticker for a vehicle without the server. The sticker version is the
vehicle's `qr_versie`: rotating it from the portal makes every older sticker fail, because
the version it names is no longer the vehicle's.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import re
import uuid
from dataclasses import dataclass

import segno
from flask import current_app

PREFIX = "RPV1"
_SHAPE = re.compile(r"^RPV1\.([A-Za-z0-9_-]{43})\.([1-9][0-9]{0,8})\.([A-Za-z0-9_-]{22})$")
_PURPOSE = b"rijplan vehicle qr sticker v1"


class UnreadablePayload(ValueError):
    """Not a Rijplan vehicle sticker, or one whose signature does not hold (forged, damaged)."""


@dataclass(frozen=True)
class Sticker:
    carrier_id: uuid.UUID
    vehicle_id: uuid.UUID
    versie: int


def _b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def _key() -> bytes:
    secret = current_app.config["SECRET_KEY"]
    secret = secret.encode() if isinstance(secret, str) else secret
    return hmac.new(secret, _PURPOSE, hashlib.sha256).digest()


def _signature(body: str) -> str:
    return _b64(hmac.new(_key(), body.encode(), hashlib.sha256).digest()[:16])


def payload(*, carrier_id: uuid.UUID, vehicle_id: uuid.UUID, versie: int) -> str:
    """The text the sticker's QR code holds."""
    ids = _b64(carrier_id.bytes + vehicle_id.bytes)
    body = f"{PREFIX}.{ids}.{versie}"
    return f"{body}.{_signature(body)}"


def read(text: str) -> Sticker:
    """The vehicle a scanned payload names; UnreadablePayload when it is not one of ours or
    its signature fails. Whether it is the vehicle's current sticker is the caller's check."""
    match = _SHAPE.match((text or "").strip())
    if match is None:
        raise UnreadablePayload("not a Rijplan vehicle QR code")
    ids, versie, signature = match.groups()
    body = f"{PREFIX}.{ids}.{versie}"
    if not hmac.compare_digest(signature, _signature(body)):
        raise UnreadablePayload("the QR code's signature does not match")
    try:
        raw = _unb64(ids)
    except (binascii.Error, ValueError):
        raise UnreadablePayload("not a Rijplan vehicle QR code") from None
    if len(raw) != 32:
        raise UnreadablePayload("not a Rijplan vehicle QR code")
    return Sticker(
        carrier_id=uuid.UUID(bytes=raw[:16]),
        vehicle_id=uuid.UUID(bytes=raw[16:]),
        versie=int(versie),
    )


def svg(text: str) -> str:
    """The QR code of text as inline SVG, sized by CSS (no width/height of its own)."""
    code = segno.make(text, error="m", micro=False)
    return code.svg_inline(scale=1, border=2, omitsize=True, dark="#000", light="#fff")
