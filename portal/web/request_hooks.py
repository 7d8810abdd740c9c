"""What the portal does around every request: who is signed in (and what a signed-out page
is answered), NUL characters refused at the door, the security headers, the names every
template uses, and the request's session ended however the database fares."""

from __future__ import annotations

import contextlib
import logging

from flask import (
    Flask,
    Request,
    Response,
    abort,
    current_app,
    g,
    redirect,
    request,
    session,
    url_for,
)
from flask_login import current_user
from sqlalchemy.exc import SQLAlchemyError

from portal.accounts import service as accounts
from portal.errors import problem
from portal.extensions import db
from portal.navigation import SECTION_OF_BLUEPRINT
from portal.tenancy import activate
from portal.web.errors import wants_problem

logger = logging.getLogger("portal.web")


def select_locale() -> str:
    """The user's chosen language, else the browser's preference, else Dutch."""
    languages = ("nl", "en")
    chosen = session.get("taal")
    if chosen in languages:
        return chosen
    if current_user and getattr(current_user, "is_authenticated", False) and current_user.taal:
        return current_user.taal
    return request.accept_languages.best_match(languages) or "nl"


def is_fragment(req: Request | None = None) -> bool:
    """htmx asks for a fragment: HX-Request set and not a boosted navigation."""
    req = req or request
    return req.headers.get("HX-Request") == "true" and req.headers.get("HX-Boosted") != "true"


def unauthorized():
    # A signed-out page that polls or swaps with htmx (the board's live refresh, the
    # map) must not swap the sign-in form into a table: htmx navigates the whole page.
    target = url_for("accounts.login", next=request.full_path.rstrip("?"))
    if request.headers.get("HX-Request") == "true":
        return Response(status=401, headers={"HX-Redirect": target})
    return redirect(target)


def load_user(login_id: str):
    user = accounts.load_user(login_id)
    if user is not None:
        activate(db.session, user.transporteur_id)
    return user


def refuse_nul():
    # PostgreSQL text cannot hold NUL bytes: refuse them at the door, never as a 500.
    values = list(request.args.values())
    # Only small url-encoded forms: a multipart upload is not parsed before its handler
    # has checked who sends it (its text fields are validated there).
    if request.mimetype == "application/x-www-form-urlencoded":
        values += list(request.form.values())
    if any("\x00" in value for value in values):
        if wants_problem():
            return problem(400, "Bad request", "NUL characters are not allowed.")
        abort(400)
    return None


def security_headers(app: Flask, policy: str) -> dict[str, str]:
    """The headers every answer carries (`policy`: the content security policy)."""
    security = {
        "Content-Security-Policy": policy,
        "X-Content-Type-Options": "nosniff",
        "Referrer-Policy": "same-origin",
        "X-Frame-Options": "DENY",
        # Nothing of the portal asks for these; an injected script gets no prompt either.
        "Permissions-Policy": "camera=(), microphone=(), geolocation=(), payment=(), usb=()",
    }
    if app.config.get("RIJPLAN_ENV") == "production":
        # Production is served over TLS only (README): browsers stop trying plain http.
        security["Strict-Transport-Security"] = "max-age=31536000; includeSubDomains"
    return security


def add_headers(response):
    for name, value in current_app.extensions["security_headers"].items():
        response.headers.setdefault(name, value)
    if not request.path.startswith(("/api/", "/static/")):
        response.vary.add("HX-Request")
        response.headers.setdefault("Cache-Control", "no-store")
    elif request.path.startswith("/api/"):
        # A carrier's data stays out of shared and disk caches; the lists that a phone
        # may keep and ask again (ETag) say so themselves (private, no-cache).
        response.headers.setdefault("Cache-Control", "no-store")
    return response


def template_globals() -> dict:
    from portal.accounts.permissions import landing, may_open, sections_for

    carrier_name = None
    if current_user and current_user.is_authenticated:
        carrier_name = accounts.current_carrier_of(current_user.transporteur_id).naam
    return {
        # Only what the user's role may open; the first is where they land.
        "sections": sections_for(current_user),
        "landing": landing(current_user),
        # Links to a page the role may not open are left out (an author reads answers,
        # not the task pages they belong to).
        "may_open": lambda endpoint: bool(
            current_user and current_user.is_authenticated and may_open(current_user, endpoint)
        ),
        "is_fragment": is_fragment,
        "section_of": lambda blueprint: SECTION_OF_BLUEPRINT.get(blueprint, blueprint),
        "current_locale": select_locale(),
        "carrier_name": carrier_name,
    }


def forget_scope(_exc) -> None:
    g.pop("carrier_id", None)


def end_session(_exc) -> None:
    # The ROLLBACK that ends the request's session fails on a connection the database
    # dropped meanwhile (a restart): the answer is made by then, so it must not be lost
    # to that. The broken connection is discarded; the next request gets a new one.
    try:
        db.session.remove()
    except SQLAlchemyError as error:
        logger.warning("ending the request's session failed: %s", error)
        with contextlib.suppress(SQLAlchemyError):
            db.session.remove()
