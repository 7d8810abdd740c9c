"""One unit of work per portal request that changes something, as `@write` is for the API.

A view changes through services and returns its answer; `portal_write` commits once when that
answer is a success or a redirect (2xx/3xx) and rolls back when it is a refusal (4xx: a form
answered with its errors at the fields) or when the view raises. Views never commit or roll
back themselves: a refused form can then never leave half a change behind, and a change is
never committed before the page that confirms it was built.

Two answers say what they mean beyond their status: `refused(redirect)` is a refusal told on
the next page (a flash message), so nothing is kept; `kept(answer)` is a refusal that still
records something (a failed sign-in attempt counts).
"""

from __future__ import annotations

from functools import wraps

from flask import g, make_response

from portal.extensions import db


def refused(response):
    """This answer (usually a redirect with a flash message) tells of a refusal: keep nothing."""
    response = make_response(response)
    response.unit_of_work = "rollback"
    return response


def kept(response):
    """This refusal keeps what the request recorded (e.g. a failed sign-in attempt)."""
    response = make_response(response)
    response.unit_of_work = "commit"
    return response


def _commits(response) -> bool:
    meant = getattr(response, "unit_of_work", None)
    if meant is not None:
        return meant == "commit"
    return response.status_code < 400


def after_commit(action) -> None:
    """Run action once this request's changes are committed (e.g. a file that must say what
    the database says), never when they are rolled back."""
    g.setdefault("uow_after", {"commit": [], "rollback": []})["commit"].append(action)


def after_rollback(action) -> None:
    """Run action when this request's changes are rolled back, also when the commit fails
    (e.g. release a lock taken for the change)."""
    g.setdefault("uow_after", {"commit": [], "rollback": []})["rollback"].append(action)


def _finish(outcome: str) -> None:
    for action in g.pop("uow_after", {}).get(outcome, []):
        action()


def _roll_back() -> None:
    db.session.rollback()
    _finish("rollback")


def portal_write(view):
    """Commit the view's changes once on a 2xx/3xx answer; roll back on 4xx/5xx or an error."""

    @wraps(view)
    def wrapper(*args, **kwargs):
        try:
            response = make_response(view(*args, **kwargs))
        except BaseException:
            _roll_back()
            raise
        if not _commits(response):
            _roll_back()
            return response
        try:
            db.session.commit()
        except BaseException:
            _roll_back()
            raise
        _finish("commit")
        return response

    wrapper.portal_write = True
    return wrapper
