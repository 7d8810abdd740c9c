"""POST /api/v1/transporteurs/{id}/planning/voorstel starts a proposal (202 + Location), GET
polls it, POST .../accepteren accepts all or listed tasks: 409 naming the tasks changed
since, problem+json, scopes, another carrier's proposal is 404."""

from __future__ import annotations

from datetime import timedelta

from factories import bearer, create_api_key, create_driver, create_task, in_carrier
from planner.support import NOW, at, vehicle

from portal.audit.service import SYSTEM

BODY = {"van": "2026-12-07", "tot": "2026-12-13", "seconden": 2}


def start(client, carrier, key, body=BODY):
    return client.post(
        f"/api/v1/transporteurs/{carrier.id}/planning/voorstel", json=body, headers=bearer(key)
    )


def work(app):
    from portal.planner import worker

    with app.app_context():
        return worker.run_pass(10, clock=lambda: NOW + timedelta(days=30))


def setup_week(app, carrier):
    create_driver(app, carrier, naam="Anna de Vries")
    create_driver(app, carrier, naam="Bert Smit")
    vehicle(app, carrier, "BX-12-LP")
    vehicle(app, carrier, "BX-13-LP")
    return [
        create_task(app, carrier, None, type="voer_leveren", gepland_op=when, duur_min=90)
        for when in (at(0, 8), at(0, 9), at(1, 8))
    ]


def test_start_poll_and_accept_one_task(app, client, carrier, api_key):
    tasks = setup_week(app, carrier)
    started = start(client, carrier, api_key.key)
    assert started.status_code == 202, started.get_json()
    assert started.get_json()["status"] == "queued"
    address = started.headers["Location"]
    assert address.endswith(f"/planning/voorstel/{started.get_json()['id']}")
    assert started.headers["Retry-After"] == "2"

    assert work(app) == {"done": 1}
    polled = client.get(address, headers=bearer(api_key.key)).get_json()
    assert polled["status"] == "done"
    assert {line["taak_id"] for line in polled["regels"]} == {str(t.id) for t in tasks}
    assert all(line["chauffeur_id"] for line in polled["regels"])

    accepted = client.post(
        address + "/accepteren", json={"taken": [str(tasks[0].id)]}, headers=bearer(api_key.key)
    )
    assert accepted.status_code == 200, accepted.get_json()
    lines = {line["taak_id"]: line for line in accepted.get_json()["regels"]}
    assert lines[str(tasks[0].id)]["geaccepteerd_op"] is not None
    assert lines[str(tasks[1].id)]["geaccepteerd_op"] is None


def test_accepting_after_a_task_changed_is_409_naming_it(app, client, carrier, api_key):
    from portal.tasks import service as tasks_service

    tasks = setup_week(app, carrier)
    address = start(client, carrier, api_key.key).headers["Location"]
    work(app)
    in_carrier(
        app, carrier.id,
        lambda: tasks_service.update_task(carrier_id=carrier.id, task_id=tasks[1].id,
                                          data={"duur_min": 120}, actor=SYSTEM),
    )  # fmt: skip

    refused = client.post(address + "/accepteren", json={}, headers=bearer(api_key.key))

    assert refused.status_code == 409
    assert refused.headers["Content-Type"] == "application/problem+json"
    body = refused.get_json()
    assert (body["code"], body["taken"]) == ("taken_gewijzigd", [str(tasks[1].id)])
    polled = client.get(address, headers=bearer(api_key.key)).get_json()
    assert not any(line["geaccepteerd_op"] for line in polled["regels"])


def test_a_period_of_more_than_fourteen_days_is_422(app, client, carrier, api_key):
    answer = start(client, carrier, api_key.key, {"van": "2026-12-07", "tot": "2026-12-31"})
    assert answer.status_code == 422
    assert answer.get_json()["errors"][0]["code"] == "periode_te_lang"


def test_a_key_without_the_write_scope_cannot_start_one(app, client, carrier):
    from portal.accounts.service import create_api_key as create

    key = in_carrier(
        app, carrier.id,
        lambda: create(carrier_id=carrier.id, naam="Lezer", scopes="tasks:read")[1],
    )  # fmt: skip
    assert start(client, carrier, key).status_code == 403


def test_another_carriers_proposal_is_404(app, client, carrier, other_carrier, api_key):
    setup_week(app, carrier)
    address = start(client, carrier, api_key.key).headers["Location"]
    theirs = create_api_key(app, other_carrier)
    foreign = address.replace(str(carrier.id), str(other_carrier.id))
    assert client.get(foreign, headers=bearer(theirs.key)).status_code == 404
