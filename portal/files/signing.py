"""Signed, expiring download links of stored files: an HMAC over carrier, file and expiry,
keyed from SECRET_KEY for this purpose only. The link needs no Authorization header (it
goes into <img src> and the driver app)."""

from __future__ import annotations

import base64
import hashlib
import hmac
import time
import uuid
from datetime import UTC, datetime

from flask import current_app, has_request_context, url_for

from portal.errors import Forbidden
from portal.files.models import StoredFile

URL_PURPOSE = b"rijplan/files/signed-download-url/v1"


def _signing_key() -> bytes:
    # A key of its own, derived for this purpose: a signature made for something else with
    # SECRET_KEY (sessions, CSRF) can never pass as a download signature, nor the reverse.
    secret = current_app.config["SECRET_KEY"]
    secret = secret.encode() if isinstance(secret, str) else secret
    return hmac.new(secret, URL_PURPOSE, hashlib.sha256).digest()


def signature(carrier_id: uuid.UUID, file_id: uuid.UUID, exp: int) -> str:
    message = f"{carrier_id}\n{file_id}\n{exp}".encode()
    mac = hmac.new(_signing_key(), message, hashlib.sha256).digest()
    return base64.urlsafe_b64encode(mac).rstrip(b"=").decode()


def download_path(carrier_id: uuid.UUID, file_id: uuid.UUID, exp: int, sig: str) -> str:
    """The download view's path with the signature in its query string."""
    if has_request_context():
        # url_for adds the app's script root when it is mounted below one.
        return url_for("files.download", carrier_id=carrier_id, file_id=file_id, exp=exp, sig=sig)
    return f"/bestanden/{carrier_id}/{file_id}?exp={exp}&sig={sig}"


def signed_url(file: StoredFile, *, expires_in: int | None = None) -> tuple[str, datetime]:
    """A download path for file that works without credentials until the returned moment."""
    ttl = int(current_app.config["FILE_URL_TTL"]) if expires_in is None else int(expires_in)
    exp = int(time.time()) + ttl
    sig = signature(file.transporteur_id, file.id, exp)
    return download_path(file.transporteur_id, file.id, exp, sig), datetime.fromtimestamp(exp, UTC)


def verify_signature(*, carrier_id: uuid.UUID, file_id: uuid.UUID, exp: int, sig: str) -> None:
    """Forbidden when the signature does not cover (carrier, file, exp) or exp has passed."""
    expected = signature(carrier_id, file_id, exp)
    if not hmac.compare_digest(expected.encode(), str(sig).encode("utf-8", "replace")):
        raise Forbidden("the download link is not valid")
    if exp < time.time():
        raise Forbidden("the download link has expired")
