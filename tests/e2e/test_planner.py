"""'Plan de week' in Chromium: a planner lets the solver place 30 unassigned tasks of a week
and accepts half of them; the accepted plan breaks no hard rule, as the independent checker
recomputes it. The worker runs in the test (as `flask planner work` would).

A carrier of its own on the live server, and a fixed week (7-13 December 2026)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from factories import (
    PASSWORD,
    Ref,
    create_carrier,
    create_driver,
    create_task,
    create_user,
    in_carrier,
)
from playwright.sync_api import expect

pytestmark = pytest.mark.e2e

AMS = ZoneInfo("Europe/Amsterdam")
MONDAY = datetime(2026, 12, 7, tzinfo=AMS)


def vehicle(app, carrier, kenteken: str) -> None:
    from portal.extensions import db
    from portal.fleet.models import Vehicle

    def make():
        db.session.add(Vehicle(transporteur_id=carrier.id, kenteken=kenteken, soort="vrachtwagen"))
        db.session.flush()

    in_carrier(app, carrier.id, make)


@pytest.fixture(scope="module")
def world(live_server):
    app = live_server.app
    carrier = create_carrier(app, "Plan Transport BV")
    planner = create_user(app, carrier, "planner")
    for name in ("Anna Jansen", "Bram de Boer", "Chris Smit", "Dirk Visser", "Eva de Wit"):
        create_driver(app, carrier, name)
    for n in range(5):
        vehicle(app, carrier, f"BV-{n}0-PL")
    tasks = []
    for n in range(30):
        when = MONDAY + timedelta(days=n % 6, hours=6 + 3 * (n % 4))
        tasks.append(
            create_task(
                app,
                carrier,
                None,
                type="voer_leveren",
                naam=f"Voerrit {n + 1:02d}",
                gepland_op=when.astimezone(UTC),
                duur_min=120,
            )
        )
    return live_server, carrier, planner, tasks


def solve_queued(app) -> None:
    from portal.planner import worker

    with app.app_context():
        assert worker.run_pass(10) == {"done": 1}


def accepted_plan_breaks_nothing(app, carrier: Ref) -> tuple[int, int]:
    """How many proposed tasks were accepted of how many; the checker recomputes every
    driver's and vehicle's rules over the work as it stands now (the accepted tasks are the
    only work these drivers have), so any violation is the accepted plan's."""
    from portal.planner import checks, service
    from portal.planner.gather import gather

    def check():
        proposal = service.recent_proposals(carrier_id=carrier.id, limit=1)[0]
        lines = service.lines_of(carrier_id=carrier.id, proposal_id=proposal.id)
        accepted = [ln for ln in lines if ln.geaccepteerd_op is not None]
        found = gather(carrier_id=carrier.id, van=proposal.van, tot=proposal.tot,
                       now=proposal.created_at)  # fmt: skip
        planned = {w.id for d in found.problem.drivers for w in d.planned}
        assert {ln.taak_id for ln in accepted} <= planned
        assert checks.check(found.problem, []) == []
        return len(accepted), len(lines)

    return in_carrier(app, carrier.id, check)


def test_plan_de_week_places_thirty_tasks_and_the_planner_accepts_half(page, world, shot):
    live_server, carrier, planner, _tasks = world
    page.goto(f"{live_server.url}/login")
    page.get_by_label("E-mailadres").fill(planner.email)
    page.get_by_label("Wachtwoord").fill(PASSWORD)
    page.get_by_role("button", name="Aanmelden", exact=True).click()
    page.get_by_role("link", name="Plan de week").first.click()
    expect(page.get_by_role("heading", name="Plan de week of de dag", level=1)).to_be_visible()
    page.get_by_label("Datum").fill("2026-12-09")
    page.get_by_label("Rekentijd (seconden)").fill("3")
    page.get_by_role("button", name="Maak een voorstel").click()
    expect(page.get_by_role("status")).to_contain_text("In de wachtrij")

    solve_queued(live_server.app)  # the worker, outside any request

    expect(page.get_by_role("status")).to_contain_text("Klaar", timeout=15000)  # htmx polled
    boxes = page.locator("input[type=checkbox][name=taken]")
    expect(boxes).to_have_count(30)
    for n in range(15):
        boxes.nth(n).check()
    shot(page, "planner-proposal")
    page.get_by_role("button", name="Geselecteerde accepteren").click()
    expect(page.get_by_text("15 taken ingepland.")).to_be_visible()
    expect(page.locator("input[type=checkbox][name=taken]")).to_have_count(15)

    accepted, offered = accepted_plan_breaks_nothing(live_server.app, carrier)
    assert (accepted, offered) == (15, 30)
