"""What runs around every API request: the body's size limit, the caller's token and scope
before the handler; a 304 for a named ETag and the fast_read guard after it."""

from __future__ import annotations

from flask import Response, current_app, g, request

from portal.api.core.answers import etag_matches, etag_value
from portal.api.core.auth_context import authenticate, scope_problem
from portal.api.core.blueprint import bp
from portal.api.core.bodies import JSON_BODY_LIMIT
from portal.api.core.operations import OPERATION_BY_ENDPOINT
from portal.errors import DomainError, problem_from_domain
from portal.extensions import db


@bp.before_request
def _before():
    if not request.mimetype.startswith("multipart/"):
        request.max_content_length = min(
            JSON_BODY_LIMIT, current_app.config.get("MAX_CONTENT_LENGTH") or JSON_BODY_LIMIT
        )
    op = OPERATION_BY_ENDPOINT.get(request.endpoint or "")
    if op is not None and op.public:
        return None
    try:
        g.principal = authenticate(defer_check=op is not None and op.fast_read)
    except DomainError as error:
        db.session.rollback()
        return problem_from_domain(error)
    # An API key acts with its scopes only, checked here for every operation from its
    # registration; a driver's token is limited by what the driver may do, in the handler.
    who = g.principal
    refused = who.kind == "api_key" and (
        op is None or (op.scope is not None and op.scope not in who.scopes)
    )
    if refused:
        db.session.rollback()
        return scope_problem(op.scope if op else None, who)
    return None


@bp.after_request
def _not_modified(response: Response) -> Response:
    """A GET whose ETag the request's If-None-Match names answers 304, whether or not the
    answer would be compressed (Flask-Compress does it for compressed answers only)."""
    etag, _ = response.get_etag()
    if (
        request.method in ("GET", "HEAD")
        and response.status_code == 200
        and etag
        and "If-None-Match" in request.headers
        and etag_matches(etag)
    ):
        kept = {h: response.headers[h] for h in ("Cache-Control", "Vary") if h in response.headers}
        not_modified = Response(status=304, headers=kept)
        # The ETag as the client holds it ("2:gzip" when the 200 would have been compressed).
        wanted = request.if_none_match
        held = [t for t in wanted.as_set(include_weak=True) if t and etag_value(t) == etag]
        if held:
            not_modified.set_etag(held[0], weak=wanted.is_weak(held[0]))
        else:
            not_modified.headers["ETag"] = response.headers["ETag"]
        return not_modified
    return response


@bp.after_request
def _fast_read_checked(response: Response) -> Response:
    """A `fast_read` handler that answered without checking the driver's token is a bug."""
    who = g.get("principal")
    if who is not None and not who.checked and response.status_code < 400:
        raise RuntimeError(f"{request.endpoint} answered without checking the driver's token")
    return response
