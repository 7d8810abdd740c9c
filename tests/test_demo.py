"""The demo data goes through the same services as real use: every completed demo task meets
its demands, its history has each step in order, and nothing happens before its time."""

from __future__ import annotations

import re
from datetime import UTC, datetime

import orjson
import pytest
from factories import (
    create_task,
    csrf_from,
    driver_token,
    in_carrier,
    login,
    publish_questionnaire,
    questionnaire_doc,
    upload_file,
)
from sqlalchemy import select

from portal.demo import CARRIERS, seed
from portal.extensions import db
from portal.tasks import lifecycle
from portal.tasks import service as tasks
from portal.tasks.models import Task
from portal.tenancy import carrier_scope


@pytest.fixture
def seeded(app):
    """The demo as `flask seed-demo` makes it; on PostgreSQL as a role that row-level
    security holds (the app role), so every row must be written in its own carrier's scope."""
    with app.app_context():
        logins = seed()
        db.session.commit()
    return logins


def completed_tasks(carrier_id) -> list[Task]:
    return list(
        db.session.scalars(
            select(Task).where(Task.transporteur_id == carrier_id, Task.status == "afgerond")
        )
    )


def moves_of(carrier_id, task) -> list[tuple[str, datetime]]:
    """The status moves in the task's history: (new status, when), oldest first."""
    found = []
    for entry in tasks.history(carrier_id=carrier_id, task_id=task.id):
        change = orjson.loads(entry.changes).get("status")
        if entry.action in ("status", "reopened") and change:
            found.append((change[1], entry.at))
    return found


def test_the_demo_names_every_driver_it_creates(app, seeded):
    from portal.drivers.models import Driver

    with app.app_context():
        emails = set()
        for spec in CARRIERS:
            with carrier_scope(db.session, spec["id"]):
                emails |= set(
                    db.session.scalars(
                        select(Driver.email).where(Driver.transporteur_id == spec["id"])
                    )
                )
    assert len(emails) == 5
    assert sorted(seeded["drivers"]) == sorted(emails)


def test_every_completed_demo_task_meets_its_demands_with_a_full_history(app, seeded):
    now = datetime.now(UTC)
    deviations = 0
    with app.app_context():
        for spec in CARRIERS:
            with carrier_scope(db.session, spec["id"]):
                done = completed_tasks(spec["id"])
                assert len(done) >= 5
                for task in done:
                    blockers = lifecycle.completion_blockers(carrier_id=spec["id"], task=task)
                    assert blockers == [], (task.naam, blockers)
                    moves = moves_of(spec["id"], task)
                    assert [to for to, _at in moves] == ["ontvangen", "gestart", "afgerond"]
                    times = [at for _to, at in moves]
                    assert times == sorted(times)
                    assert task.ontvangen_op <= task.gestart_op < task.afgerond_op <= now
                    # Nothing starts before its planned time.
                    assert task.gestart_op >= task.gepland_op
                    assert [at for _to, at in moves] == [
                        task.ontvangen_op,
                        task.gestart_op,
                        task.afgerond_op,
                    ]
                    if (
                        task.required_temperatuur is not None
                        and task.gemeten_temperatuur > task.required_temperatuur
                    ):
                        deviations += 1
                for task in db.session.scalars(
                    select(Task).where(Task.transporteur_id == spec["id"])
                ):
                    if task.gestart_op is not None:
                        assert task.gestart_op >= task.gepland_op, task.naam
                    assert task.created_at <= now
    assert deviations >= 1  # the demo shows a cold chain broken at least once


def login_planner(client, logins):
    page = client.get("/login")
    client.post(
        "/login",
        data={
            "email": logins["portal"][0],
            "password": logins["password"],
            "csrf_token": csrf_from(page.get_data(as_text=True)),
        },
    )


def plain(response) -> str:
    text = re.sub(r"<[^>]+>", " ", response.get_data(as_text=True))
    return re.sub(r"\s+", " ", text)


def test_a_completed_demo_task_page_shows_its_evidence(app, client, seeded):
    carrier_id = CARRIERS[0]["id"]
    with app.app_context(), carrier_scope(db.session, carrier_id):
        done = {t.type: t.id for t in completed_tasks(carrier_id)}
    login_planner(client, seeded)
    for task_id in done.values():
        body = plain(client.get(f"/taken/{task_id}"))
        assert "Nog geen bewijs" not in body
        assert "niet gemeten" not in body and "nog niet doorgegeven" not in body
        assert "Ontvangen" in body and "Gestart" in body
    signed = client.get(f"/taken/{done['voer_leveren']}").get_data(as_text=True)
    evidence = signed.split('id="evidence-title"')[1].split('id="answers-title"')[0]
    assert "Handtekening" in evidence and "<img" in evidence


# --- the task page: a temperature deviation, a signature given in the answers -------------


def complete(app, carrier, driver, task, **evidence):
    """The driver receives, starts and completes the task, sending evidence along."""
    from portal.audit.service import Actor

    me = Actor("driver", driver.id, "Jan")

    def work():
        for to in ("ontvangen", "gestart", "afgerond"):
            lifecycle.move_task(
                carrier_id=carrier.id,
                task_id=task.id,
                to=to,
                actor=me,
                office=False,
                evidence=lifecycle.Evidence(**evidence) if to == "afgerond" else None,
            )

    in_carrier(app, carrier.id, work)


@pytest.mark.parametrize(("measured", "deviates"), [(5.0, True), (4.0, False), (2.5, False)])
def test_a_temperature_above_the_required_one_is_shown_as_a_deviation(
    app, client, carrier, planner, driver, measured, deviates
):
    task = create_task(app, carrier, driver, type="koel_transport", required_temperatuur=4.0)
    complete(app, carrier, driver, task, temperatuur=measured)
    login(client, planner)
    body = plain(client.get(f"/taken/{task.id}"))
    assert ("Afwijking: 1 °C warmer dan de vereiste 4 °C" in body) is deviates
    assert ("Afwijking: gemeten 5 °C, vereist 4 °C." in body) is deviates
    if deviates:
        english = plain(client.get(f"/taken/{task.id}", headers={"Accept-Language": "en"}))
        assert "Deviation: 1 °C warmer than the required 4 °C" in english


def test_a_signature_given_in_the_answers_is_the_tasks_signature(
    app, client, carrier, planner, driver
):
    from portal.audit.service import Actor
    from portal.questionnaires import answering

    doc = questionnaire_doc("voer_leveren", title="Voer leveren")
    doc["questions"].append(
        {"id": "handtekening", "type": "signature", "label": "Handtekening klant", "required": True}
    )
    publish_questionnaire(app, carrier, doc)
    task = create_task(app, carrier, driver, type="voer_leveren", require_signature=True)
    token = driver_token(client, driver)
    signature = upload_file(client, token, "signature")

    def sign():
        pinned = tasks.get_task(carrier_id=carrier.id, task_id=task.id)
        answering.save(
            carrier_id=carrier.id,
            driver_id=driver.id,
            revision_id=pinned.activity_questionnaire_id,
            answers={"gewicht": 12000, "handtekening": [signature]},
            submit=True,
            task=answering.TaskRef(task.id, pinned.activity_questionnaire_id),
            actor=Actor("driver", driver.id, "Jan"),
        )

    in_carrier(app, carrier.id, sign)
    complete(app, carrier, driver, task)  # no signature sent as evidence: the answers hold it
    login(client, planner)
    page = client.get(f"/taken/{task.id}").get_data(as_text=True)
    evidence = page.split('id="evidence-title"')[1].split('id="answers-title"')[0]
    assert "Handtekening" in evidence and signature in evidence
    assert "Nog geen bewijs" not in evidence


def test_the_demos_invoices_and_credit_note_pass_en16931_and_peppol(app, seeded):
    """The demo exports its earlier work. The carrier with its invoicing details gets every
    invoice issued (one reverse charged to the Belgian customer) and a credit note against
    one; each stored document passes the official EN 16931 rules and Peppol's. The carrier
    that never filled them in has concepts, waiting without a number."""
    from billing import en16931, peppol

    from portal.billing.models import Invoice

    with app.app_context():
        found = {}
        for spec in CARRIERS:
            with carrier_scope(db.session, spec["id"]):
                found[spec["slug"]] = [
                    (invoice.soort, invoice.nummer, invoice.document, invoice.btw_uitsplitsing)
                    for invoice in db.session.scalars(
                        select(Invoice).where(Invoice.transporteur_id == spec["id"])
                    )
                ]
    issued = found["vdberg"]
    assert {soort for soort, *_ in issued} == {"factuur", "creditnota"}
    assert any(row["categorie"] == "AE" for *_, breakdown in issued for row in breakdown)
    for soort, nummer, xml, _breakdown in issued:
        assert xml is not None, f"{nummer} was not issued"
        en16931.assert_valid(xml)
        assert peppol.failed(xml) == [], (soort, nummer)
    assert found["kuipers"] and all(nummer is None for _, nummer, *_ in found["kuipers"])
