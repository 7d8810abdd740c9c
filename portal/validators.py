"""Form validators that every domain's portal forms share."""

from __future__ import annotations

import contextlib
import re
from datetime import date

from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from flask_wtf import FlaskForm
from wtforms import StringField
from wtforms.validators import StopValidation, ValidationError
from wtforms.widgets import DateInput

from portal import plain_text

# The days a planner can pick: a date input accepts any year from 1 to 9999, and a filter
# bound at the calendar's edge overflows when it becomes a moment in the carrier's zone.
FIRST_DAY = date(2000, 1, 1)
LAST_DAY = date(2099, 12, 31)


def in_calendar(form, field) -> None:
    """A date field's value, if any, lies between FIRST_DAY and LAST_DAY."""
    if field.data is not None and not FIRST_DAY <= field.data <= LAST_DAY:
        raise ValidationError(_l("Kies een datum tussen 2000 en 2099."))


def control_character_message(code_point: str):
    """The portal's message for text holding a control character (U+000B and the like)."""
    return _l(
        "Bevat een onzichtbaar stuurteken (%(teken)s); typ de tekst opnieuw of plak hem "
        "zonder opmaak.",
        teken=code_point,
    )


def _text_fields(fields):
    """Every field of a form that holds text, also inside FormField and FieldList."""
    from wtforms import FieldList, FormField, StringField

    for field in fields:
        if isinstance(field, FormField):
            yield from _text_fields(field.form)
        elif isinstance(field, FieldList):
            yield from _text_fields(field.entries)
        elif isinstance(field, StringField):
            yield field


class PortalForm(FlaskForm):
    """Every portal form: beside its own checks, no text field holds a control character
    (a text area or hidden field may hold tabs and line breaks, a one-line field a tab)."""

    def validate(self, extra_validators=None) -> bool:
        from wtforms import HiddenField, TextAreaField

        valid = super().validate(extra_validators)
        for field in _text_fields(self):
            if not isinstance(field.data, str):
                continue
            multiline = isinstance(field, TextAreaField | HiddenField)
            found = plain_text.control_character(field.data.replace("\t", " "), multiline=multiline)
            if found:
                field.errors = [*field.errors, control_character_message(found)]
                valid = False
        return valid


def refuse_control_characters(result, columns: list[str | None]) -> None:
    """An imported row's cells that the import reads, each refused at its cell when it holds
    a control character (a cell may hold tabs and line breaks, as a CSV's quoted cell can)."""
    for index, cell in enumerate(result.cells[: len(columns)]):
        if columns[index] is not None and (found := plain_text.control_character(cell)):
            result.add(index, str(control_character_message(found)))


DAY = re.compile(r"\d{4}-\d{2}-\d{2}")


class DayField(StringField):
    """A calendar day as YYYY-MM-DD (what <input type="date"> sends); data is a date."""

    widget = DateInput()

    def process_formdata(self, valuelist):
        if not valuelist:
            return  # absent: keep the default
        raw = valuelist[0].strip()
        self.data = None
        if DAY.fullmatch(raw):
            with contextlib.suppress(ValueError):  # 2025-02-30 matches but is no day
                self.data = date.fromisoformat(raw)
        self.raw = raw

    def _value(self) -> str:
        if getattr(self, "raw", None) is not None and self.data is None:
            return self.raw
        return self.data.isoformat() if self.data else ""

    def pre_validate(self, form):
        raw = getattr(self, "raw", None)
        if self.data is None:
            message = _("Kies een datum.") if not raw else _("Geen geldige datum (jjjj-mm-dd).")
            raise StopValidation(message)
        if not FIRST_DAY <= self.data <= LAST_DAY:
            raise StopValidation(
                _("Kies een datum tussen %(first)s en %(last)s.", first=FIRST_DAY, last=LAST_DAY)
            )
