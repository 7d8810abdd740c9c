"""Every article group walked over a driver's time: each reading (portal.tacho.rules.walk)
goes through the daily rests and driving of its shifts (Art. 8(2)-(5), 6(1)), the breaks
(Art. 7), the weekly driving (Art. 6(2), 6(3)) and the weekly rests (Art. 8(6)-(9)).

Unknown time (activiteit "onbekend", and gaps between segments): every rule is evaluated
twice, with unknown read as rest (optimistic) and as work that is neither rest nor driving
(pessimistic); `readings` gives both (one when nothing is unknown).

The start of the data is taken as the end of a weekly rest (nothing earlier is known); a
rest running at the start of the data is taken as ending there. Time after the last segment
has not happened: a rest or compensation due after it is no finding, a limit already passed
is.
"""

from __future__ import annotations

from portal.tacho.rules.breaks import breaks
from portal.tacho.rules.daily_rests import shifts
from portal.tacho.rules.driving_times import weekly_driving
from portal.tacho.rules.walk import R, Reading, U, W, week_of
from portal.tacho.rules.weekly_rests import weekly_rests


def analyse(reading: Reading, findings: bool = True) -> None:
    """Walk every article group over the reading; without `findings`, only what the budget
    needs (the shifts and the breaks)."""
    origin, first_rest = reading.start, 0
    if reading.rests and reading.rests[0][0] <= reading.start:
        origin, first_rest = reading.rests[0][1], 1
    reading.origin = origin
    state = reading.state
    state.weekly_end, state.shift_start, state.shift_week = origin, origin, week_of(origin)
    shifts(reading, origin, first_rest)
    breaks(reading)
    if findings:
        weekly_driving(reading)
        weekly_rests(reading, first_rest)


def readings(base, start: int, end: int, findings: bool = True) -> list[Reading]:
    """The optimistic reading, and the pessimistic one when some time is unknown; walked."""
    has_unknown = any(k == U for _s, _e, k, _c in base)
    kinds = (R, W) if has_unknown else (None,)
    out = []
    for unknown in kinds:
        reading = Reading(base, start, end, unknown)
        analyse(reading, findings)
        out.append(reading)
    return out
