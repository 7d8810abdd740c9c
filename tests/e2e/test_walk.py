"""A new carrier's first walk through the portal, in Dutch and in English: the planner (board,
new task, hours, tariffs), the author (builder: a question added, published) and the admin
(settings). On every page: no console error, no CSP violation, at most one autofocus, and no
text of the other language among the words the page is made of.

Screenshots go to RIJPLAN_E2E_SHOTS (walk-<language>-<page>.png)."""

from __future__ import annotations

import re
from datetime import date
from decimal import Decimal

import pytest
from factories import (
    PASSWORD,
    create_carrier,
    create_driver,
    create_user,
    create_vehicle,
    in_carrier,
)
from playwright.sync_api import Page, expect

from e2e.test_portal import watch

pytestmark = pytest.mark.e2e

# Words of the portal's own text (not the carrier's data), per language: a page in one
# language shows none of the other's. Matched as whole words, case and all.
WORDS = {
    "nl": ["Afmelden", "Opslaan", "Annuleren", "Verwijderen", "Terug", "Nieuwe taak", "Taken",
           "Chauffeur", "Voertuig", "Klant", "Uren", "Tarieven", "Vragen", "Instellingen",
           "Toevoegen", "Publiceren", "Geen", "Alle", "Wijzigen"],
    "en": ["Sign out", "Save", "Cancel", "Delete", "Back", "New task", "Tasks", "Driver",
           "Vehicle", "Customer", "Hours", "Tariffs", "Questions", "Settings", "Add", "Publish",
           "None", "All", "Edit"],
}  # fmt: skip
# What each page must show in its own language (its heading, a label).
HEADINGS = {
    "board": ("Taken", "Tasks"),
    "task-new": ("Nieuwe taak", "New task"),
    "hours": ("Uren", "Hours"),
    "tariffs": ("Tarieven", "Tariffs"),
    "settings": ("Beheer", "Administration"),
}
LANGUAGES = ("nl", "en")


class Walk:
    """One user's walk: every page checked as it is left."""

    def __init__(self, page: Page, language: str, shot) -> None:
        self.page, self.language, self.shot = page, language, shot
        self.errors = watch(page)
        self.problems: list[str] = []

    def check(self, name: str) -> None:
        page = self.page
        self.shot(page, f"walk-{self.language}-{name}")
        text = page.locator("body").inner_text()
        other = "en" if self.language == "nl" else "nl"
        for word in WORDS[other]:
            if re.search(rf"(?<![\w-]){re.escape(word)}(?![\w-])", text):
                self.problems.append(f"{name}: {other} word {word!r} on a {self.language} page")
        autofocus = page.locator("[autofocus]").count()
        if autofocus > 1:
            self.problems.append(f"{name}: {autofocus} fields with autofocus")
        for violation in page.evaluate("window.__csp || []"):
            self.problems.append(f"{name}: CSP {violation}")
        self.problems += [f"{name}: {error}" for error in self.errors]
        self.errors.clear()

    def heading(self, key: str) -> None:
        name = HEADINGS[key][LANGUAGES.index(self.language)]
        expect(self.page.get_by_role("heading", name=name, level=1)).to_be_visible()


@pytest.fixture(scope="module")
def carrier(live_server):
    """A new carrier with what a first day needs: a driver, a truck, a customer, a tariff."""
    from portal.audit.service import SYSTEM
    from portal.billing.tariffs import TariffIn, create_tariff
    from portal.customers.service import create_customer

    app = live_server.app
    carrier = create_carrier(app, "Eerste Dag Transport")
    create_driver(app, carrier, "Wim Wandel")
    create_vehicle(app, carrier, "BX-01-WD")
    customer = in_carrier(app, carrier.id, lambda: create_customer(
        carrier_id=carrier.id, data={"naam": "Loonbedrijf Hofstede"}, actor=SYSTEM
    ), lambda c: c.id)  # fmt: skip
    in_carrier(app, carrier.id, lambda: create_tariff(carrier_id=carrier.id, data=TariffIn(
        activity_type="mest_laden", geldig_vanaf=date(2026, 1, 1), grondslag="vracht",
        prijs=Decimal("85.00"), klant_id=customer,
    ), actor=SYSTEM))  # fmt: skip
    return carrier


def sign_in_as(page: Page, url: str, user, language: str) -> None:
    page.goto(f"{url}/login")
    if language == "en":
        page.get_by_role("button", name="English").click()
        page.get_by_label("Email address").fill(user.email)
        page.get_by_label("Password").fill(PASSWORD)
        page.get_by_role("button", name="Sign in", exact=True).click()
    else:
        page.get_by_label("E-mailadres").fill(user.email)
        page.get_by_label("Wachtwoord").fill(PASSWORD)
        page.get_by_role("button", name="Aanmelden", exact=True).click()
    page.wait_for_load_state("load")


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_new_carrier_walks_the_portal(browser, live_server, carrier, language, shot):
    url, app = live_server.url, live_server.app
    contexts = []

    def new_page():
        """A browser of its own per user (a Dutch one: English is chosen on the page)."""
        contexts.append(
            browser.new_context(locale="nl-NL", viewport={"width": 1280, "height": 800})
        )
        return contexts[-1].new_page()

    problems: list[str] = []
    try:
        # The planner: the board, a new task, hours, tariffs.
        walk = Walk(new_page(), language, shot)
        page = walk.page
        sign_in_as(page, url, create_user(app, carrier, "planner"), language)
        walk.heading("board")
        walk.check("board")
        page.goto(f"{url}/taken/nieuw")
        page.wait_for_load_state("load")
        walk.heading("task-new")
        nl = language == "nl"
        page.locator("#naam").fill("Mest laden Hofstede" if nl else "Manure Hofstede")
        page.locator("#gepland_tijd").fill("09:30")
        page.locator("#chauffeur_id").select_option(label="Wim Wandel")
        page.locator("#vehicle_id").select_option(label="BX-01-WD")
        page.locator("#klant_id").select_option(label="Loonbedrijf Hofstede")
        page.wait_for_function("() => !document.querySelector('.htmx-request')")
        walk.check("task-new")
        page.get_by_role("button", name="Taak aanmaken" if nl else "Create task").click()
        expect(page.get_by_role("status").first).to_contain_text("Hofstede")
        walk.check("board-after-create")
        page.goto(f"{url}/uren")
        walk.heading("hours")
        walk.check("hours")
        page.goto(f"{url}/facturatie/tarieven")
        walk.heading("tariffs")
        expect(page.locator("#tariffs tbody tr")).to_have_count(1)
        page.locator("#tarief-klant").select_option(label="Loonbedrijf Hofstede")
        expect(page).to_have_url(re.compile(r"/facturatie/tarieven\?klant=[0-9a-f-]{36}$"))
        walk.check("tariffs")
        problems += walk.problems

        # The author: a questionnaire with a question, published.
        walk = Walk(new_page(), language, shot)
        page = walk.page
        sign_in_as(page, url, create_user(app, carrier, "author"), language)
        page.goto(f"{url}/vragenlijsten/nieuw")
        page.locator("#title").fill(f"Eerste lijst {language}")
        page.locator("#activity_type").fill(f"eerste_{language}")
        page.locator("form button[type=submit]").last.click()
        expect(page).to_have_url(re.compile(rf"/vragenlijsten/eerste-lijst-{language}/concept$"))
        page.wait_for_load_state("load")
        page.locator("#add-q select").select_option("text")
        page.locator("#add-q button[type=submit]").click()
        expect(page.locator("#editor .q-item")).to_have_count(1)
        page.locator("#q-0-label").press_sequentially("Gewicht" if nl else "Weight", delay=30)
        page.locator("#q-0-label").blur()
        page.wait_for_function("() => !document.querySelector('.htmx-request')")
        walk.check("builder")
        page.locator("#publish-link").click()
        page.wait_for_load_state("load")
        walk.check("publish")
        page.locator("form.form-actions button[type=submit]").click()
        expect(page.get_by_role("status").first).to_contain_text(f"Eerste lijst {language}")
        walk.check("published")
        problems += walk.problems

        # The admin: the settings.
        walk = Walk(new_page(), language, shot)
        page = walk.page
        sign_in_as(page, url, create_user(app, carrier, "admin"), language)
        page.goto(f"{url}/beheer/instellingen")
        walk.heading("settings")
        walk.check("settings")
        problems += walk.problems
    finally:
        for context in contexts:
            context.close()
    assert problems == []
