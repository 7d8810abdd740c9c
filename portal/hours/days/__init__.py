"""Hours' recording of the day: activities within a work day (activities.py), the refusals
and small checks every change makes (checks.py) and the reads the API and the pages share
(queries.py). The work day's own rules and the domain's door are `portal.hours.service`."""
