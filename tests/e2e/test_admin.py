"""The admin section in the browser: an admin invites a user, the user opens the one-time link,
chooses a password and signs in; API keys and settings; Dutch and English, desktop and phone."""

from __future__ import annotations

import pytest
from factories import create_user
from playwright.sync_api import expect

from e2e.test_portal import sign_in

pytestmark = pytest.mark.e2e
PHONE = {"width": 420, "height": 860}


def test_an_admin_invites_a_user_who_sets_a_password_and_signs_in(browser, page, live_server, shot):
    admin = create_user(live_server.app, live_server.carrier, "admin")
    sign_in(page, live_server, admin)
    page.get_by_role("link", name="Beheer", exact=True).first.click()
    expect(page).to_have_url(f"{live_server.url}/beheer")
    shot(page, "admin-users-nl-desktop")

    page.get_by_role("link", name="Gebruiker uitnodigen").click()
    page.get_by_label("Naam").fill("Anna Auteur")
    page.get_by_label("E-mailadres").fill("anna.auteur@example.nl")
    page.get_by_label("Rol").select_option("author")
    shot(page, "admin-invite-nl-desktop")
    page.get_by_role("button", name="Uitnodigen").click()
    expect(page.get_by_text("Je ziet deze link maar één keer.")).to_be_visible()
    shot(page, "admin-invite-link-nl-desktop")
    link = page.get_by_label("Eenmalige link").input_value()
    assert link.startswith(f"{live_server.url}/wachtwoord/rpl_")

    # The invited user, in a browser of their own.
    context = browser.new_context(locale="nl-NL", viewport={"width": 1280, "height": 800})
    newcomer = context.new_page()
    try:
        newcomer.goto(link)
        expect(newcomer.get_by_role("heading", name="Welkom bij Rijplan")).to_be_visible()
        shot(newcomer, "admin-set-password-nl-desktop")
        newcomer.get_by_label("Nieuw wachtwoord").fill("anna kiest een wachtwoord")
        newcomer.get_by_label("Herhaal het wachtwoord").fill("anna kiest een wachtwoord")
        newcomer.get_by_role("button", name="Wachtwoord opslaan").click()
        expect(newcomer.get_by_text("Je wachtwoord is ingesteld. Meld je nu aan.")).to_be_visible()
        expect(newcomer.get_by_label("E-mailadres")).to_have_value("anna.auteur@example.nl")
        newcomer.get_by_label("Wachtwoord").fill("anna kiest een wachtwoord")
        newcomer.get_by_role("button", name="Aanmelden", exact=True).click()
        expect(newcomer).to_have_url(f"{live_server.url}/vragenlijsten")
        expect(newcomer.locator(".nav-sections .nav-section a")).to_have_text(
            ["Vragenlijsten", "Antwoorden"]
        )
        # The link worked once.
        newcomer.goto(link)
        expect(newcomer.get_by_role("heading", name="Deze link werkt niet (meer)")).to_be_visible()
    finally:
        context.close()

    page.goto(f"{live_server.url}/beheer")
    row = page.locator("#users-table tr", has_text="Anna Auteur")
    expect(row).to_contain_text("Auteur")
    expect(row).to_contain_text("Actief")


def test_an_admin_makes_and_revokes_an_api_key(page, live_server, shot):
    admin = create_user(live_server.app, live_server.carrier, "admin")
    sign_in(page, live_server, admin)
    page.goto(f"{live_server.url}/beheer/api-sleutels/nieuw")
    page.get_by_label("Naam").fill("TMS Noord")
    page.get_by_role("button", name="Sleutel maken").click()
    expect(page.get_by_text("Kies minstens één recht.")).to_be_visible()
    expect(page.get_by_label("Naam")).to_have_value("TMS Noord")
    page.locator('input[name="scopes"][value="tasks:read"]').check()
    shot(page, "admin-api-key-form-nl-desktop")
    page.get_by_role("button", name="Sleutel maken").click()
    key = page.get_by_label("De sleutel").input_value()
    assert key.startswith("rpk_")
    shot(page, "admin-api-key-created-nl-desktop")

    page.get_by_role("link", name="Klaar").click()
    row = page.locator("#api-keys-table tr", has_text="TMS Noord")
    expect(row).to_contain_text(key[:10])
    expect(row).to_contain_text("nog nooit")
    shot(page, "admin-api-keys-nl-desktop")
    row.get_by_role("link", name="Intrekken").click()
    expect(page.get_by_text("krijgen meteen geen toegang meer")).to_be_visible()
    page.get_by_role("button", name="Ja, intrekken").click()
    expect(page.locator("#api-keys-table tr", has_text="TMS Noord")).to_contain_text(
        "Ingetrokken op"
    )


def test_the_settings_say_what_is_wrong_at_the_field(page, live_server, shot):
    admin = create_user(live_server.app, live_server.carrier, "admin")
    sign_in(page, live_server, admin)
    page.goto(f"{live_server.url}/beheer/instellingen")
    page.get_by_label("Tijdzone").select_option("Europe/Brussels")
    page.get_by_label("Postcode").fill("75111")
    page.get_by_role("button", name="Opslaan").click()
    expect(page.get_by_text("vier cijfers en twee letters")).to_be_visible()
    expect(page.get_by_label("Tijdzone")).to_have_value("Europe/Brussels")  # kept
    shot(page, "admin-settings-errors-nl-desktop")
    page.get_by_label("Postcode").fill("7511 je")
    page.get_by_role("button", name="Opslaan").click()
    expect(page.get_by_text("De instellingen zijn opgeslagen.")).to_be_visible()
    expect(page.get_by_label("Postcode")).to_have_value("7511 JE")
    expect(page.get_by_label("Tijdzone")).to_have_value("Europe/Brussels")


@pytest.mark.parametrize("lang", ["nl", "en"])
@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_the_admin_pages_read_well_in_both_languages_and_sizes(
    browser, live_server, shot, lang, size
):
    admin = create_user(live_server.app, live_server.carrier, "admin")
    viewport = PHONE if size == "phone" else {"width": 1280, "height": 800}
    context = browser.new_context(locale="nl-NL", viewport=viewport)
    page = context.new_page()
    try:
        sign_in(page, live_server, admin)
        if lang == "en":
            page.locator("#language-form button").click()
            expect(page.locator("html")).to_have_attribute("lang", "en")
        for path, name in (
            ("/beheer", "users"),
            (f"/beheer/gebruikers/{admin.id}", "user"),
            ("/beheer/api-sleutels", "api-keys"),
            ("/beheer/instellingen", "settings"),
        ):
            page.goto(f"{live_server.url}{path}")
            expect(page.locator("h1")).to_be_visible()
            width = page.evaluate("document.documentElement.scrollWidth")
            assert width <= viewport["width"], (path, width)
            shot(page, f"admin-{name}-{lang}-{size}")
    finally:
        context.close()
