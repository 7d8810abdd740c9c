"""Pay: the carrier's rule sets (rulesets.py), the payable hours of drivers' weeks under
them (payable.py, computed by `portal.hours.cao`) and the payroll export's batches and
files (batches.py)."""
