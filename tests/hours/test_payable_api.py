"""GET /api/v1/users/{user_token}/weken/{jaar}-W{week}: a driver's recorded week as payable
hours under the CAO, for the driver's app and for carriers' systems."""

from __future__ import annotations

from factories import bearer, create_api_key, create_driver, driver_token

from hours.support import API, approve, at, record_day, record_nine_hours, set_contract


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


def test_meeruren_per_day_and_in_the_total(app, client, carrier, driver):
    """A 32-hour driver's 5 x 9 hours in November 2025 under the CAO preset (the CAO up to
    2025, art. 27 lid 1: overtime above 40 hours): 32 normal, 8 meeruren, 5 overtime."""
    set_contract(app, carrier, driver, 32)
    record_nine_hours(app, carrier, driver, [f"2025-11-{d}" for d in range(17, 22)])
    week = week_of(client, driver, bearer(driver_token(client, driver)), "2025-W47").get_json()
    assert (week["overuren_grens"], week["contract_min"]) == ("week_40", 32 * 60)
    total = week["totaal"]
    assert (total["normaal_min"], total["meeruren_min"], total["overuren_130_min"]) == (
        32 * 60,
        8 * 60,
        5 * 60,
    )
    assert [d["meeruren_min"] for d in week["per_dag"]] == [0, 0, 0, 240, 240, 0, 0]
    # The CAO 2026 counts the same week of 2026 from the contract: no meeruren.
    record_nine_hours(app, carrier, driver, [f"2026-11-{d}" for d in range(16, 21)])
    week = week_of(client, driver, bearer(driver_token(client, driver))).get_json()
    assert week["overuren_grens"] == "contract"
    assert (week["totaal"]["meeruren_min"], week["totaal"]["overuren_130_min"]) == (0, 13 * 60)


def test_a_holiday_not_worked_and_a_night_trip_in_the_api(app, client, carrier, driver):
    """Koningsdag (Monday 27 April 2026) not worked shows as 8 paid holiday hours; a shift
    from 15:00 to 03:30 is a one-day trip with the night-trip surcharge from 21:00."""
    record_day(
        app, carrier, driver, at("2026-04-28", "15:00"), at("2026-04-29", "03:30"),
        [("rijden", at("2026-04-28", "15:00"), at("2026-04-29", "03:30"))],
    )  # fmt: skip
    week = week_of(client, driver, bearer(driver_token(client, driver)), "2026-W18").get_json()
    monday, tuesday, wednesday = week["per_dag"][:3]
    assert (monday["feestdag"], monday["feestdag_min"], monday["gewerkt_min"]) == (
        "Koningsdag",
        480,
        0,
    )
    assert (tuesday["nachttoeslag_min"], wednesday["nachttoeslag_min"]) == (180, 210)
    assert week["nachttoeslag_procent"] == 19
    total = week["totaal"]
    assert (total["feestdag_min"], total["aanvulling_min"]) == (480, 2400 - 480 - 750)


def test_the_openapi_document_carries_the_new_figures(client):
    document = client.get(f"{API}/openapi.json").get_json()
    schemas = document["components"]["schemas"]
    week = schemas["PayableWeek"]["properties"]
    assert {"overuren_grens", "nachttoeslag_procent", "samenloop"} <= set(week)
    for name in ("BetaaldeDag", "BetaaldeWeekTotaal"):
        assert {"meeruren_min", "feestdag_min", "nachttoeslag_min"} <= set(
            schemas[name]["properties"]
        ), name
    assert "meeruren_min" in schemas["BetaaldeWeekTotaal"]["required"]
