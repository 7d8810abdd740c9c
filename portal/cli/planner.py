"""Commands for the planner: the worker that solves proposals (`flask planner work`) and a
proposal made and solved at once (`flask planner solve`, for tests and the demo)."""

from __future__ import annotations

from datetime import datetime, time, timedelta

import click
from flask import Flask

from portal.cli.base import emit, run
from portal.outbox.commands import worker_options


def register(app: Flask) -> None:
    """The commands of this module, on app."""

    @app.cli.group("planner")
    def planner():
        """Planning proposals made by the solver."""

    @planner.command("work")
    @worker_options(doing="solve", interval=2.0, batch=10, most=100, lease=300, least_lease=30)
    def work(run):
        """Solve queued proposals (the worker). Runs as DATABASE_URL, under row-level
        security; the due carriers come from the owner's look-up function."""
        from portal.planner.worker import main

        main(run, emit=emit)

    @planner.command("solve")
    @click.option("--transporteur", "carrier", required=True, type=click.UUID)
    @click.option("--van", "day", required=True, type=click.DateTime(formats=["%Y-%m-%d"]),
                  help="the first day (the carrier's calendar)")  # fmt: skip
    @click.option("--dagen", "days", type=click.IntRange(1, 14), default=7, show_default=True)
    @click.option("--seconden", type=click.IntRange(1, 60), default=8, show_default=True)
    def solve(carrier, day, days, seconden):
        """Make a proposal for the unassigned tasks of the days and solve it now."""
        from portal.accounts.service import carrier_zone
        from portal.audit.service import SYSTEM
        from portal.planner import service

        def action():
            zone = carrier_zone(carrier)
            van = datetime.combine(day.date(), time(0), tzinfo=zone)
            found = service.start_proposal(
                carrier_id=carrier, van=van, tot=van + timedelta(days=days), actor=SYSTEM,
                seconden=seconden,
            )  # fmt: skip
            service.claim_next(carrier_id=carrier, now=found.created_at)
            done = service.solve_proposal(carrier_id=carrier, proposal_id=found.id)
            return {
                "voorstel": done.id, "status": done.status, "geplaatst": done.geplaatst,
                "niet_geplaatst": done.niet_geplaatst, "lege_km": done.lege_km,
            }  # fmt: skip

        run(carrier, action)
