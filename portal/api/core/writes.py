"""`@write`: a write handler changes through services and commits once; with an
Idempotency-Key a retry answers the first response instead of acting twice."""

from __future__ import annotations

import hashlib
import re
from functools import wraps

import orjson
from flask import Response, g, request

from portal.api.core.auth_context import principal
from portal.api.core.operations import OPERATION_BY_ENDPOINT
from portal.errors import DomainError, ValidationFailed, problem_from_domain
from portal.extensions import db
from portal.idempotency import service as idempotency

IDEMPOTENCY_KEY = re.compile(r"^[\x21-\x7e]{1,255}$")
REPLAYED_HEADERS = ("Location", "ETag", "Content-Type")


def _text_pair(item: tuple) -> tuple[str, str]:
    name, value = item
    return (name or "", value if isinstance(value, str) else "")


def write(fn):
    """A write handler: it changes through services, this commits once. With an
    Idempotency-Key a retry answers the first response instead of acting twice."""

    @wraps(fn)
    def wrapper(*args, **kwargs):
        key = request.headers.get("Idempotency-Key")
        if key is None:
            response = fn(*args, **kwargs)
            _finish(response)
            return response
        if not IDEMPOTENCY_KEY.match(key):
            raise ValidationFailed(
                [{"field": "Idempotency-Key", "message": "1 to 255 visible ASCII characters"}]
            )
        who = principal()
        outcome = idempotency.claim(
            carrier_id=who.carrier_id, caller=who.caller, key=key, request_hash=_request_hash()
        )
        if isinstance(outcome, idempotency.Replay):
            db.session.rollback()
            response = Response(outcome.body, status=outcome.status, headers=outcome.headers)
            response.headers["Idempotent-Replayed"] = "true"
            return response
        return _once(idempotency.Claim.of(outcome), fn, args, kwargs)

    wrapper.idempotent_write = True  # operation() reads it: the document names the header
    return wrapper


def _request_hash() -> str:
    """What identifies the request a key was used for: method, path, query and body."""
    digest = hashlib.sha256()
    for part in (request.method, request.path, request.query_string.decode(errors="replace")):
        digest.update(part.encode() + b"\0")
    if request.mimetype == "multipart/form-data":
        # The form and each file's bytes identify a multipart request. A part may come
        # without a name (None), which sorts with the empty name.
        for name, value in sorted(request.form.items(multi=True), key=_text_pair):
            digest.update(f"{name}={value}".encode() + b"\0")
        for name, upload in sorted(request.files.items(multi=True), key=_text_pair):
            digest.update(f"{name}".encode() + b"\0" + _stream_digest(upload.stream))
    else:
        digest.update(request.get_data(cache=True))
    return digest.hexdigest()


def _once(claim, fn, args, kwargs) -> Response:
    """Run the handler holding the claimed key: a success is kept for retries, a refusal
    or an error lets the key go."""
    db.session.commit()  # the claim is visible now: a concurrent retry gets 409
    try:
        idempotency.hold(claim=claim)  # ...while this request's transaction lasts
        response = fn(*args, **kwargs)
    except Exception:
        db.session.rollback()
        idempotency.release(claim=claim)
        db.session.commit()
        raise
    if response.status_code >= 400:
        if not g.get("keep_changes"):
            db.session.rollback()
        idempotency.release(claim=claim)
        db.session.commit()
        return response
    kept = idempotency.complete(
        claim=claim,
        status=response.status_code,
        body=_replayed_body(response),
        headers={h: response.headers[h] for h in REPLAYED_HEADERS if h in response.headers},
    )
    if not kept:  # too slow: a retry holds the key now and does the write
        db.session.rollback()
        raise idempotency.still_running()
    db.session.commit()
    return response


def _replayed_body(response: Response) -> str:
    """The answer as a retry gets it: with the secrets it showed (the operation's `reveals`)
    null, so they are shown once and never kept in the idempotency record."""
    body = response.get_data(as_text=True)
    operation = OPERATION_BY_ENDPOINT.get(request.endpoint or "")
    if operation is None or not operation.reveals:
        return body
    document = orjson.loads(body)
    for name in operation.reveals:
        if name in document:
            document[name] = None
    return orjson.dumps(document).decode()


def _stream_digest(stream) -> bytes:
    """The SHA-256 of an uploaded file's bytes; the stream is rewound for the handler."""
    digest = hashlib.sha256()
    for block in iter(lambda: stream.read(1 << 16), b""):
        digest.update(block)
    stream.seek(0)
    return digest.digest()


def _finish(response: Response) -> None:
    if response.status_code < 400 or g.get("keep_changes"):
        db.session.commit()
    else:
        db.session.rollback()


def refused_but_kept(error: DomainError) -> Response:
    """Answer error, yet commit what the request changed before it (e.g. evidence sent along
    with a completion that is refused: the driver should not have to send it again)."""
    g.keep_changes = True
    return problem_from_domain(error)
