"""Commands for webhooks: the delivery worker."""

from __future__ import annotations

import click
from flask import Flask

from portal.cli.base import emit


def register(app: Flask) -> None:
    """The commands of this module, on app."""

    @app.cli.command("deliver-webhooks")
    @click.option("--once", is_flag=True, help="deliver what is due now, then exit")
    @click.option(
        "--interval",
        default=2.0,
        show_default=True,
        type=click.FloatRange(0.1, 3600),
        help="seconds between passes when nothing is due",
    )
    @click.option("--batch", default=50, show_default=True, type=click.IntRange(1, 500))
    def deliver_webhooks(once, interval, batch):
        """Post queued webhook deliveries to the carriers' endpoints, signed: the worker.

        Runs as DATABASE_URL (the app role, under row-level security), not as the owner.
        Several may run side by side."""
        from portal.webhooks.worker import main

        main(once=once, interval=interval, batch=batch, emit=emit)
