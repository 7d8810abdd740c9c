"""Portal forms of hours: the overview's period, reopening a week, correcting an activity."""

from __future__ import annotations

from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from wtforms import DateTimeLocalField, Field, SelectChoice, SelectField, StringField, TextAreaField
from wtforms.validators import (
    DataRequired,
    InputRequired,
    Length,
    Optional,
    StopValidation,
    ValidationError,
)
from wtforms.widgets import Input

from portal.billing.service import longer_than_a_year
from portal.hours.totals import IsoWeek
from portal.validators import DayField, PortalForm

SOORT_LABELS = {
    "rijden": _l("Rijden"),
    "laden": _l("Laden"),
    "lossen": _l("Lossen"),
    "wachten": _l("Wachten"),
    "pauze": _l("Pauze"),
    "overig_werk": _l("Overig werk"),
    "beschikbaarheid": _l("Beschikbaarheid"),
}


class WeekInput(Input):
    input_type = "week"
    validation_attrs = ["required", "min", "max", "step"]


class WeekField(StringField):
    """An ISO week as '2026-W47' (what <input type="week"> sends); data is an IsoWeek."""

    widget = WeekInput()

    def process_formdata(self, valuelist):
        self.raw = (valuelist[0] if valuelist else "").strip()
        self.data = None
        if self.raw:
            try:
                self.data = IsoWeek.parse(self.raw.upper())
            except ValueError:
                self.data = None

    def _value(self) -> str:
        if self.data is not None:
            return self.data.label
        return getattr(self, "raw", "") or ""

    def pre_validate(self, form):
        if getattr(self, "raw", "") and self.data is None:
            raise StopValidation(_("Geen geldige week (bijvoorbeeld 2026-W47)."))


class OptionalDayField(DayField):
    """A day that may be left empty."""

    def pre_validate(self, form):
        if not getattr(self, "raw", None):
            self.data = None
            return
        super().pre_validate(form)


class PeriodForm(PortalForm):
    """The overview's period, from the query string: a week, or a period van..tot."""

    class Meta:
        csrf = False

    week = WeekField(_l("Week"))
    van = OptionalDayField(_l("Van"))
    tot = OptionalDayField(_l("Tot en met"))

    def validate_tot(self, field: Field) -> None:
        van_raw, tot_raw = getattr(self.van, "raw", None), getattr(field, "raw", None)
        if bool(van_raw) != bool(tot_raw):
            raise ValidationError(_("Kies zowel een begin- als een einddatum."))
        van, tot = self.van.data, field.data
        if van is None or tot is None:
            return
        if tot < van:
            raise ValidationError(_("De einddatum ligt voor de begindatum."))
        if longer_than_a_year(van, tot):
            raise ValidationError(_("Kies een periode van hoogstens een jaar."))


class ApproveForm(PortalForm):
    """Approving a week: the confirmation carries only the CSRF token."""


class ReopenForm(PortalForm):
    reden = TextAreaField(
        _l("Reden"),
        validators=[
            DataRequired(message=_l("Geef een reden op: die wordt bewaard bij de week.")),
            Length(max=1000, message=_l("Hoogstens 1000 tekens.")),
        ],
    )


class ActivityForm(PortalForm):
    """A planner's correction of an activity; times on the carrier's clock."""

    soort = SelectField(
        _l("Soort"),
        choices=[SelectChoice(soort, label) for soort, label in SOORT_LABELS.items()],
    )
    begin = DateTimeLocalField(
        _l("Begin"),
        format=["%Y-%m-%dT%H:%M", "%Y-%m-%dT%H:%M:%S"],
        validators=[InputRequired(message=_l("Vul het begin in."))],
    )
    einde = DateTimeLocalField(
        _l("Einde"),
        format=["%Y-%m-%dT%H:%M", "%Y-%m-%dT%H:%M:%S"],
        validators=[Optional()],
    )
    opmerking = TextAreaField(_l("Opmerking"), validators=[Length(max=2000)])
    reden = TextAreaField(
        _l("Reden van de correctie"),
        description=_l("De chauffeur ziet de correctie met deze reden in de app."),
        validators=[
            DataRequired(message=_l("Geef een reden op.")),
            Length(max=1000, message=_l("Hoogstens 1000 tekens.")),
        ],
    )
