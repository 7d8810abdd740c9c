"""The API's blueprint and the errors that end a request with a problem+json answer."""

from __future__ import annotations

from flask import Blueprint, Response

from portal.errors import DomainError, problem_from_domain
from portal.extensions import csrf, db

bp = Blueprint("api", __name__, url_prefix="/api/v1")
csrf.exempt(bp)


class ProblemResponse(Exception):
    """Abort the request with a ready problem response."""

    def __init__(self, response: Response):
        super().__init__(response.status)
        self.response = response


@bp.errorhandler(DomainError)
def _domain_error(error: DomainError):
    db.session.rollback()
    return problem_from_domain(error)


@bp.errorhandler(ProblemResponse)
def _problem_response(error: ProblemResponse):
    db.session.rollback()
    return error.response
