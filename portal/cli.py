"""Admin commands: `flask --app wsgi <command>`. Each prints its result as one JSON line.

With DATABASE_ADMIN_URL set they run as that (owner) role; otherwise as DATABASE_URL.
"""

from __future__ import annotations

import re
import sys
import uuid
from contextlib import contextmanager

import click
import orjson
from flask import Flask, current_app
from sqlalchemy import text

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


def _run(carrier_id: uuid.UUID | None, action):
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


def register(app: Flask, factory) -> None:
    """The commands, on app; factory makes the owner's app for admin_context (handed in, so
    this module needs no import of the package that imports it)."""
    app.extensions["rijplan_factory"] = factory

    @app.cli.command("create-carrier")
    @click.option("--naam", required=True)
    @click.option("--tijdzone", default="Europe/Amsterdam", show_default=True)
    def create_carrier(naam: str, tijdzone: str):
        """Create a carrier (tenant)."""
        from portal.accounts.service import create_carrier as create

        _run(None, lambda: {"id": create(naam=naam, tijdzone=tijdzone).id})

    @app.cli.command("create-user")
    @carrier_option
    @click.option("--email", required=True)
    @click.option("--password", required=True)
    @click.option("--role", "rol", required=True, type=click.Choice(["planner", "author", "admin"]))
    @click.option("--naam", default="")
    def create_user(carrier, email, password, rol, naam):
        """Create a portal user."""
        from portal.accounts.service import create_user as create

        _run(
            carrier,
            lambda: {
                "id": create(
                    carrier_id=carrier, email=email, password=password, rol=rol, naam=naam
                ).id
            },
        )

    @app.cli.command("create-driver")
    @carrier_option
    @click.option("--naam", required=True)
    @click.option("--email", default=None)
    @click.option("--password", default=None)
    def create_driver(carrier, naam, email, password):
        """Create a driver; prints its id and user_token."""
        from portal.drivers.service import create_driver as create

        def action():
            driver = create(carrier_id=carrier, naam=naam, email=email, password=password)
            return {"id": driver.id, "user_token": driver.user_token}

        _run(carrier, action)

    @app.cli.command("create-vehicle")
    @carrier_option
    @click.option("--kenteken", required=True)
    @click.option("--omschrijving", default=None)
    def create_vehicle(carrier, kenteken, omschrijving):
        """Create a vehicle."""
        from portal.fleet.service import create_vehicle as create

        _run(
            carrier,
            lambda: {
                "id": create(carrier_id=carrier, kenteken=kenteken, omschrijving=omschrijving).id
            },
        )

    @app.cli.command("create-api-key")
    @carrier_option
    @click.option("--naam", required=True)
    @click.option(
        "--scopes",
        default=None,
        help="space-separated, e.g. 'tasks:read tasks:write' (default: every scope)",
    )
    def create_api_key(carrier, naam, scopes):
        """Create an API key for an integration; the key is shown this once only."""
        from portal.accounts.service import create_api_key as create

        def action():
            api_key, key = create(carrier_id=carrier, naam=naam, scopes=scopes)
            return {"id": api_key.id, "key": key, "scopes": api_key.scopes}

        _run(carrier, action)

    @app.cli.command("billing-backfill")
    @carrier_option
    @click.option(
        "--sinds",
        "since",
        type=click.DateTime(formats=["%Y-%m-%d"]),
        default=None,
        help="only tasks completed on or after this day (the carrier's time zone)",
    )
    @click.option("--dry-run", is_flag=True, help="list the tasks, make no lines")
    def billing_backfill(carrier, since, dry_run):
        """Billing lines for completed tasks that have none: tasks completed on the board or
        by the driver before every completion made its line. Check with --dry-run first:
        work already invoiced by hand should not be billed twice."""
        from portal.accounts.service import carrier_zone
        from portal.billing import service as billing
        from portal.types import iso, period_bound

        def action():
            start = period_bound(since.date(), carrier_zone(carrier), end=False) if since else None
            tasks = billing.completed_without_line(carrier_id=carrier, since=start)
            listed = [
                {"id": task.id, "naam": task.naam, "afgerond_op": iso(task.afgerond_op)}
                for task in tasks
            ]
            if not dry_run:
                for task in tasks:  # as its completion would have made it
                    billing.line_for_completion(carrier_id=carrier, task=task)
            return {"dry_run": dry_run, "lines": 0 if dry_run else len(listed), "tasks": listed}

        _run(carrier, action)

    @app.cli.command("tacho-reread")
    @carrier_option
    @click.option("--alle", "everything", is_flag=True, help="also files already read")
    def tacho_reread(carrier, everything):
        """Read the carrier's stored tachograph downloads in full: files stored before
        downloads were read (or, with --alle, every file), so their days count for driving
        and rest times. A file the reader refuses is listed, not fatal."""
        from portal.tacho import service as tacho

        def action():
            read, refused, days = [], [], 0
            for row in tacho.files_to_read(carrier_id=carrier, everything=everything):
                try:
                    with db.session.begin_nested():
                        days += tacho.reread(carrier_id=carrier, tacho_file_id=row.id)
                    read.append(str(row.id))
                except tacho.Refused as error:
                    refused.append(
                        {"id": str(row.id), "reason": error.reason, "detail": str(error)}
                    )
            return {"read": len(read), "days": days, "refused": refused}

        _run(carrier, action)

    @app.cli.command("create-activation-code")
    @click.option("--user-token", required=True)
    @click.option(
        "--transporteur",
        "carrier",
        type=click.UUID,
        default=None,
        help="the driver's carrier (found from the user_token when omitted)",
    )
    def create_activation_code(user_token, carrier):
        """Create a one-time code that pairs a driver's phone."""
        from portal.accounts.tokens import create_activation_code as create
        from portal.drivers.service import carrier_of_user_token

        with admin_context():
            carrier_id = carrier or carrier_of_user_token(user_token)
        if carrier_id is None:
            click.echo("error: no driver with this user_token", err=True)
            sys.exit(1)

        def action():
            code, expires_at = create(carrier_id=carrier_id, user_token=user_token)
            return {"code": code, "expires_at": expires_at}

        _run(carrier_id, action)

    @app.cli.command("import-questionnaire")
    @carrier_option
    @click.argument("file", type=click.File("rb"))
    @click.option("--activate", is_flag=True, help="make it the active one for its activity type")
    def import_questionnaire(carrier, file, activate):
        """Check and store a QuestionnaireDefinition (JSON file) as a new revision."""
        from portal.questionnaires.service import publish

        try:
            doc = orjson.loads(file.read())
        except orjson.JSONDecodeError as exc:
            click.echo(f"error: {file.name} is not valid JSON: {exc}", err=True)
            sys.exit(1)

        def action():
            row = publish(carrier_id=carrier, doc=doc, activate=activate)
            return {
                "id": row.id,
                "questionnaire_id": row.questionnaire_id,
                "is_active": row.is_active,
            }

        _run(carrier, action)

    @app.cli.command("export-questionnaire")
    @carrier_option
    @click.argument("questionnaire_id")
    def export_questionnaire(carrier, questionnaire_id):
        """Print the active (else newest) revision's definition."""
        from portal.questionnaires.service import latest_revision

        def action():
            return orjson.loads(
                latest_revision(carrier_id=carrier, questionnaire_id=questionnaire_id).definition
            )

        _run(carrier, action)

    @app.cli.command("send-notifications")
    @click.option("--once", is_flag=True, help="push what is due now, then exit")
    @click.option(
        "--interval",
        default=5.0,
        show_default=True,
        type=click.FloatRange(0.1, 3600),
        help="seconds between passes when nothing is due",
    )
    @click.option("--batch", default=100, show_default=True, type=click.IntRange(1, 1000))
    def send_notifications(once, interval, batch):
        """Push queued messages to the drivers' devices (Web Push): the outbox worker.

        Runs as DATABASE_URL (the app role, under row-level security), not as the owner."""
        from portal.messages.worker import main

        main(once=once, interval=interval, batch=batch, emit=emit)

    @app.cli.command("generate-vapid-keys")
    @click.option("--env", "as_env", is_flag=True, help="print lines for an environment file")
    def generate_vapid_keys(as_env):
        """A new VAPID key pair for Web Push; put VAPID_PRIVATE_KEY in the environment."""
        from portal.messages.push import generate_vapid_keys as generate

        private, public = generate()
        if as_env:
            click.echo(f"VAPID_PRIVATE_KEY={private}")
            click.echo(f"# applicationServerKey (GET /api/v1/webpush serves it): {public}")
            return
        emit({"VAPID_PRIVATE_KEY": private, "VAPID_PUBLIC_KEY": public})

    @app.cli.command("seed-demo")
    def seed_demo():
        """Two demo carriers with users, drivers, vehicles, questionnaires and a week of tasks."""
        from portal.demo import seed

        with admin_context():
            try:
                logins = seed()
                db.session.commit()
            except DomainError as error:
                db.session.rollback()
                fail(error)
        emit(logins)

    @app.cli.command("grant-app-role")
    @click.argument("role")
    def grant_app_role(role):
        """Grant an existing PostgreSQL role exactly what the app needs (run as the owner)."""
        if not re.fullmatch(r"[a-z_][a-z0-9_]{0,62}", role):
            click.echo("error: role names are lower-case letters, digits and _", err=True)
            sys.exit(1)
        with admin_context():
            if db.engine.dialect.name != "postgresql":
                click.echo("error: grant-app-role is for PostgreSQL", err=True)
                sys.exit(1)
            result = grant(role)
            db.session.commit()
        emit(result)


def grant(role: str) -> dict:
    """GRANT the app role its privileges; refuse a role that would bypass row-level security."""
    row = db.session.execute(
        text("SELECT rolsuper, rolbypassrls FROM pg_roles WHERE rolname = :r"), {"r": role}
    ).one_or_none()
    if row is None:
        click.echo(f"error: role {role!r} does not exist; CREATE ROLE {role} LOGIN first", err=True)
        sys.exit(1)
    if row.rolsuper or row.rolbypassrls:
        click.echo(f"error: role {role!r} is a superuser or has BYPASSRLS", err=True)
        sys.exit(1)
    owner = db.session.scalar(
        text("SELECT count(*) FROM pg_tables WHERE schemaname = 'public' AND tableowner = :r"),
        {"r": role},
    )
    if owner:
        click.echo(f"error: role {role!r} owns tables; the app role must not", err=True)
        sys.exit(1)
    quoted = f'"{role}"'  # validated above: a plain identifier
    db.session.execute(text(f"GRANT USAGE ON SCHEMA public TO {quoted}"))
    tables = [
        name
        for name in db.session.scalars(
            text("SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY 1")
        )
        if name != "alembic_version"
    ]
    for table in tables:
        db.session.execute(text(f'GRANT SELECT, INSERT, UPDATE, DELETE ON "{table}" TO {quoted}'))
    db.session.execute(text(f"GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO {quoted}"))
    # The owner's look-up functions (sign-in before the carrier is known, the message
    # worker's due carriers): they answer exact matches only.
    functions = list(
        db.session.scalars(
            text(
                "SELECT p.oid::regprocedure::text FROM pg_proc p "
                "JOIN pg_namespace n ON n.oid = p.pronamespace "
                "WHERE n.nspname = 'public' AND p.proname LIKE 'rijplan\\_%' AND p.prosecdef "
                "ORDER BY 1"
            )
        )
    )
    for function in functions:
        db.session.execute(text(f"GRANT EXECUTE ON FUNCTION {function} TO {quoted}"))
    return {"role": role, "tables": tables, "functions": functions}
