"""What a driver may still drive now (`budget`), and whether planned work fits in it
(`planning_problem`): the state both readings (portal.tacho.rules.articles) end in, with
the driving of this fixed week and the one before. A figure on which the optimistic and the
pessimistic reading differ is unknown (None).
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from portal.tacho.rules.articles import readings
from portal.tacho.rules.limits import (
    DRIVE_DAY,
    DRIVE_DAY_EXTENDED,
    DRIVE_PERIOD,
    DRIVE_TWO_WEEKS,
    DRIVE_WEEK,
    EXTENSIONS,
    REDUCTIONS,
    REST_REDUCED,
    REST_REGULAR,
    WEEK,
    WEEKLY_DUE,
    WEEKLY_REDUCED,
    WINDOW,
    WINDOW_CREW,
)
from portal.tacho.rules.walk import (
    BY_BEGIN,
    Reading,
    base,
    minute,
    moment,
    week_driving,
    week_of,
    week_start,
)
from portal.tacho.segments import ONBEKEND, RUST, Segment

WEEKLY_SPAN = timedelta(minutes=WEEKLY_REDUCED)


@dataclass(frozen=True, slots=True)
class Budget:
    """What a driver may still drive, at `nu`. None where unknown time makes a figure
    impossible (the optimistic and the pessimistic reading differ)."""

    resterend_tot_onderbreking_min: int | None
    resterend_vandaag_min: int | None  # this shift, capped by the week and two-week figures
    resterend_week_min: int | None
    resterend_twee_weken_min: int | None  # 90 h - last week - this week, capped by the week
    volgende_dagrust_uiterlijk: datetime | None  # latest start of the next daily rest
    volgende_weekrust_uiterlijk: datetime | None  # latest start of the next weekly rest
    verlengingen_over: int | None  # 10-hour days left this week, 0..2
    verkorte_rusten_over: int | None  # reduced daily rests left until a weekly rest, 0..3
    nu: datetime | None = None
    gereden_week_min: int | None = None  # driving this fixed week
    gereden_vorige_week_min: int | None = None  # driving the fixed week before

    def planning_problem(self, begin: datetime, duur_min: int) -> str | None:
        """Whether work planned at `begin` for `duur_min` minutes (all of it counted as
        driving, the conservative reading) can be finished legally: "in_rust" when it runs
        into a daily or weekly rest that is due by then, "rijtijd_op" when it goes beyond
        the remaining driving time of its shift, week or two weeks, else None. The time
        between now and `begin` is taken as rest. A figure that is unknown is not judged."""
        if self.nu is None:
            return None
        nu = minute(self.nu)
        start, end = minute(begin), minute(begin) + duur_min
        if end <= nu:
            return None
        start = max(start, nu)
        duur = end - start
        gap = start - nu
        need = REST_REDUCED if self.verkorte_rusten_over else REST_REGULAR
        new_shift = gap >= need
        weekly_taken = gap >= WEEKLY_REDUCED
        dag = self.volgende_dagrust_uiterlijk
        if not new_shift and dag is not None and end > minute(dag):
            return "in_rust"
        week_due = self.volgende_weekrust_uiterlijk
        if not weekly_taken and week_due is not None and end > minute(week_due):
            return "in_rust"
        w_now, w_task = week_of(nu), week_of(start)
        week_used = self.gereden_week_min or 0
        before = self.gereden_vorige_week_min or 0
        if w_task == w_now + 1:
            week_used, before = 0, week_used
        elif w_task > w_now + 1:
            week_used, before = 0, 0
        left = min(DRIVE_WEEK - week_used, DRIVE_TWO_WEEKS - before - week_used)
        if new_shift:
            extension = w_task != w_now or bool(self.verlengingen_over)
            left = min(left, DRIVE_DAY_EXTENDED if extension else DRIVE_DAY)
        elif self.resterend_vandaag_min is not None:
            left = min(left, self.resterend_vandaag_min)
        if duur > left:
            return "rijtijd_op"
        return None


def _budget_of(reading: Reading, now: int, per_week: dict[int, int]) -> Budget:
    state = reading.state
    week = week_of(now)
    this_week = per_week.get(week, 0)
    last_week = per_week.get(week - 1, 0)
    week_left = max(0, DRIVE_WEEK - this_week)
    two_left = min(week_left, max(0, DRIVE_TWO_WEEKS - this_week - last_week))
    extensions = state.extensions or {}
    used_this_week = extensions.get(week, 0)
    shift_used = extensions.get(state.shift_week, 0)
    if state.shift_driving > DRIVE_DAY:
        extension_ok = shift_used <= EXTENSIONS
    else:
        extension_ok = shift_used < EXTENSIONS
    limit = DRIVE_DAY_EXTENDED if extension_ok else DRIVE_DAY
    today = min(max(0, limit - state.shift_driving), week_left, two_left)
    if state.shift_crew:
        due = state.shift_start + WINDOW_CREW - REST_REDUCED
    elif state.reductions < REDUCTIONS:
        due = state.shift_start + WINDOW - REST_REDUCED
    else:
        due = state.shift_start + WINDOW - REST_REGULAR
    return Budget(
        resterend_tot_onderbreking_min=max(0, DRIVE_PERIOD - state.since_break),
        resterend_vandaag_min=today,
        resterend_week_min=week_left,
        resterend_twee_weken_min=two_left,
        volgende_dagrust_uiterlijk=moment(due),
        volgende_weekrust_uiterlijk=moment(state.weekly_end + WEEKLY_DUE),
        verlengingen_over=max(0, EXTENSIONS - used_this_week),
        verkorte_rusten_over=max(0, REDUCTIONS - state.reductions),
        nu=moment(now),
        gereden_week_min=this_week,
        gereden_vorige_week_min=last_week,
    )


def budget(segments: Sequence[Segment], *, now: datetime) -> Budget:
    """What the driver may still drive at `now`. The segments should reach up to `now`:
    whatever the caller knows of the time since the last data (the app's hours, rest between
    work days) belongs in them; time between the last segment and `now` is read as unknown,
    and segments after `now` are ignored. A rest running at `now` is taken as ending now."""
    now_minute = minute(now)
    ordered = sorted((s for s in segments if s.begin < now), key=BY_BEGIN)
    # The rules start afresh at a weekly rest: read from the last one that ends before this
    # week (one with known time on either side, so both readings agree on it), and the
    # driving of last week, not three weeks back.
    this_week = week_start(week_of(now_minute))
    cut = _last_weekly_rest(ordered, moment(this_week))
    first = cut
    last_week = moment(this_week - WEEK)
    while first > 0 and ordered[first - 1].eind > last_week:
        first -= 1
    row, _app, start, end = base(ordered[first:], end=now_minute)
    if not row:
        return Budget(None, None, None, None, None, None, None, None, now)
    per_week = week_driving(row)
    if cut > first:
        i = bisect.bisect_right([x[0] for x in row], minute(ordered[cut].begin)) - 1
        row = row[i:]
        start = row[0][0]
    both = readings(row, start, end, findings=False)
    return _agreed([_budget_of(reading, now_minute, per_week) for reading in both])


def _last_weekly_rest(ordered: list[Segment], before: datetime) -> int:
    """The index of the last weekly rest that ends by `before` with known time on either
    side of it; 0 when there is none."""
    for i in range(len(ordered) - 2, 0, -1):
        seg = ordered[i]
        if seg.activiteit != RUST or seg.eind > before or seg.eind - seg.begin < WEEKLY_SPAN:
            continue
        previous, following = ordered[i - 1], ordered[i + 1]
        if (
            previous.eind == seg.begin
            and following.begin == seg.eind
            and previous.activiteit != ONBEKEND
            and following.activiteit != ONBEKEND
        ):
            return i
    return 0


def _agreed(budgets: list[Budget]) -> Budget:
    """The budget of one reading, or of both where they agree (None where they differ)."""
    if len(budgets) == 1:
        return budgets[0]
    optimistic, pessimistic = budgets
    values = {}
    for name in Budget.__dataclass_fields__:
        a, b = getattr(optimistic, name), getattr(pessimistic, name)
        values[name] = a if a == b else None
    return Budget(**values)


def planning_problem(
    segments: Sequence[Segment], *, now: datetime, begin: datetime, duur_min: int
) -> str | None:
    """Whether work planned at `begin` for `duur_min` minutes can be finished legally:
    "in_rust", "rijtijd_op" or None (see Budget.planning_problem). For many tasks of one
    driver, compute `budget` once and call its method."""
    return budget(segments, now=now).planning_problem(begin, duur_min)
