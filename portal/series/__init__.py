"""Recurring work: task templates (`taak_sjablonen`), series planned from a template by a
recurrence rule (`taak_reeksen`, `rules.py`: dateutil's rrule, Dutch public holidays skipped
or moved to the next working day), and the occurrences a series has made (`reeks_voorkomens`,
one per series and rule date, made weeks ahead by `planning.py`, never twice).

Series stands above tasks: it makes and changes tasks through tasks' service, and hears of a
task changed or deleted through tasks' hooks (connected in portal/wiring.py), so an
occurrence changed by hand leaves its series.
"""
