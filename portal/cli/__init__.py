"""Admin commands: `flask --app wsgi <command>`. Each prints its result as one JSON line.

With DATABASE_ADMIN_URL set they run as that (owner) role; otherwise as DATABASE_URL.
The commands live by domain in this package; register() only wires them.
"""

from __future__ import annotations

from flask import Flask

from portal.cli import (
    accounts,
    backups,
    billing,
    database,
    demo,
    drivers,
    fleet,
    messages,
    planner,
    questionnaires,
    series,
    tacho,
    webhooks,
)
from portal.cli.database import grant

__all__ = ["grant", "register"]


def register(app: Flask, factory) -> None:
    """The commands, on app; factory makes the owner's app for admin_context (handed in, so
    this package needs no import of the package that imports it)."""
    app.extensions["rijplan_factory"] = factory
    for commands in (
        accounts,
        drivers,
        fleet,
        billing,
        tacho,
        questionnaires,
        messages,
        planner,
        webhooks,
        series,
        demo,
        database,
        backups,
    ):
        commands.register(app)
