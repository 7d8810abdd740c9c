"""Art. 6 of Regulation (EC) 561/2006: driving times.

- Art. 6(1): daily driving is per shift (from the end of one daily or weekly rest to the
  start of the next, see portal.tacho.rules.daily_rests) and at most 9 h; a shift of more
  than 9 h uses one of the two extensions (10 h) of the fixed week in which it starts ⚖, also
  when it is more than 10 h.
- Art. 6(2): at most 56 h of driving in a fixed week (Monday 00:00 to Monday 00:00 UTC).
- Art. 6(3): at most 90 h of driving in any two consecutive fixed weeks.

Limits are inclusive: exactly 9 h, 10 h, 56 h and 90 h are kept.
"""

from __future__ import annotations

from portal.tacho.rules.limits import (
    ART_6_1,
    ART_6_2,
    ART_6_3,
    DAGELIJKSE_RIJTIJD,
    DRIVE_DAY,
    DRIVE_DAY_EXTENDED,
    DRIVE_TWO_WEEKS,
    DRIVE_WEEK,
    EXTENSIONS,
    TWEE_WEKEN_RIJTIJD,
    VERLENGDE_RIJTIJD,
    WEKELIJKSE_RIJTIJD,
)
from portal.tacho.rules.severity import severity
from portal.tacho.rules.walk import Reading, week_driving, week_start


def daily_driving(
    reading: Reading, start: int, stop: int, driving: int, week: int, extensions: dict
) -> None:
    """Art. 6(1): the driving of the shift [start, stop) that began in `week`; a shift over
    9 h takes one of the week's extensions (counted in `extensions`)."""
    if driving <= DRIVE_DAY:
        return
    used = extensions.get(week, 0) + 1
    extensions[week] = used
    allowed = used <= EXTENSIONS
    if driving > DRIVE_DAY_EXTENDED:
        grens = DRIVE_DAY_EXTENDED if allowed else DRIVE_DAY
        row = "B2" if allowed else "B1"
        reading.add(
            DAGELIJKSE_RIJTIJD,
            ART_6_1,
            start,
            stop,
            driving,
            grens,
            driving - grens,
            severity(row, driving),
        )
    elif not allowed:
        reading.add(
            VERLENGDE_RIJTIJD,
            ART_6_1,
            start,
            stop,
            driving,
            DRIVE_DAY,
            driving - DRIVE_DAY,
            severity("B1", driving),
        )


def weekly_driving(reading: Reading) -> None:
    """Art. 6(2) and 6(3): the driving of every fixed week, and of every two weeks."""
    per_week = week_driving(reading.iv)
    for week in sorted(set(per_week) | {w + 1 for w in per_week}):
        total = per_week.get(week, 0)
        if total > DRIVE_WEEK:
            reading.add(
                WEKELIJKSE_RIJTIJD,
                ART_6_2,
                week_start(week),
                week_start(week + 1),
                total,
                DRIVE_WEEK,
                total - DRIVE_WEEK,
                severity("B3", total),
            )
        pair = per_week.get(week - 1, 0) + total
        if pair > DRIVE_TWO_WEEKS:
            reading.add(
                TWEE_WEKEN_RIJTIJD,
                ART_6_3,
                week_start(week - 1),
                week_start(week + 1),
                pair,
                DRIVE_TWO_WEEKS,
                pair - DRIVE_TWO_WEEKS,
                severity("B4", pair),
            )
