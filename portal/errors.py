"""Domain errors raised by services; the portal and the API each render them their way."""

from __future__ import annotations


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


class ValidationFailed(DomainError):
    """Input that is well-formed but breaks a rule; errors lists {field, message}."""

    status = 422
    title = "Validation failed"

    def __init__(self, errors: list[dict], detail: str = ""):
        super().__init__(detail or "; ".join(f"{e['field']}: {e['message']}" for e in errors))
        self.errors = errors
