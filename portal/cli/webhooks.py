"""Commands for webhooks: the delivery worker."""

from __future__ import annotations

import click
from flask import Flask

from portal.cli.base import emit, metrics_option, serve_metrics


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
    @click.option(
        "--lease",
        default=900,
        show_default=True,
        type=click.IntRange(1, 86400),
        help="seconds a pass holds what it claimed: a killed worker's claims are taken over "
        "after it. Keep it above the batch times WEBHOOKS_TIMEOUT, or a slow pass's deliveries "
        "may be posted twice (at least once, as always)",
    )
    @metrics_option
    def deliver_webhooks(once, interval, batch, lease, metrics_bind):
        """Post queued webhook deliveries to the carriers' endpoints, signed: the worker.

        Runs as DATABASE_URL (the app role, under row-level security), not as the owner.
        Several may run side by side."""
        from datetime import timedelta

        from flask import current_app

        from portal.webhooks.worker import main

        timeout = float(current_app.config.get("WEBHOOKS_TIMEOUT", 10.0))
        if lease < timeout:
            raise click.BadParameter(
                f"one post may take {timeout:g} s (WEBHOOKS_TIMEOUT): the lease must be longer",
                param_hint="--lease",
            )
        serve_metrics(metrics_bind)
        main(once=once, interval=interval, batch=batch, emit=emit, lease=timedelta(seconds=lease))
