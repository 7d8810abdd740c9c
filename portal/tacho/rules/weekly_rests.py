"""Art. 8(6) to 8(9) of Regulation (EC) 561/2006: weekly rests and their compensation.

- A weekly rest is every rest of 24 h or more; 45 h or more is regular, 24 h to 45 h
  reduced. Exactly 45 h and 24 h are kept.
- Art. 8(6): a weekly rest must start at most 6 x 24 h after the end of the previous one
  (`late_weekly_rests`).
- Art. 8(6) and 8(9): in any two consecutive fixed weeks there must be two weekly rests, one
  of them regular (`two_week_pairs`). A rest that falls in two weeks counts in the week it
  starts in, or in the next one when the first already has one (either week, not both) ⚖,
  and a rest that covers a whole week (leave) counts in every week it touches
  (`weeks_of_rests`). A pair short of a rest is reported on the week without one (so the two
  pairs around it name it once), a pair without a regular rest on its last reduced rest.
  Pairs are judged from the first whole week of the data and only once both weeks are over.
- Art. 8(6) second subparagraph: a reduced weekly rest is compensated when, before the end
  of the third week after its week, a later rest starts that carries the missing hours on
  top of a regular weekly rest (45 h + owed) or of a daily rest (9 h + owed, under 24 h) ⚖;
  each later rest compensates one reduction at most (`compensations`).
- Not checked: the two consecutive reduced weekly rests abroad (Art. 8(6) third
  subparagraph), weekly rest in the cab and the return home every four weeks (Art. 8(8),
  8(8a)).
"""

from __future__ import annotations

from portal.tacho.rules.limits import (
    ART_8_6,
    DAY,
    REST_REDUCED,
    WEEKLY_DUE,
    WEEKLY_REDUCED,
    WEEKLY_REGULAR,
    WEKELIJKSE_RUST,
)
from portal.tacho.rules.severity import SEVERITY_COMPENSATION, severity
from portal.tacho.rules.walk import Reading, week_of, week_start

Rest = tuple[int, int]


def weekly_rests(reading: Reading, first_rest: int) -> None:
    """Every weekly rest rule over the reading; `first_rest`: the index of the first rest
    after the start of the data (a rest running at the start is not counted)."""
    weekly = [(s, e) for s, e in reading.rests[first_rest:] if e - s >= WEEKLY_REDUCED]
    late_weekly_rests(reading, weekly)
    assigned, week_of_rest = weeks_of_rests(weekly)
    two_week_pairs(reading, assigned)
    compensations(reading, weekly, week_of_rest)


def late_weekly_rests(reading: Reading, weekly: list[Rest]) -> None:
    """Art. 8(6): a weekly rest must start at most 6 x 24 h after the end of the previous
    one (the start of the data counts as one); also the rest still due at the end."""
    end = reading.end
    previous = reading.origin
    for s, e in weekly:
        _late(reading, previous, s)
        previous = e
    if previous < end:
        trailing = reading.rests[-1] if reading.rests and reading.rests[-1][1] >= end else None
        _late(reading, previous, trailing[0] if trailing is not None else end)


def _late(reading: Reading, previous: int, started: int) -> None:
    """An infringement when a weekly rest starting at `started` is due earlier."""
    if started - previous > WEEKLY_DUE:
        late = started - previous - WEEKLY_DUE
        reading.add(
            WEKELIJKSE_RUST,
            ART_8_6,
            previous + WEEKLY_DUE,
            started,
            started - previous,
            WEEKLY_DUE,
            late,
            severity("D7", late),
        )


def weeks_of_rests(weekly: list[Rest]) -> tuple[dict[int, list[Rest]], dict[Rest, int]]:
    """The weekly rests of each fixed week, and the week each rest counts in.

    A weekly rest that falls in two weeks counts in either, not both (Art. 8(9)): in the
    week it starts in, unless that one has a rest already. (Moving every Saturday to Monday
    rest one week on would push a missing rest back to before the data.) A rest that covers
    a whole week (leave) counts in every week it touches."""
    assigned: dict[int, list[Rest]] = {}
    week_of_rest: dict[Rest, int] = {}
    for s, e in weekly:
        week, last = week_of(s), week_of(e - 1)
        if last - week >= 2:
            for covered in range(week, last + 1):
                assigned.setdefault(covered, []).append((s, e))
            week_of_rest[(s, e)] = week
            continue
        if last != week and assigned.get(week):
            week = last
        assigned.setdefault(week, []).append((s, e))
        week_of_rest[(s, e)] = week
    return assigned, week_of_rest


def two_week_pairs(reading: Reading, assigned: dict[int, list[Rest]]) -> None:
    """Any two consecutive weeks: two weekly rests, at least one of them regular. From the
    first whole week of the data, pairs that are over."""
    end, origin = reading.end, reading.origin
    week = week_of(origin) + (1 if week_start(week_of(origin)) < origin else 0)
    while week_start(week + 2) <= end:
        both = assigned.get(week, []) + assigned.get(week + 1, [])
        if any(e >= end and e - s < WEEKLY_REGULAR for s, e in both):
            week += 1
            continue  # a rest still running may yet become regular
        regular = sum(1 for s, e in both if e - s >= WEEKLY_REGULAR)
        if len(both) >= 2 and not regular:
            _no_regular_rest(reading, both)
        elif len(both) < 2:
            _missing_rest(reading, week if assigned.get(week + 1) else week + 1, regular)
        week += 1


def _no_regular_rest(reading: Reading, both: list[Rest]) -> None:
    """Two weekly rests, both reduced: named on the last one, measured by the longest."""
    s, e = both[-1]
    longest = max(e - s for s, e in both)
    reading.add(
        WEKELIJKSE_RUST,
        ART_8_6,
        s,
        e,
        longest,
        WEEKLY_REGULAR,
        WEEKLY_REGULAR - longest,
        severity("D6", longest),
    )


def _missing_rest(reading: Reading, missing: int, regular: int) -> None:
    """The week `missing` without a weekly rest (the later one when both lack one), so that
    the pairs on either side of it name it once; measured by its longest rest."""
    a, b = week_start(missing), week_start(missing + 1)
    longest = max((min(e, b) - max(s, a) for s, e in reading.rests if s < b and e > a), default=0)
    longest = max(0, min(longest, WEEKLY_REDUCED - 1))
    grens, row = (WEEKLY_REDUCED, "D5") if regular else (WEEKLY_REGULAR, "D6")
    reading.add(
        WEKELIJKSE_RUST,
        ART_8_6,
        a,
        b,
        longest,
        grens,
        grens - longest,
        severity(row, longest),
    )


def compensations(reading: Reading, weekly: list[Rest], week_of_rest: dict[Rest, int]) -> None:
    """Art. 8(6): a reduced weekly rest is compensated before the end of the third week
    after its week, by a later rest carrying the missing hours; each later rest compensates
    one reduction at most."""
    end = reading.end
    used: set[int] = set()
    for s, e in weekly:
        length = e - s
        if length >= WEEKLY_REGULAR or e >= end:
            continue
        owed = WEEKLY_REGULAR - length
        deadline = week_start(week_of_rest[(s, e)] + 4)
        found = _compensating_rest(reading.rests, e, deadline, owed, used)
        if found is not None:
            used.add(found)
        elif deadline <= end:
            reading.add(WEKELIJKSE_RUST, ART_8_6, e, deadline, 0, owed, owed, SEVERITY_COMPENSATION)


def _compensating_rest(
    rests: list[Rest], after: int, deadline: int, owed: int, used: set[int]
) -> int | None:
    """The index of the first unused rest starting from `after` and before `deadline` that
    carries `owed` minutes on top of a regular weekly rest or of a daily rest."""
    for i, (rs, re_) in enumerate(rests):
        if rs < after or i in used or rs >= deadline:
            continue
        carried = re_ - rs
        if carried >= WEEKLY_REGULAR + owed or REST_REDUCED + owed <= carried < DAY:
            return i
    return None
