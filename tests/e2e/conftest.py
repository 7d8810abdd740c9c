"""Browser-test fixtures: the app on SQLite served by a live server, and Debian's Chromium.

The server runs for a test module on a copy of the migrated template database, seeded
through the root conftest's factories. Tests that change a user (language, sign-out) take
the function-scoped `planner`, a fresh user of the seeded carrier, so tests stay independent.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from conftest import base_config
from factories import PASSWORD, Ref, create_carrier, create_driver, create_task, create_user, served

from portal import create_app
from portal.extensions import db

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]
SHOTS = Path(os.environ.get("RIJPLAN_E2E_SHOTS", "/tmp/e2e-shots"))

# The seeded tasks, by carrier: (naam, type, status). Names are unique across the database.
OWN_TASKS = [
    ("Mest laden Enter", "mest_laden", "gepland"),
    ("Voer leveren Epe", "voer_leveren", "afgerond"),
    ("Vee vervoeren Schijndel", "vee_transport", "gestart"),
]
OTHER_TASKS = [("Kuipers varkens Deurne", "vee_transport", "gepland")]


@dataclass
class LiveServer:
    url: str
    app: object
    carrier: Ref
    other_carrier: Ref
    planner: Ref
    other_planner: Ref
    driver: Ref
    tasks: dict[str, Ref] = field(default_factory=dict)
    other_tasks: dict[str, Ref] = field(default_factory=dict)
    password: str = PASSWORD


def _seed_tasks(app, carrier: Ref, driver: Ref | None, specs) -> dict[str, Ref]:
    start = datetime.now(UTC).replace(minute=30, second=0, microsecond=0)
    refs = {}
    for hours, (naam, kind, status) in enumerate(specs):
        planned = start + timedelta(hours=hours)
        state = {}
        if status in ("ontvangen", "gestart", "afgerond"):
            state["ontvangen_op"] = planned - timedelta(hours=12)
        if status in ("gestart", "afgerond"):
            state["gestart_op"] = planned
        if status == "afgerond":
            state["afgerond_op"] = planned + timedelta(hours=1)
        refs[naam] = create_task(
            app,
            carrier,
            driver,
            naam=naam,
            type=kind,
            stad=naam.split()[-1],
            gepland_op=planned,
            status=status,
            **state,
        )
    return refs


@pytest.fixture(scope="module")
def live_server(sqlite_template, tmp_path_factory) -> Iterator[LiveServer]:
    """A server per test module: what one module's tests add (drivers, tasks, users) never
    shows up in another's counts, whichever worker runs which modules in which order."""
    folder = tmp_path_factory.mktemp("e2e")
    path = folder / "rijplan.sqlite"
    shutil.copy(sqlite_template, path)
    app = create_app({**base_config(folder), "SQLALCHEMY_DATABASE_URI": f"sqlite:///{path}"})

    carrier = create_carrier(app, "Van der Berg Agrotransport")
    other_carrier = create_carrier(app, "Kuipers Veevervoer")
    driver = create_driver(app, carrier, "Jan de Vries")
    other_driver = create_driver(app, other_carrier, "Sanne Kuipers")
    planner = create_user(app, carrier, "planner")
    other_planner = create_user(app, other_carrier, "planner")
    tasks = _seed_tasks(app, carrier, driver, OWN_TASKS)
    other_tasks = _seed_tasks(app, other_carrier, other_driver, OTHER_TASKS)

    try:
        with served(app, "e2e-live-server") as port:
            yield LiveServer(
                url=f"http://127.0.0.1:{port}",
                app=app,
                carrier=carrier,
                other_carrier=other_carrier,
                planner=planner,
                other_planner=other_planner,
                driver=driver,
                tasks=tasks,
                other_tasks=other_tasks,
            )
    finally:
        with app.app_context():
            db.engine.dispose()


@pytest.fixture
def planner(live_server) -> Ref:
    """A fresh planner of the seeded carrier: free to change its language or sign out."""
    return create_user(live_server.app, live_server.carrier, "planner")


@pytest.fixture(scope="session")
def browser():
    if not CHROMIUM.exists():
        pytest.skip(
            f"{CHROMIUM} is missing: install Debian's chromium package "
            "(scripts/test.sh does) to run the browser tests"
        )
    from playwright.sync_api import sync_playwright

    playwright = sync_playwright().start()
    try:
        browser = playwright.chromium.launch(
            executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS
        )
        try:
            yield browser
        finally:
            browser.close()
    finally:
        playwright.stop()


@pytest.fixture
def context(browser):
    context = browser.new_context(locale="nl-NL", viewport={"width": 1280, "height": 800})
    yield context
    context.close()


@pytest.fixture
def page(context):
    page = context.new_page()
    yield page
    page.close()


@pytest.fixture
def shot():
    """shot(page, name): a full-page screenshot into RIJPLAN_E2E_SHOTS (/tmp/e2e-shots)."""
    SHOTS.mkdir(parents=True, exist_ok=True)

    def take(page, name: str) -> Path:
        target = SHOTS / f"{name}.png"
        page.screenshot(path=str(target), full_page=True)
        return target

    return take
