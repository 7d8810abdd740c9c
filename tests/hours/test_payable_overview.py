"""The hours overview's payable view: per driver the paid hours per CAO category over the
period's whole weeks, next to the worked hours, in a fixed number of queries."""

from __future__ import annotations

import re

from factories import create_driver, login

from hours.support import at, record_day, record_nine_hours, set_contract
from hours.test_payable_api import record_week


def cells(html: str, driver) -> dict[str, str]:
    row = re.search(rf'<tr id="uren-{driver.id}">(.*?)</tr>', html, re.S).group(1)
    found = re.findall(r'data-(?:col|soort)="([^"]+)"[^>]*>(.*?)</td>', row, re.S)
    return {name: re.sub(r"<[^>]+>", "", value).strip() for name, value in found}


def test_the_overview_shows_payable_hours_next_to_the_worked_hours(
    app, client, carrier, driver, planner
):
    record_week(app, carrier, driver, saturday=True)
    idle = create_driver(app, carrier, "Zonder Uren")
    login(client, planner)
    html = client.get("/uren?week=2026-W47&weergave=betaald").get_data(as_text=True)
    row = cells(html, driver)
    # 47.5 h on weekdays (40 normal, 7.5 overtime) and 4 h on Saturday at 150%.
    assert row["gewerkt_min"] == "51:30"
    assert row["normaal_min"] == "40:00"
    assert row["overuren_130_min"] == "7:30"
    assert row["zaterdag_150_min"] == "4:00"
    assert row["werktijd"] == "51:30"
    assert "Per soort" in html and 'aria-current="page" id="weergave-betaald"' in html
    # A driver without hours is made up to the contract: 40 hours normal, all of it made up.
    assert cells(html, idle)["aanvulling_min"] == "40:00"
    # The plain view keeps the hours per kind; the view sticks to sorting links.
    plain = client.get("/uren?week=2026-W47").get_data(as_text=True)
    assert "overuren_130_min" not in plain
    sorting = re.search(r'href="(/uren\?[^"]*sort=werktijd[^"]*)"', html).group(1)
    assert "weergave=betaald" in sorting


def test_the_payable_view_runs_a_fixed_number_of_queries(
    app, client, carrier, planner, count_queries
):
    login(client, planner)

    def load() -> int:
        with count_queries() as counter:
            response = client.get("/uren?van=2026-11-09&tot=2026-11-22&weergave=betaald")
            assert response.status_code == 200
        return counter.count

    def add(n: int):
        driver = create_driver(app, carrier, f"Chauffeur {n}")
        record_day(app, carrier, driver, at("2026-11-16", "06:00"), at("2026-11-16", "12:00"),
                   [("rijden", at("2026-11-16", "06:00"), at("2026-11-16", "11:00"))])  # fmt: skip

    add(0)
    load()
    few = load()
    for n in range(1, 5):
        add(n)
    assert load() == few


def test_the_overview_shows_meeruren_holidays_and_night_trips(
    app, client, carrier, driver, planner
):
    """Week 2025-W47 of a 32-hour driver (5 x 9 hours): 8 meeruren beside 32 normal and 5
    overtime hours; week 2026-W18 of another driver: Koningsdag paid, not worked, and a
    one-day night trip."""
    set_contract(app, carrier, driver, 32)
    record_nine_hours(app, carrier, driver, [f"2025-11-{d}" for d in range(17, 22)])
    login(client, planner)
    html = client.get("/uren?week=2025-W47&weergave=betaald").get_data(as_text=True)
    row = cells(html, driver)
    assert (row["normaal_min"], row["meeruren_min"], row["overuren_130_min"]) == (
        "32:00",
        "8:00",
        "5:00",
    )
    assert row["aanvulling_min"] == "\u2013"  # none
    # Meeruren, paid holidays, night trips and irregular hours have a column when the
    # period has any.
    assert not {"feestdag_min", "nachttoeslag_min", "onregelmatig_min"} & set(row)
    assert 'data-col="feestdag_min"' not in html
    html = client.get("/uren?week=2026-W47&weergave=betaald").get_data(as_text=True)
    assert 'data-col="meeruren_min"' not in html and 'data-col="normaal_min"' in html
    night = create_driver(app, carrier, "Nacht Rijder")
    record_day(app, carrier, night, at("2026-04-28", "15:00"), at("2026-04-29", "03:30"),
               [("rijden", at("2026-04-28", "15:00"), at("2026-04-29", "03:30"))])  # fmt: skip
    html = client.get("/uren?week=2026-W18&weergave=betaald").get_data(as_text=True)
    row = cells(html, night)
    assert (row["feestdag_min"], row["nachttoeslag_min"], row["aanvulling_min"]) == (
        "8:00",
        "6:30",
        "19:30",
    )
    assert cells(html, driver)["feestdag_min"] == "6:24"  # a fifth of 32 contract hours
