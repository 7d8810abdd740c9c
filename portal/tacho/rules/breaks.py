"""Art. 7 of Regulation (EC) 561/2006: breaks.

Driving adds up until a break of 45 min, or 15 min (or more) followed by 30 min (or more);
a rest of 45 min or more (every daily or weekly rest) resets too. Breaks under 15 min do not
count. Availability is no break, except in a multi-manned shift (Art. 7 as amended by (EU)
2020/1054: the co-driver's break in the moving vehicle). Exactly 4 h 30 of driving and 45 min
of break are kept.
"""

from __future__ import annotations

from portal.tacho.rules.limits import (
    ART_7,
    BREAK,
    BREAK_FIRST,
    BREAK_SECOND,
    DRIVE_PERIOD,
    ONDERBREKING,
)
from portal.tacho.rules.severity import severity
from portal.tacho.rules.walk import B, D, R, Reading


def breaks(reading: Reading) -> None:
    """Every stretch of more than 4 h 30 of driving without a break; where the reading ends,
    the driving since the last break is its state's `since_break`."""
    acc, armed = 0, False
    first = last = None
    pause = None

    def close(length: int) -> None:
        nonlocal acc, armed, first
        if length >= BREAK or (armed and length >= BREAK_SECOND):
            _too_long(reading, acc, first, last)
            acc, armed, first = 0, False, None
        elif length >= BREAK_FIRST:
            armed = True

    for s, e, k, c in reading.iv:
        if k == R or (k == B and c):
            if pause is None:
                pause = s
            continue
        if pause is not None:
            close(s - pause)
            pause = None
        if k == D:
            if first is None:
                first = s
            acc += e - s
            last = e
    if pause is not None:
        close(reading.end - pause)
    _too_long(reading, acc, first, last)
    reading.state.since_break = acc


def _too_long(reading: Reading, driving: int, first, last) -> None:
    """An infringement when `driving` (from `first` to `last`) is over 4 h 30."""
    if driving > DRIVE_PERIOD:
        reading.add(
            ONDERBREKING,
            ART_7,
            first,
            last,
            driving,
            DRIVE_PERIOD,
            driving - DRIVE_PERIOD,
            severity("C1", driving),
        )
