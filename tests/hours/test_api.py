"""Hours in the API: a driver's work day and activities, the rules that guard them, approved
weeks, and the hours of every driver of a carrier checked against a generated month."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import pytest
from factories import (
    bearer,
    create_api_key,
    create_carrier,
    create_driver,
    create_task,
    create_user,
    driver_token,
    in_carrier,
)

from hours.support import (
    API,
    KINDS,
    WORK_KINDS,
    activity_ids,
    approve,
    at,
    expected_minutes,
    generate_month,
    record_day,
    store_month,
    z,
)
from portal.hours.schemas import Activiteit, UrenPerChauffeur, Werkdag, WerkdagMetActiviteiten


def minutes_ago(n: int) -> datetime:
    now = datetime.now(UTC).replace(second=0, microsecond=0)
    return now - timedelta(minutes=n)


@pytest.fixture
def token(client, driver) -> str:
    return driver_token(client, driver)


def start_day(client, token, user_token, **body):
    return client.post(f"{API}/users/{user_token}/werkdagen", json=body, headers=bearer(token))


def add(client, token, day_id, **body):
    return client.post(f"{API}/werkdagen/{day_id}/activiteiten", json=body, headers=bearer(token))


# --- a driver's day ------------------------------------------------------------------------


def test_a_driver_records_a_day_and_reads_it_back(client, driver, token):
    t0 = minutes_ago(180)
    started = start_day(client, token, driver.user_token, gestart_op=z(t0))
    assert started.status_code == 201, started.get_json()
    day = started.get_json()
    Werkdag.model_validate(day)
    assert day["lopend"] is True and day["beeindigd_op"] is None
    assert started.headers["ETag"] == '"1"'

    driving = add(
        client, token, day["id"], soort="rijden", begin=z(t0), einde=z(t0 + timedelta(minutes=60))
    )
    assert driving.status_code == 201, driving.get_json()
    Activiteit.model_validate(driving.get_json())
    loading = add(client, token, day["id"], soort="laden", begin=z(t0 + timedelta(minutes=60)))
    assert loading.status_code == 201
    assert loading.get_json()["lopend"] is True

    # A second running activity is refused, naming the one that runs.
    refused = add(client, token, day["id"], soort="lossen", begin=z(t0 + timedelta(minutes=90)))
    assert refused.status_code == 409
    problem = refused.get_json()
    assert problem["activiteit_id"] == loading.get_json()["id"]
    assert "(loading since" in problem["detail"] and "still running" in problem["detail"]
    assert problem["soort"] == "laden"

    ended = client.patch(
        f"{API}/activiteiten/{loading.get_json()['id']}",
        json={"einde": z(t0 + timedelta(minutes=80))},
        headers=bearer(token),
    )
    assert ended.status_code == 200, ended.get_json()
    assert ended.get_json()["duur_minuten"] == 20
    unloading = add(client, token, day["id"], soort="lossen", begin=z(t0 + timedelta(minutes=80)))
    assert unloading.status_code == 201

    # Ending the day ends the running activity at the same moment.
    finished = client.patch(
        f"{API}/werkdagen/{day['id']}",
        json={
            "beeindigd_op": z(t0 + timedelta(minutes=125)),
            "opmerking": "Veel file bij Deventer",
        },
        headers={**bearer(token), "If-Match": started.headers["ETag"]},
    )
    assert finished.status_code == 200, finished.get_json()
    WerkdagMetActiviteiten.model_validate(finished.get_json())
    assert finished.get_json()["lopend"] is False
    assert finished.get_json()["activiteiten"][-1]["einde"] == z(t0 + timedelta(minutes=125))

    listed = client.get(f"{API}/users/{driver.user_token}/werkdagen", headers=bearer(token))
    assert listed.status_code == 200
    assert listed.headers["X-Total-Count"] == "1"
    (shown,) = listed.get_json()
    assert shown["opmerking"] == "Veel file bij Deventer"
    assert [(a["soort"], a["duur_minuten"]) for a in shown["activiteiten"]] == [
        ("rijden", 60),
        ("laden", 20),
        ("lossen", 45),
    ]
    assert shown["vergrendeld"] is False


def test_one_running_day_at_a_time(client, driver, token):
    first = start_day(client, token, driver.user_token, gestart_op=z(minutes_ago(60)))
    assert first.status_code == 201
    second = start_day(client, token, driver.user_token)
    assert second.status_code == 409
    assert second.get_json()["werkdag_id"] == first.get_json()["id"]
    assert "still running" in second.get_json()["detail"]


def test_overlapping_activities_are_refused_naming_the_clash(client, token, monday):
    day = monday.day
    response = add(
        client,
        token,
        day.id,
        soort="laden",
        begin=z(at("2026-11-16", "07:30")),
        einde=z(at("2026-11-16", "09:00")),
    )
    assert response.status_code == 409
    problem = response.get_json()
    assert problem["detail"].startswith("Overlaps the driver's activity")
    # Named by kind and by the carrier's clock (08:00 in Amsterdam is 07:00 UTC).
    # The kind in English in the message, as its code in the parameters.
    assert "driving, 2026-11-16 06:00 to 2026-11-16 08:00" in problem["detail"]
    assert problem["soort"] == "rijden"
    assert problem["activiteit_id"] == str(monday.activity_id)
    # Touching is no overlap: the next one may begin when the first ends.
    touching = add(
        client,
        token,
        day.id,
        soort="laden",
        begin=z(at("2026-11-16", "08:00")),
        einde=z(at("2026-11-16", "09:00")),
    )
    assert touching.status_code == 201


def test_an_activity_stays_within_its_work_day(app, client, carrier, driver, token):
    day = record_day(app, carrier, driver, at("2026-11-16", "06:00"), at("2026-11-16", "16:00"))
    early = add(
        client,
        token,
        day.id,
        soort="rijden",
        begin=z(at("2026-11-16", "05:30")),
        einde=z(at("2026-11-16", "07:00")),
    )
    assert early.status_code == 422
    assert early.get_json()["errors"] == [
        {"field": "begin", "message": "outside its work day (2026-11-16 06:00 to 2026-11-16 16:00)"}
    ]
    late = add(
        client,
        token,
        day.id,
        soort="rijden",
        begin=z(at("2026-11-16", "15:00")),
        einde=z(at("2026-11-16", "16:30")),
    )
    assert late.status_code == 422
    assert late.get_json()["errors"][0]["field"] == "einde"
    running = add(client, token, day.id, soort="rijden", begin=z(at("2026-11-16", "15:00")))
    assert running.status_code == 422
    assert running.get_json()["errors"][0]["field"] == "einde"


def test_times_in_the_future_and_days_over_24_hours_are_refused(client, driver, token):
    future = start_day(client, token, driver.user_token, gestart_op=z(minutes_ago(-30)))
    assert future.status_code == 422
    assert future.get_json()["errors"] == [{"field": "gestart_op", "message": "lies in the future"}]
    long = start_day(
        client,
        token,
        driver.user_token,
        gestart_op=z(at("2026-11-10", "06:00")),
        beeindigd_op=z(at("2026-11-11", "07:00")),
    )
    assert long.status_code == 422
    assert long.get_json()["errors"][0]["field"] == "beeindigd_op"
    assert "at most 24 hours" in long.get_json()["errors"][0]["message"]


def test_work_days_of_a_driver_do_not_overlap(app, client, carrier, driver, token):
    record_day(app, carrier, driver, at("2026-11-16", "06:00"), at("2026-11-16", "16:00"))
    response = start_day(
        client,
        token,
        driver.user_token,
        gestart_op=z(at("2026-11-16", "15:00")),
        beeindigd_op=z(at("2026-11-16", "20:00")),
    )
    assert response.status_code == 409
    assert "Overlaps the driver's work day" in response.get_json()["detail"]


def test_a_day_cannot_end_before_its_activities(app, client, carrier, driver, token):
    day = record_day(
        app,
        carrier,
        driver,
        at("2026-11-16", "06:00"),
        at("2026-11-16", "16:00"),
        [("rijden", at("2026-11-16", "14:00"), at("2026-11-16", "15:30"))],
    )
    response = client.patch(
        f"{API}/werkdagen/{day.id}",
        json={"beeindigd_op": z(at("2026-11-16", "15:00"))},
        headers=bearer(token),
    )
    assert response.status_code == 422
    assert response.get_json()["errors"] == [
        {
            "field": "beeindigd_op",
            "message": "activity driving runs until 2026-11-16 15:30, after this end",
        }
    ]


def test_an_activity_links_the_drivers_own_task_only(app, client, carrier, driver, token):
    own = create_task(app, carrier, driver, naam="Mest laden Enter")
    colleague = create_driver(app, carrier, "Piet Bakker")
    theirs = create_task(app, carrier, colleague, naam="Voer Epe")
    day = record_day(app, carrier, driver, at("2026-11-16", "06:00"), at("2026-11-16", "16:00"))
    ok = add(
        client,
        token,
        day.id,
        soort="laden",
        begin=z(at("2026-11-16", "07:00")),
        einde=z(at("2026-11-16", "08:00")),
        taak_id=str(own.id),
    )
    assert ok.status_code == 201
    assert ok.get_json()["taak_id"] == str(own.id)
    refused = add(
        client,
        token,
        day.id,
        soort="laden",
        begin=z(at("2026-11-16", "09:00")),
        einde=z(at("2026-11-16", "10:00")),
        taak_id=str(theirs.id),
    )
    assert refused.status_code == 422
    assert refused.get_json()["errors"] == [
        {"field": "taak_id", "message": "not a task of this driver"}
    ]


def test_a_stale_if_match_is_412(app, client, carrier, driver, token):
    day = record_day(app, carrier, driver, at("2026-11-16", "06:00"), at("2026-11-16", "16:00"))
    first = client.patch(
        f"{API}/werkdagen/{day.id}",
        json={"opmerking": "a"},
        headers={**bearer(token), "If-Match": '"1"'},
    )
    assert first.status_code == 200
    assert first.headers["ETag"] == '"2"'
    stale = client.patch(
        f"{API}/werkdagen/{day.id}",
        json={"opmerking": "b"},
        headers={**bearer(token), "If-Match": '"1"'},
    )
    assert stale.status_code == 412
    assert stale.get_json()["etag"] == '"2"'


def test_a_retried_start_with_the_same_idempotency_key_starts_one_day(client, driver, token):
    headers = {**bearer(token), "Idempotency-Key": "start-2026-11-22-0600"}
    body = {"gestart_op": z(minutes_ago(30))}
    first = client.post(f"{API}/users/{driver.user_token}/werkdagen", json=body, headers=headers)
    again = client.post(f"{API}/users/{driver.user_token}/werkdagen", json=body, headers=headers)
    assert first.status_code == again.status_code == 201
    assert again.headers["Idempotent-Replayed"] == "true"
    assert again.get_json()["id"] == first.get_json()["id"]
    listed = client.get(f"{API}/users/{driver.user_token}/werkdagen", headers=bearer(token))
    assert listed.headers["X-Total-Count"] == "1"


# --- who may -------------------------------------------------------------------------------


def test_a_driver_acts_on_its_own_days_only(app, client, carrier, driver, token):
    colleague = create_driver(app, carrier, "Piet Bakker")
    theirs = record_day(
        app,
        carrier,
        colleague,
        at("2026-11-16", "06:00"),
        at("2026-11-16", "16:00"),
        [("rijden", at("2026-11-16", "06:00"), at("2026-11-16", "07:00"))],
    )
    (activity_id,) = activity_ids(app, carrier, theirs)
    assert (
        client.get(
            f"{API}/users/{colleague.user_token}/werkdagen", headers=bearer(token)
        ).status_code
        == 403
    )
    assert start_day(client, token, colleague.user_token).status_code == 403
    assert (
        client.patch(
            f"{API}/werkdagen/{theirs.id}", json={"opmerking": "x"}, headers=bearer(token)
        ).status_code
        == 403
    )
    assert add(client, token, theirs.id, soort="rijden").status_code == 403
    assert (
        client.patch(
            f"{API}/activiteiten/{activity_id}", json={"opmerking": "x"}, headers=bearer(token)
        ).status_code
        == 403
    )


def test_another_carriers_days_are_404(app, client, driver, token):
    other = create_carrier(app, "Kuipers Veevervoer")
    stranger = create_driver(app, other, "Sanne Kuipers")
    theirs = record_day(
        app,
        other,
        stranger,
        at("2026-11-16", "06:00"),
        at("2026-11-16", "16:00"),
        [("rijden", at("2026-11-16", "06:00"), at("2026-11-16", "07:00"))],
    )
    (activity_id,) = activity_ids(app, other, theirs)
    key = create_api_key(app, create_carrier(app, "Derde BV"))
    for headers in (bearer(token), bearer(key.key)):
        assert (
            client.get(f"{API}/users/{stranger.user_token}/werkdagen", headers=headers).status_code
            == 404
        )
        assert (
            client.patch(f"{API}/werkdagen/{theirs.id}", json={}, headers=headers).status_code
            == 404
        )
        assert (
            client.post(
                f"{API}/werkdagen/{theirs.id}/activiteiten", json={}, headers=headers
            ).status_code
            == 404
        )
        assert (
            client.patch(f"{API}/activiteiten/{activity_id}", json={}, headers=headers).status_code
            == 404
        )
    assert (
        client.get(f"{API}/transporteurs/{other.id}/uren", headers=bearer(key.key)).status_code
        == 404
    )


def test_api_keys_need_the_hours_scopes(app, client, carrier, driver):
    from portal.accounts.service import create_api_key as make

    def key(scopes):
        return in_carrier(
            app, carrier.id, lambda: make(carrier_id=carrier.id, naam=scopes, scopes=scopes)[1]
        )

    reader, tasks_only, writer = (
        key("hours:read"),
        key("tasks:read tasks:write"),
        key("hours:write"),
    )
    path = f"{API}/users/{driver.user_token}/werkdagen"
    assert client.get(path, headers=bearer(reader)).status_code == 200
    assert client.get(path, headers=bearer(writer)).status_code == 200
    assert client.get(path, headers=bearer(tasks_only)).status_code == 403
    assert client.post(path, json={}, headers=bearer(reader)).status_code == 403
    assert client.post(path, json={}, headers=bearer(writer)).status_code == 201
    uren = f"{API}/transporteurs/{carrier.id}/uren"
    assert client.get(uren, headers=bearer(reader)).status_code == 200
    assert client.get(uren, headers=bearer(tasks_only)).status_code == 403


def test_the_carriers_hours_are_for_integrations(client, carrier, token):
    response = client.get(f"{API}/transporteurs/{carrier.id}/uren", headers=bearer(token))
    assert response.status_code == 403


# --- approved weeks --------------------------------------------------------------------------


def test_an_approved_week_refuses_changes_until_reopened(
    app, client, carrier, driver, token, monday
):
    planner = create_user(app, carrier, "planner")
    day, activity_id = monday.day, monday.activity_id
    approve(app, carrier, driver, "2026-W47", planner)

    listed = client.get(f"{API}/users/{driver.user_token}/werkdagen", headers=bearer(token))
    assert listed.get_json()[0]["vergrendeld"] is True
    changes = [
        client.patch(f"{API}/werkdagen/{day.id}", json={"opmerking": "x"}, headers=bearer(token)),
        add(
            client,
            token,
            day.id,
            soort="laden",
            begin=z(at("2026-11-16", "09:00")),
            einde=z(at("2026-11-16", "10:00")),
        ),
        client.patch(
            f"{API}/activiteiten/{activity_id}", json={"soort": "laden"}, headers=bearer(token)
        ),
        start_day(
            client,
            token,
            driver.user_token,
            gestart_op=z(at("2026-11-17", "06:00")),
            beeindigd_op=z(at("2026-11-17", "07:00")),
        ),
    ]
    for response in changes:
        assert response.status_code == 409, response.get_json()
        assert response.get_json()["week"] == "2026-W47"
        assert "approved" in response.get_json()["detail"]

    from portal.audit.service import Actor
    from portal.hours import weeks
    from portal.hours.totals import IsoWeek

    in_carrier(
        app,
        carrier.id,
        lambda: weeks.reopen_week(
            carrier_id=carrier.id,
            driver_id=driver.id,
            week=IsoWeek.parse("2026-W47"),
            reden="Rijtijd maandag verkeerd ingevoerd",
            actor=Actor("user", planner.id, "planner"),
        ),
    )
    again = client.patch(
        f"{API}/activiteiten/{activity_id}", json={"soort": "laden"}, headers=bearer(token)
    )
    assert again.status_code == 200
    assert again.get_json()["soort"] == "laden"


def test_a_day_crossing_into_an_approved_week_is_locked(app, client, carrier, driver, token):
    # Sunday 20:00 to Monday 04:00: it touches weeks 46 and 47.
    day = record_day(app, carrier, driver, at("2026-11-15", "20:00"), at("2026-11-16", "04:00"))
    approve(app, carrier, driver, "2026-W47")
    response = client.patch(
        f"{API}/werkdagen/{day.id}", json={"opmerking": "x"}, headers=bearer(token)
    )
    assert response.status_code == 409
    assert response.get_json()["week"] == "2026-W47"


# --- hours of all drivers ------------------------------------------------------------------


def uren(client, key, carrier, **query):
    response = client.get(
        f"{API}/transporteurs/{carrier.id}/uren", query_string=query, headers=bearer(key)
    )
    assert response.status_code == 200, response.get_json()
    return response


def test_a_generated_month_adds_up(app, client, carrier, api_key):
    drivers = [
        create_driver(app, carrier, naam) for naam in ("Anna Smit", "Bram Visser", "Cor Mulder")
    ]
    first, last = date(2026, 10, 1), date(2026, 10, 31)  # with the switch to winter time
    plan = generate_month(
        47, [d.id for d in drivers], first - timedelta(days=2), last + timedelta(days=1)
    )
    store_month(app, carrier, plan)
    expected = expected_minutes(plan, first, last)

    response = uren(client, api_key.key, carrier, van="2026-10-01", tot="2026-10-31")
    assert response.headers["X-Total-Count"] == "3"
    rows = response.get_json()
    assert [r["naam"] for r in rows] == ["Anna Smit", "Bram Visser", "Cor Mulder"]
    for row in rows:
        UrenPerChauffeur.model_validate(row)
        mine = expected[__import__("uuid").UUID(row["chauffeur_id"])]
        days = {date.fromisoformat(d["datum"]): d for d in row["per_dag"]}
        assert set(days) == {day for day, kinds in mine.items() if any(kinds.values())}
        for day, kinds in mine.items():
            assert days[day]["minuten"] == kinds, day
            assert days[day]["werktijd_minuten"] == sum(kinds[k] for k in WORK_KINDS)
        total = {k: sum(kinds[k] for kinds in mine.values()) for k in KINDS}
        assert row["totaal"]["minuten"] == total
        assert row["totaal"]["totaal_minuten"] == sum(total.values())
        assert row["totaal"]["werktijd_uren"] == round(sum(total[k] for k in WORK_KINDS) / 60, 2)
        weeks = {w["week"]: w for w in row["per_week"]}
        assert list(weeks) == [f"2026-W{n}" for n in range(40, 45)]
        for label, week in weeks.items():
            in_week = [
                kinds
                for day, kinds in mine.items()
                if f"{day.isocalendar()[0]}-W{day.isocalendar()[1]:02d}" == label
            ]
            assert week["totaal_minuten"] == sum(sum(k.values()) for k in in_week), label
            assert week["goedgekeurd"] is False


def test_an_activity_across_midnight_counts_on_both_days(app, client, carrier, driver, api_key):
    record_day(
        app,
        carrier,
        driver,
        at("2026-11-17", "21:00"),
        at("2026-11-18", "05:00"),
        [("rijden", at("2026-11-17", "22:30"), at("2026-11-18", "01:15"))],
    )
    (row,) = uren(client, api_key.key, carrier, van="2026-11-16", tot="2026-11-22").get_json()
    assert [(d["datum"], d["minuten"]["rijden"]) for d in row["per_dag"]] == [
        ("2026-11-17", 90),
        ("2026-11-18", 75),
    ]
    # The period's edge cuts the same way.
    (edge,) = uren(client, api_key.key, carrier, van="2026-11-18", tot="2026-11-18").get_json()
    assert edge["totaal"]["minuten"]["rijden"] == 75


def test_days_are_the_carriers_calendar_days_across_the_switch_to_winter_time(
    app, client, carrier, driver, api_key
):
    # Saturday 24 Oct 23:00 (CEST, UTC+2) to Sunday 25 Oct 04:00 (CET, UTC+1): six real hours,
    # one before local midnight and five after it (02:00 to 03:00 happens twice).
    record_day(
        app,
        carrier,
        driver,
        at("2026-10-24", "22:00"),
        at("2026-10-25", "05:00"),
        [("rijden", at("2026-10-24", "23:00"), at("2026-10-25", "04:00"))],
    )
    assert at("2026-10-25", "04:00") - at("2026-10-24", "23:00") == timedelta(hours=6)
    (row,) = uren(client, api_key.key, carrier, van="2026-10-19", tot="2026-10-25").get_json()
    assert [(d["datum"], d["minuten"]["rijden"]) for d in row["per_dag"]] == [
        ("2026-10-24", 60),
        ("2026-10-25", 300),
    ]
    assert row["per_week"][0]["werktijd_uren"] == 6.0


def test_a_running_activity_counts_up_to_now(app, client, carrier, driver, api_key, token):
    started = start_day(client, token, driver.user_token, gestart_op=z(minutes_ago(50)))
    add(client, token, started.get_json()["id"], soort="rijden", begin=z(minutes_ago(40)))
    (row,) = uren(client, api_key.key, carrier).get_json()
    assert row["lopend"] is True
    assert 39 <= row["totaal"]["minuten"]["rijden"] <= 42


def test_default_period_is_the_current_week_and_inactive_drivers_without_hours_are_left_out(
    app, client, carrier, driver, api_key
):
    from portal.audit.service import SYSTEM
    from portal.drivers import service as drivers

    gone = create_driver(app, carrier, "Oud Gediende")
    in_carrier(
        app,
        carrier.id,
        lambda: drivers.deactivate_driver(carrier_id=carrier.id, driver_id=gone.id, actor=SYSTEM),
    )
    (row,) = uren(client, api_key.key, carrier).get_json()
    today = datetime.now(__import__("zoneinfo").ZoneInfo("Europe/Amsterdam")).date()
    monday = today - timedelta(days=today.weekday())
    assert row["van"] == monday.isoformat()
    assert row["tot"] == (monday + timedelta(days=6)).isoformat()
    assert row["totaal"]["totaal_minuten"] == 0 and row["per_dag"] == []


def test_a_bad_period_is_422(client, carrier, api_key):
    response = client.get(
        f"{API}/transporteurs/{carrier.id}/uren",
        query_string={"van": "2026-11-30", "tot": "2026-11-01"},
        headers=bearer(api_key.key),
    )
    assert response.status_code == 422
    assert response.get_json()["errors"] == [{"field": "tot", "message": "before van"}]


def test_the_lists_run_a_fixed_number_of_queries(
    app, client, carrier, driver, api_key, count_queries, token
):
    def load():
        with count_queries() as counter:
            assert (
                uren(client, api_key.key, carrier, van="2026-11-01", tot="2026-11-30").status_code
                == 200
            )
        with count_queries() as days:
            response = client.get(
                f"{API}/users/{driver.user_token}/werkdagen", headers=bearer(api_key.key)
            )
            assert response.status_code == 200
        return counter.count, days.count

    def fill(n: int):
        for k in range(n):
            day = f"2026-11-{2 + 3 * k + n:02d}"
            record_day(
                app,
                carrier,
                driver,
                at(day, "06:00"),
                at(day, "15:00"),
                [
                    ("rijden", at(day, "06:00"), at(day, "09:00")),
                    ("laden", at(day, "09:00"), at(day, "10:00")),
                ],
            )

    fill(1)
    create_driver(app, carrier, "Extra 1")
    load()  # the key's first use of the minute also records it: count warm requests
    small = load()
    fill(3)
    for n in range(5):
        create_driver(app, carrier, f"Extra {n + 2}")
    assert load() == small
