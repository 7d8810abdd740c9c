"""The hours recorded in the app as segments (`app_segments`), and card data joined with
them where the card has none (`combine`), so the rules read both alike.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime

from portal.tacho.rules.walk import minute, moment
from portal.tacho.segments import APP, BESCHIKBAAR, KAART, ONBEKEND, RIJDEN, RUST, WERK, Segment

APP_ACTIVITEIT = {
    "rijden": RIJDEN,
    "laden": WERK,
    "lossen": WERK,
    "wachten": WERK,
    "overig_werk": WERK,
    "beschikbaarheid": BESCHIKBAAR,
    "pauze": RUST,
}


@dataclass(frozen=True, slots=True)
class AppDay:
    """A work day recorded in the app: its start, end (None while running) and activities
    (soort, begin, einde or None while running)."""

    gestart_op: datetime
    beeindigd_op: datetime | None
    activiteiten: Sequence[tuple[str, datetime, datetime | None]]


def app_segments(work_days: Sequence[AppDay], *, now: datetime) -> list[Segment]:
    """The hours recorded in the app as segments (bron "app"): activities as their kind,
    time inside a work day without an activity unknown, time between work days (and after
    the last one, up to `now`) rest. Whole minutes; a later activity cuts an earlier one
    that overlaps it; a running day or activity runs until `now`."""
    now_m = minute(now)
    spans: list[list] = []  # [begin, end, activities]
    for day in sorted(work_days, key=lambda d: d.gestart_op):
        acts = []
        for soort, a_begin, a_end in day.activiteiten:
            s = minute(a_begin)
            e = minute(a_end) if a_end is not None else now_m
            e = min(e, now_m)
            if e > s:
                acts.append((s, e, APP_ACTIVITEIT.get(soort, WERK)))
        s = minute(day.gestart_op)
        e = minute(day.beeindigd_op) if day.beeindigd_op is not None else now_m
        e = min(e, now_m)
        if acts:
            s = min(s, min(a[0] for a in acts))
            e = max(e, max(a[1] for a in acts))
        if e <= s:
            continue
        if spans and s <= spans[-1][1]:
            spans[-1][1] = max(spans[-1][1], e)
            spans[-1][2].extend(acts)
        else:
            spans.append([s, e, acts])
    out: list[Segment] = []

    def put(s: int, e: int, activiteit: str) -> None:
        if e <= s:
            return
        if out and out[-1].activiteit == activiteit and minute(out[-1].eind) == s:
            out[-1] = Segment(out[-1].begin, moment(e), activiteit, APP)
        else:
            out.append(Segment(moment(s), moment(e), activiteit, APP))

    for n, (s, e, acts) in enumerate(spans):
        if n:
            put(spans[n - 1][1], s, RUST)
        cursor = s
        acts.sort(key=lambda a: a[0])
        for i, (a_s, a_e, activiteit) in enumerate(acts):
            nxt = acts[i + 1][0] if i + 1 < len(acts) else e
            a_e = min(a_e, nxt, e)
            a_s = max(a_s, cursor)
            put(cursor, a_s, ONBEKEND)
            put(a_s, a_e, activiteit)
            cursor = max(cursor, a_e)
        put(cursor, e, ONBEKEND)
    if spans and spans[-1][1] < now_m:
        put(spans[-1][1], now_m, RUST)
    return out


def combine(
    card: Sequence[Segment], card_until: datetime | None, app: Sequence[Segment]
) -> tuple[list[Segment], str]:
    """Card data up to `card_until` (the last card download; None: up to the card's last
    segment), the app's after it and wherever the card has no segment at all; with the
    label of what was used: "kaart", "app" or "kaart+app"."""
    card = sorted(card, key=lambda s: s.begin)
    if card_until is None and card:
        card_until = max(s.eind for s in card)
    out: list[Segment] = []
    for seg in card:
        if card_until is not None and seg.begin >= card_until:
            continue
        out.append(
            seg if card_until is None or seg.eind <= card_until else replace(seg, eind=card_until)
        )
    covered = [(s.begin, s.eind) for s in out]
    starts = [c[0] for c in covered]
    used_app = False
    for seg in sorted(app, key=lambda s: s.begin):
        for begin, eind in _uncovered(seg.begin, seg.eind, covered, starts):
            out.append(replace(seg, begin=begin, eind=eind))
            used_app = True
    out.sort(key=lambda s: s.begin)
    used_card = bool(covered)
    if used_card and used_app:
        return out, "kaart+app"
    return out, ("app" if used_app else KAART)


def _uncovered(begin, end, covered, starts):
    """The parts of [begin, end) that no (sorted, disjoint) covered interval holds."""
    i = max(0, bisect.bisect_right(starts, begin) - 1)
    cursor = begin
    while i < len(covered) and covered[i][0] < end:
        c_begin, c_end = covered[i]
        if c_end > cursor:
            if c_begin > cursor:
                yield cursor, min(c_begin, end)
            cursor = max(cursor, c_end)
        i += 1
    if cursor < end:
        yield cursor, end
