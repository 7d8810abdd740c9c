"""An admin who sends test events past the carrier's limit reads why and when on the
endpoint's page, in Dutch and English, and the page's buttons are still there."""

from __future__ import annotations

from datetime import timedelta

import pytest
from factories import create_user
from playwright.sync_api import expect
from webhooks.support import register

from e2e.test_portal import sign_in

pytestmark = pytest.mark.e2e


def test_test_events_past_the_limit_say_why_and_when(page, live_server, shot):
    app = live_server.app
    app.config["WEBHOOK_MANUAL_LIMIT"] = (2, timedelta(hours=1))
    try:
        endpoint_id, _ = register(
            app, live_server.carrier, "https://tms.vervoer.nl/in", ["taak.afgerond"]
        )
        sign_in(page, live_server, create_user(app, live_server.carrier, "admin"))
        page.goto(f"{live_server.url}/beheer/webhooks/{endpoint_id}")
        button = page.get_by_role("button", name="Testgebeurtenis sturen")
        for _ in range(2):
            button.click()
            expect(page.get_by_text("De testgebeurtenis staat klaar")).to_be_visible()
        with page.expect_response(lambda r: r.url.endswith("/test")) as answer:
            button.click()
        assert answer.value.status == 429
        assert int(answer.value.headers["retry-after"]) > 3500
        expect(
            page.get_by_text("In de afgelopen 60 minuten is al 2 keer een testgebeurtenis gestuurd")
        ).to_be_visible()
        expect(page.get_by_text("Probeer het over 60 minuten opnieuw.")).to_be_visible()
        expect(button).to_be_visible()
        shot(page, "webhook-limit-nl-desktop")

        page.goto(f"{live_server.url}/beheer/webhooks/{endpoint_id}")
        page.get_by_role("button", name="English").click()
        page.get_by_role("button", name="Send test event").click()
        expect(page.get_by_text("Try again in 60 minutes.")).to_be_visible()
        shot(page, "webhook-limit-en-desktop")
    finally:
        app.config.pop("WEBHOOK_MANUAL_LIMIT", None)
