"""Commands for messages: the Web Push outbox worker and its VAPID keys."""

from __future__ import annotations

import click
from flask import Flask

from portal.cli.base import emit, metrics_option, serve_metrics


def register(app: Flask) -> None:
    """The commands of this module, on app."""

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
    @click.option(
        "--lease",
        default=300,
        show_default=True,
        type=click.IntRange(10, 86400),
        help="seconds a pass holds what it claimed: a killed worker's claims are taken over "
        "after it",
    )
    @metrics_option
    def send_notifications(once, interval, batch, lease, metrics_bind):
        """Push queued messages to the drivers' devices (Web Push): the outbox worker.

        Runs as DATABASE_URL (the app role, under row-level security), not as the owner."""
        from portal.messages.worker import main

        serve_metrics(metrics_bind)
        from datetime import timedelta

        main(once=once, interval=interval, batch=batch, emit=emit, lease=timedelta(seconds=lease))

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
