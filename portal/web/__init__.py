"""Portal plumbing: locale, security headers, htmx fragments, error pages, startup checks.

`init_app` connects what runs around every request (`request_hooks`: sign-in, NUL refusal,
security headers, template names, the session's end) and the error answers (`errors`);
`kit` is what the domains' pages share (who asks, which carrier, paging, moments, errors at
a form's fields)."""

from __future__ import annotations

import logging
import re

from flask import Flask, Request
from flask.sessions import SecureCookieSessionInterface
from flask_login import current_user
from sqlalchemy import text
from sqlalchemy.exc import SQLAlchemyError
from werkzeug.routing import BaseConverter

from portal.accounts import service as accounts
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
from portal.web import request_hooks
from portal.web.errors import register_error_handlers
from portal.web.request_hooks import is_fragment, select_locale

__all__ = ["is_fragment", "money", "select_locale"]

TEMPLATE_FILTERS = {
    "activity_label": activity_label,
    "duur": duur,
    "money": money,
    "number": number,
    "price_reason": price_reason,
    "price_basis": price_basis,
    "unit": unit,
    "window_name": window_name,
}

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


class SessionInterface(SecureCookieSessionInterface):
    """The portal's cookie session; the JSON API has none (it knows bearer tokens only), so
    its requests do not pay for a signing serializer they never use."""

    def open_session(self, app: Flask, request: Request):
        if request.path.startswith("/api/"):
            return self.make_null_session(app)
        return super().open_session(app, request)


def init_app(app: Flask) -> None:
    """Connect the portal's request hooks, error handlers and template filters to the app."""
    app.session_interface = SessionInterface()
    login_manager.login_view = "accounts.login"
    login_manager.login_message = None
    login_manager.session_protection = "basic"
    login_manager.unauthorized_handler(request_hooks.unauthorized)
    login_manager.user_loader(request_hooks.load_user)
    app.before_request(request_hooks.refuse_nul)
    policy = content_security_policy(app.config.get("MAP_TILE_URL", ""))
    # also sent where Flask is not asked
    app.extensions["security_headers"] = request_hooks.security_headers(app, policy)
    app.after_request(request_hooks.add_headers)
    register_error_handlers(app)
    for name, template_filter in TEMPLATE_FILTERS.items():
        app.add_template_filter(template_filter, name)
    app.context_processor(request_hooks.template_globals)
    app.teardown_appcontext(request_hooks.forget_scope)
    # runs before Flask-SQLAlchemy's own (registered earlier)
    app.teardown_appcontext(request_hooks.end_session)
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
