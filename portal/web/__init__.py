"""Portal plumbing: locale, security headers, htmx fragments, error pages, startup checks."""

from __future__ import annotations

import contextlib
import logging
import re

import psycopg
from flask import (
    Flask,
    Request,
    Response,
    abort,
    g,
    redirect,
    render_template,
    request,
    session,
    url_for,
)
from flask.sessions import SecureCookieSessionInterface
from flask_login import current_user
from sqlalchemy import text
from sqlalchemy.exc import OperationalError, SQLAlchemyError
from sqlalchemy.orm.exc import StaleDataError
from werkzeug.exceptions import (
    BadRequest,
    Conflict,
    HTTPException,
    ServiceUnavailable,
    default_exceptions,
)
from werkzeug.routing import BaseConverter

from portal.accounts import service as accounts
from portal.errors import DomainError, problem, problem_from_domain
from portal.extensions import db, login_manager
from portal.labels import (
    activity_label,
    duur,
    money,
    number,
    price_basis,
    price_reason,
    unit,
    window_name,
)
from portal.navigation import SECTION_OF_BLUEPRINT
from portal.tenancy import activate

logger = logging.getLogger(__name__)

CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'self'; "
    "form-action 'self'; frame-ancestors 'none'"
)


def content_security_policy(tile_url: str = "") -> str:
    """The CSP; with a map tile server configured, its origin may also serve images."""
    origin = tile_origin(tile_url)
    if not origin:
        return CSP
    return CSP.replace("img-src 'self' data:;", f"img-src 'self' data: {origin};")


def tile_origin(url: str) -> str | None:
    """The CSP source of a tile URL template: its scheme and host, a placeholder label
    (`{s}.tile.example.org`) as a wildcard (`*.tile.example.org`); None when unusable."""
    scheme, sep, rest = (url or "").partition("://")
    host = rest.split("/", 1)[0]
    if not sep or scheme not in ("https", "http") or not host or "@" in host:
        return None
    labels = host.split(".")
    templated = [i for i, label in enumerate(labels) if "{" in label or "}" in label]
    if templated:
        labels = ["*", *labels[templated[-1] + 1 :]]
        if len(labels) < 3:
            return None  # a wildcard over a whole registrable domain or more: refuse
    if not all(label == "*" or re.fullmatch(r"[A-Za-z0-9-]+(:\d+)?", label) for label in labels):
        return None
    return f"{scheme}://{'.'.join(labels)}"


def select_locale() -> str:
    """The user's chosen language, else the browser's preference, else Dutch."""
    languages = ("nl", "en")
    chosen = session.get("taal")
    if chosen in languages:
        return chosen
    if current_user and getattr(current_user, "is_authenticated", False) and current_user.taal:
        return current_user.taal
    return request.accept_languages.best_match(languages) or "nl"


def select_timezone() -> str:
    """Times show in the carrier's time zone."""
    if current_user and getattr(current_user, "is_authenticated", False):
        return accounts.carrier_zone(current_user.transporteur_id).key
    return "Europe/Amsterdam"


class UserTokenConverter(BaseConverter):
    """A driver's user_token in a path: URL-safe characters only; anything else is a 404."""

    regex = r"[A-Za-z0-9_-]{1,64}"


def register_converters(app: Flask) -> None:
    app.url_map.converters["user_token"] = UserTokenConverter


def is_fragment(req: Request | None = None) -> bool:
    """htmx asks for a fragment: HX-Request set and not a boosted navigation."""
    req = req or request
    return req.headers.get("HX-Request") == "true" and req.headers.get("HX-Boosted") != "true"


def errors_at_fields(form, errors: list[dict], messages: dict) -> list[str]:
    """A service's {field, message} errors at the form's fields, worded by messages
    ({(field, message): text}) where it knows them; the rest in a list for the form's top."""
    general = []
    for item in errors:
        name, message = item.get("field"), item.get("message")
        text = messages.get((name, message))
        if name in form and name != "csrf_token":
            form[name].errors = [*form[name].errors, str(text or message)]
        else:
            general.append(str(text or f"{name}: {message}"))
    return general


def _wants_problem() -> bool:
    return request.path.startswith("/api/")


class SessionInterface(SecureCookieSessionInterface):
    """The portal's cookie session; the JSON API has none (it knows bearer tokens only), so
    its requests do not pay for a signing serializer they never use."""

    def open_session(self, app: Flask, request: Request):
        if request.path.startswith("/api/"):
            return self.make_null_session(app)
        return super().open_session(app, request)


# The problem type (a stable code) of an HTTP-level refusal a client can act on; others
# keep about:blank, which RFC 9457 reserves for "nothing beyond the status".
HTTP_PROBLEM_TYPES = {404: "not-found", 405: "method-not-allowed", 413: "too-large"}


def init_app(app: Flask) -> None:
    app.session_interface = SessionInterface()
    login_manager.login_view = "accounts.login"
    login_manager.login_message = None
    login_manager.session_protection = "basic"

    @login_manager.unauthorized_handler
    def _unauthorized():
        # A signed-out page that polls or swaps with htmx (the board's live refresh, the
        # map) must not swap the sign-in form into a table: htmx navigates the whole page.
        target = url_for("accounts.login", next=request.full_path.rstrip("?"))
        if request.headers.get("HX-Request") == "true":
            return Response(status=401, headers={"HX-Redirect": target})
        return redirect(target)

    @login_manager.user_loader
    def _load_user(login_id: str):
        user = accounts.load_user(login_id)
        if user is not None:
            activate(db.session, user.transporteur_id)
        return user

    @app.before_request
    def _refuse_nul():
        # PostgreSQL text cannot hold NUL bytes: refuse them at the door, never as a 500.
        values = list(request.args.values())
        # Only small url-encoded forms: a multipart upload is not parsed before its handler
        # has checked who sends it (its text fields are validated there).
        if request.mimetype == "application/x-www-form-urlencoded":
            values += list(request.form.values())
        if any("\x00" in value for value in values):
            if _wants_problem():
                return problem(400, "Bad request", "NUL characters are not allowed.")
            abort(400)
        return None

    security = {
        "Content-Security-Policy": content_security_policy(app.config.get("MAP_TILE_URL", "")),
        "X-Content-Type-Options": "nosniff",
        "Referrer-Policy": "same-origin",
        "X-Frame-Options": "DENY",
        # Nothing of the portal asks for these; an injected script gets no prompt either.
        "Permissions-Policy": "camera=(), microphone=(), geolocation=(), payment=(), usb=()",
    }
    if app.config.get("RIJPLAN_ENV") == "production":
        # Production is served over TLS only (README): browsers stop trying plain http.
        security["Strict-Transport-Security"] = "max-age=31536000; includeSubDomains"
    app.extensions["security_headers"] = security  # also sent where Flask is not asked

    @app.after_request
    def _headers(response):
        for name, value in security.items():
            response.headers.setdefault(name, value)
        if not request.path.startswith(("/api/", "/static/")):
            response.vary.add("HX-Request")
            response.headers.setdefault("Cache-Control", "no-store")
        elif request.path.startswith("/api/"):
            # A carrier's data stays out of shared and disk caches; the lists that a phone
            # may keep and ask again (ETag) say so themselves (private, no-cache).
            response.headers.setdefault("Cache-Control", "no-store")
        return response

    @app.errorhandler(HTTPException)
    def _http_error(error: HTTPException):
        if _wants_problem():
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

    @app.errorhandler(DomainError)
    def _domain_error(error: DomainError):
        # A service's refusal that no view caught: another carrier's or a gone object (404),
        # a role that may not (403), a state that does not allow it (409)...
        db.session.rollback()
        if _wants_problem():
            return problem_from_domain(error)
        return _http_error(default_exceptions.get(error.status, BadRequest)(error.detail))

    @app.errorhandler(OperationalError)
    @app.errorhandler(psycopg.OperationalError)  # a pool's connect in reads.read, unwrapped
    def _database_down(error: Exception):
        # The database does not answer (restarting, failing over, out of connections) or
        # asked to retry (a deadlock, a serialization failure): nothing was saved; try again.
        # The pool drops the broken connection, so the next request reconnects by itself.
        logger.warning("database unavailable on %s %s: %s", request.method, request.path, error)
        with contextlib.suppress(SQLAlchemyError):
            db.session.rollback()
        headers = {"Retry-After": "5"}
        if _wants_problem():
            return problem(
                503,
                "Service unavailable",
                "The database is not available right now; nothing was saved. Try again.",
                type_="service-unavailable",
                headers=headers,
                code="database_unavailable",
            )
        return render_template("error.html", error=ServiceUnavailable()), 503, headers

    @app.errorhandler(StaleDataError)
    def _lost_race(error: StaleDataError):
        # Another request changed the row between this one's read and its write (a version
        # counter refused the UPDATE): a conflict to retry, never a 500.
        logger.info("lost a concurrent update on %s %s: %s", request.method, request.path, error)
        db.session.rollback()
        return _http_error(
            Conflict("The data changed meanwhile (another request saved it first); retry.")
        )

    @app.errorhandler(Exception)
    def _unexpected(error: Exception):
        logger.exception("unhandled error on %s %s", request.method, request.path)
        db.session.rollback()
        if _wants_problem():
            return problem(500, "Internal server error", "Something went wrong on our side.")
        return render_template("error.html", error=None), 500

    app.add_template_filter(activity_label, "activity_label")
    app.add_template_filter(duur, "duur")
    app.add_template_filter(money, "money")
    app.add_template_filter(number, "number")
    app.add_template_filter(price_reason, "price_reason")
    app.add_template_filter(price_basis, "price_basis")
    app.add_template_filter(unit, "unit")
    app.add_template_filter(window_name, "window_name")

    @app.context_processor
    def _globals():
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

    @app.teardown_appcontext
    def _forget_scope(_exc):
        g.pop("carrier_id", None)

    @app.teardown_appcontext  # runs before Flask-SQLAlchemy's own (registered earlier)
    def _end_session(_exc):
        # The ROLLBACK that ends the request's session fails on a connection the database
        # dropped meanwhile (a restart): the answer is made by then, so it must not be lost
        # to that. The broken connection is discarded; the next request gets a new one.
        try:
            db.session.remove()
        except SQLAlchemyError as error:
            logger.warning("ending the request's session failed: %s", error)
            with contextlib.suppress(SQLAlchemyError):
                db.session.remove()

    warn_if_role_bypasses_rls(app)


def warn_if_role_bypasses_rls(app: Flask) -> None:
    """Warn at start when the app's PostgreSQL role (DATABASE_URL) would not be held by
    row-level security. Not for the owner's connection that admin commands open on
    DATABASE_ADMIN_URL (cli.admin_context): bypassing is what that one is for."""
    if app.config.get("ADMIN_CONNECTION"):
        return
    if not app.config["SQLALCHEMY_DATABASE_URI"].startswith("postgresql"):
        return
    with app.app_context():
        try:
            row = db.session.execute(
                text(
                    "SELECT r.rolsuper, r.rolbypassrls, "
                    "EXISTS (SELECT 1 FROM pg_tables t WHERE t.schemaname = 'public' "
                    "AND t.tableowner = current_user AND t.tablename = 'taken') AS owner "
                    "FROM pg_roles r WHERE r.rolname = current_user"
                )
            ).one()
        except SQLAlchemyError as exc:
            logger.warning("could not check the database role: %s", exc.__class__.__name__)
            return
        finally:
            db.session.remove()
    if row.rolsuper or row.rolbypassrls or row.owner:
        logger.warning(
            "DATABASE_URL connects as a role that bypasses row-level security "
            "(superuser, BYPASSRLS or table owner). Use an app role: see "
            "'flask --app wsgi grant-app-role'."
        )
