"""Pay: the carrier's rule sets (rulesets.py), the payable hours of drivers' weeks under
them (payable.py, computed by `portal.hours.cao`), and the payroll export: its batches and
files (batches.py) with the columns the payroll package imports (columns.py)."""
