"""Stored files: upload with type checks, carrier-scoped reads, signed expiring downloads.

The one door to the `bestanden` table. The type of a file comes from its bytes
(`detection.py`: magic numbers, never its name or the client's content type). Downloads go
through a signed URL (`signing.py`) that needs no Authorization header; this module
re-exports both modules' names, so callers keep one door.
"""

from __future__ import annotations

import hashlib
import io
import logging
import re
import tempfile
import unicodedata
import uuid
from collections.abc import Iterable
from datetime import datetime
from typing import BinaryIO

from flask import current_app
from sqlalchemy import select

from portal.audit.service import Actor
from portal.errors import NotFound, ValidationFailed
from portal.extensions import db

# What a file is (detection.py) and its signed links (signing.py), offered here too: the
# service is the files' one door.
from portal.files.detection import (
    ALLOWED,
    EXTENSIONS,
    JPEG,
    PNG,
    FileType,
    check_dimensions,
    describe,
)
from portal.files.detection import HEAD_BYTES as HEAD_BYTES
from portal.files.detection import SOORTEN as SOORTEN
from portal.files.detection import detect_type as detect_type
from portal.files.models import StoredFile
from portal.files.signing import download_path as download_path
from portal.files.signing import signature as _signature  # noqa: F401 (tests sign links)
from portal.files.signing import signed_url as signed_url
from portal.files.signing import verify_signature
from portal.files.storage import KeyNotFound, get_storage
from portal.tenancy import activate
from portal.types import utcnow

logger = logging.getLogger(__name__)

# Soorten whose content another domain checks before it stores them through store_checked
# (their content type, stored as is): never taken by store_file, so never by POST /bestanden.
CHECKED_ELSEWHERE = {"tacho": "application/octet-stream"}
CHUNK = 64 * 1024
SPOOL_IN_MEMORY = 1024 * 1024  # beyond this the upload buffer moves to a temp file
_UNSAFE_NAME = re.compile(r'[\x00-\x1f\x7f"\\/;:*?<>|]+')


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
    with tempfile.SpooledTemporaryFile(max_size=SPOOL_IN_MEMORY) as buffer:
        size, head, sha256 = _copy_upload(stream, buffer, int(current_app.config["FILE_MAX_BYTES"]))
        kind = _accepted_type(head, soort)
        if kind in (JPEG, PNG):
            buffer.seek(0)
            check_dimensions(buffer)
        buffer.seek(0)
        return _put_and_record(
            carrier_id=carrier_id,
            stream=buffer,
            size=size,
            sha256=sha256,
            soort=soort,
            content_type=kind.content_type,
            filename=filename,
            actor=actor,
        )


def _copy_upload(stream: BinaryIO, buffer: BinaryIO, limit: int) -> tuple[int, bytes, str]:
    """Copy the upload into buffer: its size, first bytes and SHA-256; ValidationFailed when
    it is larger than limit bytes (read at most one byte past it) or empty."""
    digest = hashlib.sha256()
    size = 0
    head = b""
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
    return size, head, digest.hexdigest()


def _accepted_type(head: bytes, soort: str) -> FileType:
    """The type the first bytes name, when this soort takes it; ValidationFailed else."""
    kind = detect_type(head)
    if kind is None:
        raise ValidationFailed(
            [{"field": "file", "message": f"not an accepted file type: {describe(head)}"}]
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
    return kind


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
