"""Recurring work in Chromium: a planner saves a task as a template, sets up a Monday-and-
Friday manure run from it over Christmas and New Year, sees in the form's preview that those
Fridays move to the Mondays after, and plans it."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from e2e.test_portal import sign_in

pytestmark = pytest.mark.e2e


def test_a_planner_sets_up_a_monday_and_friday_manure_run_from_a_template(
    page, live_server, planner, shot
):
    task = live_server.tasks["Mest laden Enter"]
    sign_in(page, live_server, planner)
    page.goto(f"{live_server.url}/taken/{task.id}")
    page.get_by_role("button", name="Opslaan als sjabloon").click()
    page.get_by_label("Naam").fill("Mest Jansen")
    page.get_by_role("button", name="Opslaan").click()
    expect(page.locator(".flash")).to_contain_text("Sjabloon Mest Jansen is opgeslagen")

    page.get_by_role("link", name="Reeks plannen").first.click()
    page.get_by_label("maandag").check()
    page.get_by_label("vrijdag").check()
    page.get_by_label("Vanaf").fill("2026-12-14")
    page.get_by_label("Tijd").fill("07:30")
    page.get_by_label("Verschuiven naar de volgende werkdag").check()
    preview = page.locator("#series-preview")
    expect(preview).to_contain_text("verschoven van vr 25 dec 2026 (Eerste kerstdag)")
    expect(preview).to_contain_text("verschoven van vr 1 jan 2027 (Nieuwjaarsdag)")
    shot(page, "series-01-form-preview")

    page.get_by_label("Overslaan: op een feestdag geen taak").check()
    expect(preview).to_contain_text("overgeslagen: Eerste kerstdag")
    page.get_by_label("Verschuiven naar de volgende werkdag").check()
    expect(preview).to_contain_text("(Nieuwjaarsdag)")
    page.get_by_role("button", name="Reeks plannen").click()
    expect(page.locator(".flash")).to_contain_text("is opgeslagen")
    expect(page.locator("h1")).to_contain_text("Mest Jansen")
    shot(page, "series-02-planned")
