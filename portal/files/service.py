"""Stored files: upload with type checks, carrier-scoped reads, signed expiring downloads.

The one door to the `bestanden` table. The type of a file comes from its bytes (magic
numbers), never from its name or the client's content type. Downloads go through a signed
URL that needs no Authorization header (it goes into <img src> and the driver app): an
HMAC over carrier, file and expiry, keyed from SECRET_KEY for this purpose only.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import io
import logging
import re
import tempfile
import time
import unicodedata
import uuid
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import BinaryIO

from flask import current_app, has_request_context, url_for
from PIL import Image, UnidentifiedImageError
from sqlalchemy import select

from portal.audit.service import Actor
from portal.errors import Forbidden, NotFound, ValidationFailed
from portal.extensions import db
from portal.files.models import StoredFile
from portal.files.storage import KeyNotFound, get_storage
from portal.tenancy import activate
from portal.types import utcnow

logger = logging.getLogger(__name__)

SOORTEN = ("photo", "signature", "document_scan")


@dataclass(frozen=True)
class FileType:
    """A file type the product accepts: its family and exact content type."""

    family: str  # JPEG, PNG, PDF, HEIC (HEIC/HEIF)
    content_type: str


JPEG = FileType("JPEG", "image/jpeg")
PNG = FileType("PNG", "image/png")
PDF = FileType("PDF", "application/pdf")
HEIC_BRANDS = {
    b"heic": FileType("HEIC", "image/heic"),
    b"heix": FileType("HEIC", "image/heic"),
    b"heim": FileType("HEIC", "image/heic"),
    b"heis": FileType("HEIC", "image/heic"),
    b"hevc": FileType("HEIC", "image/heic-sequence"),
    b"mif1": FileType("HEIC", "image/heif"),
    b"msf1": FileType("HEIC", "image/heif-sequence"),
}
# File name extensions per content type, the usual one first.
EXTENSIONS = {
    "image/jpeg": (".jpg", ".jpeg"),
    "image/png": (".png",),
    "application/pdf": (".pdf",),
    "image/heic": (".heic", ".heif"),
    "image/heic-sequence": (".heics", ".heic"),
    "image/heif": (".heif", ".heic"),
    "image/heif-sequence": (".heifs", ".heif"),
}
ALLOWED = {
    "photo": ("JPEG", "PNG", "HEIC"),
    "signature": ("PNG", "JPEG"),
    "document_scan": ("PDF", "JPEG", "PNG", "HEIC"),
}
# Soorten whose content another domain checks before it stores them through store_checked
# (their content type, stored as is): never taken by store_file, so never by POST /bestanden.
CHECKED_ELSEWHERE = {"tacho": "application/octet-stream"}
HEAD_BYTES = 32
CHUNK = 64 * 1024
SPOOL_IN_MEMORY = 1024 * 1024  # beyond this the upload buffer moves to a temp file
URL_PURPOSE = b"rijplan/files/signed-download-url/v1"
_UNSAFE_NAME = re.compile(r'[\x00-\x1f\x7f"\\/;:*?<>|]+')


# --- type detection ----------------------------------------------------------------------


# A photo of a delivery note is 12-50 megapixels; a few kilobytes of PNG can claim billions
# (a decompression bomb), which whoever opens the file (a browser, the PDF export, a
# thumbnailer) then tries to unpack.
MAX_PIXELS = 100_000_000
MAX_SIDE = 30_000
# Pillow's own check only warns between 89 and 179 megapixels and raises above; ours
# refuses at once, from the header, so Pillow's is switched off (this process opens no
# image but to read its size).
Image.MAX_IMAGE_PIXELS = None


def _check_dimensions(buffer) -> None:
    """Refuse an image whose header claims more pixels than a photo has, or that cannot be
    read as the image it says it is; only the header is read, nothing is decoded."""
    try:
        with Image.open(buffer) as image:
            width, height = image.size
    except (UnidentifiedImageError, OSError, ValueError):
        raise ValidationFailed(
            [{"field": "file", "message": "not a readable image: its header is damaged"}]
        ) from None
    if width * height > MAX_PIXELS or max(width, height) > MAX_SIDE:
        raise ValidationFailed(
            [
                {
                    "field": "file",
                    "message": f"the image claims more pixels than a photo has; at most "
                    f"{MAX_PIXELS // 1_000_000} megapixels and {MAX_SIDE} pixels a side",
                }
            ]
        )


def detect_type(head: bytes) -> FileType | None:
    """The file type its first bytes announce, or None for anything we do not accept."""
    if head.startswith(b"\xff\xd8\xff"):
        return JPEG
    if head.startswith(b"\x89PNG\r\n\x1a\n"):
        return PNG
    if head.startswith(b"%PDF-"):
        return PDF
    # ISO-BMFF: a box of at least 16 bytes (size, "ftyp", major brand, minor version) first.
    if len(head) >= 12 and head[4:8] == b"ftyp" and int.from_bytes(head[:4], "big") >= 16:
        return HEIC_BRANDS.get(head[8:12])
    return None


def _describe(head: bytes) -> str:
    if not head.strip():
        return "it is empty or blank"
    if head.lstrip()[:1] == b"<":
        return "it looks like HTML or XML"
    if len(head) >= 12 and head[4:8] == b"ftyp":
        brand = head[8:12].decode("ascii", "replace")
        return f"it is an ISO media file of brand {brand!r}, not HEIC/HEIF"
    return "its content is not a JPEG, PNG, HEIC/HEIF or PDF file"


# --- upload ------------------------------------------------------------------------------


def clean_filename(name: str | None) -> str | None:
    """The client's file name without path, control or quoting characters; None if nothing
    readable is left. Only shown to people, never used as a storage key."""
    if not name:
        return None
    name = unicodedata.normalize("NFC", name).replace("\\", "/").rsplit("/", 1)[-1]
    name = _UNSAFE_NAME.sub("_", name).strip(" ._")
    if not name:
        return None
    if len(name) > 255:
        stem, dot, ext = name.rpartition(".")
        name = stem[: 254 - len(ext)] + dot + ext if dot and len(ext) <= 10 else name[:255]
    return name


def storage_key(carrier_id: uuid.UUID, file_id: uuid.UUID, when: datetime) -> str:
    """Where a file's bytes go: `<transporteur_id>/<yyyy>/<mm>/<file id>`."""
    return f"{carrier_id}/{when:%Y}/{when:%m}/{file_id}"


def store_file(
    *,
    carrier_id: uuid.UUID,
    stream: BinaryIO,
    filename: str | None,
    soort: str,
    actor: Actor,
) -> StoredFile:
    """Check, hash and store an upload; ValidationFailed (field `file` or `soort`) when it is
    empty, too large, of an unknown type or of a type this soort does not take."""
    if soort not in ALLOWED:
        raise ValidationFailed(
            [{"field": "soort", "message": f"must be one of: {', '.join(SOORTEN)}"}]
        )
    limit = int(current_app.config["FILE_MAX_BYTES"])
    digest = hashlib.sha256()
    size = 0
    head = b""
    with tempfile.SpooledTemporaryFile(max_size=SPOOL_IN_MEMORY) as buffer:
        while True:
            # Read at most one byte past the limit: enough to know it is too large.
            chunk = stream.read(min(CHUNK, limit + 1 - size))
            if not chunk:
                break
            size += len(chunk)
            if size > limit:
                raise ValidationFailed(
                    [{"field": "file", "message": f"the file is larger than {limit} bytes"}]
                )
            if len(head) < HEAD_BYTES:
                head += chunk[: HEAD_BYTES - len(head)]
            digest.update(chunk)
            buffer.write(chunk)
        if size == 0:
            raise ValidationFailed([{"field": "file", "message": "the file is empty"}])
        kind = detect_type(head)
        if kind is None:
            raise ValidationFailed(
                [{"field": "file", "message": f"not an accepted file type: {_describe(head)}"}]
            )
        if kind.family not in ALLOWED[soort]:
            raise ValidationFailed(
                [
                    {
                        "field": "file",
                        "message": f"a {soort} must be {' or '.join(ALLOWED[soort])}, "
                        f"this file is {kind.family}",
                    }
                ]
            )
        if kind in (JPEG, PNG):
            buffer.seek(0)
            _check_dimensions(buffer)
        buffer.seek(0)
        return _put_and_record(
            carrier_id=carrier_id,
            stream=buffer,
            size=size,
            sha256=digest.hexdigest(),
            soort=soort,
            content_type=kind.content_type,
            filename=filename,
            actor=actor,
        )


def store_checked(
    *,
    carrier_id: uuid.UUID,
    data: bytes,
    filename: str | None,
    soort: str,
    actor: Actor,
) -> StoredFile:
    """Store bytes whose type the calling domain has already checked from their content
    (tachograph downloads: portal.tacho.detect), for a soort of CHECKED_ELSEWHERE only; such
    soorten are never taken by store_file, so POST /bestanden cannot store them."""
    if soort not in CHECKED_ELSEWHERE:
        raise ValueError(f"store_checked does not store soort {soort!r}")
    if not data:
        raise ValidationFailed([{"field": "file", "message": "the file is empty"}])
    return _put_and_record(
        carrier_id=carrier_id,
        stream=io.BytesIO(data),
        size=len(data),
        sha256=hashlib.sha256(data).hexdigest(),
        soort=soort,
        content_type=CHECKED_ELSEWHERE[soort],
        filename=filename,
        actor=actor,
    )


def _put_and_record(
    *,
    carrier_id: uuid.UUID,
    stream: BinaryIO,
    size: int,
    sha256: str,
    soort: str,
    content_type: str,
    filename: str | None,
    actor: Actor,
) -> StoredFile:
    """Put checked bytes into storage and add their row; no bytes stay behind without it."""
    file_id = uuid.uuid4()
    now = utcnow()
    key = storage_key(carrier_id, file_id, now)
    storage = get_storage(current_app)
    storage.put(key, stream)
    row = StoredFile(
        transporteur_id=carrier_id,
        id=file_id,
        soort=soort,
        content_type=content_type,
        grootte=size,
        sha256=sha256,
        storage_key=key,
        bestandsnaam=clean_filename(filename),
        geupload_door_type=actor.type,
        geupload_door_id=actor.id,
        created_at=now,
    )
    db.session.add(row)
    try:
        db.session.flush()
    except Exception:
        # No row, so no one can reach the bytes: remove them rather than leave an orphan.
        storage.delete(key)
        raise
    logger.info("stored file %s (%s, %s bytes) for carrier %s", file_id, soort, size, carrier_id)
    return row


def discard(file: StoredFile) -> None:
    """Remove a stored file's bytes (its row goes with the caller's rollback): for a caller
    that stored a file and then found it must not keep it."""
    get_storage(current_app).delete(file.storage_key)


# --- reads -------------------------------------------------------------------------------


def get_file(*, carrier_id: uuid.UUID, file_id: uuid.UUID) -> StoredFile:
    """The carrier's file; NotFound when absent or another carrier's."""
    row = db.session.scalar(
        select(StoredFile).where(StoredFile.transporteur_id == carrier_id, StoredFile.id == file_id)
    )
    if row is None:
        raise NotFound("file not found")
    return row


def uploaded_by(stored: StoredFile, actor: Actor) -> bool:
    """Whether actor uploaded the file."""
    return stored.geupload_door_type == actor.type and stored.geupload_door_id == actor.id


def files_by_id(
    *, carrier_id: uuid.UUID, file_ids: Iterable[uuid.UUID]
) -> dict[uuid.UUID, StoredFile]:
    """The carrier's files among file_ids, by id, in one query; unknown ids are left out."""
    wanted = set(file_ids)
    if not wanted:
        return {}
    rows = db.session.scalars(
        select(StoredFile).where(
            StoredFile.transporteur_id == carrier_id, StoredFile.id.in_(wanted)
        )
    )
    return {row.id: row for row in rows}


# --- signed URLs -------------------------------------------------------------------------


def _signing_key() -> bytes:
    # A key of its own, derived for this purpose: a signature made for something else with
    # SECRET_KEY (sessions, CSRF) can never pass as a download signature, nor the reverse.
    secret = current_app.config["SECRET_KEY"]
    secret = secret.encode() if isinstance(secret, str) else secret
    return hmac.new(secret, URL_PURPOSE, hashlib.sha256).digest()


def _signature(carrier_id: uuid.UUID, file_id: uuid.UUID, exp: int) -> str:
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
    sig = _signature(file.transporteur_id, file.id, exp)
    return download_path(file.transporteur_id, file.id, exp, sig), datetime.fromtimestamp(exp, UTC)


def verify_signature(*, carrier_id: uuid.UUID, file_id: uuid.UUID, exp: int, sig: str) -> None:
    """Forbidden when the signature does not cover (carrier, file, exp) or exp has passed."""
    expected = _signature(carrier_id, file_id, exp)
    if not hmac.compare_digest(expected.encode(), str(sig).encode("utf-8", "replace")):
        raise Forbidden("the download link is not valid")
    if exp < time.time():
        raise Forbidden("the download link has expired")


def open_signed(
    *, carrier_id: uuid.UUID, file_id: uuid.UUID, exp: int, sig: str
) -> tuple[StoredFile, BinaryIO]:
    """The file and an open stream of its bytes for a signed link (the caller closes it).
    Forbidden for an altered or expired link; NotFound when the file is not the carrier's."""
    verify_signature(carrier_id=carrier_id, file_id=file_id, exp=exp, sig=sig)
    # The request is anonymous: the signature is what names the carrier, so only now may
    # its scope open (row-level security admits the row on PostgreSQL).
    activate(db.session, carrier_id)
    row = get_file(carrier_id=carrier_id, file_id=file_id)
    try:
        stream = get_storage(current_app).open(row.storage_key)
    except KeyNotFound:
        logger.error("file %s of carrier %s has no bytes in storage", file_id, carrier_id)
        raise NotFound("file not found") from None
    return row, stream


def read_bytes(*, carrier_id: uuid.UUID, file_id: uuid.UUID) -> bytes:
    """The bytes of one of the carrier's files; NotFound when absent or without bytes."""
    row = get_file(carrier_id=carrier_id, file_id=file_id)
    try:
        with get_storage(current_app).open(row.storage_key) as stream:
            return stream.read()
    except KeyNotFound:
        logger.error("file %s of carrier %s has no bytes in storage", file_id, carrier_id)
        raise NotFound("file not found") from None


def download_name(file: StoredFile) -> str:
    """A safe file name for Content-Disposition whose extension fits the detected type, so a
    saved `evil.html` that holds a PNG becomes `evil.png`."""
    name = clean_filename(file.bestandsnaam) or f"{file.soort}-{file.id.hex[:8]}"
    extensions = EXTENSIONS.get(file.content_type, ())
    stem, dot, ext = name.rpartition(".")
    if not extensions or (dot and f".{ext.lower()}" in extensions):
        return name
    return (stem if dot and stem else name) + extensions[0]
