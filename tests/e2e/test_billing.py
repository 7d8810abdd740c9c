"""A task completed on the board shows on the billing page; exporting asks first, then marks
the lines billed and downloads the file."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

import pytest
from factories import create_carrier, create_driver, create_task, create_user
from playwright.sync_api import expect

from e2e.test_portal import sign_in

pytestmark = pytest.mark.e2e


def test_completed_on_the_board_billed_after_a_confirmation(page, live_server, shot):
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    downloads = []
    page.on("download", lambda d: downloads.append(d))
    app = live_server.app
    carrier = create_carrier(app, "Facturatie Transport BV")
    planner = create_user(app, carrier, "planner")
    driver = create_driver(app, carrier, "Femke Kok")
    create_task(app, carrier, driver, naam="Mest laden Rijssen", stad="Rijssen",
                hoeveelheid=31.5, eenheid="ton", status="gestart",
                gepland_op=datetime.now(UTC) - timedelta(hours=1))  # fmt: skip
    sign_in(page, live_server, planner)

    page.goto(f"{live_server.url}/taken?weergave=status&van=&tot=")
    card = page.locator("article.card").filter(
        has=page.get_by_role("link", name="Mest laden Rijssen")
    )
    with page.expect_response(lambda r: r.url.endswith("/status")) as answer:
        card.get_by_role("button", name="Afronden").click()
    assert answer.value.status == 200
    expect(card.locator(".status")).to_have_text("Afgerond")

    page.get_by_role("link", name="Facturatie").first.click()
    expect(page.get_by_role("heading", name="Facturatie")).to_be_visible()
    month = datetime.now(UTC).date().replace(day=1).isoformat()
    expect(page.get_by_label("Van")).to_have_value(month)  # the current month
    line = page.locator("table.billing-lines tbody tr")
    expect(line).to_have_count(1)
    expect(line).to_contain_text("Mest laden Rijssen")
    expect(line).to_contain_text("31,5 ton")
    shot(page, "billing-page")

    page.get_by_role("button", name="Exporteer CSV…").click()
    expect(page.get_by_role("heading", name="1 regel exporteren als CSV?")).to_be_visible()
    expect(
        page.get_by_text("Na het exporteren is deze regel gemarkeerd als gefactureerd.")
    ).to_be_visible()
    shot(page, "billing-export-confirm")
    assert downloads == []  # nothing exported yet

    page.get_by_role("link", name="Nee, terug").click()
    expect(line).to_have_count(1)  # going back marks nothing

    page.get_by_role("button", name="Exporteer CSV…").click()
    with page.expect_download() as download:
        page.get_by_role("button", name="Ja, exporteer en markeer als gefactureerd").click()
    assert re.fullmatch(r"facturatie-\d{4}-\d{2}-01-\d{4}-\d{2}-\d{2}\.csv",
                        download.value.suggested_filename)  # fmt: skip
    assert "Mest laden Rijssen" in download.value.path().read_text(encoding="utf-8-sig")

    expect(page.get_by_text("1 regel geëxporteerd en gemarkeerd als gefactureerd.")).to_be_visible()
    expect(page.get_by_text("Geen regels om te factureren in deze periode.")).to_be_visible()
    earlier = page.locator(".billing-exports tbody tr")
    expect(earlier).to_have_count(1)
    expect(earlier.get_by_role("link", name="XLSX")).to_be_visible()  # export again
    shot(page, "billing-exported")

    page.reload()
    expect(page.get_by_text("gemarkeerd als gefactureerd.")).to_have_count(0)
    assert len(downloads) == 1  # a reload neither exports nor downloads again
    assert errors == []
