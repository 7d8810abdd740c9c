"""Domain errors raised by services, and the problem documents (RFC 9457) that tell an API
client about them; the portal renders them as its error page."""

from __future__ import annotations

from typing import Any

import orjson
from flask import Response


class DomainError(Exception):
    status = 400
    title = "Bad request"

    def __init__(self, detail: str = "", **extra):
        super().__init__(detail or self.title)
        self.detail = detail or self.title
        self.extra = extra


class NotFound(DomainError):
    status = 404
    title = "Not found"


class Forbidden(DomainError):
    status = 403
    title = "Forbidden"


class Unauthorized(DomainError):
    status = 401
    title = "Unauthorized"


class Conflict(DomainError):
    status = 409
    title = "Conflict"


class TooManyRequests(DomainError):
    """A limit was reached; `retry_after` (seconds) says when the next request may pass."""

    status = 429
    title = "Too many requests"

    def __init__(self, detail: str = "", *, retry_after: int, **extra):
        super().__init__(detail, **extra)
        self.retry_after = retry_after


class ValidationFailed(DomainError):
    """Input that is well-formed but breaks a rule; errors lists {field, message}."""

    status = 422
    title = "Validation failed"

    def __init__(self, errors: list[dict], detail: str = ""):
        super().__init__(detail or "; ".join(f"{e['field']}: {e['message']}" for e in errors))
        self.errors = errors


# --- problems: how an API client hears of an error ------------------------------------

PROBLEM_TYPE_BASE = "https://rijplan.nl/problems/"


def problem(
    status: int,
    title: str,
    detail: str | None = None,
    *,
    type_: str | None = None,
    headers: dict | None = None,
    **extra: Any,
) -> Response:
    """An RFC 9457 application/problem+json response."""
    body = {
        "type": PROBLEM_TYPE_BASE + type_ if type_ else "about:blank",
        "title": title,
        "status": status,
    }
    if detail:
        body["detail"] = detail
    body.update({k: v for k, v in extra.items() if v is not None})
    response = Response(orjson.dumps(body), status=status, mimetype="application/problem+json")
    for name, value in (headers or {}).items():
        response.headers[name] = value
    return response


def problem_from_domain(error: DomainError) -> Response:
    extra = dict(error.extra)
    errors = getattr(error, "errors", None)
    headers = {}
    if error.status == 401:
        headers["WWW-Authenticate"] = 'Bearer realm="rijplan"'
    if error.status == 429 and "retry_after_minutes" in extra:
        headers["Retry-After"] = str(extra["retry_after_minutes"] * 60)
    retry_after = getattr(error, "retry_after", None)  # seconds, set on the error
    if retry_after is not None:
        headers["Retry-After"] = str(retry_after)
    type_ = type(error).__name__
    return problem(
        error.status,
        error.title,
        error.detail,
        type_=_kebab(type_),
        errors=errors,
        headers=headers,
        **extra,
    )


def _kebab(name: str) -> str:
    return "".join("-" + c.lower() if c.isupper() else c for c in name).lstrip("-")
