"""Benchmark: the hours overview of every driver over a month (the planner's /uren page, the
API's GET /transporteurs/{id}/uren and the payroll export) for a carrier with many drivers.

Run by hand, it prints figures; it is not a test:

    .venv/bin/python bench/hours_overview.py                     # SQLite, 500 drivers
    .venv/bin/python bench/hours_overview.py --drivers 500 \\
        --database postgresql://postgres@127.0.0.1/rijplan_bench  # an existing, empty DB

It creates one carrier with --drivers drivers, each with a work day on most days of the month
before this one (some crossing midnight) holding about ten activities, then times the
overview service, the page, the API and the exports in-process, with the queries each runs
(they must not grow with the number of drivers).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
import uuid
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from flask_migrate import upgrade
from sqlalchemy import event, insert

from portal import create_app
from portal.extensions import db

ZONE = ZoneInfo("Europe/Amsterdam")
KINDS = ["rijden", "laden", "lossen", "wachten", "pauze", "overig_werk", "beschikbaarheid"]
WEIGHTS = [40, 12, 12, 6, 10, 8, 2]


def last_month() -> tuple[date, date]:
    first_of_this = datetime.now(ZONE).date().replace(day=1)
    last = first_of_this - timedelta(days=1)
    return last.replace(day=1), last


def seed(app, drivers: int, van: date, tot: date) -> tuple[uuid.UUID, str, int, int]:
    """The carrier, an API key, and the number of work days and activities written."""
    from portal.accounts.service import create_api_key, create_carrier, create_user
    from portal.drivers.models import Driver
    from portal.drivers.service import new_user_token
    from portal.hours.models import Activity, WorkDay
    from portal.tenancy import carrier_scope

    rng = random.Random(500)
    with app.app_context():
        carrier_id = create_carrier(naam="Bench Uren").id
        with carrier_scope(db.session, carrier_id):
            now = datetime.now(UTC)
            driver_rows = [
                {
                    "transporteur_id": carrier_id,
                    "id": uuid.uuid4(),
                    "naam": f"Chauffeur {n:04d}",
                    "user_token": new_user_token(),
                    "actief": True,
                    "token_version": 1,
                    "created_at": now,
                }
                for n in range(drivers)
            ]
            db.session.execute(insert(Driver), driver_rows)
            days, activities = [], []
            counts = [0, 0]

            def flush():
                if days:
                    db.session.execute(insert(WorkDay), days)
                if activities:
                    db.session.execute(insert(Activity), activities)
                counts[0] += len(days)
                counts[1] += len(activities)
                days.clear()
                activities.clear()

            for driver in driver_rows:
                free_from = datetime.min.replace(tzinfo=UTC)  # days of a driver never overlap
                day = van - timedelta(days=1)
                while day <= tot:
                    if day.weekday() < 5 or rng.random() < 0.2:
                        hour = rng.choice([5, 6, 6, 7, 19, 20])  # some night shifts
                        start = datetime(
                            day.year, day.month, day.day, hour, rng.choice([0, 30]), tzinfo=ZONE
                        )
                        start = max(start.astimezone(UTC), free_from + timedelta(hours=9))
                        cursor = start
                        day_id = uuid.uuid4()
                        for _ in range(rng.randint(8, 13)):
                            length = timedelta(minutes=rng.randint(10, 90))
                            activities.append(
                                {
                                    "transporteur_id": carrier_id,
                                    "id": uuid.uuid4(),
                                    "werkdag_id": day_id,
                                    "chauffeur_id": driver["id"],
                                    "soort": rng.choices(KINDS, WEIGHTS)[0],
                                    "begin": cursor,
                                    "einde": cursor + length,
                                    "created_at": now,
                                    "updated_at": now,
                                    "versie": 1,
                                }
                            )
                            cursor += length
                        days.append(
                            {
                                "transporteur_id": carrier_id,
                                "id": day_id,
                                "chauffeur_id": driver["id"],
                                "gestart_op": start,
                                "beeindigd_op": cursor,
                                "created_at": now,
                                "updated_at": now,
                                "versie": 1,
                            }
                        )
                        free_from = cursor
                    day += timedelta(days=1)
                if len(activities) > 20_000:
                    flush()
            flush()
            create_user(
                carrier_id=carrier_id, email="p@bench.nl", password="bench-password", rol="planner"
            )
            _, key = create_api_key(carrier_id=carrier_id, naam="Salaris")
            db.session.commit()
            return carrier_id, key, counts[0], counts[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--drivers", type=int, default=500)
    parser.add_argument("--requests", type=int, default=10)
    parser.add_argument("--database", default=None)
    args = parser.parse_args()

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
    van, tot = last_month()
    started = time.perf_counter()
    carrier_id, key, day_count, activity_count = seed(app, args.drivers, van, tot)
    print(
        f"seeded {args.drivers} drivers, {day_count} work days, {activity_count} activities "
        f"({van} to {tot}) in {time.perf_counter() - started:.1f}s on {url.split(':')[0]}"
    )

    with app.app_context():
        engine = db.engine

    def counted(fn) -> tuple[int, object]:
        statements = []

        def count(conn, cursor, statement, *rest):
            if not statement.lstrip().upper().startswith("SELECT SET_CONFIG"):
                statements.append(statement)

        event.listen(engine, "before_cursor_execute", count)
        try:
            result = fn()
        finally:
            event.remove(engine, "before_cursor_execute", count)
        return len(statements), result

    def timed(label: str, fn, requests: int) -> None:
        timings = []
        for _ in range(requests):
            begin = time.perf_counter()
            fn()
            timings.append(time.perf_counter() - begin)
        median = statistics.median(timings) * 1000
        worst = max(timings) * 1000
        print(f"{label:>22}: median {median:.0f} ms, worst {worst:.0f} ms over {requests} runs")

    # The service alone.
    from portal.hours import weeks
    from portal.tenancy import carrier_scope

    def service_call():
        with app.app_context(), carrier_scope(db.session, carrier_id):
            found = weeks.overview(carrier_id=carrier_id, first_day=van, last_day=tot)
            db.session.rollback()
            return found

    queries, found = counted(service_call)
    worked = sum(row.hours.totaal.werktijd for row in found.rows)
    print(
        f"overview service: {len(found.rows)} drivers, {worked / 60:.0f} h of working time, "
        f"{queries} queries"
    )
    timed("overview service", service_call, args.requests)

    # The planner's page.
    browser = app.test_client()
    login = browser.post("/login", data={"email": "p@bench.nl", "password": "bench-password"})
    assert login.status_code == 303, login.status_code
    page_url = f"/uren?van={van}&tot={tot}"

    def page():
        response = browser.get(page_url)
        assert response.status_code == 200, response.status_code
        return response

    queries, response = counted(page)
    rows = response.get_data(as_text=True).count('<tr id="uren-')
    print(
        f"overview page: {rows} rows shown, "
        f"{len(response.get_data()) / 1024:.0f} KiB HTML, {queries} queries"
    )
    timed("overview page", page, args.requests)
    sorted_url = page_url + "&sort=werktijd&richting=desc"
    timed("page, by working time", lambda: browser.get(sorted_url), args.requests)

    # The API for payroll software.
    client = app.test_client()
    api_url = f"/api/v1/transporteurs/{carrier_id}/uren?van={van}&tot={tot}&limit=1000"
    headers = {"Authorization": f"Bearer {key}", "Accept-Encoding": "identity"}

    def api():
        response = client.get(api_url, headers=headers)
        assert response.status_code == 200, response.get_data(as_text=True)
        return response

    queries, response = counted(api)
    print(
        f"API: {len(response.get_json())} drivers, {len(response.get_data()) / 1024:.0f} KiB "
        f"JSON, {queries} queries"
    )
    timed("API uren", api, args.requests)

    # The exports.
    for fmt in ("csv", "xlsx"):
        export_url = f"/uren/export.{fmt}?van={van}&tot={tot}"
        queries, response = counted(lambda u=export_url: browser.get(u))
        print(f"export {fmt}: {len(response.get_data()) / 1024:.0f} KiB, {queries} queries")
        timed(f"export {fmt}", lambda u=export_url: browser.get(u), max(3, args.requests // 3))


if __name__ == "__main__":
    main()
