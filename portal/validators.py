"""Form validators that every domain's portal forms share."""

from __future__ import annotations

from datetime import date

from flask_babel import lazy_gettext as _l
from wtforms.validators import ValidationError

# The days a planner can pick: a date input accepts any year from 1 to 9999, and a filter
# bound at the calendar's edge overflows when it becomes a moment in the carrier's zone.
FIRST_DAY = date(2000, 1, 1)
LAST_DAY = date(2099, 12, 31)


def in_calendar(form, field) -> None:
    """A date field's value, if any, lies between FIRST_DAY and LAST_DAY."""
    if field.data is not None and not FIRST_DAY <= field.data <= LAST_DAY:
        raise ValidationError(_l("Kies een datum tussen 2000 en 2099."))
