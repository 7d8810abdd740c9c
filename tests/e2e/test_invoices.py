"""An issued invoice in the browser: its page, the credit note flow (a refusal at the field
with what was typed kept, the check, back, the confirmation) and the credit note's page, in
Dutch and in English, with no console errors."""

from __future__ import annotations

import pytest
from billing.test_issued_invoices import (
    completed,
    documents_of,
    export,
    make_customer,
    make_tariff,
    set_seller,
)
from factories import create_carrier, create_driver, create_user
from playwright.sync_api import expect

from e2e.test_portal import sign_in

pytestmark = pytest.mark.e2e


def test_an_invoice_is_credited_after_a_check_in_dutch_and_read_in_english(page, live_server, shot):
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    app = live_server.app
    carrier = create_carrier(app, "Creditnota Transport BV")
    planner = create_user(app, carrier, "planner")
    driver = create_driver(app, carrier, "Femke Kok")
    set_seller(app, carrier)
    klant_id = make_customer(app, carrier)
    make_tariff(app, carrier)
    completed(app, carrier, driver, klant_id, "Mest Ter Horst 1", 30)
    completed(app, carrier, driver, klant_id, "Mest Ter Horst 2", 20)
    [invoice] = documents_of(app, carrier, export(app, carrier))
    sign_in(page, live_server, planner)

    page.goto(f"{live_server.url}/facturatie/facturen")
    page.get_by_role("link", name=invoice["nummer"]).click()
    expect(page.get_by_role("heading", name=f"Factuur {invoice['nummer']}")).to_be_visible()
    expect(page.get_by_text("Kan via Peppol naar de klant")).to_be_visible()
    expect(page.locator("dl.billing-totals")).to_contain_text("€ 263,18")  # 217.50 + 45.68
    shot(page, "invoice-nl")

    page.get_by_role("link", name="Crediteren…").click()
    first = page.get_by_label("Te crediteren op regel 1")
    expect(first).to_have_value("130,50")
    first.fill("140,00")
    page.get_by_label("Te crediteren op regel 2").fill("")
    page.get_by_role("button", name="Verder: controleren").click()
    expect(page.get_by_text("Er staat nog € 130,50 open op deze regel.")).to_be_visible()
    expect(page.get_by_text("Schrijf op waarom je crediteert")).to_be_visible()
    expect(first).to_have_value("140,00")  # what was typed is kept
    shot(page, "credit-refused-nl")

    first.fill("30,50")
    page.get_by_label("Reden").fill("Te veel gewogen: 23 ton, niet 30")
    page.get_by_role("button", name="Verder: controleren").click()
    expect(page.get_by_role("heading", name=f"Creditnota bij factuur {invoice['nummer']} "
                                            "uitgeven?")).to_be_visible()  # fmt: skip
    expect(page.locator("dl.billing-totals")).to_contain_text("€ 36,91")  # 30.50 + 6.41
    page.get_by_role("button", name="Nee, terug").click()
    expect(page.get_by_label("Te crediteren op regel 1")).to_have_value("30,50")
    expect(page.get_by_label("Reden")).to_have_value("Te veel gewogen: 23 ton, niet 30")

    page.get_by_role("button", name="Verder: controleren").click()
    page.get_by_role("button", name="Ja, geef uit").click()
    number = invoice["nummer"].replace(invoice["nummer"][:4], "C" + invoice["nummer"][:4], 1)
    expect(page.get_by_text(f"Creditnota {number} is uitgegeven.")).to_be_visible()
    expect(page.get_by_role("heading", name=f"Creditnota {number}")).to_be_visible()
    expect(page.get_by_text("Te veel gewogen: 23 ton, niet 30")).to_be_visible()
    shot(page, "credit-note-nl")

    page.get_by_role("link", name=invoice["nummer"]).click()
    expect(page.locator("dl.billing-totals")).to_contain_text("€ 187,00")  # 217.50 - 30.50
    page.get_by_role("button", name="English").click()
    expect(page.get_by_role("heading", name=f"Invoice {invoice['nummer']}")).to_be_visible()
    expect(page.get_by_text("Can go to the customer over Peppol")).to_be_visible()
    expect(page.get_by_role("heading", name="Credit notes")).to_be_visible()
    expect(page.get_by_text("Still creditable")).to_be_visible()
    shot(page, "invoice-en")
    page.get_by_role("link", name="Credit…").click()
    expect(page.get_by_label("To credit on line 1")).to_have_value("100.00")
    expect(page.get_by_role("button", name="Next: check")).to_be_visible()
    shot(page, "credit-form-en")
    # The refusal answers 422 on purpose: the browser notes it, and nothing else went wrong.
    assert [e for e in errors if "status of 422" not in e] == []
