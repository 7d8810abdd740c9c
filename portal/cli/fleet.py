"""Commands for vehicles."""

from __future__ import annotations

import click
from flask import Flask

from portal.cli.base import carrier_option, run


def register(app: Flask) -> None:
    """The commands of this module, on app."""

    @app.cli.command("create-vehicle")
    @carrier_option
    @click.option("--kenteken", required=True)
    @click.option("--omschrijving", default=None)
    def create_vehicle(carrier, kenteken, omschrijving):
        """Create a vehicle."""
        from portal.fleet.service import create_vehicle as create

        run(
            carrier,
            lambda: {
                "id": create(carrier_id=carrier, kenteken=kenteken, omschrijving=omschrijving).id
            },
        )
