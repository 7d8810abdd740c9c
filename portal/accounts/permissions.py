"""Portal access: sign-in and roles."""

from __future__ import annotations

from functools import wraps

from flask import abort, request
from flask_login import current_user, login_required


def role_required(*roles: str):
    """Signed in with one of roles (admin has every role); 403 otherwise."""

    def decorate(view):
        @wraps(view)
        @login_required
        def wrapper(*args, **kwargs):
            if not current_user.has_role(*roles):
                abort(403)
            return view(*args, **kwargs)

        return wrapper

    return decorate


def object_route(bp, rule: str, load, *, methods=("GET",), roles=("planner",)):
    """A portal route of one of the carrier's objects.

    `load(**path values)` runs first and answers what the view gets: a tuple (positional
    arguments), a dict (keyword arguments) or one object. NotFound (or abort(404)) there makes
    another carrier's id a 404 whatever the method, before a POST's CSRF token is checked
    (400 when missing or wrong) and before anything changes."""
    from portal.errors import NotFound
    from portal.extensions import csrf

    def decorate(view):
        @wraps(view)
        def wrapper(**values):
            try:
                loaded = load(**values)
            except NotFound:
                abort(404)
            if request.method == "POST":
                csrf.protect()
            if isinstance(loaded, tuple):
                return view(*loaded)
            if isinstance(loaded, dict):
                return view(**loaded)
            return view(loaded)

        guarded = role_required(*roles)(wrapper)
        csrf.exempt(guarded)  # checked inside, after the 404
        bp.add_url_rule(rule, view.__name__, guarded, methods=list(methods))
        return guarded

    return decorate
