"""A unit typed with a quantity reads in the user's language where it is the usual word
("stuks" reads "pieces"); any other unit shows as typed."""

from __future__ import annotations

import re
from datetime import datetime
from zoneinfo import ZoneInfo

from billing.test_views import MARCH, billed
from factories import login

AMS = ZoneInfo("Europe/Amsterdam")


def text_of(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


def test_the_quantity_unit_reads_in_english(app, client, carrier, planner, driver):
    billed(app, carrier, driver, datetime(2025, 3, 3, 9, tzinfo=AMS),
           {"hoeveelheid": 40.0, "eenheid": "stuks"}, naam="Biggen Enter")  # fmt: skip
    billed(app, carrier, driver, datetime(2025, 3, 4, 9, tzinfo=AMS),
           {"hoeveelheid": 3.0, "eenheid": "kisten"}, naam="Kisten Enter")  # fmt: skip
    login(client, planner)
    dutch = text_of(client.get(f"/facturatie?{MARCH}").get_data(as_text=True))
    assert "Hoeveelheid (stuks)" in dutch and "40 stuks" in dutch
    with client.session_transaction() as session:
        session["taal"] = "en"
    english = text_of(client.get(f"/facturatie?{MARCH}").get_data(as_text=True))
    assert "Quantity (pieces)" in english and "40 pieces" in english
    assert "stuks" not in english
    assert "Quantity (kisten)" in english  # a unit of the carrier's own, as typed
    confirm = text_of(client.get(f"/facturatie/export?{MARCH}&formaat=csv").get_data(as_text=True))
    assert "Quantity (pieces)" in confirm and "stuks" not in confirm
