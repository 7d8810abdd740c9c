"""Lost answers: a proxy on loopback loses 30% of the app's answers after the app has done
the work, as a phone's network does. 200 driver and integration writes (task creates by a
key, location batches, status moves with a photo, questionnaire saves), each sent again
with its Idempotency-Key until an answer arrives; then the database is read. Nothing is
written twice, nothing is missing, and every answer asked for again is the one given."""

from __future__ import annotations

import http.client
import random
from collections import Counter
from datetime import UTC, datetime, timedelta

from factories import (
    bearer,
    create_api_key,
    create_carrier,
    create_driver,
    create_task,
    driver_token,
    in_carrier,
    publish_questionnaire,
    upload_file,
)
from sqlalchemy import func, select

from attack.support import Live, LossyProxy
from portal.extensions import db

EACH = 50  # writes of each of the four kinds
SHARE_LOST = 0.3
MAX_TRIES = 30


def test_lost_answers_retried_with_their_key_double_nothing_and_lose_nothing(live):
    from portal.audit.models import AuditEntry
    from portal.drivers.models import DriverLocation
    from portal.questionnaires.models import AnswerSession
    from portal.tasks.models import Task, TaskEvidence

    carrier = create_carrier(live.app, "Lossy Transport")
    driver = create_driver(live.app, carrier, "Jan Tunnel", email="jan@tunnel.example")
    key = create_api_key(live.app, carrier)
    publish_questionnaire(live.app, carrier)
    client = live.app.test_client()
    token = driver_token(client, driver)
    rides = [create_task(live.app, carrier, driver, naam=f"Rit {i}") for i in range(EACH)]
    photos = [upload_file(client, token) for _ in range(EACH)]
    start = datetime.now(UTC).replace(microsecond=0) - timedelta(hours=2)

    writes = []
    for i in range(EACH):
        writes.append(
            ("create", "POST", f"/api/v1/users/{driver.user_token}/taken",
             {"type": "mest_laden", "naam": f"Order {i}"}, bearer(key.key))
        )  # fmt: skip
        points = [
            {"lat": 52.2, "lng": 6.9, "recorded_at": (start + timedelta(seconds=3 * i + j))
             .isoformat().replace("+00:00", "Z")}
            for j in range(3)
        ]  # fmt: skip
        writes.append(
            ("location", "PUT", f"/api/v1/users/{driver.user_token}/locatie",
             {"punten": points}, bearer(token))
        )  # fmt: skip
        writes.append(
            ("move", "PATCH", f"/api/v1/taken/{rides[i].id}/status",
             {"status": "ontvangen", "fotos": [photos[i]]}, bearer(token))
        )  # fmt: skip
        writes.append(
            ("save", "POST", "/api/v1/questionnaire_answers",
             {"taak_id": str(rides[i].id), "answers": {"gewicht": 1000 + i}}, bearer(token))
        )  # fmt: skip
    random.Random(14).shuffle(writes)

    proxy = LossyProxy(live.port, SHARE_LOST)
    lossy = Live(live.app, live.host, proxy.port)
    tries, replayed_first, mismatched = Counter(), 0, []
    try:
        for number, (kind, method, path, body, headers) in enumerate(writes):
            sent = {**headers, "Idempotency-Key": f"drill-{number}"}
            answer = None
            for _ in range(MAX_TRIES):
                tries[kind] += 1
                try:
                    answer = lossy.call(method, path, body, sent)
                    break
                except (http.client.RemoteDisconnected, ConnectionError):
                    continue  # the answer was lost: send it again, with the same key
            assert answer is not None, f"{kind} {path}: no answer in {MAX_TRIES} tries"
            assert 200 <= answer.status < 300, (kind, answer.status, answer.body[:300])
            replayed_first += answer.headers.get("Idempotent-Replayed") == "true"
            again = live.call(method, path, body, sent)  # asked once more, directly
            if (again.status, again.body) != (answer.status, answer.body):
                mismatched.append((kind, path))
    finally:
        proxy.close()

    def counted():
        orders = dict(
            db.session.execute(
                select(Task.naam, func.count())
                .where(Task.transporteur_id == carrier.id, Task.naam.like("Order %"))
                .group_by(Task.naam)
            ).all()
        )
        points = db.session.scalar(
            select(func.count())
            .select_from(DriverLocation)
            .where(DriverLocation.transporteur_id == carrier.id)
        )
        ride_ids = [r.id for r in rides]
        statuses = Counter(
            db.session.scalars(select(Task.status).where(Task.id.in_(ride_ids))).all()
        )
        moves = db.session.scalar(
            select(func.count())
            .select_from(AuditEntry)
            .where(
                AuditEntry.transporteur_id == carrier.id,
                AuditEntry.entity_id.in_(ride_ids),
                AuditEntry.action == "status",
            )
        )
        evidence = db.session.scalar(
            select(func.count()).select_from(TaskEvidence).where(TaskEvidence.taak_id.in_(ride_ids))
        )
        sessions = db.session.scalar(
            select(func.count())
            .select_from(AnswerSession)
            .where(AnswerSession.taak_id.in_(ride_ids))
        )
        return orders, points, statuses, moves, evidence, sessions

    orders, points, statuses, moves, evidence, sessions = in_carrier(live.app, carrier.id, counted)
    sent_total = sum(tries.values())
    duplicates = sum(n - 1 for n in orders.values() if n > 1) + max(0, moves - EACH)
    lost = (EACH - len(orders)) + (3 * EACH - points) + (EACH - statuses["ontvangen"])
    print(
        f"\nlost answers: {len(writes)} writes, {sent_total} requests through the proxy, "
        f"{proxy.dropped} answers lost ({proxy.dropped / max(1, sent_total):.0%}), "
        f"{replayed_first} writes answered by a replay; duplicates {duplicates}, lost {lost}, "
        f"answers asked again that differed {len(mismatched)}; tries per kind {dict(tries)}"
    )
    assert proxy.dropped > 0.2 * sent_total  # the drill did lose answers
    assert orders == {f"Order {i}": 1 for i in range(EACH)}
    assert points == 3 * EACH
    assert statuses == {"ontvangen": EACH}
    assert moves == EACH and evidence == EACH and sessions == EACH
    assert mismatched == []
