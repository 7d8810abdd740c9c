"""Commands for webhooks: the delivery worker."""

from __future__ import annotations

import click
from flask import Flask

from portal.cli.base import emit, metrics_option, serve_metrics
from portal.outbox.commands import worker_options


def register(app: Flask) -> None:
    """The commands of this module, on app."""

    @app.cli.command("deliver-webhooks")
    @worker_options(
        doing="deliver",
        interval=2.0,
        batch=50,
        most=500,
        lease=900,
        least_lease=1,
        lease_note=". Keep it above the batch times WEBHOOKS_TIMEOUT, or a slow pass's "
        "deliveries may be posted twice (at least once, as always)",
    )
    @metrics_option
    def deliver_webhooks(run, metrics_bind):
        """Post queued webhook deliveries to the carriers' endpoints, signed: the worker.

        Runs as DATABASE_URL (the app role, under row-level security), not as the owner.
        Several may run side by side."""
        from flask import current_app

        from portal.webhooks.worker import main

        timeout = float(current_app.config.get("WEBHOOKS_TIMEOUT", 10.0))
        if run.lease.total_seconds() < timeout:
            raise click.BadParameter(
                f"one post may take {timeout:g} s (WEBHOOKS_TIMEOUT): the lease must be longer",
                param_hint="--lease",
            )
        serve_metrics(metrics_bind)
        main(run, emit=emit)
