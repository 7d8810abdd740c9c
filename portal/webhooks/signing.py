"""Signing a delivery, the way Stripe and Standard Webhooks do: an HMAC-SHA256 with the
endpoint's secret over the timestamp, a dot and the body, sent as

    Rijplan-Signature: t=<unix seconds>,v1=<hex digest>

A receiver recomputes the digest with its copy of the secret over the exact bytes it
received, compares in constant time, and refuses a timestamp more than five minutes off
(a replayed delivery). The README shows the ten lines it takes.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets

PREFIX = "whsec_"
HEADER = "Rijplan-Signature"
TOLERANCE = 300  # seconds a receiver should accept between the timestamp and its clock


def new_secret() -> str:
    """A fresh signing secret: 32 random bytes, base64, with a prefix that says what it is."""
    return PREFIX + base64.b64encode(secrets.token_bytes(32)).decode()


def digest(secret: str, timestamp: int, body: bytes) -> str:
    return hmac.new(secret.encode(), f"{timestamp}.".encode() + body, hashlib.sha256).hexdigest()


def signature_header(secret: str, timestamp: int, body: bytes) -> str:
    return f"t={timestamp},v1={digest(secret, timestamp, body)}"


def verify(secret: str, header: str, body: bytes, *, now: int, tolerance: int = TOLERANCE) -> bool:
    """Whether header signs body with secret, within tolerance seconds of now."""
    try:
        fields = dict(part.split("=", 1) for part in header.split(","))
        timestamp = int(fields["t"])
    except (KeyError, ValueError):
        return False
    if abs(now - timestamp) > tolerance:
        return False
    return hmac.compare_digest(fields.get("v1", ""), digest(secret, timestamp, body))
