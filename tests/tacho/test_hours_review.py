"""The review of a driver's week on the hours page names a day on which the tachograph card
shows driving but the driver recorded no work day in the app."""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, time

from factories import create_driver, login
from hours.support import record_day

from portal.tacho.ddd.build import card_file, changes_from_timeline

CARD = "NB12345678901000"


def at(day: date, clock: str) -> datetime:
    hour, minute = (int(part) for part in clock.split(":"))
    return datetime.combine(day, time(hour, minute), tzinfo=UTC)


def test_driving_on_the_card_without_a_work_day_is_a_warning(
    app, client, carrier, planner, store_tacho
):
    driver = create_driver(app, carrier, "Piet Rijder")
    monday, tuesday = date(2026, 11, 2), date(2026, 11, 3)
    timeline = [
        (at(monday, "06:00"), "rijden"),
        (at(monday, "10:00"), "rust"),
        (at(tuesday, "05:00"), "rijden"),
        (at(tuesday, "07:30"), "rust"),
    ]
    download = card_file(
        kaartnummer=CARD,
        achternaam="Rijder",
        voornamen="Piet",
        dagen=changes_from_timeline(timeline),
        download_time=at(date(2026, 11, 4), "20:00"),
    )
    store_tacho(carrier, download, "C_20261104_2000_P_Rijder.DDD", driver_id=driver.id)
    # Monday is in the app as well; Tuesday only on the card.
    record_day(
        app,
        carrier,
        driver,
        at(monday, "06:00"),
        at(monday, "10:00"),
        [("rijden", at(monday, "06:00"), at(monday, "10:00"))],
    )
    login(client, planner)
    html = client.get(f"/uren/{driver.user_token}/2026-W45").get_data(as_text=True)
    warnings = re.search(r'id="aandachtspunten"(.*?)</div>', html, re.S).group(1)
    text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", warnings))
    assert "di 3 nov: 2:30 rijden op de tachograafkaart, geen werkdag in de app" in text
    assert "ma 2 nov" not in text
