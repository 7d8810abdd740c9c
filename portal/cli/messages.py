"""Commands for messages: the Web Push outbox worker and its VAPID keys."""

from __future__ import annotations

import click
from flask import Flask

from portal.cli.base import emit, metrics_option, serve_metrics
from portal.outbox.commands import worker_options


def register(app: Flask) -> None:
    """The commands of this module, on app."""

    @app.cli.command("send-notifications")
    @worker_options(doing="push", interval=5.0, batch=100, most=1000, lease=300, least_lease=10)
    @metrics_option
    def send_notifications(run, metrics_bind):
        """Push queued messages to the drivers' devices (Web Push): the outbox worker.

        Runs as DATABASE_URL (the app role, under row-level security), not as the owner."""
        from portal.messages.worker import main

        serve_metrics(metrics_bind)
        main(run, emit=emit)

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
