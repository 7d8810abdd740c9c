"""Commands for questionnaire definitions: import and export as JSON files."""

from __future__ import annotations

import sys

import click
import orjson
from flask import Flask

from portal.cli.base import carrier_option, run


def register(app: Flask) -> None:
    """The commands of this module, on app."""

    @app.cli.command("import-questionnaire")
    @carrier_option
    @click.argument("file", type=click.File("rb"))
    @click.option("--activate", is_flag=True, help="make it the active one for its activity type")
    def import_questionnaire(carrier, file, activate):
        """Check and store a QuestionnaireDefinition (JSON file) as a new revision."""
        from portal.questionnaires.service import publish

        try:
            doc = orjson.loads(file.read())
        except orjson.JSONDecodeError as exc:
            click.echo(f"error: {file.name} is not valid JSON: {exc}", err=True)
            sys.exit(1)

        def action():
            row = publish(carrier_id=carrier, doc=doc, activate=activate)
            return {
                "id": row.id,
                "questionnaire_id": row.questionnaire_id,
                "is_active": row.is_active,
            }

        run(carrier, action)

    @app.cli.command("export-questionnaire")
    @carrier_option
    @click.argument("questionnaire_id")
    def export_questionnaire(carrier, questionnaire_id):
        """Print the active (else newest) revision's definition."""
        from portal.questionnaires.service import latest_revision

        def action():
            return orjson.loads(
                latest_revision(carrier_id=carrier, questionnaire_id=questionnaire_id).definition
            )

        run(carrier, action)
