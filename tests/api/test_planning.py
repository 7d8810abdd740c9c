"""GET /api/v1/transporteurs/{id}/planning: a period's tasks per driver and unassigned, its
limits as problem+json, scopes and carriers."""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from factories import bearer, create_driver, create_task, driver_token, in_carrier

AMS = ZoneInfo("Europe/Amsterdam")
MONDAY = date(2027, 3, 1)


def at(day: date, clock: str) -> datetime:
    return datetime.combine(day, time(*map(int, clock.split(":"))), tzinfo=AMS).astimezone(UTC)


def url(carrier, query: str = "van=2027-03-01") -> str:
    return f"/api/v1/transporteurs/{carrier.id}/planning?{query}"


def test_the_weeks_tasks_per_driver_and_unassigned(app, client, carrier, driver, api_key):
    idle = create_driver(app, carrier, "Piet Bakker")
    mine = create_task(
        app, carrier, driver, naam="Mest Enter", gepland_op=at(MONDAY, "07:00"), duur_min=90
    )
    create_task(app, carrier, None, naam="Los Rijssen", gepland_op=at(date(2027, 3, 7), "10:00"))
    create_task(app, carrier, driver, naam="Later", gepland_op=at(date(2027, 3, 8), "07:00"))
    night = create_task(
        app, carrier, driver, naam="Nacht", gepland_op=at(date(2027, 2, 28), "23:00"), duur_min=120
    )
    create_task(
        app, carrier, driver, naam="Zondag", gepland_op=at(date(2027, 2, 28), "12:00"), duur_min=60
    )

    response = client.get(url(carrier), headers=bearer(api_key.key))

    assert response.status_code == 200, response.get_json()
    body = response.get_json()
    assert (body["van"], body["tot"], body["totaal"]) == ("2027-03-01", "2027-03-07", 3)
    by_name = {d["naam"]: d for d in body["chauffeurs"]}
    assert [t["naam"] for t in by_name[idle.naam]["taken"]] == []  # listed without tasks
    theirs = by_name[driver.naam]["taken"]
    assert [t["id"] for t in theirs] == [str(night.id), str(mine.id)]  # runs past midnight
    first = theirs[1]
    assert (first["verwachte_duur_min"], first["duur_geschat"]) == (90, False)
    assert first["einde"].startswith("2027-03-01T07:30")  # 08:30 in Amsterdam
    assert [t["naam"] for t in body["niet_toegewezen"]] == ["Los Rijssen"]
    assert body["niet_toegewezen"][0]["duur_geschat"] is True


def test_a_double_booking_is_a_warning_on_both_tasks(app, client, carrier, driver, api_key):
    create_task(app, carrier, driver, naam="Een", gepland_op=at(MONDAY, "07:00"), duur_min=90)
    create_task(app, carrier, driver, naam="Twee", gepland_op=at(MONDAY, "08:00"), duur_min=30)

    body = client.get(url(carrier), headers=bearer(api_key.key)).get_json()

    tasks = next(d for d in body["chauffeurs"] if d["naam"] == driver.naam)["taken"]
    assert [w["code"] for t in tasks for w in t["waarschuwingen"]] == [
        "driver_double_booked",
        "driver_double_booked",
    ]


def test_a_period_of_more_than_fourteen_days_is_422_with_a_code(app, client, carrier, api_key):
    response = client.get(
        url(carrier, "van=2027-03-01&tot=2027-03-15"), headers=bearer(api_key.key)
    )

    assert response.status_code == 422
    assert response.mimetype == "application/problem+json"
    errors = response.get_json()["errors"]
    assert errors[0]["field"] == "tot" and errors[0]["code"] == "period_too_long"
    assert "14 days" in errors[0]["message"]


def test_fourteen_days_is_allowed(app, client, carrier, api_key):
    response = client.get(
        url(carrier, "van=2027-03-01&tot=2027-03-14"), headers=bearer(api_key.key)
    )

    assert response.status_code == 200
    assert response.get_json()["tot"] == "2027-03-14"


def test_a_reversed_period_is_422_and_without_van_it_is_this_week(app, client, carrier, api_key):
    reversed_ = client.get(
        url(carrier, "van=2027-03-05&tot=2027-03-01"), headers=bearer(api_key.key)
    )
    missing = client.get(url(carrier, ""), headers=bearer(api_key.key))
    unknown = client.get(url(carrier, "van=2027-03-01&foo=1"), headers=bearer(api_key.key))

    assert reversed_.status_code == 422
    assert reversed_.get_json()["errors"][0]["code"] == "period_reversed"
    today = datetime.now(AMS).date()
    assert missing.status_code == 200  # this week, Monday to Sunday
    assert missing.get_json()["van"] == (today - timedelta(days=today.weekday())).isoformat()
    assert unknown.status_code == 422


def test_another_carrier_is_404_and_a_driver_is_403(
    app, client, carrier, other_carrier, driver, api_key
):
    foreign = client.get(url(other_carrier), headers=bearer(api_key.key))
    as_driver = client.get(url(carrier), headers=bearer(driver_token(client, driver)))

    assert foreign.status_code == 404
    assert as_driver.status_code == 403


def test_a_key_without_tasks_read_is_refused(app, client, carrier):
    from factories import Ref

    from portal.accounts.service import create_api_key

    key = in_carrier(
        app,
        carrier.id,
        lambda: create_api_key(carrier_id=carrier.id, naam="Uren", scopes="hours:read"),
        lambda pair: Ref(pair[0].id, carrier.id, key=pair[1]),
    )

    response = client.get(url(carrier), headers=bearer(key.key))

    assert response.status_code == 403
    assert response.get_json()["type"].endswith("insufficient-scope")


def test_the_planning_runs_a_fixed_number_of_queries(
    app, client, carrier, driver, api_key, count_queries
):
    create_task(app, carrier, driver, gepland_op=at(MONDAY, "07:00"))
    client.get(url(carrier), headers=bearer(api_key.key))
    with count_queries() as few:
        client.get(url(carrier), headers=bearer(api_key.key))
    for n in range(20):
        other = create_driver(app, carrier, f"Chauffeur {n}")
        create_task(
            app, carrier, other if n % 2 else None, gepland_op=at(MONDAY, f"{6 + n % 12}:00")
        )
    with count_queries() as many:
        body = client.get(url(carrier), headers=bearer(api_key.key)).get_json()
    assert body["totaal"] == 21
    assert many.count == few.count, "\n".join([*few.statements, "-----", *many.statements])


def test_the_planning_is_in_the_openapi_document(client):
    doc = client.get("/api/v1/openapi.json").get_json()

    operation = doc["paths"]["/transporteurs/{transporteur_id}/planning"]["get"]
    assert {p["name"] for p in operation["parameters"]} >= {"transporteur_id", "van", "tot"}
    assert "422" in operation["responses"]
