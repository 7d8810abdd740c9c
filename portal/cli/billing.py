"""Commands for billing lines."""

from __future__ import annotations

import click
from flask import Flask

from portal.cli.base import carrier_option, run


def register(app: Flask) -> None:
    """The commands of this module, on app."""

    @app.cli.command("billing-backfill")
    @carrier_option
    @click.option(
        "--sinds",
        "since",
        type=click.DateTime(formats=["%Y-%m-%d"]),
        default=None,
        help="only tasks completed on or after this day (the carrier's time zone)",
    )
    @click.option("--dry-run", is_flag=True, help="list the tasks, make no lines")
    def billing_backfill(carrier, since, dry_run):
        """Billing lines for completed tasks that have none: tasks completed on the board or
        by the driver before every completion made its line. Check with --dry-run first:
        work already invoiced by hand should not be billed twice."""
        from portal.accounts.service import carrier_zone
        from portal.billing import service as billing
        from portal.types import iso, period_bound

        def action():
            start = period_bound(since.date(), carrier_zone(carrier), end=False) if since else None
            tasks = billing.completed_without_line(carrier_id=carrier, since=start)
            listed = [
                {"id": task.id, "naam": task.naam, "afgerond_op": iso(task.afgerond_op)}
                for task in tasks
            ]
            if not dry_run:
                for task in tasks:  # as its completion would have made it
                    billing.line_for_completion(carrier_id=carrier, task=task)
            return {"dry_run": dry_run, "lines": 0 if dry_run else len(listed), "tasks": listed}

        run(carrier, action)
