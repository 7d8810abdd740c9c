"""GET /api/v1/users/{user_token}/weken/{jaar}-W{week}: a driver's recorded week as payable
hours under the CAO, for the driver's app and for carriers' systems."""

from __future__ import annotations

from factories import bearer, create_api_key, create_driver, driver_token

from hours.support import API, approve, at, record_day


def week_of(client, driver, headers, week="2026-W47"):
    return client.get(f"{API}/users/{driver.user_token}/weken/{week}", headers=headers)


def record_week(app, carrier, driver, saturday=False):
    """Monday to Friday 07:00-17:00 with a 30-minute break at noon (9.5 paid hours a day:
    47.5 in the week), and on request a Saturday morning 06:00-10:00 (all work)."""
    days = ["2026-11-16", "2026-11-17", "2026-11-18", "2026-11-19", "2026-11-20"]
    for day in days:
        record_day(
            app,
            carrier,
            driver,
            at(day, "07:00"),
            at(day, "17:00"),
            [
                ("rijden", at(day, "07:00"), at(day, "12:00")),
                ("pauze", at(day, "12:00"), at(day, "12:30")),
                ("laden", at(day, "12:30"), at(day, "17:00")),
            ],
        )
    if saturday:
        record_day(
            app,
            carrier,
            driver,
            at("2026-11-21", "06:00"),
            at("2026-11-21", "10:00"),
            [("rijden", at("2026-11-21", "06:00"), at("2026-11-21", "10:00"))],
        )


def test_a_driver_sees_the_weeks_payable_hours(app, client, carrier, driver):
    record_week(app, carrier, driver, saturday=True)
    response = week_of(client, driver, bearer(driver_token(client, driver)))

    assert response.status_code == 200, response.get_json()
    week = response.get_json()
    assert (week["week"], week["status"], week["contract_min"]) == ("2026-W47", "open", 2400)
    total = week["totaal"]
    # 5 x 9.5 h on weekdays (breaks unpaid) plus 4 h on Saturday: 51.5 h paid.
    assert total["gewerkt_min"] == 51 * 60 + 30
    assert total["onbetaald_min"] == 5 * 30
    # The Saturday's 4 hours at 150%; of the weekdays' 47.5 h, the 7.5 h beyond 40 at 130%
    # (the last minutes of the week in time order, before the Saturday's).
    assert total["zaterdag_150_min"] == 4 * 60
    assert total["overuren_130_min"] + total["normaal_min"] == 47 * 60 + 30
    assert total["overuren_130_min"] > 0
    assert total["aanvulling_min"] == 0
    assert len(week["per_dag"]) == 7 and week["per_dag"][5]["zaterdag_150_min"] == 240
    assert isinstance(total["verblijfkosten_eur"], str) and week["correcties"] == []


def test_a_short_week_is_made_up_to_the_contract_hours(app, client, carrier, driver):
    record_day(
        app,
        carrier,
        driver,
        at("2026-11-16", "08:00"),
        at("2026-11-16", "16:00"),
        [("overig_werk", at("2026-11-16", "08:00"), at("2026-11-16", "16:00"))],
    )
    week = week_of(client, driver, bearer(driver_token(client, driver))).get_json()
    assert week["totaal"]["gewerkt_min"] == 480
    assert week["totaal"]["aanvulling_min"] == 2400 - 480
    assert week["totaal"]["overuren_130_min"] == 0


def test_an_approved_week_says_so_and_keys_need_the_hours_scope(
    app, client, carrier, driver, planner
):
    record_week(app, carrier, driver)
    approve(app, carrier, driver, "2026-W47", planner)
    key = create_api_key(app, carrier)
    assert week_of(client, driver, bearer(key.key)).get_json()["status"] == "goedgekeurd"

    from factories import in_carrier

    from portal.accounts.service import create_api_key as make_key

    narrow = in_carrier(
        app,
        carrier.id,
        lambda: make_key(carrier_id=carrier.id, naam="Klanten", scopes="customers:read"),
        lambda pair: pair[1],
    )
    assert week_of(client, driver, bearer(narrow)).status_code == 403


def test_another_driver_or_carrier_and_a_bad_week_are_refused(
    app, client, carrier, driver, other_carrier
):
    colleague = create_driver(app, carrier, naam="Piet")
    mine = bearer(driver_token(client, driver))
    assert week_of(client, colleague, mine).status_code == 403
    stranger = create_driver(app, other_carrier, naam="Elders")
    assert week_of(client, stranger, bearer(create_api_key(app, carrier).key)).status_code == 404
    for bad in ("2026-W54", "2026-47", "week"):
        response = week_of(client, driver, mine, week=bad)
        assert response.status_code == 422, bad
        assert response.get_json()["errors"][0]["field"] == "week"
