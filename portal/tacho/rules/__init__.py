"""EU driving and rest times (Regulation (EC) 561/2006 as amended by (EU) 2020/1054), checked
over a driver's time as segments (portal.tacho.segments), whatever their source.

`check` lists infringements and checks that unknown time made impossible; `budget` says how
much a driver may still drive now; `planning_problem` says whether planned work fits in it;
`app_segments` turns the hours recorded in the app into segments and `combine` joins them
with card data. Pure: no Flask, no database.

How the rules are read (the points a Dutch transport-law adviser should review are marked
⚖):

- All time is in whole UTC minutes; a week is Monday 00:00 to Monday 00:00 UTC (Art. 4(i),
  as the tachograph counts). Limits are inclusive: exactly 4 h 30, 9 h, 56 h, 90 h of
  driving, 45 min of break, 11 h, 9 h, 45 h, 24 h of rest are kept.
- Availability is neither break nor rest; in a multi-manned shift, availability counts as a
  break (Art. 7 as amended: the co-driver's break in the moving vehicle).
- Shifts (Art. 4(k), 8(2)): from the end of a daily or weekly rest, the next daily rest must
  be taken within 24 h (30 h when every work minute of the shift is multi-manned, Art. 8(5)).
  It is the first rest of which at least 9 h fall in that window; only the part in the
  window counts (⚖ "count the in-window portion"): 11 h or more is regular, 9 h to 11 h
  reduced, and 3 h (or more) earlier in the window followed by 9 h makes a regular split
  rest. With no such rest, the longest rest that starts in the window is taken as an
  insufficient daily rest, and the next window starts at its end. An insufficient rest does
  not count as one of the three reductions; a weekly rest whose in-window part is 9 h to
  11 h is not counted as a reduction either (the count starts again at it) ⚖.
- Daily driving is per shift; a shift of more than 9 h uses one of the two extensions of
  the fixed week in which it starts ⚖, also when it is more than 10 h.
- Breaks (Art. 7): driving adds up until a break of 45 min, or 15 min (or more) followed by
  30 min (or more); a rest of 45 min or more (every daily or weekly rest) resets too.
  Breaks under 15 min do not count.
- Weekly rests (Art. 8(6)): every rest of 24 h or more. A weekly rest must start at most
  6 x 24 h after the end of the previous one. In any two consecutive fixed weeks there must
  be two weekly rests, one of them regular; a rest that falls in two weeks counts in the week
  it starts in, or in the next one when the first already has one (Art. 8(9): either week,
  not both) ⚖, and a rest that covers a whole week (leave) counts in every week it touches.
  A pair short of a rest is reported on the week without one (so the two pairs around it
  name it once), a pair without a regular rest on its last reduced rest. Pairs are judged
  from the first whole week of the data and only once both weeks are over. A reduced weekly
  rest is compensated when, before the end of the third week after its week, a later rest
  starts that carries the missing hours on top of a regular weekly rest (45 h + owed) or of
  a daily rest (9 h + owed, under 24 h) ⚖; each later rest compensates one reduction at
  most.
- The start of the data is taken as the end of a weekly rest (nothing earlier is known); a
  rest running at the start of the data is taken as ending there. Time after the last
  segment has not happened: a rest or compensation due after it is no finding, a limit
  already passed is.
- Unknown time (activiteit "onbekend", and gaps between segments): every rule is evaluated
  twice, with unknown read as rest (optimistic) and as work that is neither rest nor driving
  (pessimistic). A finding in both readings (same rule, overlapping period) is an
  infringement with the optimistic figures; a finding in only one is `onvolledig` (the check
  depends on the unknown time); adjoining incomplete findings of one rule are joined.
- Not implemented (phase 2 or out of scope): ferry/train interruptions (Art. 9), the two
  consecutive reduced weekly rests abroad (Art. 8(6) third subparagraph), out-of-scope
  driving (Art. 9(3)), Art. 12 exceptions (to be annotated by the user), weekly rest in the
  cab and the return home every four weeks (Art. 8(8), 8(8a)), working time (2002/15).
"""

from __future__ import annotations

import bisect
import operator
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from itertools import accumulate

from portal.tacho.segments import (
    APP,
    BESCHIKBAAR,
    KAART,
    ONBEKEND,
    RIJDEN,
    RUST,
    WERK,
    Segment,
)

OVERTREDING, ONVOLLEDIG = "overtreding", "onvolledig"
LICHT, ERNSTIG, ZEER_ERNSTIG, ZEER_ERNSTIG_MAX = (
    "licht",
    "ernstig",
    "zeer_ernstig",
    "zeer_ernstig_max",
)

DAGELIJKSE_RIJTIJD = "dagelijkse_rijtijd"
VERLENGDE_RIJTIJD = "verlengde_rijtijd"
WEKELIJKSE_RIJTIJD = "wekelijkse_rijtijd"
TWEE_WEKEN_RIJTIJD = "twee_weken_rijtijd"
ONDERBREKING = "onderbreking"
DAGELIJKSE_RUST = "dagelijkse_rust"
VERKORTE_RUST = "verkorte_rust"
WEKELIJKSE_RUST = "wekelijkse_rust"

ART_6_1 = "561/2006 art. 6 lid 1"
ART_6_2 = "561/2006 art. 6 lid 2"
ART_6_3 = "561/2006 art. 6 lid 3"
ART_7 = "561/2006 art. 7"
ART_8_2 = "561/2006 art. 8 lid 2"
ART_8_4 = "561/2006 art. 8 lid 4"
ART_8_5 = "561/2006 art. 8 lid 5"
ART_8_6 = "561/2006 art. 8 lid 6"

H = 60
DAY = 24 * H
WEEK = 7 * DAY
DRIVE_DAY, DRIVE_DAY_EXTENDED, EXTENSIONS = 9 * H, 10 * H, 2
DRIVE_WEEK, DRIVE_TWO_WEEKS = 56 * H, 90 * H
DRIVE_PERIOD, BREAK, BREAK_FIRST, BREAK_SECOND = 4 * H + 30, 45, 15, 30
REST_REGULAR, REST_REDUCED, REST_SPLIT_FIRST, REDUCTIONS = 11 * H, 9 * H, 3 * H, 3
WINDOW, WINDOW_CREW = 24 * H, 30 * H
WEEKLY_REGULAR, WEEKLY_REDUCED, WEEKLY_DUE = 45 * H, 24 * H, 6 * 24 * H

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MONDAY = 4 * DAY  # 1970-01-05, the first Monday after the epoch, in minutes

# --- severity ------------------------------------------------------------------------------

MI, SI, VSI, MSI = LICHT, ERNSTIG, ZEER_ERNSTIG, ZEER_ERNSTIG_MAX

# Severity classes of Commission Regulation (EU) 2016/403, Annex I, part 1 (Regulation
# 561/2006; serious, very serious), with the minor class of Directive 2006/22/EC Annex III as
# amended by that Regulation, and the most serious class of Regulation (EC) 1071/2009
# Annex IV (point 1: exceeding the 6-day or fortnightly driving limits by 25 % or more, the
# daily limit by 50 % or more). The 2022/694 amendment adds rows for rules we do not check.
# Figures in minutes. Rows marked APPROX were not confirmed against the Official Journal text
# while writing (the source text was not at hand) and follow the commonly published table;
# they need a check before anyone relies on them.
#
# "Too much" rows: (from value inclusive, class), most severe first; the measured value is
# the driving time.
SEVERITY_TOO_MUCH: dict[str, tuple[tuple[int, str], ...]] = {
    # B1 daily driving 9 h, extension not allowed: 9 h < x < 10 h MI (Annex III),
    # 10 h <= x < 11 h SI, 11 h <= x VSI, 13 h 30 (9 h + 50 %) <= x MSI.
    "B1": ((13 * H + 30, MSI), (11 * H, VSI), (10 * H, SI), (9 * H + 1, MI)),
    # B2 daily driving 10 h, extension allowed: 10 h < x < 11 h MI, 11 h <= x < 12 h SI,
    # 12 h <= x VSI, 15 h (10 h + 50 %) <= x MSI.
    "B2": ((15 * H, MSI), (12 * H, VSI), (11 * H, SI), (10 * H + 1, MI)),
    # B3 weekly driving 56 h: 56 h < x < 60 h MI, 60 h <= x < 65 h SI, 65 h <= x < 70 h VSI,
    # 70 h (56 h + 25 %) <= x MSI (the MSI threshold APPROX: from 1071/2009 Annex IV).
    "B3": ((70 * H, MSI), (65 * H, VSI), (60 * H, SI), (56 * H + 1, MI)),
    # B4 two-week driving 90 h: 90 h < x < 100 h MI, 100 h <= x < 105 h SI,
    # 105 h <= x < 112 h 30 VSI, 112 h 30 (90 h + 25 %) <= x MSI. APPROX (SI/VSI bounds).
    "B4": ((112 * H + 30, MSI), (105 * H, VSI), (100 * H, SI), (90 * H + 1, MI)),
    # C1 driving before a break 4 h 30: 4 h 30 < x < 5 h MI, 5 h <= x < 6 h SI, 6 h <= x VSI.
    "C1": ((6 * H, VSI), (5 * H, SI), (4 * H + 31, MI)),
    # D7 weekly rest started later than 6 x 24 h after the previous; value: minutes late.
    # Up to 3 h MI, 3 h < x < 12 h SI, 12 h <= x VSI. APPROX.
    "D7": ((12 * H, VSI), (3 * H + 1, SI), (1, MI)),
}
# "Too little" rows: (below value exclusive, class), most severe first; the measured value
# is the rest taken.
SEVERITY_TOO_LITTLE: dict[str, tuple[tuple[int, str], ...]] = {
    # D1 daily rest < 11 h where a reduced rest is not allowed:
    # 10 h <= x < 11 h MI, 8 h 30 <= x < 10 h SI, x < 8 h 30 VSI.
    "D1": ((8 * H + 30, VSI), (10 * H, SI), (11 * H, MI)),
    # D2 reduced daily rest < 9 h where allowed: 8 h <= x < 9 h MI, 7 h <= x < 8 h SI,
    # x < 7 h VSI.
    "D2": ((7 * H, VSI), (8 * H, SI), (9 * H, MI)),
    # D3 split daily rest < 3 h + 9 h (the second part): 3 h + [8 h <= x < 9 h] MI,
    # 3 h + [7 h <= x < 8 h] SI, 3 h + [x < 7 h] VSI.
    "D3": ((7 * H, VSI), (8 * H, SI), (9 * H, MI)),
    # D4 multi-manning daily rest < 9 h: 8 h <= x < 9 h MI, 7 h <= x < 8 h SI, x < 7 h VSI.
    "D4": ((7 * H, VSI), (8 * H, SI), (9 * H, MI)),
    # D5 reduced weekly rest < 24 h: 22 h <= x < 24 h MI, 20 h <= x < 22 h SI, x < 20 h VSI.
    "D5": ((20 * H, VSI), (22 * H, SI), (24 * H, MI)),
    # D6 weekly rest < 45 h where a reduced one is not allowed: 42 h <= x < 45 h MI,
    # 36 h <= x < 42 h SI, x < 36 h VSI.
    "D6": ((36 * H, VSI), (42 * H, SI), (45 * H, MI)),
}
# A reduced weekly rest not compensated in time (Art. 8(6) second subparagraph): no row
# found; classed as serious. APPROX.
SEVERITY_COMPENSATION = SI


def severity(row: str, value: int) -> str | None:
    """The class of an infringement of table row `row` at measured `value` (minutes)."""
    if row in SEVERITY_TOO_MUCH:
        for threshold, klass in SEVERITY_TOO_MUCH[row]:
            if value >= threshold:
                return klass
        return None
    for threshold, klass in SEVERITY_TOO_LITTLE[row]:
        if value < threshold:
            return klass
    return None


# --- results -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Finding:
    soort: str  # OVERTREDING or ONVOLLEDIG
    regel: str
    artikel: str
    ernst: str | None  # None for ONVOLLEDIG
    begin: datetime
    eind: datetime
    overschrijding_min: int | None
    bron: str  # "kaart" or "app"
    gemeten_min: int | None = None
    grens_min: int | None = None

    @property
    def key(self) -> str:
        return f"{self.regel}:{self.begin.isoformat()}"


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
        nu = _minute(self.nu)
        start, end = _minute(begin), _minute(begin) + duur_min
        if end <= nu:
            return None
        start = max(start, nu)
        duur = end - start
        gap = start - nu
        need = REST_REDUCED if self.verkorte_rusten_over else REST_REGULAR
        new_shift = gap >= need
        weekly_taken = gap >= WEEKLY_REDUCED
        dag = self.volgende_dagrust_uiterlijk
        if not new_shift and dag is not None and end > _minute(dag):
            return "in_rust"
        week_due = self.volgende_weekrust_uiterlijk
        if not weekly_taken and week_due is not None and end > _minute(week_due):
            return "in_rust"
        w_now, w_task = _week(nu), _week(start)
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


# --- minutes -------------------------------------------------------------------------------


def _minute(moment: datetime) -> int:
    return int((moment - _EPOCH).total_seconds() // 60)


def _moment(minute: int) -> datetime:
    return _EPOCH + timedelta(minutes=minute)


def _week(minute: int) -> int:
    return (minute - _MONDAY) // WEEK


def _week_start(week: int) -> int:
    return _MONDAY + week * WEEK


# Activity kinds of a reading.
D, W, B, R, U = 0, 1, 2, 3, 4
_BEGIN = operator.attrgetter("begin")
_WEEKLY = timedelta(minutes=WEEKLY_REDUCED)
_KIND = {RIJDEN: D, WERK: W, BESCHIKBAAR: B, RUST: R, ONBEKEND: U}


@dataclass(slots=True)
class _Raw:
    regel: str
    artikel: str
    begin: int
    eind: int
    gemeten: int | None
    grens: int | None
    over: int | None
    ernst: str | None


@dataclass(slots=True)
class _State:
    """Where a reading stands at its end, for the budget."""

    since_break: int = 0
    shift_start: int = 0
    shift_driving: int = 0
    shift_crew: bool = False
    shift_week: int = 0
    extensions: dict[int, int] | None = None
    reductions: int = 0
    weekly_end: int = 0


class _Reading:
    """One reading of a driver's time: a contiguous row of (begin, end, kind, crew) from
    `start` to `end` with unknown time read as rest or as work."""

    def __init__(self, base: list[list], start: int, end: int, unknown: int | None):
        if unknown is None:
            iv = base  # no unknown time: nothing to read
        else:
            iv = []
            for item in base:
                if item[2] == U:
                    item = (item[0], item[1], unknown, False)
                if iv:
                    last = iv[-1]
                    if last[1] == item[0] and last[2] == item[2] and last[3] == item[3]:
                        # Unknown read as its neighbour joins it.
                        iv[-1] = (last[0], item[1], item[2], item[3])
                        continue
                iv.append(item)
        self.iv = iv
        self.start, self.end = start, end
        self.starts = [x[0] for x in iv]
        self._drive = [0, *accumulate(e - s if k == D else 0 for s, e, k, _c in iv)]
        self._solo = [0, *accumulate(e - s if k != R and not c else 0 for s, e, k, c in iv)]
        self.rests = [(s, e) for s, e, k, _c in iv if k == R]
        self.raw: list[_Raw] = []
        self.state = _State()

    def _upto(self, cum: list[int], minute: int, kind_ok) -> int:
        i = bisect.bisect_right(self.starts, minute) - 1
        if i < 0:
            return 0
        s, e, k, c = self.iv[i]
        return cum[i] + (min(minute, e) - s if kind_ok(k, c) else 0)

    def driving(self, a: int, b: int) -> int:
        if b <= a:
            return 0
        ok = _is_drive
        return self._upto(self._drive, b, ok) - self._upto(self._drive, a, ok)

    def solo_work(self, a: int, b: int) -> int:
        if b <= a:
            return 0
        ok = _is_solo
        return self._upto(self._solo, b, ok) - self._upto(self._solo, a, ok)

    def crew_at(self, minute: int) -> bool:
        """Whether the first work after `minute` is multi-manned."""
        i = max(0, bisect.bisect_right(self.starts, minute) - 1)
        for _s, e, k, c in self.iv[i:]:
            if e <= minute or k == R:
                continue
            return c
        return False

    def add(self, regel, artikel, begin, eind, gemeten, grens, over, ernst) -> None:
        self.raw.append(_Raw(regel, artikel, begin, eind, gemeten, grens, over, ernst))

    # -- the rules --

    def analyse(self, findings: bool = True) -> None:
        t0, first_rest = self.start, 0
        if self.rests and self.rests[0][0] <= self.start:
            t0, first_rest = self.rests[0][1], 1
        self.origin = t0
        state = self.state
        state.weekly_end, state.shift_start, state.shift_week = t0, t0, _week(t0)
        self._shifts(t0, first_rest)
        self._breaks()
        if findings:
            self._weeks()
            self._weekly_rests(first_rest)

    def _scan(self, ri: int, t0: int, window: int):
        """The daily rest of the window [t0, t0 + window): ("ok", index, in-window, split),
        ("short", index or None, in-window, split) when the window is over without one, or
        ("open", None, 0, False) when the data ends before it is decided."""
        limit = t0 + window
        armed = False
        best, best_in, best_armed = None, -1, False
        j = ri
        rests = self.rests
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
        if self.end < limit:
            return "open", None, 0, False
        if best is None:
            return "short", (j if j < len(rests) else None), 0, False
        return "short", best, best_in, best_armed

    def _shifts(self, t0: int, ri: int) -> None:
        state = self.state
        extensions: dict[int, int] = {}
        state.extensions = extensions
        rests = self.rests
        reductions = 0
        while t0 < self.end:
            window, crew = WINDOW, False
            status, j, inside, armed = self._scan(ri, t0, WINDOW)
            if self.crew_at(t0):
                c_status, c_j, c_inside, c_armed = self._scan(ri, t0, WINDOW_CREW)
                stop = rests[c_j][0] if c_j is not None else self.end
                if self.solo_work(t0, stop) == 0:
                    status, j, inside, armed = c_status, c_j, c_inside, c_armed
                    window, crew = WINDOW_CREW, True
            stop = rests[j][0] if j is not None else self.end
            driving = self.driving(t0, stop)
            week = _week(t0)
            state.shift_start, state.shift_driving, state.shift_crew = t0, driving, crew
            state.shift_week = week
            state.reductions = reductions
            self._daily_driving(t0, stop, driving, week, extensions)
            if status == "open":
                return
            if j is None:
                # No rest at all after the window: the shift runs to the end of the data.
                self._short_rest(t0, window, 0, False, crew, reductions)
                return
            s, e = rests[j]
            weekly = e - s >= WEEKLY_REDUCED
            if status == "short":
                self._short_rest(t0, window, inside, armed, crew, reductions)
            elif not crew and inside < REST_REGULAR and not armed and not weekly:
                pending = e >= self.end and t0 + window > self.end
                if not pending:
                    reductions += 1
                    if reductions > REDUCTIONS:
                        self.add(
                            VERKORTE_RUST,
                            ART_8_4,
                            s,
                            e,
                            inside,
                            REST_REGULAR,
                            REST_REGULAR - inside,
                            severity("D1", inside),
                        )
            if weekly:
                reductions = 0
                state.weekly_end = e
            state.reductions = reductions
            t0, ri = e, j + 1
            # Resting now: a new shift starts when the rest ends (taken as now).
            state.shift_start, state.shift_driving, state.shift_crew = t0, 0, False
            state.shift_week = _week(t0)

    def _short_rest(self, t0, window, inside, armed, crew, reductions) -> None:
        if crew:
            grens, row, artikel = REST_REDUCED, "D4", ART_8_5
        elif armed:
            grens, row, artikel = REST_REDUCED, "D3", ART_8_2
        elif reductions < REDUCTIONS:
            grens, row, artikel = REST_REDUCED, "D2", ART_8_2
        else:
            grens, row, artikel = REST_REGULAR, "D1", ART_8_2
        self.add(
            DAGELIJKSE_RUST,
            artikel,
            t0,
            t0 + window,
            inside,
            grens,
            grens - inside,
            severity(row, inside),
        )

    def _daily_driving(self, t0, stop, driving, week, extensions) -> None:
        if driving <= DRIVE_DAY:
            return
        used = extensions.get(week, 0) + 1
        extensions[week] = used
        allowed = used <= EXTENSIONS
        if driving > DRIVE_DAY_EXTENDED:
            grens = DRIVE_DAY_EXTENDED if allowed else DRIVE_DAY
            row = "B2" if allowed else "B1"
            self.add(
                DAGELIJKSE_RIJTIJD,
                ART_6_1,
                t0,
                stop,
                driving,
                grens,
                driving - grens,
                severity(row, driving),
            )
        elif not allowed:
            self.add(
                VERLENGDE_RIJTIJD,
                ART_6_1,
                t0,
                stop,
                driving,
                DRIVE_DAY,
                driving - DRIVE_DAY,
                severity("B1", driving),
            )

    def _breaks(self) -> None:
        acc, armed = 0, False
        first = last = None
        pause = None

        def close(length: int) -> None:
            nonlocal acc, armed, first, last
            if length >= BREAK or (armed and length >= BREAK_SECOND):
                if acc > DRIVE_PERIOD:
                    self.add(
                        ONDERBREKING,
                        ART_7,
                        first,
                        last,
                        acc,
                        DRIVE_PERIOD,
                        acc - DRIVE_PERIOD,
                        severity("C1", acc),
                    )
                acc, armed, first = 0, False, None
            elif length >= BREAK_FIRST:
                armed = True

        for s, e, k, c in self.iv:
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
            close(self.end - pause)
        if acc > DRIVE_PERIOD:
            self.add(
                ONDERBREKING,
                ART_7,
                first,
                last,
                acc,
                DRIVE_PERIOD,
                acc - DRIVE_PERIOD,
                severity("C1", acc),
            )
        self.state.since_break = acc

    def _weeks(self) -> None:
        per_week = _week_driving(self.iv)
        for week in sorted(set(per_week) | {w + 1 for w in per_week}):
            total = per_week.get(week, 0)
            if total > DRIVE_WEEK:
                self.add(
                    WEKELIJKSE_RIJTIJD,
                    ART_6_2,
                    _week_start(week),
                    _week_start(week + 1),
                    total,
                    DRIVE_WEEK,
                    total - DRIVE_WEEK,
                    severity("B3", total),
                )
            pair = per_week.get(week - 1, 0) + total
            if pair > DRIVE_TWO_WEEKS:
                self.add(
                    TWEE_WEKEN_RIJTIJD,
                    ART_6_3,
                    _week_start(week - 1),
                    _week_start(week + 1),
                    pair,
                    DRIVE_TWO_WEEKS,
                    pair - DRIVE_TWO_WEEKS,
                    severity("B4", pair),
                )

    def _weekly_rests(self, first_rest: int) -> None:
        end, origin = self.end, self.origin
        weekly = [(s, e) for s, e in self.rests[first_rest:] if e - s >= WEEKLY_REDUCED]
        trailing = self.rests[-1] if self.rests and self.rests[-1][1] >= end else None

        # A weekly rest must start at most 6 x 24 h after the end of the previous one.
        previous = origin
        for s, e in weekly:
            if s - previous > WEEKLY_DUE:
                late = s - previous - WEEKLY_DUE
                self.add(
                    WEKELIJKSE_RUST,
                    ART_8_6,
                    previous + WEEKLY_DUE,
                    s,
                    s - previous,
                    WEEKLY_DUE,
                    late,
                    severity("D7", late),
                )
            previous = e
        if previous < end:
            started = trailing[0] if trailing is not None else end
            if started - previous > WEEKLY_DUE:
                late = started - previous - WEEKLY_DUE
                self.add(
                    WEKELIJKSE_RUST,
                    ART_8_6,
                    previous + WEEKLY_DUE,
                    started,
                    started - previous,
                    WEEKLY_DUE,
                    late,
                    severity("D7", late),
                )

        # A weekly rest that falls in two weeks counts in either, not both (Art. 8(9)): in
        # the week it starts in, unless that one has a rest already. (Moving every Saturday
        # to Monday rest one week on would push a missing rest back to before the data.)
        # A rest that covers a whole week (leave) counts in every week it touches.
        first_week = _week(origin) + (1 if _week_start(_week(origin)) < origin else 0)
        assigned: dict[int, list[tuple[int, int]]] = {}
        week_of: dict[tuple[int, int], int] = {}
        for s, e in weekly:
            week, last = _week(s), _week(e - 1)
            if last - week >= 2:
                for covered in range(week, last + 1):
                    assigned.setdefault(covered, []).append((s, e))
                week_of[(s, e)] = week
                continue
            if last != week and assigned.get(week):
                week = last
            assigned.setdefault(week, []).append((s, e))
            week_of[(s, e)] = week

        # Any two consecutive weeks: two weekly rests, at least one of them regular.
        week = first_week
        while _week_start(week + 2) <= end:
            both = assigned.get(week, []) + assigned.get(week + 1, [])
            if any(e >= end and e - s < WEEKLY_REGULAR for s, e in both):
                week += 1
                continue  # a rest still running may yet become regular
            regular = sum(1 for s, e in both if e - s >= WEEKLY_REGULAR)
            if len(both) >= 2 and regular:
                week += 1
                continue
            if len(both) >= 2:
                s, e = both[-1]
                longest = max(e - s for s, e in both)
                self.add(
                    WEKELIJKSE_RUST,
                    ART_8_6,
                    s,
                    e,
                    longest,
                    WEEKLY_REGULAR,
                    WEEKLY_REGULAR - longest,
                    severity("D6", longest),
                )
            else:
                # The week without a weekly rest (the later one when both lack one), so
                # that the pairs on either side of it name it once.
                missing = week if assigned.get(week + 1) else week + 1
                a, b = _week_start(missing), _week_start(missing + 1)
                longest = max(
                    (min(e, b) - max(s, a) for s, e in self.rests if s < b and e > a), default=0
                )
                longest = max(0, min(longest, WEEKLY_REDUCED - 1))
                grens, row = (WEEKLY_REDUCED, "D5") if regular else (WEEKLY_REGULAR, "D6")
                self.add(
                    WEKELIJKSE_RUST,
                    ART_8_6,
                    a,
                    b,
                    longest,
                    grens,
                    grens - longest,
                    severity(row, longest),
                )
            week += 1

        # A reduced weekly rest is compensated before the end of the third week after it.
        used: set[int] = set()
        for s, e in weekly:
            length = e - s
            if length >= WEEKLY_REGULAR or e >= end:
                continue
            owed = WEEKLY_REGULAR - length
            deadline = _week_start(week_of[(s, e)] + 4)
            done = False
            for i, (rs, re_) in enumerate(self.rests):
                if rs < e or i in used or rs >= deadline:
                    continue
                carried = re_ - rs
                if carried >= WEEKLY_REGULAR + owed or REST_REDUCED + owed <= carried < DAY:
                    used.add(i)
                    done = True
                    break
            if not done and deadline <= end:
                self.add(
                    WEKELIJKSE_RUST, ART_8_6, e, deadline, 0, owed, owed, SEVERITY_COMPENSATION
                )


def _week_driving(iv) -> dict[int, int]:
    """Minutes of driving per fixed week."""
    per_week: dict[int, int] = {}
    week, boundary = 0, None
    for s, e, k, _c in iv:
        if k != D:
            continue
        while s < e:
            if boundary is None or s >= boundary or s < boundary - WEEK:
                week = _week(s)
                boundary = _week_start(week + 1)
            cut = e if e < boundary else boundary
            per_week[week] = per_week.get(week, 0) + cut - s
            s = cut
    return per_week


def _is_drive(kind: int, _crew: bool) -> bool:
    return kind == D


def _is_solo(kind: int, crew: bool) -> bool:
    return kind != R and not crew


# --- from segments to readings -------------------------------------------------------------


def _base(segments: Sequence[Segment], tot: int | None = None):
    """(begin, end, kind, crew) in minutes, gaps as unknown, equal neighbours joined; the
    app's intervals; start; end. Availability outside multi-manning is plain work to every
    rule, and the crew flag matters to no rest, so both are folded here."""
    ordered = sorted(segments, key=_BEGIN)
    base: list[list] = []
    app: list[list[int]] = []
    cursor = None
    kinds = _KIND
    previous_end, e = None, 0
    for seg in ordered:
        # Neighbours share their boundary: convert it once.
        s = e if seg.begin == previous_end else int(seg.begin.timestamp()) // 60
        previous_end = seg.eind
        e = int(previous_end.timestamp()) // 60
        if tot is not None and e > tot:
            e = tot
        if cursor is not None:
            if s > cursor:
                if base[-1][2] == U:
                    base[-1][1] = s
                else:
                    base.append([cursor, s, U, False])
            elif s < cursor:
                s = cursor
        if e <= s:
            continue
        k, c = kinds.get(seg.activiteit, U), seg.bemanning
        if k == B and not c:
            k = W
        elif k in (R, U):
            c = False
        last = base[-1] if base else None
        if last is not None and last[1] == s and last[2] == k and last[3] == c:
            last[1] = e
        else:
            base.append([s, e, k, c])
        if seg.bron == APP:
            if app and app[-1][1] >= s:
                app[-1][1] = max(app[-1][1], e)
            else:
                app.append([s, e])
        cursor = e
    if not base:
        return base, app, 0, 0
    if tot is not None and base[-1][1] < tot:
        base.append([base[-1][1], tot, U, False])
    return base, app, base[0][0], base[-1][1]


def _readings(base, start, end, findings: bool = True) -> list[_Reading]:
    has_unknown = any(k == U for _s, _e, k, _c in base)
    kinds = (R, W) if has_unknown else (None,)
    out = []
    for unknown in kinds:
        reading = _Reading(base, start, end, unknown)
        reading.analyse(findings)
        out.append(reading)
    return out


def _overlap(a: _Raw, b: _Raw) -> bool:
    return a.begin <= b.eind and b.begin <= a.eind


def check(
    segments: Sequence[Segment], *, van: datetime | None = None, tot: datetime | None = None
) -> list[Finding]:
    """The infringements and incomplete checks whose period overlaps [van, tot), in order of
    their begin. Pass segments from well before `van` (e.g. four weeks) so that shifts,
    weeks and weekly rests that began earlier are judged whole."""
    base, app, start, end = _base(segments)
    if not base:
        return []
    readings = _readings(base, start, end)
    optimistic = readings[0].raw
    pessimistic = readings[1].raw if len(readings) > 1 else None
    out: list[tuple[str, _Raw]] = []
    if pessimistic is None:
        out = [(OVERTREDING, raw) for raw in optimistic]
    else:
        matched_p: set[int] = set()
        incomplete: list[_Raw] = []
        for raw in optimistic:
            hit = [
                i for i, p in enumerate(pessimistic) if p.regel == raw.regel and _overlap(raw, p)
            ]
            if hit:
                matched_p.update(hit)
                out.append((OVERTREDING, raw))
            else:
                incomplete.append(raw)
        incomplete += [p for i, p in enumerate(pessimistic) if i not in matched_p]
        out += [(ONVOLLEDIG, raw) for raw in _join(incomplete)]
    lo = _minute(van) if van is not None else None
    hi = _minute(tot) if tot is not None else None
    app_starts = [a[0] for a in app]
    findings: dict[str, Finding] = {}
    for soort, raw in sorted(out, key=lambda x: (x[1].begin, x[0] != OVERTREDING)):
        if lo is not None and raw.eind <= lo and not raw.begin == raw.eind == lo:
            continue
        if hi is not None and raw.begin >= hi:
            continue
        found = _finding(soort, raw, _has_app(app, app_starts, raw.begin, raw.eind))
        findings.setdefault(found.key, found)
    return sorted(findings.values(), key=lambda f: (f.begin, f.regel))


def _join(raws: list[_Raw]) -> list[_Raw]:
    """Incomplete findings of one rule that touch or overlap, joined."""
    out: list[_Raw] = []
    for raw in sorted(raws, key=lambda r: (r.regel, r.begin)):
        last = out[-1] if out else None
        if last is not None and last.regel == raw.regel and raw.begin <= last.eind:
            out[-1] = replace(last, eind=max(last.eind, raw.eind))
        else:
            out.append(raw)
    return out


def _has_app(app, app_starts, a: int, b: int) -> bool:
    i = bisect.bisect_left(app_starts, max(b, a + 1)) - 1
    return i >= 0 and app[i][1] > a


def _finding(soort: str, raw: _Raw, app: bool) -> Finding:
    full = soort == OVERTREDING
    return Finding(
        soort=soort,
        regel=raw.regel,
        artikel=raw.artikel,
        ernst=raw.ernst if full else None,
        begin=_moment(raw.begin),
        eind=_moment(raw.eind),
        overschrijding_min=raw.over if full else None,
        bron=APP if app else KAART,
        gemeten_min=raw.gemeten if full else None,
        grens_min=raw.grens,
    )


# --- remaining driving time -----------------------------------------------------------------


def _budget_of(reading: _Reading, now: int, per_week: dict[int, int]) -> Budget:
    state = reading.state
    week = _week(now)
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
        volgende_dagrust_uiterlijk=_moment(due),
        volgende_weekrust_uiterlijk=_moment(state.weekly_end + WEEKLY_DUE),
        verlengingen_over=max(0, EXTENSIONS - used_this_week),
        verkorte_rusten_over=max(0, REDUCTIONS - state.reductions),
        nu=_moment(now),
        gereden_week_min=this_week,
        gereden_vorige_week_min=last_week,
    )


def budget(segments: Sequence[Segment], *, now: datetime) -> Budget:
    """What the driver may still drive at `now`. The segments should reach up to `now`:
    whatever the caller knows of the time since the last data (the app's hours, rest between
    work days) belongs in them; time between the last segment and `now` is read as unknown,
    and segments after `now` are ignored. A rest running at `now` is taken as ending now."""
    tot = _minute(now)
    ordered = sorted((s for s in segments if s.begin < now), key=_BEGIN)
    # The rules start afresh at a weekly rest: read from the last one that ends before this
    # week (one with known time on either side, so both readings agree on it), and the
    # driving of last week, not three weeks back.
    this_week = _week_start(_week(tot))
    week_start = _moment(this_week)
    cut = 0
    for i in range(len(ordered) - 2, 0, -1):
        seg = ordered[i]
        if seg.activiteit != RUST or seg.eind > week_start or seg.eind - seg.begin < _WEEKLY:
            continue
        before, after = ordered[i - 1], ordered[i + 1]
        if (
            before.eind == seg.begin
            and after.begin == seg.eind
            and before.activiteit != ONBEKEND
            and after.activiteit != ONBEKEND
        ):
            cut = i
            break
    first = cut
    last_week = _moment(this_week - WEEK)
    while first > 0 and ordered[first - 1].eind > last_week:
        first -= 1
    base, _app, start, end = _base(ordered[first:], tot=tot)
    if not base:
        return Budget(None, None, None, None, None, None, None, None, now)
    per_week = _week_driving(base)
    if cut > first:
        i = bisect.bisect_right([x[0] for x in base], _minute(ordered[cut].begin)) - 1
        base = base[i:]
        start = base[0][0]
    readings = _readings(base, start, end, findings=False)
    budgets = [_budget_of(reading, tot, per_week) for reading in readings]
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


# --- app hours ------------------------------------------------------------------------------

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
    now_m = _minute(now)
    spans: list[list] = []  # [begin, end, activities]
    for day in sorted(work_days, key=lambda d: d.gestart_op):
        acts = []
        for soort, a_begin, a_end in day.activiteiten:
            s = _minute(a_begin)
            e = _minute(a_end) if a_end is not None else now_m
            e = min(e, now_m)
            if e > s:
                acts.append((s, e, APP_ACTIVITEIT.get(soort, WERK)))
        s = _minute(day.gestart_op)
        e = _minute(day.beeindigd_op) if day.beeindigd_op is not None else now_m
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
        if out and out[-1].activiteit == activiteit and _minute(out[-1].eind) == s:
            out[-1] = Segment(out[-1].begin, _moment(e), activiteit, APP)
        else:
            out.append(Segment(_moment(s), _moment(e), activiteit, APP))

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


def _uncovered(begin, eind, covered, starts):
    """The parts of [begin, eind) that no (sorted, disjoint) covered interval holds."""
    i = max(0, bisect.bisect_right(starts, begin) - 1)
    cursor = begin
    while i < len(covered) and covered[i][0] < eind:
        c_begin, c_end = covered[i]
        if c_end > cursor:
            if c_begin > cursor:
                yield cursor, min(c_begin, eind)
            cursor = max(cursor, c_end)
        i += 1
    if cursor < eind:
        yield cursor, eind
