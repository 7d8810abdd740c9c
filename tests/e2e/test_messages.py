"""Messages to drivers, as their users live them: a planner sends one from the portal, the
driver's app finds it in its inbox and marks it read, and the planner sees it read."""

from __future__ import annotations

import re

import pytest
from factories import PASSWORD, create_carrier, create_driver, create_user
from playwright.sync_api import expect

from e2e.test_portal import sign_in

pytestmark = pytest.mark.e2e

# A 422 (errors at the fields) is an answer the page shows; Chromium logs it all the same.
EXPECTED = re.compile(r"Failed to load resource: .* status of 422\b")


@pytest.fixture
def own_carrier(live_server):
    """A carrier of these tests alone, so its drivers do not show on other tests' boards."""
    carrier = create_carrier(live_server.app, "Visser Transport")
    return carrier, create_user(live_server.app, carrier, "planner")


def test_a_message_is_sent_found_in_the_inbox_and_shown_read(page, live_server, own_carrier, shot):
    carrier, planner = own_carrier
    errors: list[str] = []
    page.on(
        "console",
        lambda m: (
            errors.append(m.text) if m.type == "error" and not EXPECTED.search(m.text) else None
        ),
    )
    page.on("pageerror", lambda exc: errors.append(f"uncaught: {exc}"))
    driver = create_driver(live_server.app, carrier, "Bram Visser")
    base = f"{live_server.url}/api/v1"

    sign_in(page, live_server, planner)
    page.get_by_role("link", name="Berichten", exact=True).click()
    expect(page.get_by_role("heading", name="Berichten", level=1)).to_be_visible()

    # Sending without a recipient or text is refused at the fields, nothing lost.
    page.get_by_label("Titel").fill("Omleiding Kanaaldijk")
    page.get_by_role("button", name="Versturen").click()
    expect(page.locator("#ontvangers-error")).to_have_text("Kies minstens één chauffeur.")
    expect(page.locator("#tekst-error")).to_be_visible()
    expect(page.get_by_label("Titel")).to_have_value("Omleiding Kanaaldijk")

    # The planner picks the driver and writes the message.
    page.get_by_label("Bram Visser").check()
    expect(page.locator("[data-chosen-count]")).to_have_text("1 chauffeur gekozen")
    page.get_by_label(re.compile(r"^\s*Bericht")).fill(
        "De Kanaaldijk is dicht voor vrachtverkeer. Rij via de N279."
    )
    expect(page.locator("#tekst-count")).to_have_text("59 / 2000")
    page.get_by_role("button", name="Versturen").click()
    expect(page.get_by_role("status")).to_have_text("Bericht verstuurd naar 1 chauffeur.")
    expect(page.get_by_label("Titel")).to_have_value("")

    # The history refreshes by itself: the message waits for its push.
    history = page.locator("#message-history")
    batch = history.locator("article.message-batch", has_text="Omleiding Kanaaldijk")
    expect(batch).to_be_visible()
    recipient = batch.locator("li.recipient-status", has_text="Bram Visser")
    expect(recipient.locator(".status")).to_have_text("In wachtrij")

    # The driver's app signs in and finds the message in its inbox.
    api = page.request
    signed_in = api.post(
        f"{base}/auth/token",
        data={"grant_type": "password", "username": driver.email, "password": PASSWORD},
    )
    assert signed_in.ok, signed_in.text()
    tokens = signed_in.json()
    auth = {"Authorization": f"Bearer {tokens['access_token']}"}
    inbox = api.get(f"{base}/users/{tokens['user_token']}/notificaties", headers=auth)
    assert inbox.ok and inbox.headers["x-unread-count"] == "1"
    (message,) = inbox.json()
    assert message["titel"] == "Omleiding Kanaaldijk"
    assert message["tekst"].endswith("Rij via de N279.")

    # The driver opens it: marked read.
    read = api.post(f"{base}/notificaties/{message['id']}/gelezen", headers=auth)
    assert read.ok and read.json()["status"] == "read"

    # The planner reloads and sees it read, with the time.
    page.reload()
    recipient = page.locator("#message-history li.recipient-status", has_text="Bram Visser")
    expect(recipient.locator(".status")).to_have_text("Gelezen")
    expect(recipient).to_contain_text("gelezen")
    assert errors == []
    page.evaluate("document.activeElement && document.activeElement.blur()")
    shot(page, "messages-01-read")


def test_all_active_drivers_and_the_search(page, live_server, own_carrier):
    carrier, planner = own_carrier
    for n in range(6):
        create_driver(live_server.app, carrier, f"Zoek Chauffeur {n}")
    sign_in(page, live_server, planner)
    page.goto(f"{live_server.url}/berichten")
    search = page.get_by_role("searchbox", name="Zoek een chauffeur")
    expect(search).to_be_visible()
    search.fill("chauffeur 3")
    expect(page.locator(".recipients-list li:visible")).to_have_count(1)
    search.fill("niemand-met-deze-naam")
    expect(page.get_by_text("Geen chauffeur gevonden.")).to_be_visible()
    search.fill("")
    everyone = page.get_by_label(re.compile(r"Alle actieve chauffeurs"))
    everyone.check()
    boxes = page.locator("[data-driver]")
    expect(boxes.first).to_be_checked()
    count = boxes.count()
    expect(page.locator("[data-chosen-count]")).to_have_text(f"{count} chauffeurs gekozen")
    boxes.first.uncheck()
    expect(everyone).not_to_be_checked()
