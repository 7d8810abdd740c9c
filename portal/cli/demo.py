"""The demo data command."""

from __future__ import annotations

from flask import Flask

from portal.cli.base import admin_context, emit, fail
from portal.errors import DomainError
from portal.extensions import db


def register(app: Flask) -> None:
    """The commands of this module, on app."""

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
