"""Answers: JSON responses, lists with ETag and X-Total-Count, and the entity-tags of
conditional requests (If-None-Match, If-Match)."""

from __future__ import annotations

import gzip
import re
from collections.abc import Callable
from typing import Any

import orjson
from flask import Response, current_app, g, request
from werkzeug.datastructures import ETags

from portal import reads
from portal.api.core.auth_context import fast_read
from portal.errors import DomainError


def json_response(data: Any, status: int = 200, headers: dict | None = None) -> Response:
    response = Response(orjson.dumps(data), status=status, mimetype="application/json")
    for name, value in (headers or {}).items():
        response.headers[name] = value
    return response


def public_origin() -> str:
    """Where this site is reached, for absolute URLs in answers (a client joins a path to
    the API's base, /api/v1, not to the site): PUBLIC_BASE_URL, else the request's host."""
    return (current_app.config.get("PUBLIC_BASE_URL") or request.host_url).rstrip("/")


# What a compressing layer appends to the strong ETag of an answer it compresses:
# Flask-Compress "<tag>:<coding>" ("2:gzip", "2:br", "2:zstd", "2:deflate"), Apache's
# mod_deflate "<tag>-<coding>". A proxy may also weaken it instead (nginx: W/"2").
_CODING_SUFFIX = re.compile(r"(?::[A-Za-z0-9._+-]+|-(?:gzip|br|zstd|deflate))$")
_VERSION_TAG = re.compile(r"[0-9]{1,18}")


def etag_value(tag: str) -> str:
    """An entity-tag's opaque value (unquoted) without what a compressing layer appended."""
    return _CODING_SUFFIX.sub("", tag, count=1)


def etag_matches(etag: str) -> bool:
    """The request's If-None-Match names this ETag (the weak comparison RFC 9110 asks for),
    in any form the server or a compressing layer gave it ("<etag>:gzip", W/"<etag>")."""
    return etags_name(request.if_none_match, etag)


def etags_name(tags: ETags, etag: str) -> bool:
    """An If-None-Match header's tags name this ETag (etag_matches, for a parsed header)."""
    if tags.star_tag:
        return True
    return any(tag and etag_value(tag) == etag for tag in tags.as_set(include_weak=True))


class PreconditionFailed(DomainError):
    """An If-Match that names no version of the resource (a stale one is the service's)."""

    status = 412
    title = "Precondition failed"


def if_match_versions(what: str) -> frozenset[int] | None:
    """The versions the request's If-Match names, any of which may be the current one; None
    without If-Match or with `*` (the handler found the resource, so it exists).

    Every ETag the server hands out is accepted back: the bare version ("2"), the form a
    compressing layer gives it ("2:gzip", "2:br", "2-gzip") and a list ("1", "2"). A weak
    tag (W/"2") counts too, though RFC 9110 compares If-Match strongly: our ETags are the
    row's version, which changes with every change of the resource, so the weak form can
    only come from a proxy that weakened our strong tag when it compressed the answer.
    A header naming no version at all (malformed, another resource's hash) is 412."""
    if "If-Match" not in request.headers:
        return None
    tags = request.if_match
    if tags.star_tag:
        return None
    versions = frozenset(
        int(value)
        for tag in tags.as_set(include_weak=True)
        if tag and _VERSION_TAG.fullmatch(value := etag_value(tag))
    )
    if not versions:
        raise PreconditionFailed(f"If-Match names no version of this {what}.")
    return versions


# List answers by ETag, per process. Compressed ones: the same answer to the next poll (a
# client that does not send If-None-Match, another device of the same driver) is not
# compressed again. Plain ones only of lists that every caller of a carrier shares
# (fast_list's `keep`): a driver's own plain list is 16 times its compressed size, and every
# HTTP client of note asks for gzip.
ANSWERS = reads.ByteCache(max_bytes=16 * 1024 * 1024)


class Listing:
    """What fast_list() needs of a list (tasks.service.TaskListing and the like): two
    statements, the ETag and total from the first's rows, the JSON body from the second's."""

    fingerprint: reads.Query
    rows: reads.Query

    def etag(self, fingerprint_rows: list[tuple]) -> tuple[str, int]: ...

    def body(self, rows: list[tuple]) -> bytes: ...


def fast_list(
    listing: Listing,
    *,
    check: Callable[[], object] | None = None,
    keep: bool = False,
    headers: dict | None = None,
) -> Response:
    """A list answered in as few round trips as it needs, with an ETag and X-Total-Count.

    If-None-Match or Accept-Encoding gzip: the fingerprint first (with the driver's token
    check, one round trip), which answers 304 or the compressed answer kept for this ETag;
    only otherwise the rows (a second). A plain request sends both statements at once.
    `check` runs once the caller's token is checked, before anything is answered (a
    driver's list: the path's user_token must be the driver's own). `keep`: the list is the
    same for every caller of the carrier (its questionnaires), so the plain answer is kept
    by ETag too."""
    wants_gzip = request.accept_encodings["gzip"] > 0
    rows: list[tuple] | None = None
    if wants_gzip or keep or "If-None-Match" in request.headers:
        (fingerprint,) = fast_read(listing.fingerprint)
    else:
        fingerprint, rows = fast_read(listing.fingerprint, listing.rows)
    if check is not None:
        check()
    etag, total = listing.etag(fingerprint)
    answer_headers = {"ETag": f'"{etag}"', "Cache-Control": "private, no-cache", **(headers or {})}
    if etag_matches(etag):
        return Response(status=304, headers=answer_headers)
    answer_headers["X-Total-Count"] = str(total)
    key = (g.principal.carrier_id, etag, "gzip" if wants_gzip else "identity")
    answer = ANSWERS.get(key) if wants_gzip or keep else None
    if answer is None:
        if rows is None:
            (rows,) = fast_read(listing.rows)
        answer = listing.body(rows)
        if wants_gzip:
            if len(answer) < current_app.config["COMPRESS_MIN_SIZE"]:
                return Response(answer, mimetype="application/json", headers=answer_headers)
            level = current_app.config["COMPRESS_LEVEL"]
            answer = gzip.compress(answer, compresslevel=level, mtime=0)
        if wants_gzip or keep:
            ANSWERS.put(key, answer)
    response = Response(answer, mimetype="application/json", headers=answer_headers)
    if wants_gzip:
        response.headers["Content-Encoding"] = "gzip"
        response.set_etag(f"{etag}:gzip")  # as Flask-Compress marks what it compresses
    return response


def list_response(items: list, total: int, headers: dict | None = None) -> Response:
    return json_response(items, headers={"X-Total-Count": str(total), **(headers or {})})
