"""Hours by the week: a planner's approval and reopening of a driver's ISO week, the overview
of every driver's hours over a period, one driver's week for the week page, and the overview
as CSV/XLSX files (export.py).

Callers use `from portal.hours import weeks` and `weeks.approve_week(...)`,
`weeks.reopen_week(...)`, `weeks.overview(...)`, `weeks.week_detail(...)`.
"""

from portal.hours.weeks.approval import (
    WEEK_STATES,
    HoursRow,
    Overview,
    WeekDetail,
    approval_history,
    approval_in_force,
    approve_week,
    overview,
    reopen_week,
    week_detail,
)

__all__ = [
    "WEEK_STATES",
    "HoursRow",
    "Overview",
    "WeekDetail",
    "approval_history",
    "approval_in_force",
    "approve_week",
    "overview",
    "reopen_week",
    "week_detail",
]
