"""The week page's timeline: one row per day of the week, a 0 to 24 h axis on the carrier's
clock, a bar per activity (or per part of one, when it crosses midnight) behind which the
work day shows as a band.

This module computes the geometry; templates/hours/_timeline.html draws it as SVG. Bars sit
at their wall-clock times, so they line up with the times in the day list; on the two days
a year that daylight saving time changes, the hour that repeats overlaps itself and the hour
skipped stays empty, while durations and totals always count real time.

Every kind has a colour and a texture (hatching, dots, lines), so the chart reads on a
black-and-white print too; wide bars carry their name.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime, timedelta

from flask_babel import format_date
from flask_babel import gettext as _

from portal.hours import totals
from portal.hours.models import SOORTEN, Activity, WorkDay
from portal.hours.totals import IsoWeek, Totals

LABEL_W = 112  # the day names
HOUR_W = 34  # one hour
TOTAL_W = 70  # the day's working time
AXIS_H = 28
ROW_H = 32
BAR_H = 20
LEGEND_H = 40
WIDTH = LABEL_W + 24 * HOUR_W + TOTAL_W
CHAR_W = 6.4  # roughly, at the bars' font size: decides whether a name fits

# Fill colour (Okabe and Ito's palette, told apart with colour blindness too), texture, text colour.
STYLE = {
    "rijden": ("#0072B2", "solid", "#fff"),
    "laden": ("#E69F00", "hatch", "#111"),
    "lossen": ("#D55E00", "backhatch", "#fff"),
    "wachten": ("#F0E442", "dots", "#111"),
    "pauze": ("#009E73", "horizontal", "#fff"),
    "overig_werk": ("#CC79A7", "cross", "#111"),
    "beschikbaarheid": ("#56B4E9", "vertical", "#111"),
}


def hm(minutes: int) -> str:
    """Minutes as hours and minutes: 510 -> '8:30'."""
    sign = "-" if minutes < 0 else ""
    minutes = abs(minutes)
    return f"{sign}{minutes // 60}:{minutes % 60:02d}"


@dataclass
class Bar:
    x: float
    y: float
    width: float
    soort: str
    title: str
    text: str  # the name when it fits, else ""
    running: bool


@dataclass
class Band:
    x: float
    width: float


@dataclass
class Row:
    day: date
    y: float
    label: str
    total: str
    bars: list[Bar] = field(default_factory=list)
    bands: list[Band] = field(default_factory=list)
    hours_long: int = 24  # 23 or 25 when the clocks change
    today: bool = False


@dataclass
class Timeline:
    width: int
    height: int
    rows: list[Row]
    ticks: list[tuple[float, str, bool]]  # x, label ('' for none), major
    legend: list[tuple[float, str, str]]  # x, soort, label
    styles: dict
    label_w: int = LABEL_W
    axis_h: int = AXIS_H
    row_h: int = ROW_H
    bar_h: int = BAR_H
    now_x: float | None = None
    now_row: Row | None = None
    clock_change: list[Row] = field(default_factory=list)

    @property
    def plot_right(self) -> int:
        return LABEL_W + 24 * HOUR_W


def _clock_x(moment: datetime, day: date, zone) -> float:
    """Where a moment falls on the row of day, by the carrier's clock."""
    local = moment.astimezone(zone)
    if local.date() > day:
        return LABEL_W + 24 * HOUR_W
    if local.date() < day:
        return LABEL_W
    hours = local.hour + local.minute / 60 + local.second / 3600
    return LABEL_W + hours * HOUR_W


def _span_x(begin: datetime, end: datetime, day: date, zone) -> tuple[float, float]:
    x1, x2 = _clock_x(begin, day, zone), _clock_x(end, day, zone)
    return x1, max(x2 - x1, 1.5)  # a sliver stays visible; the repeated hour cannot invert


def _when(moment: datetime, zone, with_day: bool) -> str:
    local = moment.astimezone(zone)
    text = local.strftime("%H:%M")
    return f"{format_date(local.date(), 'EEE d MMM')} {text}" if with_day else text


def build(
    *,
    week: IsoWeek,
    days: list[WorkDay],
    activities: dict,
    per_day: dict[date, Totals],
    zone,
    now: datetime,
    labels: dict[str, str],
    task_names: dict,
) -> Timeline:
    """The geometry of a driver's week."""
    today = now.astimezone(zone).date()
    rows = {}
    for n, day in enumerate(week.days()):
        length = totals.day_start(day + timedelta(days=1), zone) - totals.day_start(day, zone)
        found = per_day.get(day)
        rows[day] = Row(
            day=day,
            y=AXIS_H + n * ROW_H,
            label=format_date(day, "EEE d MMM"),
            total=hm(found.werktijd) if found else "",
            hours_long=round(length.total_seconds() / 3600),
            today=day == today,
        )
    for work_day in days:
        end = work_day.beeindigd_op or totals.counted_end(
            work_day.gestart_op, None, work_day.gestart_op, now
        )
        for day, begin, stop in totals.pieces(work_day.gestart_op, end, zone):
            if day in rows:
                x, width = _span_x(begin, stop, day, zone)
                rows[day].bands.append(Band(x, width))
        for activity in activities.get(work_day.id, []):
            _add_bars(rows, activity, work_day, zone, now, labels, task_names)
    ticks = [
        (LABEL_W + hour * HOUR_W, f"{hour:02d}" if hour % 2 == 0 else "", hour % 6 == 0)
        for hour in range(25)
    ]
    legend = []
    x = float(LABEL_W)
    for soort in SOORTEN:
        legend.append((x, soort, labels[soort]))
        x += 26 + len(labels[soort]) * CHAR_W + 22
    timeline = Timeline(
        width=WIDTH,
        height=AXIS_H + 7 * ROW_H + LEGEND_H,
        rows=list(rows.values()),
        ticks=ticks,
        legend=legend,
        styles=STYLE,
        clock_change=[row for row in rows.values() if row.hours_long != 24],
    )
    if today in rows:
        timeline.now_row = rows[today]
        timeline.now_x = _clock_x(now, today, zone)
    return timeline


def _add_bars(rows, activity: Activity, work_day: WorkDay, zone, now, labels, task_names):
    end = totals.counted_end(activity.begin, activity.einde, work_day.gestart_op, now)
    minutes = totals.minutes((end - activity.begin).total_seconds())
    several_days = activity.begin.astimezone(zone).date() != end.astimezone(zone).date()
    until = _when(end, zone, several_days) if activity.einde else _("nu (loopt nog)")
    title = f"{labels[activity.soort]} · {_when(activity.begin, zone, several_days)}\u2013{until}"
    title += f" ({hm(minutes)})"
    if activity.taak_id and activity.taak_id in task_names:
        title += f" · {task_names[activity.taak_id]}"
    if activity.opmerking:
        title += f" · {activity.opmerking}"
    for day, begin, stop in totals.pieces(activity.begin, end, zone):
        row = rows.get(day)
        if row is None:
            continue
        x, width = _span_x(begin, stop, day, zone)
        name = labels[activity.soort]
        text = name if width >= len(name) * CHAR_W + 8 else ""
        row.bars.append(
            Bar(
                x=x,
                y=row.y + (ROW_H - BAR_H) / 2,
                width=width,
                soort=activity.soort,
                title=title,
                text=text,
                running=activity.einde is None,
            )
        )
