"""Backups: `flask --app wsgi backup --to DIR` and `flask --app wsgi restore-drill DIR/<backup>`
(portal/ops/backup.py). On PostgreSQL they connect as BACKUP_DATABASE_URL, else
DATABASE_ADMIN_URL, else DATABASE_URL: a role that reads every carrier's rows (a superuser or
one with BYPASSRLS; row-level security holds for the tables' owner too)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import click
from flask import Flask, current_app

from portal.cli.base import emit
from portal.files.storage import get_storage
from portal.ops import backup as backups


def _database_url() -> str:
    return (
        os.environ.get("BACKUP_DATABASE_URL")
        or current_app.config.get("DATABASE_ADMIN_URL")
        or current_app.config["SQLALCHEMY_DATABASE_URI"]
    )


def register(app: Flask) -> None:
    @app.cli.command("backup")
    @click.option("--to", "target", required=True, type=click.Path(file_okay=False))
    def backup_command(target):
        """Back up the database and the stored files into a new folder under --to."""
        try:
            result = backups.backup(
                database_url=_database_url(), storage=get_storage(current_app), target=Path(target)
            )
        except subprocess.CalledProcessError as error:
            click.echo(f"error: pg_dump failed: {error.stderr.decode().strip()}", err=True)
            sys.exit(1)
        emit(result)

    @app.cli.command("restore-drill")
    @click.argument("folder", type=click.Path(exists=True, file_okay=False))
    @click.option("--keep", is_flag=True, help="keep the restored database for a look")
    def restore_drill_command(folder, keep):
        """Restore a backup into a new database and compare it with its manifest."""
        try:
            result = backups.restore_drill(
                folder=Path(folder), admin_url=_database_url(), keep=keep
            )
        except subprocess.CalledProcessError as error:
            click.echo(f"error: pg_restore failed: {error.stderr.decode().strip()}", err=True)
            sys.exit(1)
        emit(result)
        if not result["ok"]:
            sys.exit(1)
