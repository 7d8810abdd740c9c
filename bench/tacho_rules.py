"""Benchmark: the EU 561/2006 checker and the remaining driving time (portal.tacho.rules),
pure Python, no database.

Run by hand, it prints figures; it is not a test:

    .venv/bin/python bench/tacho_rules.py                  # 56 days, 200 drivers x 3 weeks
    .venv/bin/python bench/tacho_rules.py --days 365 --rounds 5

Each driver's time is built as card days of activity changes (read through
`segments.day_segments`, as the tachograph pages do): weekdays of about 9 h of driving in
stretches broken by short work stops, 45 min breaks, a 30 min load and unload, 11 h+ nights
with the card out on some of them (unknown time, so both readings run), weekends off. Goals
(issue 11): the checker over 56 days of one driver < 20 ms; the budget of 200 drivers over
three weeks well under 150 ms in total.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from portal.tacho import rules
from portal.tacho.segments import (
    BESCHIKBAAR,
    RIJDEN,
    RUST,
    WERK,
    Change,
    day_segments,
    merge,
)


def driver_days(first: date, days: int, seed: int, card_out: float = 0.2):
    """(day, changes) of a driver over `days` days: weekday shifts, weekends off."""
    rng = random.Random(seed)
    out = []
    for n in range(days):
        day = first + timedelta(days=n)
        if day.weekday() >= 5:
            out.append((day, [Change(0, RUST)]))
            continue
        night_out = rng.random() < card_out
        changes = [Change(0, RUST, kaart_in=not night_out)]
        minute = 5 * 60 + rng.randrange(0, 120)
        changes.append(Change(minute, WERK))
        minute += 30
        driven = 0
        target = 9 * 60 - rng.randrange(0, 60)
        while driven < target:
            stretch = 0
            while stretch < 4 * 60 and driven < target:
                block = min(rng.randrange(20, 70), 270 - stretch, target - driven)
                changes.append(Change(minute, RIJDEN))
                minute += block
                stretch += block
                driven += block
                stop = rng.randrange(2, 10)
                changes.append(Change(minute, rng.choice([WERK, BESCHIKBAAR])))
                minute += stop
            changes.append(Change(minute, RUST))
            minute += 46
        changes.append(Change(minute, WERK))
        minute += 30
        changes.append(Change(min(minute, 23 * 60 + 59), RUST, kaart_in=rng.random() > card_out))
        out.append((day, changes))
    return out


def segments_of(days_with_changes):
    out = []
    for day, changes in days_with_changes:
        out += day_segments(day, changes)
    return merge(out)


def timed(label: str, fn, rounds: int) -> float:
    timings = []
    for _ in range(rounds):
        begin = time.perf_counter()
        fn()
        timings.append(time.perf_counter() - begin)
    median = statistics.median(timings) * 1000
    best = min(timings) * 1000
    print(f"{label:>34}: median {median:.1f} ms, min {best:.1f} ms over {rounds} rounds")
    return median


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--days", type=int, default=56)
    parser.add_argument("--drivers", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--card-out", type=float, default=0.2, help="share of nights unknown")
    args = parser.parse_args()

    first = date(2026, 9, 7)  # a Monday
    one = segments_of(driver_days(first, args.days, seed=1, card_out=args.card_out))
    clean = segments_of(driver_days(first, args.days, seed=1, card_out=0))
    start = datetime.combine(first, datetime.min.time(), tzinfo=UTC)
    found = rules.check(one)
    print(
        f"one driver, {args.days} days: {len(one)} segments, "
        f"{sum(f.soort == rules.OVERTREDING for f in found)} infringements, "
        f"{sum(f.soort == rules.ONVOLLEDIG for f in found)} incomplete"
    )
    timed(f"check, {args.days} days, unknown nights", lambda: rules.check(one), args.rounds)
    timed(f"check, {args.days} days, card always in", lambda: rules.check(clean), args.rounds)

    # The board: every driver's last three weeks, now in the middle of a Thursday shift.
    now = start + timedelta(days=24, hours=11)
    fleet = [
        [
            s
            for s in segments_of(driver_days(first + timedelta(days=4), 21, seed=n))
            if s.begin < now
        ]
        for n in range(args.drivers)
    ]
    print(f"{args.drivers} drivers, 3 weeks: {sum(len(s) for s in fleet)} segments")

    def board():
        return [rules.budget(segments, now=now) for segments in fleet]

    timed(f"budget, {args.drivers} drivers", board, max(3, args.rounds // 4))

    def planning():
        for segments in fleet:
            found = rules.budget(segments, now=now)
            for hour in (2, 6, 20):
                found.planning_problem(now + timedelta(hours=hour), 120)

    timed(f"budget + 3 plans, {args.drivers} drivers", planning, max(3, args.rounds // 4))


if __name__ == "__main__":
    main()
