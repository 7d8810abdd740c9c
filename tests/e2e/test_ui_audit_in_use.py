"""The UI audit of the forms that talk to the server while they are filled in: the task form
(warnings and route refreshed as fields change) and the questionnaire builder (every edit
saved, the preview redrawn). In use, not only after loading: no console error, no CSP
violation (an aborted request is a console error too, so none may be aborted)."""

from __future__ import annotations

import re

import pytest
from factories import create_user, create_vehicle
from playwright.sync_api import Page, expect

from e2e.test_builder import Held
from e2e.test_portal import sign_in, watch

pytestmark = pytest.mark.e2e


def settled(page: Page) -> None:
    """Every request of the page answered (htmx marks the ones in flight)."""
    page.wait_for_function("() => !document.querySelector('.htmx-request')")


def test_the_task_form_in_use_logs_no_error(page, live_server, planner):
    create_vehicle(live_server.app, live_server.carrier, "BX-88-AU")
    errors = watch(page)
    page.add_init_script(
        "window.__checks = 0; document.addEventListener('htmx:confirm', e => {"
        " if (e.target.id === 'task-warnings') window.__checks += 1; });"
    )
    sign_in(page, live_server, planner)
    expect(page.get_by_role("heading", name="Taken", level=1)).to_be_visible()
    page.goto(f"{live_server.url}/taken/nieuw")
    page.wait_for_load_state("load")

    # A check still on its way when the next change asks again (a slow line).
    held = Held(page, "**/taken/nieuw/controle")
    page.get_by_label("Naam").fill("Mest laden Goor")
    page.get_by_label("Tijd").fill("06:45")
    page.get_by_label("Tijd").blur()
    expect(page.locator("#task-warnings")).to_have_class(re.compile(r"\bhtmx-request\b"))
    page.get_by_label("Chauffeur").select_option(label="Jan de Vries")
    page.wait_for_function("() => window.__checks >= 2")  # asked again, the first one unanswered
    held.release()
    page.get_by_label("Verwachte duur (minuten)").fill("45")
    page.get_by_label("Voertuig").select_option(label="BX-88-AU")
    page.get_by_label("VDM-nummer").fill("12-34")
    page.get_by_label("Kooiaap nodig").check()
    settled(page)
    expect(page.locator("#task-warnings")).to_contain_text("VDM-nummer 12-34")
    page.get_by_role("button", name="Taak aanmaken").click()

    expect(page.get_by_role("status").first).to_contain_text("is aangemaakt")
    assert page.evaluate("window.__csp") == []
    assert errors == []


def test_the_builder_in_use_logs_no_error(page, live_server):
    author = create_user(live_server.app, live_server.carrier, "author")
    errors = watch(page)
    sign_in(page, live_server, author)
    page.goto(f"{live_server.url}/vragenlijsten/nieuw")
    page.get_by_label("Titel").fill("Audit lossen")
    page.get_by_label("Activiteit").fill("audit_lossen")
    page.get_by_role("button", name="Aanmaken").click()
    expect(page).to_have_url(re.compile(r"/vragenlijsten/audit-lossen/concept$"))
    page.wait_for_load_state("load")

    for qtype in ("text", "select"):
        before = page.locator("#editor .q-item").count()
        page.locator("#add-q select").select_option(qtype)
        page.locator("#add-q").get_by_role("button", name="Toevoegen").click()
        expect(page.locator("#editor .q-item")).to_have_count(before + 1)
    # Typing as a person types: every pause saves, the status line says "Opslaan…" meanwhile.
    page.locator("#q-0-label").press_sequentially("Gewicht in kg", delay=40)
    page.locator("#q-1-label").press_sequentially("Soort mest", delay=40)
    page.locator("#q-1-opt-0").press_sequentially("Rundvee", delay=40)
    page.locator("#q-1-opt-1").press_sequentially("Varkens", delay=40)
    page.get_by_label("Titel").press_sequentially(" (proef)", delay=40)
    settled(page)
    expect(page.locator("#save-status")).to_contain_text("Opgeslagen")
    expect(page.locator("#preview")).to_contain_text("Soort mest")

    assert page.evaluate("window.__csp") == []
    assert errors == []
