"""Portal forms of the payroll export: the period in weeks, the export itself, and the
column settings."""

from __future__ import annotations

from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from wtforms import (
    BooleanField,
    Field,
    FieldList,
    Form,
    FormField,
    HiddenField,
    RadioField,
    SelectChoice,
    SelectField,
    StringField,
)
from wtforms.validators import StopValidation, ValidationError

from portal.accounts.payroll_columns import MAX_CODE, MAX_NAME
from portal.hours.pages.forms import WeekField
from portal.hours.payroll.batches import MAX_WEEKS
from portal.validators import PortalForm


class RequiredWeekField(WeekField):
    def pre_validate(self, form):
        if self.data is None and not getattr(self, "raw", ""):
            raise StopValidation(_("Kies een week."))
        super().pre_validate(form)


class _Period(PortalForm):
    """First and last week of a period."""

    van = RequiredWeekField(_l("Van week"))
    tot = RequiredWeekField(_l("Tot en met week"))

    def validate_tot(self, field: Field) -> None:
        if self.van.data is None or field.data is None:
            return
        count = (field.data.monday - self.van.data.monday).days // 7 + 1
        if count < 1:
            raise ValidationError(_("De laatste week ligt voor de eerste."))
        if count > MAX_WEEKS:
            raise ValidationError(
                _("Kies hoogstens %(num)s weken.", num=MAX_WEEKS),
            )

    @property
    def args(self) -> dict[str, str]:
        """The period as query arguments, to come back to it."""
        return {"van": self.van._value(), "tot": self.tot._value()}


class PeriodForm(_Period):
    """The period to look at, read from the query string (GET: no CSRF token)."""

    class Meta:
        csrf = False


FORMATS = [SelectChoice("csv", "CSV"), SelectChoice("xlsx", "XLSX")]


class ExportForm(_Period):
    """The confirmed export (POST): period, file format, and whether weeks exported before go
    along again."""

    formaat = SelectField(choices=FORMATS, validate_choice=True)
    opnieuw = BooleanField(_l("Ook weken die al geëxporteerd zijn opnieuw exporteren"))


class ExportQueryForm(ExportForm):
    """The export asked for, read from the query string to confirm it."""

    class Meta:
        csrf = False


class ColumnRow(Form):
    """One category: its key (hidden), included or not, name and code."""

    key = HiddenField()
    mee = BooleanField(_l("Exporteren"))
    naam = StringField(_l("Naam"), render_kw={"maxlength": MAX_NAME})
    code = StringField(_l("Code"), render_kw={"maxlength": MAX_CODE})


class ColumnsForm(PortalForm):
    """The column settings: one row per category, and what the header row carries."""

    kop = RadioField(
        _l("Kopregel"),
        choices=[
            SelectChoice("naam", _l("Namen van de kolommen")),
            SelectChoice("code", _l("Codes (een kolom zonder code krijgt zijn naam)")),
        ],
        default="naam",
    )
    kolommen = FieldList(FormField(ColumnRow), min_entries=0, max_entries=60)

    def data_for_service(self, known: set[str]) -> dict:
        """The settings as the accounts service takes them; unknown keys are left out."""
        rows = {}
        for entry in self.kolommen.entries:
            key = entry.form.key.data or ""
            if key in known:
                rows[key] = {
                    "naam": entry.form.naam.data or "",
                    "code": entry.form.code.data or "",
                    "mee": bool(entry.form.mee.data),
                }
        return {"kop": self.kop.data, "kolommen": rows}
