"""Benchmark: the remaining driving time of every driver on the planners' board (EU 561/2006,
from card days and the app's hours), for a carrier with many drivers.

Run by hand, it prints figures; it is not a test:

    .venv/bin/python bench/tacho_board.py                      # SQLite, 200 drivers
    .venv/bin/python bench/tacho_board.py --drivers 200 \\
        --database postgresql://postgres@127.0.0.1/rijplan_bench  # an existing, empty DB

It creates one carrier with --drivers drivers, each with three weeks of card days (shifts of
8 to 10 hours with breaks, weekends off, some nights with the card out) downloaded this
morning and the app's work day of today, then times driving.budgets() in-process with the
queries it runs (they must not grow with the number of drivers), next to the same function
over the same rows already in memory (the checker alone: what the database adds is the rest).
Goal: under 150 ms for 200 drivers.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from flask_migrate import upgrade
from sqlalchemy import event, insert

from portal import create_app
from portal.extensions import db


def seed(app, drivers: int, now: datetime) -> uuid.UUID:
    from portal.accounts.service import create_carrier
    from portal.drivers.models import Driver
    from portal.drivers.service import new_user_token
    from portal.files.models import StoredFile
    from portal.tacho.ddd.build import changes_from_timeline
    from portal.tacho.intake import reading
    from portal.tacho.models import TachoDay, TachoFile
    from portal.tacho.segments import day_segments, totals
    from portal.tenancy import carrier_scope

    rng = random.Random(200)
    download = now.replace(hour=5, minute=30, second=0, microsecond=0)
    with app.app_context():
        carrier_id = create_carrier(naam="Bench Rijtijden").id
        with carrier_scope(db.session, carrier_id):
            rows, files, stored, days = [], [], [], []
            for n in range(drivers):
                driver_id, file_id, blob_id = uuid.uuid4(), uuid.uuid4(), uuid.uuid4()
                number = f"NB{n:012d}00"
                rows.append(
                    {
                        "transporteur_id": carrier_id, "id": driver_id, "naam": f"Bench {n:04d}",
                        "user_token": new_user_token(), "actief": True, "token_version": 1,
                        "created_at": now, "kaartnummer": number,
                    }
                )  # fmt: skip
                stored.append(
                    {
                        "transporteur_id": carrier_id, "id": blob_id, "soort": "tacho",
                        "bestandsnaam": f"{number}.ddd", "content_type": "application/octet-stream",
                        "grootte": 1, "sha256": uuid.uuid4().hex * 2,
                        "storage_key": f"bench/{blob_id}", "created_at": now,
                        "geupload_door_type": "user",
                    }
                )  # fmt: skip
                files.append(
                    {
                        "transporteur_id": carrier_id, "id": file_id, "bestand_id": blob_id,
                        "soort": "bestuurderskaart", "generatie": "1", "bestandsnaam": "x.ddd",
                        "sha256": uuid.uuid4().hex * 2, "grootte": 1, "chauffeur_id": driver_id,
                        "kaartnummer": number, "geupload_op": download, "gedownload_op": download,
                        "gelezen": True, "geupload_door": "bench", "geupload_door_type": "user",
                        "periode_uit_bestand": True,
                    }
                )  # fmt: skip
                timeline = []
                day = (download - timedelta(days=21)).date()
                while day < download.date():
                    start = datetime(
                        day.year, day.month, day.day, rng.choice([4, 5, 6]), tzinfo=UTC
                    )
                    if day.weekday() < 5:
                        t = start
                        for drive in (rng.randint(150, 270), rng.randint(120, 250)):
                            timeline += [(t, "rijden"), (t + timedelta(minutes=drive), "rust")]
                            t += timedelta(minutes=drive + 45)
                        timeline.append((t, "werk"))
                        out = {"kaart_in": False, "handmatig": rng.random() > 0.2}
                        timeline.append(
                            (
                                t + timedelta(minutes=30),
                                "rust" if out["handmatig"] else "onbekend",
                                out,
                            )
                        )
                    day += timedelta(days=1)
                for datum, changes in changes_from_timeline(timeline).items():
                    minutes = totals(day_segments(datum, changes))
                    days.append(
                        {
                            "transporteur_id": carrier_id, "id": uuid.uuid4(),
                            "kaartnummer": number,
                            "chauffeur_id": driver_id, "datum": datum, "tacho_bestand_id": file_id,
                            "bron": "kaart", "gedownload_op": download, "tot": None,
                            "rijden_min": minutes["rijden"], "werk_min": minutes["werk"],
                            "beschikbaar_min": minutes["beschikbaar"], "rust_min": minutes["rust"],
                            "onbekend_min": minutes["onbekend"], "afstand_km": 300,
                            "wijzigingen": reading.changes_json(changes), "voertuigen": [],
                        }
                    )  # fmt: skip
            db.session.execute(insert(Driver), rows)
            db.session.execute(insert(StoredFile), stored)
            db.session.execute(insert(TachoFile), files)
            for at in range(0, len(days), 5000):
                db.session.execute(insert(TachoDay), days[at : at + 5000])
            db.session.commit()
            print(f"seeded {drivers} drivers, {len(days)} card days")
            return carrier_id


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--drivers", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=15)
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
        }
    )
    with app.app_context():
        upgrade()
    now = datetime.now(UTC).replace(second=0, microsecond=0)
    carrier_id = seed(app, args.drivers, now)

    from portal.drivers import service as drivers
    from portal.tacho import driving, rules
    from portal.tenancy import carrier_scope

    with app.app_context(), carrier_scope(db.session, carrier_id):
        ids = {d.id for d in drivers.list_drivers(carrier_id=carrier_id)}
        statements: list[str] = []

        def count(conn, cursor, statement, *rest):
            if not statement.lstrip().upper().startswith("SELECT SET_CONFIG"):
                statements.append(statement)

        event.listen(db.engine, "before_cursor_execute", count)
        driving.budgets(carrier_id=carrier_id, driver_ids=ids, now=now)
        event.remove(db.engine, "before_cursor_execute", count)
        lines = driving.timelines(
            carrier_id=carrier_id, driver_ids=ids, van=driving.budget_start(now),
            tot=now, now=now,
        )  # fmt: skip
        full, alone = [], []
        for _ in range(args.rounds):  # alternate: the same machine load for both
            begin = time.perf_counter()
            driving.budgets(carrier_id=carrier_id, driver_ids=ids, now=now)
            full.append(time.perf_counter() - begin)
            db.session.expire_all()
            begin = time.perf_counter()
            for line in lines.values():
                rules.budget(line.segments, now=now)
            alone.append(time.perf_counter() - begin)
    ratios = sorted(f / a for f, a in zip(full, alone, strict=True))
    print(f"queries per board (any number of drivers): {len(statements)}")
    print(
        f"budgets of {len(ids)} drivers, with the database: median "
        f"{statistics.median(full) * 1000:.0f} ms (min {min(full) * 1000:.0f})"
    )
    print(
        f"the checker alone over the same segments: median "
        f"{statistics.median(alone) * 1000:.0f} ms (min {min(alone) * 1000:.0f})"
    )
    print(
        f"ratio whole/checker: median {statistics.median(ratios):.2f} "
        f"[{ratios[0]:.2f}-{ratios[-1]:.2f}] over {args.rounds} alternated rounds"
    )


if __name__ == "__main__":
    main()
