"""The portal's answers to errors no view caught: a problem document (RFC 9457) on the API,
the error page elsewhere. A service's refusal keeps its status; a database that does not
answer is a 503 to retry; a lost concurrent update a 409; anything else a logged 500."""

from __future__ import annotations

import contextlib
import logging

import psycopg
from flask import Flask, render_template, request
from sqlalchemy.exc import OperationalError, SQLAlchemyError
from sqlalchemy.orm.exc import StaleDataError
from werkzeug.exceptions import (
    BadRequest,
    Conflict,
    HTTPException,
    ServiceUnavailable,
    default_exceptions,
)

from portal.errors import DomainError, problem, problem_from_domain
from portal.extensions import db

logger = logging.getLogger("portal.web")

# The problem type (a stable code) of an HTTP-level refusal a client can act on; others
# keep about:blank, which RFC 9457 reserves for "nothing beyond the status".
HTTP_PROBLEM_TYPES = {404: "not-found", 405: "method-not-allowed", 413: "too-large"}


def wants_problem() -> bool:
    """The request is the API's: errors answer as problem documents."""
    return request.path.startswith("/api/")


def http_error(error: HTTPException):
    if wants_problem():
        headers = {}
        if error.code == 405 and error.valid_methods:
            headers["Allow"] = ", ".join(error.valid_methods)
        return problem(
            error.code or 500,
            error.name,
            error.description,
            type_=HTTP_PROBLEM_TYPES.get(error.code or 500),
            headers=headers,
        )
    return render_template("error.html", error=error), error.code


def domain_error(error: DomainError):
    # A service's refusal that no view caught: another carrier's or a gone object (404),
    # a role that may not (403), a state that does not allow it (409)...
    db.session.rollback()
    if wants_problem():
        return problem_from_domain(error)
    return http_error(default_exceptions.get(error.status, BadRequest)(error.detail))


def database_down(error: Exception):
    # The database does not answer (restarting, failing over, out of connections) or
    # asked to retry (a deadlock, a serialization failure): nothing was saved; try again.
    # The pool drops the broken connection, so the next request reconnects by itself.
    logger.warning("database unavailable on %s %s: %s", request.method, request.path, error)
    with contextlib.suppress(SQLAlchemyError):
        db.session.rollback()
    headers = {"Retry-After": "5"}
    if wants_problem():
        return problem(
            503,
            "Service unavailable",
            "The database is not available right now; nothing was saved. Try again.",
            type_="service-unavailable",
            headers=headers,
            code="database_unavailable",
        )
    return render_template("error.html", error=ServiceUnavailable()), 503, headers


def lost_race(error: StaleDataError):
    # Another request changed the row between this one's read and its write (a version
    # counter refused the UPDATE): a conflict to retry, never a 500.
    logger.info("lost a concurrent update on %s %s: %s", request.method, request.path, error)
    db.session.rollback()
    return http_error(
        Conflict("The data changed meanwhile (another request saved it first); retry.")
    )


def unexpected(error: Exception):
    logger.exception("unhandled error on %s %s", request.method, request.path)
    db.session.rollback()
    if wants_problem():
        return problem(500, "Internal server error", "Something went wrong on our side.")
    return render_template("error.html", error=None), 500


def register_error_handlers(app: Flask) -> None:
    app.register_error_handler(HTTPException, http_error)
    app.register_error_handler(DomainError, domain_error)
    app.register_error_handler(OperationalError, database_down)
    # a pool's connect in reads.read, unwrapped
    app.register_error_handler(psycopg.OperationalError, database_down)
    app.register_error_handler(StaleDataError, lost_race)
    app.register_error_handler(Exception, unexpected)
