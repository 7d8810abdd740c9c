"""Benchmark: the driver's task list (the hot path: a phone polls it all day) and the
planner's board, on a database holding many tasks.

Run by hand, it prints figures; it is not a test:

    .venv/bin/python bench/tasks.py                    # SQLite, 100,000 tasks
    .venv/bin/python bench/tasks.py --background 0 --board-cards 500   # the board, 500 cards
    .venv/bin/python bench/tasks.py --tasks 50 --background 100000 \\
        --database postgresql://postgres@127.0.0.1/rijplan_bench   # an existing, empty DB

It creates one carrier with a driver holding --tasks open tasks (each with a 30-question
questionnaire, as DESIGN.md measures) plus --background tasks of other drivers, then times
GET /api/v1/users/{user_token}/taken and the board (GET /taken for today) in-process: full
responses, 304 polls, and the queries per request (they must not grow with the tasks shown).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
import uuid
from datetime import UTC, date, datetime, timedelta
from datetime import time as dt_time
from pathlib import Path
from zoneinfo import ZoneInfo

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from flask_migrate import upgrade
from sqlalchemy import event, insert

from portal import create_app
from portal.extensions import db


def questionnaire(activity_type: str, size: int = 30) -> dict:
    questions = []
    for n in range(size):
        kind = ["number", "text", "select", "boolean", "photo"][n % 5]
        question = {"id": f"q{n}", "type": kind, "label": f"Vraag {n}", "required": n % 2 == 0}
        if kind == "select":
            question["options"] = ["ja", "nee", "onbekend"]
        if kind == "number":
            question["validation"] = {"min": 0, "max": 1000}
            question["unit"] = "kg"
        questions.append(question)
    return {
        "schema_version": 1,
        "questionnaire_id": activity_type,
        "title": activity_type,
        "activity_type": activity_type,
        "questions": questions,
    }


def seed(
    app, tasks: int, background: int, board_cards: int = 0, board_day: date | None = None
) -> tuple[str, str]:
    from portal.accounts.service import create_carrier
    from portal.drivers.service import create_driver
    from portal.drivers.tokens import password_grant
    from portal.questionnaires.service import publish
    from portal.tasks.models import Task
    from portal.tenancy import carrier_scope

    with app.app_context():
        carrier_id = create_carrier(naam="Bench").id
        with carrier_scope(db.session, carrier_id):
            kinds = ["mest_laden", "voer_leveren", "vee_transport", "koel_transport"]
            revisions = [
                publish(carrier_id=carrier_id, doc=questionnaire(k), activate=True) for k in kinds
            ]
            driver = create_driver(
                carrier_id=carrier_id, naam="Bench", email="b@bench.nl", password="bench-password"
            )
            others = [create_driver(carrier_id=carrier_id, naam=f"D{n}") for n in range(50)]
            now = datetime.now(UTC)
            rows = []
            for n in range(tasks + background):
                owner = driver if n < tasks else others[n % len(others)]
                revision = revisions[n % len(revisions)]
                rows.append(
                    {
                        "transporteur_id": carrier_id,
                        "id": uuid.uuid4(),
                        "chauffeur_id": owner.id,
                        "activity_questionnaire_id": revision.id,
                        "type": revision.activity_type,
                        "status": "gepland",
                        "naam": f"Taak {n}",
                        "adres": "Veldweg 88",
                        "stad": "Enter",
                        "land": "NL",
                        "gepland_op": now + timedelta(minutes=n),
                        "created_at": now,
                        "updated_at": now,
                        "versie": 1,
                    }
                )
                if len(rows) == 5000:
                    db.session.execute(insert(Task), rows)
                    rows = []
            if rows:
                db.session.execute(insert(Task), rows)
            from portal.accounts.service import create_user

            if board_cards:
                seed_board(carrier_id, board_day, board_cards, revisions, others)
            create_user(
                carrier_id=carrier_id, email="p@bench.nl", password="bench-password", rol="planner"
            )
            pair = password_grant(username="b@bench.nl", password="bench-password", ip=None)
            db.session.commit()
            return pair.access_token, pair.user_token


def seed_board(carrier_id, day: date, cards: int, revisions, drivers) -> None:
    """cards tasks on one day, as a busy board holds them: spread over the drivers' lanes
    (one in ten unassigned), every status, some with a vehicle (a few double-booked), with
    demands and VDM numbers."""
    from portal.fleet.service import create_vehicle
    from portal.tasks.models import STATUSES, Task

    vehicles = [
        create_vehicle(carrier_id=carrier_id, kenteken=f"BX-{n:03d}-K").id for n in range(12)
    ]
    zone = ZoneInfo("Europe/Amsterdam")
    start = datetime.combine(day, dt_time(5, 0), tzinfo=zone).astimezone(UTC)
    now = datetime.now(UTC)
    rows = []
    for n in range(cards):
        revision = revisions[n % len(revisions)]
        rows.append(
            {
                "transporteur_id": carrier_id,
                "id": uuid.uuid4(),
                "chauffeur_id": None if n % 10 == 0 else drivers[n % len(drivers)].id,
                "vehicle_id": vehicles[n % len(vehicles)] if n % 3 == 0 else None,
                "activity_questionnaire_id": revision.id,
                "type": revision.activity_type,
                "status": STATUSES[n % len(STATUSES)],
                "naam": f"Bordtaak {n}",
                "adres": "Veldweg 88",
                "stad": "Enter" if n % 4 else None,
                "land": "NL",
                "gepland_op": start + timedelta(minutes=(n * 7) % 960),
                "duur_min": 45,
                "require_photos": n % 2 == 0,
                "min_fotos": 1 if n % 4 == 0 else None,
                "require_signature": n % 3 == 0,
                "require_location": n % 5 == 0,
                "kooiaap": n % 7 == 0,
                "vdm_nummer": f"2501{n:06d}" if n % 6 == 0 else None,
                "created_at": now,
                "updated_at": now,
                "versie": 1 + n % 3,
            }
        )
    db.session.execute(insert(Task), rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=50)
    parser.add_argument("--background", type=int, default=100_000)
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--database", default=None)
    parser.add_argument(
        "--board-cards",
        type=int,
        default=0,
        help="also seed this many tasks on one day after the others and time that day's board",
    )
    args = parser.parse_args()
    # The board's day lies after every task of the driver and the background (one a minute).
    board_day = (
        datetime.now(ZoneInfo("Europe/Amsterdam"))
        + timedelta(minutes=args.tasks + args.background, days=1)
    ).date()

    folder = Path(tempfile.mkdtemp())
    url = args.database or f"sqlite:///{folder / 'bench.sqlite'}"
    app = create_app(
        {
            "SQLALCHEMY_DATABASE_URI": url,
            "SECRET_KEY": "bench-secret-key-of-at-least-32-bytes",
            "INSTANCE_PATH": str(folder),
            "PASSWORD_HASH_PROFILE": "CHEAPEST",
            "WTF_CSRF_ENABLED": False,
        }
    )
    with app.app_context():
        upgrade()
    started = time.perf_counter()
    token, user_token = seed(app, args.tasks, args.background, args.board_cards, board_day)
    print(
        f"seeded {args.tasks} + {args.background} tasks in {time.perf_counter() - started:.1f}s"
        f" on {url.split(':')[0]}"
    )

    client = app.test_client()
    path = f"/api/v1/users/{user_token}/taken"
    headers = {"Authorization": f"Bearer {token}", "Accept-Encoding": "gzip"}
    first = client.get(path, headers={"Authorization": f"Bearer {token}"})
    size = len(first.get_data())
    gz = client.get(path, headers=headers)
    print(
        f"response: {len(first.get_json())} tasks, {size / 1024:.0f} KiB JSON, "
        f"{len(gz.get_data()) / 1024:.0f} KiB gzip"
    )

    with app.app_context():
        engine = db.engine

    def queries(client, url, headers) -> int:
        statements = []

        def count(conn, cursor, statement, *rest):
            statements.append(statement)

        event.listen(engine, "before_cursor_execute", count)
        response = client.get(url, headers=headers)
        event.remove(engine, "before_cursor_execute", count)
        assert response.status_code in (200, 304), response.status_code
        return len(statements)

    def timed(label, client, url, headers, requests):
        timings = []
        for _ in range(requests):
            begin = time.perf_counter()
            response = client.get(url, headers=headers)
            timings.append(time.perf_counter() - begin)
            assert response.status_code in (200, 304)
        median = statistics.median(timings) * 1000
        p95 = statistics.quantiles(timings, n=20, method="inclusive")[-1] * 1000
        p99 = statistics.quantiles(timings, n=100, method="inclusive")[-1] * 1000
        print(
            f"{label:>16}: median {median:.1f} ms, p95 {p95:.1f} ms, p99 {p99:.1f} ms, "
            f"{1 / statistics.mean(timings):.0f} req/s (one process, in-process client)"
        )

    print(f"driver list, queries per request: {queries(client, path, headers)}")
    timed("driver list", client, path, headers, args.requests)
    poll = {**headers, "If-None-Match": first.headers["ETag"]}
    timed("driver 304 poll", client, path, poll, args.requests)

    board = app.test_client()
    login = board.post("/login", data={"email": "p@bench.nl", "password": "bench-password"})
    assert login.status_code == 303, login.status_code
    page = board.get("/taken")
    cards = page.get_data(as_text=True).count('<article class="card ')
    print(
        f"board: {cards} cards for today, "
        f"{len(page.get_data()) / 1024:.0f} KiB HTML, "
        f"queries per request: {queries(board, '/taken', {})}"
    )
    timed("board (today)", board, "/taken", {}, max(20, args.requests // 5))
    if args.board_cards:
        day_url = f"/taken?datum={board_day.isoformat()}"
        page = board.get(day_url)
        cards = page.get_data(as_text=True).count('<article class="card ')
        print(
            f"board: {cards} cards on {board_day}, "
            f"{len(page.get_data()) / 1024:.0f} KiB HTML, "
            f"queries per request: {queries(board, day_url, {})}"
        )
        timed(f"board ({cards} cards)", board, day_url, {}, max(20, args.requests // 5))


if __name__ == "__main__":
    main()
