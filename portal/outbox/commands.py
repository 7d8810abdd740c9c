"""The options every outbox worker command takes (--once, --interval, --batch, --lease),
read into a `worker.Run`."""

from __future__ import annotations

import functools
from collections.abc import Callable
from datetime import timedelta

import click

from portal.outbox.worker import Run


def worker_options(
    *,
    doing: str,
    interval: float,
    batch: int,
    most: int,
    lease: int,
    least_lease: int,
    lease_note: str = "",
) -> Callable:
    """The worker's options (defaults: interval seconds between idle passes, batch entries
    per pass up to most, lease seconds of at least least_lease); the command gets them as
    one argument, `run`. `doing` says what --once does ("push", "deliver")."""
    options = (
        click.option("--once", is_flag=True, help=f"{doing} what is due now, then exit"),
        click.option(
            "--interval",
            default=interval,
            show_default=True,
            type=click.FloatRange(0.1, 3600),
            help="seconds between passes when nothing is due",
        ),
        click.option("--batch", default=batch, show_default=True, type=click.IntRange(1, most)),
        click.option(
            "--lease",
            default=lease,
            show_default=True,
            type=click.IntRange(least_lease, 86400),
            help="seconds a pass holds what it claimed: a killed worker's claims are taken "
            "over after it" + lease_note,
        ),
    )

    def decorate(command: Callable) -> Callable:
        def with_run(once, interval, batch, lease, **rest):
            run = Run(once=once, interval=interval, batch=batch, lease=timedelta(seconds=lease))
            return command(run=run, **rest)

        functools.update_wrapper(with_run, command)  # its name, help and options
        for option in reversed(options):
            with_run = option(with_run)
        return with_run

    return decorate
