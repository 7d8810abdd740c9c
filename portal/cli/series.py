"""Commands for recurring work: make the series' occurrences weeks ahead (run it daily, e.g.
from cron; running it twice, or twice at once, makes nothing twice)."""

from __future__ import annotations

import click
from flask import Flask

from portal.cli.base import admin_context, emit, run
from portal.extensions import db
from portal.tenancy import carrier_scope


def register(app: Flask) -> None:
    """The commands of this module, on app."""

    @app.cli.group("series")
    def series():
        """Recurring tasks made from templates."""

    @series.command("plan")
    @click.option(
        "--transporteur",
        "carrier",
        type=click.UUID,
        default=None,
        help="one carrier's series (default: every carrier with a running series)",
    )
    @click.option(
        "--weken",
        "weeks",
        type=click.IntRange(1, 52),
        default=None,
        help="how many weeks ahead (default 4)",
    )
    @click.option("--datum", "day", type=click.DateTime(formats=["%Y-%m-%d"]), default=None,
                  help="plan as if today were this day (default: the carrier's today)")  # fmt: skip
    def plan(carrier, weeks, day):
        """Make the occurrences of every running series up to some weeks ahead."""
        from portal.series import planning
        from portal.series import service as series_service

        def one(carrier_id) -> int:
            today = day.date() if day else series_service.today(carrier_id)
            return planning.plan(
                carrier_id=carrier_id, today=today, weeks=weeks or planning.WEEKS_AHEAD
            )

        if carrier is not None:
            run(carrier, lambda: {"transporteur": carrier, "taken": one(carrier)})
            return
        made = {}
        with admin_context():
            for carrier_id in planning.carriers_with_series():
                with carrier_scope(db.session, carrier_id):
                    made[str(carrier_id)] = one(carrier_id)
                    db.session.commit()
        emit({"taken": sum(made.values()), "per_transporteur": made})
