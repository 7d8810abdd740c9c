"""Benchmark: reading a driver card download with a year of activity (goal: < 100 ms).

Run by hand, it prints figures; it is not a test:

    .venv/bin/python bench/tacho_parse.py                 # 365 days, 30 changes a day
    .venv/bin/python bench/tacho_parse.py --days 56 --changes 60 --rounds 50

It builds one card download with portal.tacho.ddd.build (a wrapped activity buffer grown to
hold every day), then times portal.tacho.ddd.parse and, separately, turning the result into
segments, over --rounds rounds.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from portal.tacho import ddd
from portal.tacho.ddd import build

ACTIVITIES = ["werk", "rijden", "rust", "rijden", "beschikbaar", "rijden"]


def card_download(days: int, changes: int) -> bytes:
    start = datetime(2025, 1, 6, tzinfo=UTC)
    entries = []
    for n in range(days):
        day = start + timedelta(days=n)
        step = (14 * 60) // changes  # the changes spread over 05:00..19:00
        entries += [
            (day + timedelta(hours=5, minutes=k * step), ACTIVITIES[(n + k) % len(ACTIVITIES)])
            for k in range(changes - 1)
        ]
        entries.append((day + timedelta(hours=19, minutes=30), "onbekend"))
    return build.card_file(
        kaartnummer="NB00000123456700",
        achternaam="DE VRIES",
        voornamen="JAN",
        dagen=build.changes_from_timeline(entries),
        generation=2,
        wrap=True,
    )


def timed(rounds: int, work) -> list[float]:
    out = []
    for _ in range(rounds):
        started = time.perf_counter()
        work()
        out.append((time.perf_counter() - started) * 1000)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--days", type=int, default=365)
    parser.add_argument("--changes", type=int, default=30, help="activity changes a day")
    parser.add_argument("--rounds", type=int, default=30)
    args = parser.parse_args()

    data = card_download(args.days, args.changes)
    received = datetime(2026, 1, 10, tzinfo=UTC)
    parsed = ddd.parse(data, received_at=received)
    words = sum(len(d.wijzigingen) for d in parsed.dagen)
    print(
        f"card download: {len(data):,} bytes, {len(parsed.dagen)} days, {words:,} changes "
        f"(generation {parsed.generatie}; the G2 activity EF is the one read)"
    )
    parse_ms = timed(args.rounds, lambda: ddd.parse(data, received_at=received))
    segments_ms = timed(args.rounds, parsed.segments)
    for label, figures in (("parse", parse_ms), ("segments()", segments_ms)):
        print(
            f"{label:<11} median {statistics.median(figures):7.2f} ms   "
            f"min {min(figures):7.2f} ms   max {max(figures):7.2f} ms   ({args.rounds} rounds)"
        )
    print("goal: parse < 100 ms")


if __name__ == "__main__":
    main()
