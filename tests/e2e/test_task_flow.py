"""The whole flow of a task, as its users live it: a planner plans it on the board, the
driver's app runs it through the API, and the planner sees it done with its evidence."""

from __future__ import annotations

import re
from datetime import datetime
from zoneinfo import ZoneInfo

import pytest
from factories import PASSWORD, create_driver
from playwright.sync_api import expect

from e2e.test_portal import sign_in

pytestmark = pytest.mark.e2e

PNG = (
    b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x02\x00\x00\x00"
    b"\x90wS\xde\x00\x00\x00\x0cIDATx\x9cc\xf8\xcf\xc0\x00\x00\x03\x01\x01\x00\xc9\xfe\x92\xef"
    b"\x00\x00\x00\x00IEND\xaeB`\x82"
)


def test_planned_on_the_board_run_by_the_driver_and_seen_done(page, live_server, planner, shot):
    driver = create_driver(live_server.app, live_server.carrier, "Kees Mulder")
    api = page.request
    base = f"{live_server.url}/api/v1"

    # The planner plans the task on the board.
    sign_in(page, live_server, planner)
    page.goto(f"{live_server.url}/taken/nieuw")
    page.locator("#type").select_option("mest_laden")
    page.locator("#naam").fill("Mest laden Ommen")
    today = datetime.now(ZoneInfo("Europe/Amsterdam")).date()
    page.locator("#gepland_datum").fill(today.isoformat())
    page.locator("#gepland_tijd").fill("23:30")
    page.locator("#chauffeur_id").select_option(str(driver.id))
    page.locator("#require_photos").check()
    page.locator("#min_fotos").fill("2")
    page.locator("#require_signature").check()
    page.locator("form button[type=submit]").last.click()
    # Saved, the planner lands on the board of the task's day.
    expect(page).to_have_url(re.compile(rf"/taken\?datum={today.isoformat()}"))
    lane = page.locator(f'section.lane[data-drop-driver="{driver.id}"]')
    card = lane.locator("article.card", has_text="Mest laden Ommen")
    expect(card).to_be_visible()
    shot(page, "flow-01-planned")

    # The driver's app signs in and fetches the task.
    signed_in = api.post(
        f"{base}/auth/token",
        data={"grant_type": "password", "username": driver.email, "password": PASSWORD},
    )
    assert signed_in.ok, signed_in.text()
    tokens = signed_in.json()
    auth = {"Authorization": f"Bearer {tokens['access_token']}"}
    tasks = api.get(f"{base}/users/{tokens['user_token']}/taken", headers=auth).json()
    (task,) = [t for t in tasks if t["naam"] == "Mest laden Ommen"]
    assert task["require_photos"] is True and task["min_fotos"] == 2

    # It starts the task; completing without photos is refused, naming them.
    started = api.patch(
        f"{base}/taken/{task['id']}/status", headers=auth, data={"status": "gestart"}
    )
    assert started.ok, started.text()
    refused = api.patch(
        f"{base}/taken/{task['id']}/status", headers=auth, data={"status": "afgerond"}
    )
    assert refused.status == 422
    fields = [e["field"] for e in refused.json()["errors"]]
    assert fields == ["fotos", "handtekening"]

    # It uploads two photos and a signature, and completes.
    def upload(soort: str) -> str:
        response = api.post(
            f"{base}/bestanden",
            headers=auth,
            multipart={
                "soort": soort,
                "file": {"name": f"{soort}.png", "mimeType": "image/png", "buffer": PNG},
            },
        )
        assert response.status == 201, response.text()
        return response.json()["id"]

    photos = [upload("photo"), upload("photo")]
    signature = upload("signature")
    done = api.patch(
        f"{base}/taken/{task['id']}/status",
        headers=auth,
        data={"status": "afgerond", "fotos": photos, "handtekeningen": [signature]},
    )
    assert done.ok, done.text()
    assert done.json()["status"] == "afgerond"

    # The board shows the task done; its page shows the photos.
    page.goto(f"{live_server.url}/taken?datum={today.isoformat()}")
    expect(card.locator(".status")).to_have_text(re.compile("Afgerond"))
    shot(page, "flow-02-done-on-board")
    card.get_by_role("link", name="Mest laden Ommen").click()
    images = page.locator("img[src*='/bestanden/']")
    expect(images).to_have_count(3)
    # Every image loads and decodes (on a busy machine they may still be on their way).
    page.wait_for_function(
        "() => [...document.querySelectorAll(\"img[src*='/bestanden/']\")]"
        ".every(img => img.complete && img.naturalWidth > 0)"
    )
    shot(page, "flow-03-task-page")
