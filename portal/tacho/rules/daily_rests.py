"""Art. 8(2) to 8(5) of Regulation (EC) 561/2006: daily rests, walked shift by shift.

- Shifts (Art. 4(k), 8(2)): from the end of a daily or weekly rest, the next daily rest must
  be taken within 24 h (30 h when every work minute of the shift is multi-manned, Art. 8(5)).
  It is the first rest of which at least 9 h fall in that window; only the part in the
  window counts (⚖ "count the in-window portion"): 11 h or more is regular, 9 h to 11 h
  reduced, and 3 h (or more) earlier in the window followed by 9 h makes a regular split
  rest (Art. 4(g)). With no such rest, the longest rest that starts in the window is taken
  as an insufficient daily rest, and the next window starts at its end.
- Art. 8(4): at most three reduced daily rests between two weekly rests. An insufficient
  rest does not count as one of the three reductions; a weekly rest whose in-window part is
  9 h to 11 h is not counted as a reduction either (the count starts again at it) ⚖.
- Each shift's driving is judged by Art. 6(1) (portal.tacho.rules.driving_times).

Exactly 11 h, 9 h and 3 h of rest are kept.
"""

from __future__ import annotations

from portal.tacho.rules.driving_times import daily_driving
from portal.tacho.rules.limits import (
    ART_8_2,
    ART_8_4,
    ART_8_5,
    DAGELIJKSE_RUST,
    REDUCTIONS,
    REST_REDUCED,
    REST_REGULAR,
    REST_SPLIT_FIRST,
    VERKORTE_RUST,
    WEEKLY_REDUCED,
    WINDOW,
    WINDOW_CREW,
)
from portal.tacho.rules.severity import severity
from portal.tacho.rules.walk import Reading, week_of


def scan(reading: Reading, ri: int, start: int, window: int):
    """The daily rest of the window [start, start + window): ("ok", index, in-window, split),
    ("short", index or None, in-window, split) when the window is over without one, or
    ("open", None, 0, False) when the data ends before it is decided."""
    limit = start + window
    armed = False
    best, best_in, best_armed = None, -1, False
    j = ri
    rests = reading.rests
    while j < len(rests) and rests[j][0] < limit:
        s, e = rests[j]
        inside = min(e, limit) - s
        if inside >= REST_REDUCED:
            return "ok", j, inside, armed
        if inside > best_in:
            best, best_in, best_armed = j, inside, armed
        if inside >= REST_SPLIT_FIRST:
            armed = True
        j += 1
    if reading.end < limit:
        return "open", None, 0, False
    if best is None:
        return "short", (j if j < len(rests) else None), 0, False
    return "short", best, best_in, best_armed


def _shift_rest(reading: Reading, ri: int, start: int):
    """The rest that ends the shift starting at `start` (see `scan`), with the window and
    whether the shift is multi-manned: 30 h when the shift has no solo work, else 24 h."""
    status, j, inside, armed = scan(reading, ri, start, WINDOW)
    if reading.crew_at(start):
        c_status, c_j, c_inside, c_armed = scan(reading, ri, start, WINDOW_CREW)
        stop = reading.rests[c_j][0] if c_j is not None else reading.end
        if reading.solo_work(start, stop) == 0:
            return c_status, c_j, c_inside, c_armed, WINDOW_CREW, True
    return status, j, inside, armed, WINDOW, False


def shifts(reading: Reading, start: int, ri: int) -> None:
    """Walk the shifts from `start` (the end of a weekly rest; `ri` the first rest after
    it): each shift's driving (Art. 6(1)), its daily rest and the reductions (Art. 8(2),
    8(4), 8(5)). The reading's state ends at the last shift."""
    state = reading.state
    extensions: dict[int, int] = {}
    state.extensions = extensions
    rests = reading.rests
    reductions = 0
    while start < reading.end:
        status, j, inside, armed, window, crew = _shift_rest(reading, ri, start)
        stop = rests[j][0] if j is not None else reading.end
        driving = reading.driving(start, stop)
        week = week_of(start)
        state.shift_start, state.shift_driving, state.shift_crew = start, driving, crew
        state.shift_week = week
        state.reductions = reductions
        daily_driving(reading, start, stop, driving, week, extensions)
        if status == "open":
            return
        if j is None:
            # No rest at all after the window: the shift runs to the end of the data.
            short_rest(reading, start, window, 0, False, crew, reductions)
            return
        s, e = rests[j]
        weekly = e - s >= WEEKLY_REDUCED
        if status == "short":
            short_rest(reading, start, window, inside, armed, crew, reductions)
        elif not crew and inside < REST_REGULAR and not armed and not weekly:
            pending = e >= reading.end and start + window > reading.end
            if not pending:
                reductions += 1
                _too_many_reductions(reading, reductions, s, e, inside)
        if weekly:
            reductions = 0
            state.weekly_end = e
        state.reductions = reductions
        start, ri = e, j + 1
        # Resting now: a new shift starts when the rest ends (taken as now).
        state.shift_start, state.shift_driving, state.shift_crew = start, 0, False
        state.shift_week = week_of(start)


def _too_many_reductions(reading: Reading, reductions: int, s: int, e: int, inside: int):
    """Art. 8(4): a fourth reduced daily rest since the last weekly rest."""
    if reductions > REDUCTIONS:
        reading.add(
            VERKORTE_RUST,
            ART_8_4,
            s,
            e,
            inside,
            REST_REGULAR,
            REST_REGULAR - inside,
            severity("D1", inside),
        )


def short_rest(reading: Reading, start, window, inside, armed, crew, reductions) -> None:
    """A window [start, start + window) without a daily rest: `inside` minutes of rest in it."""
    if crew:
        grens, row, artikel = REST_REDUCED, "D4", ART_8_5
    elif armed:
        grens, row, artikel = REST_REDUCED, "D3", ART_8_2
    elif reductions < REDUCTIONS:
        grens, row, artikel = REST_REDUCED, "D2", ART_8_2
    else:
        grens, row, artikel = REST_REGULAR, "D1", ART_8_2
    reading.add(
        DAGELIJKSE_RUST,
        artikel,
        start,
        start + window,
        inside,
        grens,
        grens - inside,
        severity(row, inside),
    )
