"""Driving and rest times where planners plan: each driver's remaining driving time in the
board's lane, and a warning (never a block) on a card and in the task form when the driver
cannot legally finish a task."""

from __future__ import annotations

import io
import re
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

from factories import create_driver, create_task, in_carrier, login
from tacho.test_reading import ACTOR, NUMBER, set_card
from tasks.test_board import card, lane

from portal.tacho import service
from portal.tacho.ddd.build import card_file, changes_from_timeline

WARNING = "niet genoeg rijtijd over"


def board_of(moment: datetime) -> str:
    """The board of the carrier's day the moment falls on: ten minutes from now can be
    tomorrow in Amsterdam."""
    return f"/taken?datum={moment.astimezone(ZoneInfo('Europe/Amsterdam')).date().isoformat()}"


def tired_driver(app, carrier, naam: str = "Piet Vos"):
    """A driver whose card, downloaded a minute ago, shows a weekly rest and then a shift of
    8 h 45 of driving (4 h 30, a 45-minute break, 4 h 15) ending now: 1 h 15 left today
    with an extension, 15 minutes until the next break."""
    driver = create_driver(app, carrier, naam=naam)
    now = datetime.now(UTC).replace(second=0, microsecond=0) - timedelta(minutes=1)
    start = now - timedelta(minutes=270 + 45 + 255)
    timeline = [
        (start - timedelta(hours=50), "rust"),
        (start, "rijden"),
        (start + timedelta(minutes=270), "rust"),
        (start + timedelta(minutes=315), "rijden"),
    ]
    data = card_file(
        kaartnummer=NUMBER,
        achternaam="Vos",
        voornamen="Piet",
        dagen=changes_from_timeline(timeline, until=now),
        download_time=now,
    )
    set_card(app, carrier, driver, NUMBER)
    in_carrier(
        app,
        carrier.id,
        lambda: service.upload(
            carrier_id=carrier.id, stream=io.BytesIO(data), filename="kaart.ddd", actor=ACTOR
        ),
    )
    return driver, now


def test_the_lane_shows_the_driving_time_left_today(app, client, carrier, planner):
    driver, _now = tired_driver(app, carrier)
    fresh = create_driver(app, carrier, naam="Kees Bos")
    login(client, planner)
    html = client.get("/taken").get_data(as_text=True)
    tired = lane(html, driver.naam)
    figure = re.search(r'<a class="lane-budget[^"]*"[^>]*>(.*?)</a>', tired, re.S)
    assert figure, tired
    assert "1 u 15" in figure.group(1)
    assert "lane-budget-low" not in tired  # more than an hour left
    # A driver without any data shows that it is unknown, and where to look, not a figure.
    unknown = re.search(
        r'<a class="lane-budget lane-budget-none"[^>]*>(.*?)</a>', lane(html, fresh.naam), re.S
    )
    assert unknown and "Rijtijd vandaag over: onbekend" in unknown.group(1)
    assert not re.search(r"\d+ (u|min)", unknown.group(1))


def test_a_task_the_driver_cannot_finish_is_warned_on_the_card_and_in_the_form(
    app, client, carrier, planner
):
    driver, now = tired_driver(app, carrier)
    long_task = create_task(
        app,
        carrier,
        driver,
        naam="Mest Enter",
        gepland_op=now + timedelta(minutes=10),
        duur_min=120,
    )
    short_task = create_task(
        app, carrier, driver, naam="Voer Goor", gepland_op=now + timedelta(minutes=10), duur_min=10
    )
    login(client, planner)
    html = client.get(board_of(now + timedelta(minutes=10))).get_data(as_text=True)
    assert WARNING in card(html, long_task.id)
    assert WARNING not in card(html, short_task.id)
    form = client.get(f"/taken/{long_task.id}/bewerken").get_data(as_text=True)
    assert WARNING in form
    # A warning, not a block: the task saves as it is.
    assert client.get(f"/taken/{long_task.id}").status_code == 200


def test_the_warning_is_in_english_for_an_english_planner(app, client, carrier, planner):
    driver, now = tired_driver(app, carrier)
    task = create_task(
        app,
        carrier,
        driver,
        naam="Mest Enter",
        gepland_op=now + timedelta(minutes=10),
        duur_min=180,
    )
    login(client, planner)
    html = client.get(board_of(now + timedelta(minutes=10)), headers={"Accept-Language": "en"})
    html = html.get_data(as_text=True)
    assert "does not have enough driving time left" in card(html, task.id)


def test_work_out_of_eu561_scope_gets_no_driving_time_warning(app, client, carrier, planner):
    """A tired driver's task in a tractor of at most 40 km/h (Art. 3(b)), or of an activity
    under a national exemption (Art. 13(1)), is not warned of; the same task in a truck is."""
    from factories import create_vehicle

    from portal.audit.service import SYSTEM
    from portal.fleet import service as fleet
    from portal.tacho.scope import set_exemption

    driver, now = tired_driver(app, carrier)
    slow = create_vehicle(app, carrier, "WF-12-AB")
    in_carrier(app, carrier.id, lambda: fleet.update_vehicle(
        carrier_id=carrier.id, vehicle_id=slow.id, data={"max_snelheid_kmh": 40}, actor=SYSTEM,
    ))  # fmt: skip
    soon = now + timedelta(minutes=10)
    truck_task = create_task(app, carrier, driver, naam="Mest Enter", gepland_op=soon, duur_min=180)
    tractor_task = create_task(app, carrier, driver, naam="Mest Goor", gepland_op=soon,
                               duur_min=180, vehicle_id=slow.id)  # fmt: skip
    feed_task = create_task(app, carrier, driver, type="voer_leveren", naam="Voer Epe",
                            gepland_op=soon, duur_min=180)  # fmt: skip
    in_carrier(app, carrier.id, lambda: set_exemption(
        carrier_id=carrier.id, activiteit="voer_leveren", artikel="13(1)(b)", actor=SYSTEM,
    ))  # fmt: skip
    login(client, planner)
    html = client.get(board_of(soon)).get_data(as_text=True)
    assert WARNING in card(html, truck_task.id)
    assert WARNING not in card(html, tractor_task.id)
    assert WARNING not in card(html, feed_task.id)
