"""Rijplan: the planning portal and driver API of a road-transport carrier."""

from __future__ import annotations

import logging

from flask import Flask

from portal import config as config_module
from portal.config import ROOT

logger = logging.getLogger(__name__)


def create_app(overrides: dict | None = None) -> Flask:
    """Build the application: config, extensions, blueprints, hooks, CLI."""
    cfg = config_module.load(overrides)
    app = Flask(
        __name__,
        instance_path=cfg["INSTANCE_PATH"],
        template_folder=str(ROOT / "templates"),
        static_folder=str(ROOT / "static"),
    )
    app.config.update(cfg)
    _extensions(app)
    _blueprints(app)

    from portal import web, wiring

    web.init_app(app)
    wiring.connect()
    _middleware(app)

    from portal.cli import register as register_cli

    register_cli(app, create_app)
    return app


def _extensions(app: Flask) -> None:
    """The database (with its replica and liveness check), migrations, request ids and logs,
    CSRF, compression, sign-in, languages and time zones."""
    from portal import (
        models,  # noqa: F401  (every model registered on the metadata)
        ops,
        reads,
        replica,
        web,
    )
    from portal.extensions import babel, compress, csrf, db, login_manager, migrate

    db.init_app(app)
    reads.install_liveness_check()
    replica.init_app(app, app.config["SQLALCHEMY_ENGINE_OPTIONS"])
    migrate.init_app(app, db, directory=str(ROOT / "migrations"))
    ops.init_app(app)  # first: every later hook (the CSRF check too) and log line has the id
    csrf.init_app(app)
    compress.init_app(app)
    login_manager.init_app(app)
    babel.init_app(app, locale_selector=web.select_locale, timezone_selector=web.select_timezone)
    web.register_converters(app)


def _blueprints(app: Flask) -> None:
    """Every domain's pages and the API, in the order their routes are matched."""
    from portal.accounts.pages import admin_bp
    from portal.accounts.pages import bp as accounts_bp
    from portal.api import bp as api_bp
    from portal.billing.pages import billing_bp, invoices_bp, tariffs_bp
    from portal.customers.pages import bp as customers_bp
    from portal.drivers.pages import bp as drivers_bp
    from portal.files.pages import bp as files_bp
    from portal.fleet.pages import bp as fleet_bp
    from portal.hours.pages import bp as hours_bp
    from portal.hours.pages import payroll_bp, rulesets_bp
    from portal.messages.pages import bp as messages_bp
    from portal.planner.pages import bp as planner_bp
    from portal.proof.pages import bp as proof_bp
    from portal.questionnaires.pages.answer_views import bp as answers_bp
    from portal.questionnaires.pages.builder import bp as questionnaires_bp
    from portal.series.pages import bp as series_bp
    from portal.tacho.pages import bp as tacho_bp
    from portal.tacho.pages import driving_bp
    from portal.tasks.pages import bp as tasks_bp
    from portal.tasks.pages.detail import bp as task_detail_bp
    from portal.tasks.pages.importing import bp as task_import_bp
    from portal.tasks.pages.paper import bp as task_paper_bp
    from portal.webhooks.pages import bp as webhooks_bp

    blueprints = (
        accounts_bp,
        tasks_bp,
        task_detail_bp,
        task_import_bp,
        task_paper_bp,
        series_bp,
        proof_bp,
        billing_bp,
        tariffs_bp,
        invoices_bp,
        customers_bp,
        messages_bp,
        answers_bp,
        questionnaires_bp,
        drivers_bp,
        files_bp,
        fleet_bp,
        hours_bp,
        rulesets_bp,
        payroll_bp,
        tacho_bp,
        driving_bp,
        planner_bp,
        admin_bp,
        webhooks_bp,
        api_bp,
    )
    for blueprint in blueprints:
        app.register_blueprint(blueprint)


def _middleware(app: Flask) -> None:
    """The driver's kept 304s answered before Flask, and the proxies in front trusted."""
    from portal.api.unchanged import UnchangedPolls

    app.wsgi_app = UnchangedPolls(app, app.wsgi_app)
    hops = app.config.get("TRUSTED_PROXIES", 0)
    if hops:
        # The client's address (sign-in limits per address), scheme and host as the
        # proxies in front saw them; without this every client has the proxy's address.
        from werkzeug.middleware.proxy_fix import ProxyFix

        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=hops, x_proto=hops, x_host=hops, x_port=hops)
