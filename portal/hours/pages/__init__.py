"""Hours in the portal (planners): the overview of every driver's hours and a driver's week
(overview.py), the payroll export (payroll.py) and the pay rule sets (rulesets.py), with
their forms. The app registers `bp` (/uren), `payroll_bp` and `rulesets_bp`."""

from portal.hours.pages.overview import bp
from portal.hours.pages.payroll import bp as payroll_bp
from portal.hours.pages.rulesets import bp as rulesets_bp

__all__ = ["bp", "payroll_bp", "rulesets_bp"]
