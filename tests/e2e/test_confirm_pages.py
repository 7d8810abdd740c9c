"""Confirm pages opened as pages of their own: without JavaScript, and with JavaScript after a
middle-click (a new tab, no board dialog around them). Every button does what it says."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from factories import create_task
from playwright.sync_api import Page, expect

from e2e.test_portal import sign_in

pytestmark = pytest.mark.e2e


def later(hours: int) -> datetime:
    return datetime.now(UTC).replace(microsecond=0) + timedelta(hours=hours)


@pytest.fixture
def plain_page(browser):
    """A browser tab with JavaScript off."""
    context = browser.new_context(
        locale="nl-NL", viewport={"width": 1280, "height": 800}, java_script_enabled=False
    )
    page = context.new_page()
    yield page
    context.close()


def confirm(page: Page, url: str, button: str, done: str) -> None:
    page.goto(url)
    page.get_by_role("button", name=button).click()
    expect(page.get_by_role("status").filter(has_text=done)).to_be_visible()


def test_cancel_reopen_delete_and_move_work_without_javascript(plain_page, live_server, planner):
    app, carrier, driver = live_server.app, live_server.carrier, live_server.driver
    cancel = create_task(app, carrier, driver, naam="Zonder script annuleren", gepland_op=later(30))
    start = later(-30)
    done = create_task(app, carrier, driver, naam="Zonder script heropenen", gepland_op=start,
                       status="afgerond", ontvangen_op=start, gestart_op=start,
                       afgerond_op=start + timedelta(hours=1))  # fmt: skip
    gone = create_task(app, carrier, driver, naam="Zonder script weg", gepland_op=later(31))
    moved = create_task(app, carrier, None, naam="Zonder script verplaatsen", gepland_op=later(32))
    page = plain_page
    sign_in(page, live_server, planner)
    url = live_server.url

    confirm(page, f"{url}/taken/{cancel.id}/annuleren", "Ja, annuleer de taak",
            "Taak “Zonder script annuleren” is geannuleerd.")  # fmt: skip
    confirm(page, f"{url}/taken/{done.id}/heropenen", "Ja, heropen de taak",
            "Taak “Zonder script heropenen” is heropend")  # fmt: skip
    confirm(page, f"{url}/taken/{gone.id}/verwijderen", "Ja, verwijder de taak",
            "Taak “Zonder script weg” is verwijderd.")  # fmt: skip
    page.goto(f"{url}/taken/{moved.id}/verplaats")
    page.get_by_label("Chauffeur").select_option(label="Jan de Vries")
    page.get_by_role("button", name="Verplaatsen").click()
    expect(page.get_by_role("status").filter(has_text="“Zonder script verplaatsen” verplaatst: "
                                             "Jan de Vries")).to_be_visible()  # fmt: skip


def test_a_confirm_page_opened_in_a_new_tab_works_with_javascript(page, live_server, planner):
    """A middle-click opens the board's dialog link as a page: htmx has no dialog to answer
    into there, so the form posts as a plain form."""
    task = create_task(live_server.app, live_server.carrier, live_server.driver,
                       naam="Nieuw tabblad annuleren", gepland_op=later(33))  # fmt: skip
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    sign_in(page, live_server, planner)
    expect(page.get_by_role("heading", name="Taken", level=1)).to_be_visible()

    page.goto(f"{live_server.url}/taken/{task.id}/annuleren")
    page.wait_for_load_state("load")  # htmx is there and would take the form, if it could
    page.get_by_role("button", name="Ja, annuleer de taak").click()

    expect(page.get_by_role("status").filter(has_text="is geannuleerd")).to_be_visible()
    assert errors == []
