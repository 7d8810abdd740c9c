"""Hours in the portal (planners): the overview of every driver's hours (overview.py), a
driver's week with approving and reopening it (week.py), correcting a recorded activity
(activity.py), the payroll export (payroll.py) and the pay rule sets (rulesets.py), with
their forms; the blueprints and what the pages share are in kit.py. The app registers
`bp` (/uren), `payroll_bp` and `rulesets_bp`."""

from portal.hours.pages import activity, overview, payroll, rulesets, week
from portal.hours.pages.kit import bp, payroll_bp, rulesets_bp

__all__ = ["activity", "bp", "overview", "payroll", "payroll_bp", "rulesets", "rulesets_bp", "week"]
