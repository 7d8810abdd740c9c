"""Portal access: sign-in, roles, and which sections a role may open."""

from __future__ import annotations

from functools import wraps

from flask import abort, current_app, g, request, url_for
from flask_login import current_user, login_required

from portal.navigation import SECTIONS
from portal.unit_of_work import portal_write


def role_required(*roles: str):
    """Signed in with one of roles (admin has every role); 403 otherwise. The roles stay on
    the view (`required_roles`), so the navigation shows a section exactly when its page
    would open."""

    def decorate(view):
        @wraps(view)
        @login_required
        def wrapper(*args, **kwargs):
            if not current_user.has_role(*roles):
                g.forbidden_roles = roles  # the 403 page says which role this page needs
                abort(403)
            return view(*args, **kwargs)

        wrapper.required_roles = roles
        return wrapper

    return decorate


def may_open(user, endpoint: str) -> bool:
    """Whether user passes the role check of endpoint's view (views without one: yes)."""
    view = current_app.view_functions.get(endpoint)
    if view is None:
        return False
    roles = getattr(view, "required_roles", None)
    return roles is None or user.has_role(*roles)


def sections_for(user) -> list[tuple[str, object]]:
    """The navigation's sections (endpoint, label) that user may open, in order."""
    if user is None or not getattr(user, "is_authenticated", False):
        return []
    return [(endpoint, label) for endpoint, label in SECTIONS if may_open(user, endpoint)]


def landing(user) -> tuple[str, object] | None:
    """The first section user may open: where they land after signing in."""
    sections = sections_for(user)
    return sections[0] if sections else None


def landing_url(user) -> str:
    """The address of user's landing section (the sign-in page when there is none)."""
    first = landing(user)
    return url_for(first[0]) if first else url_for("accounts.login")


def object_route(bp, rule: str, load, *, methods=("GET",), roles=("planner",)):
    """A portal route of one of the carrier's objects.

    `load(**path values)` runs first and answers what the view gets: a tuple (positional
    arguments), a dict (keyword arguments) or one object. NotFound (or abort(404)) there makes
    another carrier's id a 404 whatever the method, before a POST's CSRF token is checked
    (400 when missing or wrong) and before anything changes. A POST is one unit of work
    (`portal_write`): committed once on a 2xx/3xx answer, rolled back otherwise."""
    from portal.extensions import csrf

    def decorate(view):
        written = portal_write(view)

        @wraps(view)
        def wrapper(**values):
            loaded = load(**values)
            call = view
            if request.method == "POST":
                csrf.protect()
                call = written
            if isinstance(loaded, tuple):
                return call(*loaded)
            if isinstance(loaded, dict):
                return call(**loaded)
            return call(loaded)

        guarded = role_required(*roles)(wrapper)
        csrf.exempt(guarded)  # checked inside, after the 404
        bp.add_url_rule(rule, view.__name__, guarded, methods=list(methods))
        return guarded

    return decorate
