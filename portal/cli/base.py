"""What every command shares: one JSON line of output, errors on stderr, the owner's
database (admin_context), and running an action as a carrier with one commit."""

from __future__ import annotations

import sys
import uuid
from contextlib import contextmanager

import click
import orjson
from flask import current_app

from portal.errors import DomainError, ValidationFailed
from portal.extensions import db
from portal.tenancy import carrier_scope


def emit(data: dict) -> None:
    click.echo(orjson.dumps(data, default=str).decode())


def fail(error: DomainError) -> None:
    lines = [error.detail]
    if isinstance(error, ValidationFailed):
        lines = [f"{e['field']}: {e['message']}" for e in error.errors]
    for line in lines:
        click.echo(f"error: {line}", err=True)
    sys.exit(1)


INHERITED = ("SECRET_KEY", "INSTANCE_PATH", "PASSWORD_HASH_PROFILE", "TESTING")


@contextmanager
def admin_context():
    """An app context on the admin (owner) database URL, when one is configured."""
    url = current_app.config.get("DATABASE_ADMIN_URL")
    if not url:
        yield
        return
    create_app = current_app.extensions["rijplan_factory"]
    inherited = {key: current_app.config[key] for key in INHERITED if key in current_app.config}
    # The owner's connection bypasses row-level security by design: the start-up check of
    # DATABASE_URL's role (web.warn_if_role_bypasses_rls) is not about this one.
    admin = {**inherited, "SQLALCHEMY_DATABASE_URI": url, "ADMIN_CONNECTION": True}
    with create_app(admin).app_context():
        try:
            yield
        finally:
            db.session.remove()
            db.engine.dispose()


def carrier_option(fn):
    return click.option(
        "--transporteur", "carrier", required=True, type=click.UUID, help="the carrier's id"
    )(fn)


def run(carrier_id: uuid.UUID | None, action):
    """Run action as carrier_id on the admin database, commit, and print its result."""
    with admin_context():
        try:
            with carrier_scope(db.session, carrier_id):
                if carrier_id is not None:
                    from portal.accounts.service import get_carrier

                    get_carrier(carrier_id=carrier_id)
                result = action()
                db.session.commit()
        except DomainError as error:
            db.session.rollback()
            fail(error)
        emit(result)


metrics_option = click.option(
    "--metrics-bind",
    metavar="HOST:PORT",
    help="serve this worker's metrics (rijplan_worker_attempts_total) there, for Prometheus; "
    "an internal address: it asks no token",
)


def serve_metrics(bind: str | None) -> None:
    """A worker's --metrics-bind: its metrics on a thread of their own."""
    if not bind:
        return
    from portal import counters

    try:
        counters.serve(bind)
    except (ValueError, OSError) as error:
        raise click.BadParameter(str(error), param_hint="--metrics-bind") from None
