"""Commands for tachograph files."""

from __future__ import annotations

import click
from flask import Flask

from portal.cli.base import carrier_option, run
from portal.extensions import db


def register(app: Flask) -> None:
    """The commands of this module, on app."""

    @app.cli.command("tacho-reread")
    @carrier_option
    @click.option("--alle", "everything", is_flag=True, help="also files already read")
    def tacho_reread(carrier, everything):
        """Read the carrier's stored tachograph downloads in full: files stored before
        downloads were read (or, with --alle, every file), so their days count for driving
        and rest times. A file the reader refuses is listed, not fatal."""
        from portal.tacho import service as tacho

        def action():
            read, refused, days = [], [], 0
            for row in tacho.files_to_read(carrier_id=carrier, everything=everything):
                try:
                    with db.session.begin_nested():
                        days += tacho.reread(carrier_id=carrier, tacho_file_id=row.id)
                    read.append(str(row.id))
                except tacho.Refused as error:
                    refused.append(
                        {"id": str(row.id), "reason": error.reason, "detail": str(error)}
                    )
            return {"read": len(read), "days": days, "refused": refused}

        run(carrier, action)
