"""Every completion makes its billing line, whichever way it came; races never answer 500."""

from __future__ import annotations

import threading
from collections import Counter
from datetime import datetime
from zoneinfo import ZoneInfo

import pytest
from factories import bearer, create_task, driver_token, in_carrier
from sqlalchemy import func, select

from portal.billing.models import BillingLine
from portal.extensions import db
from portal.tasks import service as tasks

AMSTERDAM = ZoneInfo("Europe/Amsterdam")


@pytest.fixture
def token(client, driver) -> str:
    return driver_token(client, driver)


def lines_of(app, carrier, task) -> list[dict]:
    def read():
        return list(
            db.session.scalars(
                select(BillingLine).where(
                    BillingLine.transporteur_id == carrier.id, BillingLine.taak_id == task.id
                )
            )
        )

    return in_carrier(
        app,
        carrier.id,
        read,
        lambda found: [
            {
                "id": line.id,
                "hoeveelheid": line.hoeveelheid,
                "eenheid": line.eenheid,
                "kilometers": line.kilometers,
                "exported": line.export_id is not None,
                "afgerond_op": line.afgerond_op,
            }
            for line in found
        ],
    )


def status_of(app, carrier, task) -> str:
    return in_carrier(
        app, carrier.id, lambda: tasks.get_task(carrier_id=carrier.id, task_id=task.id).status
    )


def move(client, token, task_id, status):
    return client.patch(
        f"/api/v1/taken/{task_id}/status", json={"status": status}, headers=bearer(token)
    )


# --- every completion makes a line -------------------------------------------------------


def test_completing_by_status_makes_a_line_with_the_planned_quantity(
    app, client, carrier, driver, token
):
    task = create_task(app, carrier, driver, status="gestart", hoeveelheid=30, eenheid="ton")

    response = move(client, token, task.id, "afgerond")

    assert response.status_code == 200, response.get_json()
    [line] = lines_of(app, carrier, task)
    assert line["hoeveelheid"] == 30 and line["eenheid"] == "ton"
    assert line["kilometers"] is None and not line["exported"]


def test_afronding_after_a_status_completion_updates_the_same_line(
    app, client, carrier, driver, token
):
    task = create_task(app, carrier, driver, status="gestart", hoeveelheid=30, eenheid="ton")
    move(client, token, task.id, "afgerond")
    [made] = lines_of(app, carrier, task)

    response = client.post(
        f"/api/v1/taken/{task.id}/afronding",
        json={"hoeveelheid": 28.5, "eenheid": "m3", "kilometers": 41},
        headers=bearer(token),
    )

    assert response.status_code == 200, response.get_json()
    assert response.get_json()["facturatieregel"]["id"] == str(made["id"])
    [line] = lines_of(app, carrier, task)
    assert line["id"] == made["id"]
    assert (line["hoeveelheid"], line["eenheid"], line["kilometers"]) == (28.5, "m3", 41)


def billable_today(app, carrier) -> list[str]:
    from portal.billing import service as billing

    today = datetime.now(AMSTERDAM).date()  # the carrier's day: billing reads its clock
    return in_carrier(
        app,
        carrier.id,
        lambda: [r.naam for r in billing.unexported(carrier_id=carrier.id, van=today, tot=today)],
    )


def test_a_reopened_tasks_line_leaves_billing_and_returns_with_what_the_driver_reported(
    app, client, carrier, driver, token, api_key
):
    task = create_task(app, carrier, driver, status="gestart", naam="Gereed", hoeveelheid=30)
    client.post(
        f"/api/v1/taken/{task.id}/afronding",
        json={"hoeveelheid": 29, "kilometers": 12},
        headers=bearer(token),
    )
    [first] = lines_of(app, carrier, task)
    assert billable_today(app, carrier) == ["Gereed"]

    assert move(client, api_key.key, task.id, "gestart").status_code == 200
    assert billable_today(app, carrier) == []  # not billable while reopened

    assert move(client, token, task.id, "afgerond").status_code == 200
    [line] = lines_of(app, carrier, task)
    assert billable_today(app, carrier) == ["Gereed"]
    assert line["id"] == first["id"]  # one line, never two
    assert (line["hoeveelheid"], line["kilometers"]) == (29, 12)  # the report is kept
    assert line["afgerond_op"] > first["afgerond_op"]  # the new completion


def test_a_reopened_task_without_a_report_is_billed_at_its_new_plan(
    app, client, carrier, driver, token, api_key
):
    task = create_task(app, carrier, driver, status="gestart", hoeveelheid=30, eenheid="ton")
    move(client, token, task.id, "afgerond")
    move(client, api_key.key, task.id, "gestart")
    changed = client.patch(
        f"/api/v1/taken/{task.id}", json={"hoeveelheid": 24}, headers=bearer(api_key.key)
    )
    assert changed.status_code == 200, changed.get_json()

    move(client, token, task.id, "afgerond")

    [line] = lines_of(app, carrier, task)
    assert (line["hoeveelheid"], line["eenheid"]) == (24, "ton")


def test_reopening_keeps_an_exported_line_and_never_bills_it_twice(
    app, client, carrier, driver, token, api_key
):
    from portal.billing import service as billing

    task = create_task(app, carrier, driver, status="gestart", hoeveelheid=30, eenheid="ton")
    client.post(
        f"/api/v1/taken/{task.id}/afronding", json={"kilometers": 12}, headers=bearer(token)
    )
    today = datetime.now(AMSTERDAM).date()  # the carrier's day: billing reads its clock
    in_carrier(
        app,
        carrier.id,
        lambda: billing.export(carrier_id=carrier.id, van=today, tot=today, actor_label="x"),
    )
    [exported] = lines_of(app, carrier, task)

    assert move(client, api_key.key, task.id, "gestart").status_code == 200
    assert lines_of(app, carrier, task) == [exported]

    # Completed again through afronding: the completion stands, the billed line is left
    # alone and the caller hears why its values were not taken.
    again = client.post(
        f"/api/v1/taken/{task.id}/afronding", json={"kilometers": 99}, headers=bearer(token)
    )
    assert again.status_code == 409
    assert again.get_json()["type"].endswith("/already-billed")
    assert status_of(app, carrier, task) == "afgerond"
    assert lines_of(app, carrier, task) == [exported]
    assert (
        in_carrier(
            app,
            carrier.id,
            lambda: billing.unexported(carrier_id=carrier.id, van=today, tot=today),
        )
        == []
    )


def test_a_cancelled_task_gets_no_line(app, client, carrier, driver, token):
    task = create_task(app, carrier, driver, status="gestart")
    assert move(client, token, task.id, "geannuleerd").status_code == 200
    assert lines_of(app, carrier, task) == []


# --- races (PostgreSQL: real concurrent transactions) ------------------------------------


def race(app, sends) -> Counter:
    """Run every send(client) at once, each in its own thread with its own client, app
    context and database connection; the answers' status codes."""
    barrier = threading.Barrier(len(sends))
    statuses: list[int] = []
    lock = threading.Lock()

    def worker(send):
        client = app.test_client()
        barrier.wait()
        try:
            status = send(client).status_code
        except Exception:  # the test client re-raises what would have been a 500
            status = 500
        with lock:
            statuses.append(status)

    threads = [threading.Thread(target=worker, args=(send,)) for send in sends]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return Counter(statuses)


def line_count(app, carrier) -> int:
    return in_carrier(
        app,
        carrier.id,
        lambda: db.session.scalar(
            select(func.count())
            .select_from(BillingLine)
            .where(BillingLine.transporteur_id == carrier.id)
        ),
    )


@pytest.mark.parametrize("backend", ["postgresql"], indirect=True)
def test_concurrent_afrondingen_answer_like_a_retry_and_make_one_line(
    app, client, carrier, driver, token
):
    statuses = Counter()
    for _ in range(5):
        task = create_task(app, carrier, driver, status="gestart", hoeveelheid=30)
        afronding = lambda c, task=task: c.post(  # noqa: E731
            f"/api/v1/taken/{task.id}/afronding", json={"kilometers": 42}, headers=bearer(token)
        )
        statuses += race(app, [afronding] * 10)
        assert status_of(app, carrier, task) == "afgerond"
        [line] = lines_of(app, carrier, task)
        assert line["kilometers"] == 42

    assert statuses[500] == 0
    assert set(statuses) <= {200, 409}, statuses
    assert statuses == Counter({200: 50})  # each later one found the task completed
    assert line_count(app, carrier) == 5


@pytest.mark.parametrize("backend", ["postgresql"], indirect=True)
def test_concurrent_status_completions_answer_200_once_and_409_otherwise(
    app, client, carrier, driver, token
):
    statuses = Counter()
    for _ in range(5):
        task = create_task(app, carrier, driver, status="gestart")
        statuses += race(app, [lambda c, task=task: move(c, token, task.id, "afgerond")] * 10)
        assert len(lines_of(app, carrier, task)) == 1

    assert statuses == Counter({200: 5, 409: 45})


@pytest.mark.parametrize("backend", ["postgresql"], indirect=True)
def test_completion_racing_afronding_and_cancel_never_answers_500(
    app, client, carrier, driver, token
):
    statuses = Counter()
    for _ in range(4):
        task = create_task(app, carrier, driver, status="gestart")
        sends = [
            lambda c, task=task: move(c, token, task.id, "afgerond"),
            lambda c, task=task: move(c, token, task.id, "geannuleerd"),
            lambda c, task=task: c.post(
                f"/api/v1/taken/{task.id}/afronding", json={}, headers=bearer(token)
            ),
        ]
        statuses += race(app, sends * 3)
        lines = len(lines_of(app, carrier, task))
        assert lines == (1 if status_of(app, carrier, task) == "afgerond" else 0)

    assert statuses[500] == 0 and set(statuses) <= {200, 409}, statuses
