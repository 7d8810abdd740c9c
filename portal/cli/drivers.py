"""Commands for drivers: creating one, pairing a phone."""

from __future__ import annotations

import sys

import click
from flask import Flask

from portal.cli.base import admin_context, carrier_option, run


def register(app: Flask) -> None:
    """The commands of this module, on app."""

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

        run(carrier, action)

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
        from portal.drivers.pairing import create_activation_code as create
        from portal.drivers.service import carrier_of_user_token

        with admin_context():
            carrier_id = carrier or carrier_of_user_token(user_token)
        if carrier_id is None:
            click.echo("error: no driver with this user_token", err=True)
            sys.exit(1)

        def action():
            code, expires_at = create(carrier_id=carrier_id, user_token=user_token)
            return {"code": code, "expires_at": expires_at}

        run(carrier_id, action)
