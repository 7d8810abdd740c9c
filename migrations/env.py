"""Alembic environment: migrations run as the owner role (DATABASE_ADMIN_URL when set)."""

import logging
from logging.config import fileConfig

from alembic import context
from flask import current_app
from sqlalchemy import create_engine

config = context.config
if config.config_file_name:
    fileConfig(config.config_file_name, disable_existing_loggers=False)
logger = logging.getLogger("alembic.env")

target_db = current_app.extensions["migrate"].db
target_metadata = target_db.metadata


def _url() -> str:
    return (
        current_app.config.get("DATABASE_ADMIN_URL")
        or current_app.config["SQLALCHEMY_DATABASE_URI"]
    )


def _skip_empty(context_, revision, directives):
    # An autogenerate that finds nothing writes no empty revision file.
    if getattr(config.cmd_opts, "autogenerate", False) and directives[0].upgrade_ops.is_empty():
        directives[:] = []
        logger.info("No changes in schema detected.")


def run_migrations_offline():
    context.configure(
        url=_url(), target_metadata=target_metadata, literal_binds=True, render_as_batch=True
    )
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online():
    url = _url()
    conf_args = dict(current_app.extensions["migrate"].configure_args)
    conf_args.setdefault("process_revision_directives", _skip_empty)
    engine = create_engine(url) if url != str(target_db.engine.url) else target_db.engine
    with engine.connect() as connection:
        context.configure(
            connection=connection,
            target_metadata=target_metadata,
            **conf_args,
        )
        with context.begin_transaction():
            context.run_migrations()


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
