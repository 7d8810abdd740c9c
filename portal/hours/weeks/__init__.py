"""Hours by the week: a planner's approval and reopening of a driver's ISO week
(approval.py), the overview of every driver's hours over a period and one driver's week for
the week page (overview.py), and the overview as CSV/XLSX files (export.py).

Callers use `from portal.hours import weeks` and `weeks.approve_week(...)`,
`weeks.reopen_week(...)`, `weeks.overview(...)`, `weeks.week_detail(...)`.
"""

from portal.hours.weeks.approval import (
    approval_history,
    approval_in_force,
    approve_week,
    reopen_week,
)
from portal.hours.weeks.overview import (
    WEEK_STATES,
    HoursRow,
    Overview,
    WeekDetail,
    overview,
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
