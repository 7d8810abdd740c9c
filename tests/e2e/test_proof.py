"""A planner shares a completed task's proof of delivery; the shipper opens the link in a
browser that never signed in and sees the document, and a revoked link is gone."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect
from proof.helpers import completed_task

from e2e.test_portal import sign_in

pytestmark = pytest.mark.e2e


def test_a_shipper_opens_a_shared_proof_without_an_account(
    page, browser, live_server, planner, shot
):
    errors: list[str] = []
    task = completed_task(live_server.app, live_server.carrier, live_server.driver)
    sign_in(page, live_server, planner)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"{live_server.url}/taken/{task.id}")
    section = page.locator("#bewijs")
    expect(section.get_by_role("heading", name="Bewijs van aflevering")).to_be_visible()
    expect(section).to_contain_text("Nog niet gedeeld.")
    section.get_by_label("Delen met een link, geldig (dagen)").fill("14")
    section.get_by_role("button", name="Link maken").click()
    url = page.get_by_label("Link voor de verlader").input_value()
    assert "/bewijs/" in url
    expect(page.get_by_role("button", name="Kopiëren")).to_be_visible()

    # The shipper: a browser of its own, never signed in.
    shipper = browser.new_context(locale="nl-NL", viewport={"width": 1100, "height": 900})
    try:
        public = shipper.new_page()
        public.on("pageerror", lambda e: errors.append(str(e)))
        public.goto(url)
        expect(public.get_by_role("heading", name="Bewijs van aflevering", level=1)).to_be_visible()
        expect(public.locator("body")).to_contain_text("Getekend door Henk de Vries")
        expect(public.locator("body")).to_contain_text("BX-12-KL")
        expect(public.locator("figure img").first).to_be_visible()
        assert public.evaluate("document.querySelector('figure img').naturalWidth") > 0
        expect(public.get_by_role("link", name="PDF downloaden")).to_be_visible()
        assert "Afmelden" not in public.content()
        shot(public, "proof-shared")

        # Revoked: the link answers the portal's 410 page.
        page.goto(f"{live_server.url}/taken/{task.id}")
        page.locator("#bewijs").get_by_role("link", name="Intrekken").click()
        page.get_by_role("button", name="Intrekken").click()
        expect(page.locator("#bewijs")).to_contain_text("ingetrokken op")
        gone = public.goto(url)
        assert gone.status == 410
        expect(public.get_by_role("heading", name="Verlopen")).to_be_visible()
    finally:
        shipper.close()
    assert errors == []
