"""The planner's week at /taken?weergave=week: lanes per driver or vehicle, the period in the
URL, tasks placed at their time and duration, moving them, driving time left, no N+1."""

from __future__ import annotations

import html as html_module
import re
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

import pytest
from factories import create_driver, create_task, create_vehicle, csrf_from, in_carrier, login

AMS = ZoneInfo("Europe/Amsterdam")
MONDAY = date(2027, 3, 1)  # a fixed week, far from today's edges
WEEK = f"/taken?weergave=week&van={MONDAY.isoformat()}"


def at(day: date, clock: str) -> datetime:
    return datetime.combine(day, time(*map(int, clock.split(":"))), tzinfo=AMS).astimezone(UTC)


def lane(html: str, title: str) -> str:
    for part in re.split(r'(?=<section class="wk-lane)', html):
        heading = re.search(r"<h3[^>]*>(.*?)</h3>", part, re.S)
        if heading and title in heading.group(1):
            return part
    raise AssertionError(f"no lane {title!r}")


def card(html: str, task_id) -> str:
    match = re.search(
        rf'<article class="wk-card[^"]*"\s+id="task-{task_id}".*?</article>', html, re.S
    )
    assert match, f"no card of {task_id}"
    return html_module.unescape(match.group(0))


def left_of(html: str) -> float:
    """Where a card starts, in per cent of its lane (its class wk-l<thousandths>)."""
    return int(re.search(r"\bwk-l(\d+)\b", html).group(1)) / 10


def width_of(html: str) -> float:
    return int(re.search(r"\bwk-w(\d+)\b", html).group(1)) / 10


@pytest.fixture
def signed_in(client, planner):
    login(client, planner)
    return client


def test_the_week_shows_a_lane_per_driver_with_its_days(app, signed_in, carrier, driver):
    other = create_driver(app, carrier, "Piet Bakker")
    create_task(app, carrier, driver, naam="Mest Enter", gepland_op=at(MONDAY, "07:00"))
    create_task(
        app, carrier, other, naam="Voer Markelo", gepland_op=at(MONDAY + timedelta(2), "09:00")
    )
    create_task(
        app, carrier, None, naam="Los Rijssen", gepland_op=at(MONDAY + timedelta(6), "10:00")
    )
    create_task(
        app, carrier, driver, naam="Mest later", gepland_op=at(MONDAY + timedelta(7), "10:00")
    )

    response = signed_in.get(WEEK)
    html = response.get_data(as_text=True)

    assert response.status_code == 200
    assert "Mest Enter" in lane(html, "Jan")
    assert "Voer Markelo" in lane(html, "Piet Bakker")
    assert "Los Rijssen" in lane(html, "Niet toegewezen")
    assert "Mest later" not in html
    assert html.count('data-week-date="2027-03-01"') == 3  # a day column in each lane
    assert "2027-03-07" in html and "2027-03-08" not in html.split('id="lanes"')[1]


def test_a_card_stands_at_its_time_and_duration_and_an_unknown_duration_is_estimated(
    app, signed_in, carrier, driver
):
    own = create_task(
        app, carrier, driver, naam="Eigen duur", gepland_op=at(MONDAY, "08:00"), duur_min=120
    )
    guess = create_task(
        app, carrier, driver, naam="Zonder duur", gepland_op=at(MONDAY + timedelta(1), "08:00")
    )

    html = signed_in.get(WEEK).get_data(as_text=True)

    mine, guessed = card(html, own.id), card(html, guess.id)
    assert "08:00\u201310:00" in mine and "wk-estimated" not in mine
    assert "wk-estimated" in guessed and "geschatte duur" in guessed
    # A day draws 06:00-20:00 and its ten night hours a quarter as wide: 16.5 hours.
    assert left_of(mine) == pytest.approx((3.5 / 16.5) * 100 / 7, abs=0.1)
    assert width_of(mine) == pytest.approx((2 / 16.5) * 100 / 7, abs=0.1)
    assert left_of(guessed) == pytest.approx((1 + 3.5 / 16.5) * 100 / 7, abs=0.1)


def test_a_task_past_midnight_spans_its_days(app, signed_in, carrier, driver):
    night = create_task(
        app, carrier, driver, naam="Nachtrit", gepland_op=at(MONDAY, "22:00"), duur_min=240
    )

    html = signed_in.get(WEEK).get_data(as_text=True)

    found = card(html, night.id)
    assert "22:00\u201302:00 (+1)" in found
    # From Monday 22:00 to Tuesday 02:00, across the (narrower) night.
    assert left_of(found) == pytest.approx((16 / 16.5) * 100 / 7, abs=0.1)
    assert width_of(found) == pytest.approx((1 / 16.5) * 100 / 7, abs=0.1)


def test_overlapping_tasks_stack_in_their_lane(app, signed_in, carrier, driver):
    first = create_task(
        app, carrier, driver, naam="Een", gepland_op=at(MONDAY, "08:00"), duur_min=90
    )
    second = create_task(
        app, carrier, driver, naam="Twee", gepland_op=at(MONDAY, "09:00"), duur_min=30
    )

    html = signed_in.get(WEEK).get_data(as_text=True)

    assert " wk-r0" in card(html, first.id)
    assert " wk-r1" in card(html, second.id)
    assert "wk-rows-2" in lane(html, "Jan")
    # Both are double-booked: the warning shows on the card as on the day board.
    assert "dubbel geboekt" in card(html, second.id)


def test_the_period_lives_in_the_url(app, signed_in, carrier, driver):
    create_task(
        app, carrier, driver, naam="Woensdag", gepland_op=at(MONDAY + timedelta(2), "07:00")
    )

    html = signed_in.get(f"{WEEK}&dagen=3&chauffeur={driver.id}").get_data(as_text=True)

    assert 'data-week-date="2027-03-03"' in html and 'data-week-date="2027-03-04"' not in html
    assert "Niet toegewezen</h3>" not in html  # filtered on one driver
    nxt = re.search(r'href="([^"]+)" rel="next"', html).group(1)
    assert "van=2027-03-04" in html_module.unescape(nxt) and "dagen=3" in html_module.unescape(nxt)
    assert f"chauffeur={driver.id}" in html_module.unescape(nxt)


def test_a_period_of_more_than_fourteen_days_is_refused_at_its_field(app, signed_in, carrier):
    html = signed_in.get(f"{WEEK}&dagen=30").get_data(as_text=True)

    assert "Kies 2 tot 14 dagen." in html
    assert 'data-week-date="2027-03-07"' in html and 'data-week-date="2027-03-08"' not in html


def test_without_van_the_week_starts_on_monday_of_this_week(app, signed_in, carrier):
    today = datetime.now(AMS).date()
    monday = today - timedelta(days=today.weekday())

    html = signed_in.get("/taken?weergave=week").get_data(as_text=True)

    assert f'data-week-date="{monday.isoformat()}"' in html
    assert "Er staan geen taken in deze periode." in html


def test_lanes_per_vehicle(app, signed_in, carrier, driver):
    truck = create_vehicle(app, carrier, "BX-123-K")
    task = create_task(
        app, carrier, driver, naam="Met wagen", gepland_op=at(MONDAY, "07:00"), vehicle_id=truck.id
    )
    create_task(app, carrier, driver, naam="Zonder wagen", gepland_op=at(MONDAY, "12:00"))

    html = signed_in.get(f"{WEEK}&baan=voertuig").get_data(as_text=True)

    assert str(task.id) in lane(html, "BX-123-K")
    assert "Zonder wagen" in lane(html, "Zonder voertuig")
    assert "data-week-driver" not in html  # a drop on a vehicle's lane moves the day only


def test_dropping_on_another_day_and_lane_moves_the_task(app, signed_in, carrier, driver):
    from portal.tasks import service

    other = create_driver(app, carrier, "Piet Bakker")
    task = create_task(app, carrier, driver, naam="Mest Enter", gepland_op=at(MONDAY, "07:30"))
    html = signed_in.get(WEEK).get_data(as_text=True)
    found = card(html, task.id)
    move_url = re.search(r'data-move-url="([^"]+)"', found).group(1)
    versie = re.search(r'data-versie="(\d+)"', found).group(1)

    response = signed_in.post(
        move_url,
        data={
            "versie": versie,
            "chauffeur_id": str(other.id),
            "datum": "2027-03-04",
            "csrf_token": csrf_from(html),
        },
        headers={"HX-Request": "true", "HX-Target": "board-message"},
    )

    assert response.status_code == 200
    moved = in_carrier(
        app,
        carrier.id,
        lambda: service.get_task(carrier_id=carrier.id, task_id=task.id),
        lambda t: (t.chauffeur_id, t.gepland_op),
    )
    assert moved == (other.id, at(date(2027, 3, 4), "07:30"))
    after = signed_in.get(WEEK).get_data(as_text=True)
    assert str(task.id) in lane(after, "Piet Bakker")


def test_the_keyboard_dialog_returns_to_the_week(app, signed_in, carrier, driver):
    task = create_task(app, carrier, driver, naam="Mest Enter", gepland_op=at(MONDAY, "07:30"))
    html = signed_in.get(WEEK).get_data(as_text=True)
    link = html_module.unescape(
        re.search(r'class="wk-move" href="([^"]+)"', card(html, task.id)).group(1)
    )

    dialog = signed_in.get(link, headers={"HX-Request": "true"}).get_data(as_text=True)

    assert 'name="datum"' in dialog and 'name="chauffeur_id"' in dialog
    assert "weergave=week" in html_module.unescape(dialog)  # back to this week after the move


def test_lanes_show_the_driving_time_left_when_the_period_is_ahead(app, signed_in, carrier, driver):
    today = datetime.now(AMS).date()
    monday = today - timedelta(days=today.weekday())
    ahead = signed_in.get(f"/taken?weergave=week&van={monday.isoformat()}").get_data(as_text=True)
    past = signed_in.get("/taken?weergave=week&van=2020-03-02").get_data(as_text=True)

    assert "Nog geen rijtijdgegevens" in lane(ahead, "Jan")  # no card download, no hours yet
    assert "Rijtijd over" in ahead
    assert "Nog geen rijtijdgegevens" not in past


def test_the_week_in_english(app, signed_in, carrier, driver):
    signed_in.post(
        "/taal",
        data={"taal": "en", "csrf_token": csrf_from(signed_in.get(WEEK).get_data(as_text=True))},
    )

    html = signed_in.get(WEEK).get_data(as_text=True)

    assert "There are no tasks in this period." in html
    assert "Unassigned" in html


def test_another_carriers_driver_filters_nothing(app, signed_in, carrier, other_carrier, driver):
    stranger = create_driver(app, other_carrier, "Vreemde")
    create_task(app, carrier, driver, naam="Mest Enter", gepland_op=at(MONDAY, "07:00"))

    html = signed_in.get(f"{WEEK}&chauffeur={stranger.id}").get_data(as_text=True)

    assert "Mest Enter" in html and "Vreemde" not in html


def test_the_week_runs_a_fixed_number_of_queries(app, signed_in, carrier, count_queries):
    drivers = [create_driver(app, carrier, f"Chauffeur {n}") for n in range(3)]

    def add(n):
        vehicle = create_vehicle(app, carrier)
        create_task(
            app,
            carrier,
            drivers[n % 3],
            vehicle_id=vehicle.id,
            require_photos=True,
            gepland_op=at(MONDAY + timedelta(days=n % 7), "07:00"),
        )

    add(0)
    signed_in.get(WEEK)
    with count_queries() as few:
        assert signed_in.get(WEEK).status_code == 200
    for n in range(1, 25):
        add(n)
    with count_queries() as many:
        html = signed_in.get(WEEK).get_data(as_text=True)
    assert html.count('<article class="wk-card') == 25
    assert many.count == few.count, "\n".join([*few.statements, "-----", *many.statements])


def test_lanes_per_combination(app, signed_in, carrier, driver):
    from portal.audit.service import SYSTEM
    from portal.extensions import db
    from portal.fleet import couplings
    from portal.fleet.models import Vehicle

    def vehicle(kenteken, soort):
        def make():
            row = Vehicle(transporteur_id=carrier.id, kenteken=kenteken, soort=soort)
            db.session.add(row)
            db.session.flush()
            return row.id

        return in_carrier(app, carrier.id, make)

    tractor, trailer = vehicle("BX-12-LP", "opleggertrekker"), vehicle("OA-12-BC", "oplegger")
    in_carrier(
        app,
        carrier.id,
        lambda: couplings.couple(
            carrier_id=carrier.id, motor_id=tractor, towed_id=trailer, actor=SYSTEM, day=MONDAY
        ),
    )
    coupled = create_task(
        app,
        carrier,
        driver,
        naam="Met oplegger",
        vehicle_id=tractor,
        gepland_op=at(MONDAY, "07:00"),
    )
    solo = create_task(
        app,
        carrier,
        driver,
        naam="Solo",
        vehicle_id=tractor,
        gepland_op=at(MONDAY + timedelta(1), "07:00"),
    )
    create_task(app, carrier, driver, naam="Zonder wagen", gepland_op=at(MONDAY, "12:00"))

    html = signed_in.get(f"{WEEK}&baan=combinatie").get_data(as_text=True)

    assert str(coupled.id) in lane(html, "BX-12-LP + OA-12-BC")
    assert str(solo.id) not in lane(html, "BX-12-LP + OA-12-BC")
    assert "Zonder wagen" in lane(html, "Zonder voertuig")
    assert re.search(
        r'<option selected value="combinatie"|<option value="combinatie" selected', html
    )


def test_the_week_sets_no_style_attributes_and_its_positions_are_served(app, signed_in, carrier):
    create_task(app, carrier, None, naam="Los", gepland_op=at(MONDAY, "07:00"), duur_min=60)

    html = signed_in.get(WEEK).get_data(as_text=True)
    sheet = re.search(r'href="(/taken/week\.css\?v=\w+)"', html).group(1)
    css = signed_in.get(sheet)

    assert " style=" not in html.split('id="lanes"')[1]  # the CSP allows none
    assert css.status_code == 200 and css.mimetype == "text/css"
    placed = re.search(r"\bwk-l(\d+) wk-w(\d+)", card(html, html.split('id="task-')[1][:36]))
    left, width = placed.groups()
    assert f".wk-l{left}{{left:" in css.get_data(as_text=True)
    assert f".wk-w{width}{{width:" in css.get_data(as_text=True)


def test_a_lane_shows_the_eu_561_figures_left_now(app, signed_in, carrier):
    from tacho.test_planning import tired_driver

    driver, _now = tired_driver(app, carrier)

    html = signed_in.get(WEEK).get_data(as_text=True)

    figures = lane(html, driver.naam)
    # 8 h 45 driven after a weekly rest: 15 minutes to the break, 1 h 15 today (extended).
    assert re.search(r"Tot pauze</dt><dd>15 min</dd>", figures)
    assert re.search(r"Vandaag</dt><dd>1 u 15</dd>", figures)
    assert "Dagrust uiterlijk" in figures and "Weekrust</dt>" in figures
    assert "wk-low" in figures  # a quarter of an hour to the break


def test_a_fortnight_prints_a_page_per_week(app, signed_in, carrier, driver):
    later = create_task(
        app, carrier, driver, naam="Week twee", gepland_op=at(MONDAY + timedelta(9), "07:00")
    )

    html = signed_in.get(f"{WEEK}&dagen=14").get_data(as_text=True)

    pages = html.split('<section class="wk-print-week"')[1:]
    assert len(pages) == 2
    assert f'id="afdruk-{later.id}"' in pages[1] and f"afdruk-{later.id}" not in pages[0]
    assert html.count(f'id="task-{later.id}"') == 1  # the screen's card, once
    monday_two = 'data-week-date="2027-03-08"'
    assert monday_two in pages[1] and monday_two not in pages[0]
    assert 'data-week-date="2027-03-07"' in pages[0]
