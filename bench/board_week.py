"""Benchmark: the planner's week view (/taken?weergave=week) against the day board, in the
same run, on the same data.

Run by hand, it prints figures; it is not a test (tests/test_benches.py runs --smoke):

    .venv/bin/python bench/board_week.py                 # SQLite, 40 drivers x 7 days x 10
    .venv/bin/python bench/board_week.py --rounds 30 \\
        --database postgresql://postgres@127.0.0.1/rijplan_bench   # an existing, empty DB
    .venv/bin/python bench/board_week.py --gc-freeze      # with the app's objects frozen
    .venv/bin/python bench/board_week.py --smoke          # a tiny run that checks it works

It creates one carrier with --drivers drivers, each with --per-day tasks on each of the 7
days of next week (a tenth unassigned, every status, a third with a vehicle, some without a
duration of their own, some overlapping), then times in-process, full responses, rounds
alternating which page goes first: the week (all its cards) and the day board of that
week's Wednesday (a seventh of them). It prints each page's median and spread (min-max,
p90), the CPU time of the serving thread (steadier than the wall clock on a shared machine;
with PostgreSQL the database's own CPU is not in it), the week/day ratio per round with its
spread, and the queries per request (they must not grow with the cards shown). Goal: the
week of 2,800 cards under 300 ms.
"""

from __future__ import annotations

import argparse
import gc
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

ZONE = ZoneInfo("Europe/Amsterdam")
GOAL_MS = 300.0
KINDS = ("mest_laden", "voer_leveren", "vee_transport", "koel_transport")


def seed(app, *, drivers: int, per_day: int, monday: date) -> None:
    """The carrier, its planner, drivers and vehicles, and per_day tasks a driver a day."""
    from portal.accounts.service import create_carrier, create_user
    from portal.drivers.service import create_driver
    from portal.fleet.service import create_vehicle
    from portal.tasks.models import STATUSES, Task
    from portal.tenancy import carrier_scope

    with app.app_context():
        carrier_id = create_carrier(naam="Bench Week").id
        with carrier_scope(db.session, carrier_id):
            people = [
                create_driver(carrier_id=carrier_id, naam=f"Chauffeur {n:02d}")
                for n in range(drivers)
            ]
            vehicles = [
                create_vehicle(carrier_id=carrier_id, kenteken=f"BW-{n:03d}-K").id
                for n in range(max(2, drivers))
            ]
            now = datetime.now(UTC)
            rows = []
            for d, person in enumerate(people):
                for day in range(7):
                    start = datetime.combine(monday + timedelta(days=day), dt_time(6), tzinfo=ZONE)
                    for k in range(per_day):
                        n = len(rows)
                        # Ten tasks between 06:00 and 20:00; one in eight overlaps the one before (a
                        # double booking of the driver, and of its vehicle when both have one).
                        offset = k * 80 - (30 if n % 8 == 0 and k else 0)
                        rows.append(
                            {
                                "transporteur_id": carrier_id,
                                "id": uuid.uuid4(),
                                "chauffeur_id": None if n % 10 == 0 else person.id,
                                "vehicle_id": vehicles[d % len(vehicles)] if n % 3 == 0 else None,
                                "type": KINDS[n % len(KINDS)],
                                "status": STATUSES[n % len(STATUSES)],
                                "naam": f"Weektaak {n}",
                                "adres": "Veldweg 88",
                                "stad": "Enter" if n % 4 else None,
                                "land": "NL",
                                "gepland_op": (start + timedelta(minutes=offset)).astimezone(UTC),
                                "duur_min": None if n % 5 == 0 else 45 + (n % 4) * 15,
                                "require_photos": n % 2 == 0,
                                "vdm_nummer": f"2501{n:06d}" if n % 6 == 0 else None,
                                "created_at": now,
                                "updated_at": now,
                                "versie": 1 + n % 3,
                            }
                        )
            for chunk in range(0, len(rows), 2000):
                db.session.execute(insert(Task), rows[chunk : chunk + 2000])
            create_user(
                carrier_id=carrier_id, email="p@bench.nl", password="bench-password", rol="planner"
            )
            db.session.commit()


def spread(values: list[float]) -> str:
    low, high = min(values), max(values)
    p90 = statistics.quantiles(values, n=10, method="inclusive")[-1] if len(values) > 1 else high
    return (
        f"median {statistics.median(values):7.1f}, min {low:7.1f}, p90 {p90:7.1f}, max {high:7.1f}"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--drivers", type=int, default=40)
    parser.add_argument("--per-day", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--database", default=None)
    parser.add_argument("--smoke", action="store_true", help="a tiny run: does it still work?")
    parser.add_argument(
        "--gc-freeze",
        action="store_true",
        help="gc.freeze() after the first requests, as a server could once its app is loaded "
        "(the collector then skips the ~400k long-lived objects of the app and its libraries)",
    )
    args = parser.parse_args(argv)
    if args.smoke:
        args.drivers, args.per_day, args.rounds = 3, 2, 2

    today = datetime.now(ZONE).date()
    monday = today - timedelta(days=today.weekday()) + timedelta(days=7)  # next week: ahead
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
        engine = db.engine
    started = time.perf_counter()
    seed(app, drivers=args.drivers, per_day=args.per_day, monday=monday)
    cards = args.drivers * args.per_day * 7
    print(f"seeded {cards} tasks in {time.perf_counter() - started:.1f}s on {url.split(':')[0]}")

    client = app.test_client()
    login = client.post("/login", data={"email": "p@bench.nl", "password": "bench-password"})
    assert login.status_code == 303, login.status_code
    pages = {
        "week": f"/taken?weergave=week&van={monday.isoformat()}",
        "day": f"/taken?datum={(monday + timedelta(days=2)).isoformat()}",
    }
    marks = {"week": '<article class="wk-card', "day": '<article class="card '}

    def queries(path: str) -> tuple[int, int, int]:
        statements: list[str] = []

        def count(conn, cursor, statement, *rest):
            statements.append(statement)

        event.listen(engine, "before_cursor_execute", count)
        response = client.get(path)
        event.remove(engine, "before_cursor_execute", count)
        assert response.status_code == 200, response.status_code
        html = response.get_data(as_text=True)
        return len(statements), len(html), html.count(marks[name])

    shown = {}
    for name, path in pages.items():
        count, size, found = queries(path)
        shown[name] = found
        print(f"{name:>5}: {found} cards, {size / 1024:.0f} KiB HTML, {count} queries per request")
    assert shown["week"] == cards, (shown["week"], cards)
    if args.gc_freeze:
        gc.collect()
        gc.freeze()
        print(f"gc.freeze(): {gc.get_freeze_count()} objects left out of collections")

    timings: dict[str, list[float]] = {"week": [], "day": []}
    cpu: dict[str, list[float]] = {"week": [], "day": []}
    ratios: list[float] = []
    for n in range(args.rounds):
        order = ("week", "day") if n % 2 == 0 else ("day", "week")
        for name in order:
            begin, begin_cpu = time.perf_counter(), time.thread_time()
            response = client.get(pages[name])
            cpu[name].append((time.thread_time() - begin_cpu) * 1000)
            timings[name].append((time.perf_counter() - begin) * 1000)
            assert response.status_code == 200
        ratios.append(timings["week"][-1] / timings["day"][-1])
    for name in ("week", "day"):
        print(f"{name:>5} ms: {spread(timings[name])}  ({shown[name]} cards)")
    for name in ("week", "day"):
        print(f"{name:>5} cpu ms: {spread(cpu[name])}  (this thread's CPU: the app, and SQLite)")
    print(f"week/day: {spread(ratios)}  (ratio per round, alternating order)")
    for what, figures in (("wall clock", timings), ("CPU", cpu)):
        median = statistics.median(figures["week"])
        verdict = "within" if median < GOAL_MS else "OVER"
        print(
            f"goal: week of {cards} cards under {GOAL_MS:.0f} ms ({what}): {verdict} "
            f"(median {median:.1f} ms)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
