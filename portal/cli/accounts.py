"""Commands for carriers, portal users and API keys."""

from __future__ import annotations

import click
from flask import Flask

from portal.cli.base import carrier_option, run


def register(app: Flask) -> None:
    """The commands of this module, on app."""

    @app.cli.command("create-carrier")
    @click.option("--naam", required=True)
    @click.option("--tijdzone", default="Europe/Amsterdam", show_default=True)
    def create_carrier(naam: str, tijdzone: str):
        """Create a carrier (tenant)."""
        from portal.accounts.service import create_carrier as create

        run(None, lambda: {"id": create(naam=naam, tijdzone=tijdzone).id})

    @app.cli.command("create-user")
    @carrier_option
    @click.option("--email", required=True)
    @click.option("--password", required=True)
    @click.option("--role", "rol", required=True, type=click.Choice(["planner", "author", "admin"]))
    @click.option("--naam", default="")
    def create_user(carrier, email, password, rol, naam):
        """Create a portal user."""
        from portal.accounts.service import create_user as create

        run(
            carrier,
            lambda: {
                "id": create(
                    carrier_id=carrier, email=email, password=password, rol=rol, naam=naam
                ).id
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

        run(carrier, action)
