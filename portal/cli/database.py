"""The PostgreSQL app role: granting it exactly what the app needs; the statements that
distribute the tables by carrier on Citus."""

from __future__ import annotations

import re
import sys

import click
from flask import Flask
from sqlalchemy import text

from portal.cli.base import admin_context, emit
from portal.extensions import db


def register(app: Flask) -> None:
    """The commands of this module, on app."""

    @app.cli.command("citus-sql")
    def citus_sql():
        """Print the statements that distribute the tables by carrier on Citus: carriers a
        reference table, every tenant table distributed by transporteur_id (co-located, in
        the order their foreign keys need). Run them as the owner on the coordinator."""
        for statement in citus_statements():
            click.echo(statement)

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
    # Read only: /readyz tells whether the schema is at the migrations' head.
    if db.session.scalar(text("SELECT to_regclass('public.alembic_version') IS NOT NULL")):
        db.session.execute(text(f"GRANT SELECT ON alembic_version TO {quoted}"))
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


def citus_statements() -> list[str]:
    """Referenced tables before the tables that refer to them (the metadata's order)."""
    from portal.models import TENANT_TABLES

    ordered = [t.name for t in db.metadata.sorted_tables if t.name in TENANT_TABLES]
    return [
        "SET citus.enable_unsafe_triggers = on;",  # the change-notice triggers
        "SELECT create_reference_table('transporteurs');",
        *(f"SELECT create_distributed_table('{name}', 'transporteur_id');" for name in ordered),
    ]
