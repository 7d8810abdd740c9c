"""Portal forms of tasks: the labels the pages share, the number fields, the board's filters,
the keyboard move and the paper completion. The task form is in `task_forms.py`."""

from __future__ import annotations

import math

from flask_babel import lazy_gettext as _l
from flask_wtf.file import FileField, FileRequired
from wtforms import (
    BooleanField,
    DateField,
    FloatField,
    HiddenField,
    IntegerField,
    RadioField,
    SelectChoice,
    SelectField,
    StringField,
    TextAreaField,
    TimeField,
)
from wtforms.validators import (
    DataRequired,
    InputRequired,
    Length,
    NumberRange,
    Optional,
    StopValidation,
    ValidationError,
)
from wtforms.widgets import TextInput

from portal.labels import ACTIVITY_LABELS
from portal.tasks.models import STATUSES
from portal.validators import PortalForm, in_calendar

STATUS_LABELS = {
    "gepland": _l("Gepland"),
    "ontvangen": _l("Ontvangen"),
    "gestart": _l("Gestart"),
    "afgerond": _l("Afgerond"),
    "geannuleerd": _l("Geannuleerd"),
}

# What a button on a card says for a move to each status.
MOVE_LABELS = {
    "ontvangen": _l("Ontvangen"),
    "gestart": _l("Starten"),
    "afgerond": _l("Afronden"),
    "geannuleerd": _l("Annuleren…"),
}
REOPEN_LABEL = _l("Heropenen")

# The fields of a completion blocker (lifecycle.completion_blockers), as people read them.
BLOCKER_LABELS = {
    "fotos": _l("Foto's"),
    "handtekening": _l("Handtekening"),
    "scan": _l("Scan"),
    "locatie": _l("Locatie"),
    "temperatuur": _l("Temperatuur"),
    "desinfectie": _l("Desinfectie"),
    "status": _l("Status"),
}

UNASSIGNED = "geen"  # the chauffeur filter's value for tasks without a driver
VEHICLE_ALONG, VEHICLE_STAYS = "mee", "los"  # the move form's answers about the vehicle
VIEWS = ("dag", "status")


def activity_choices(extra: set[str] = frozenset()) -> list[SelectChoice]:
    """The activity types a planner picks from: the known ones plus extra (e.g. the task's own,
    or the types of the carrier's questionnaires), each by its readable name."""
    labels = ACTIVITY_LABELS
    names = dict.fromkeys([*labels, *sorted(t for t in extra if t)])
    readable = {
        name: str(labels[name]) if name in labels else name.replace("_", " ").capitalize()
        for name in names
    }
    return [SelectChoice(name, readable[name]) for name in names]


def finite(form, field) -> None:
    """A number field holds a finite number (no inf, no nan)."""
    if field.data is not None and not math.isfinite(field.data):
        raise ValidationError(_l("Vul een getal in."))


class _StopOnBadInput:
    """A field whose unreadable input gets one error, not a second one from its range check."""

    def pre_validate(self, form):
        typed = bool(self.raw_data and str(self.raw_data[0]).strip())
        if self.process_errors and typed:
            raise StopValidation()


class WholeNumberField(_StopOnBadInput, IntegerField):
    pass


class DecimalCommaField(_StopOnBadInput, FloatField):
    """A number that may be written the Dutch way, with a decimal comma (so a text input:
    a number input would refuse the comma in some browsers)."""

    widget = TextInput()

    def process_formdata(self, valuelist):
        if not valuelist or not valuelist[0].strip():
            self.data = None
            return
        try:
            value = float(valuelist[0].strip().replace(",", "."))
        except ValueError:
            value = math.nan
        if not math.isfinite(value):
            self.data = None
            raise ValueError(_l("Vul een getal in."))
        self.data = value


class BoardFilterForm(PortalForm):
    """The board's view and filters, read from the query string (GET: no CSRF token).

    Choices of driver, vehicle and type are set by the view; a value that is not among them
    (another carrier's driver, a typo) is an error at the field and filters nothing."""

    class Meta:
        csrf = False

    weergave = SelectField(
        _l("Weergave"),
        choices=[SelectChoice("dag", _l("Dag")), SelectChoice("status", _l("Status"))],
        validators=[Optional()],
    )
    datum = DateField(_l("Datum"), validators=[Optional(), in_calendar])
    van = DateField(_l("Van"), validators=[Optional(), in_calendar])
    tot = DateField(_l("Tot en met"), validators=[Optional(), in_calendar])
    chauffeur = SelectField(_l("Chauffeur"), validators=[Optional()])
    voertuig = SelectField(_l("Voertuig"), validators=[Optional()])
    type = SelectField(_l("Soort"), validators=[Optional()])
    status = SelectField(
        _l("Status"),
        choices=[SelectChoice("", _l("Alle statussen"))]
        + [SelectChoice(s, STATUS_LABELS[s]) for s in STATUSES],
        validators=[Optional()],
    )
    q = StringField(_l("Zoeken"), validators=[Optional(), Length(max=100)])

    def set_choices(self, drivers, vehicles) -> None:
        self.chauffeur.choices = [
            SelectChoice("", _l("Alle chauffeurs")),
            SelectChoice(UNASSIGNED, _l("Niet toegewezen")),
        ] + [SelectChoice(str(d.id), d.naam) for d in drivers]
        self.voertuig.choices = [SelectChoice("", _l("Alle voertuigen"))] + [
            SelectChoice(str(v.id), v.label) for v in vehicles
        ]
        types = activity_choices({self.type.data} if self.type.data else set())
        self.type.choices = [SelectChoice("", _l("Alle soorten")), *types]

    def validate_tot(self, field) -> None:
        if field.data and self.van.data and field.data < self.van.data:
            raise ValidationError(_l("Tot en met ligt voor de begindatum."))

    def clean(self, name: str):
        """A field's value when it is valid, else None: a bad filter filters nothing."""
        field = getattr(self, name)
        if field.errors or field.data in ("", None):
            return None
        return field.data


class MoveForm(PortalForm):
    """Move a task to another driver and/or moment: the keyboard alternative to dragging.

    Fields left out of the POST keep their value: a card dropped on another lane sends only
    the driver, one dropped on another day only the date (its time of day stays)."""

    chauffeur_id = SelectField(_l("Chauffeur"), validators=[Optional()])
    datum = DateField(_l("Datum"), validators=[Optional(), in_calendar])
    tijd = TimeField(_l("Tijd"), validators=[Optional()])
    # Whether the task's vehicle goes along to another driver (asked when it has one).
    voertuig = RadioField(
        _l("Gaat het voertuig mee naar de nieuwe chauffeur?"),
        choices=[
            SelectChoice(VEHICLE_ALONG, _l("Ja, het voertuig gaat mee")),
            SelectChoice(VEHICLE_STAYS, _l("Nee, de taak verder zonder dit voertuig")),
        ],
        default=VEHICLE_ALONG,
        validators=[Optional()],
    )
    versie = IntegerField(
        widget=HiddenField.widget,
        validators=[InputRequired(_l("Ververs het bord en probeer het opnieuw."))],
    )
    terug = HiddenField()

    def set_choices(self, drivers) -> None:
        self.chauffeur_id.choices = [SelectChoice("", _l("Niet toegewezen"))] + [
            SelectChoice(str(d.id), d.naam) for d in drivers
        ]


class PaperCompletionForm(PortalForm):
    """Complete a task on a paper delivery note (tasks/paper.py): the reason and the scan;
    the measured temperature and the disinfection when the task asks for them (the view
    drops those fields otherwise)."""

    reden = TextAreaField(
        _l("Waarom op papier?"),
        validators=[DataRequired(_l("Vul de reden in.")), Length(max=1000)],
        description=_l(
            "Bijvoorbeeld: telefoon van de chauffeur leeg; de klant tekende alleen de papieren bon."
        ),
    )
    bon = FileField(
        _l("Scan of foto van de afleverbon"),
        validators=[FileRequired(_l("Kies de scan van de papieren afleverbon."))],
        description=_l("PDF, JPEG of PNG."),
        render_kw={"accept": "application/pdf,image/jpeg,image/png"},
    )
    temperatuur = DecimalCommaField(
        _l("Gemeten temperatuur op de bon (°C)"),
        validators=[
            InputRequired(_l("Neem de gemeten temperatuur van de bon over.")),
            NumberRange(min=-60, max=100),
            finite,
        ],
    )
    desinfectie = BooleanField(
        _l("De bon bevestigt de desinfectie"),
        validators=[DataRequired(_l("De bon moet de desinfectie bevestigen."))],
    )
    versie = IntegerField(widget=HiddenField.widget, validators=[Optional()])
