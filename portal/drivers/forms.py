"""Portal forms of drivers: the list's search, the driver form and the track's day."""

from __future__ import annotations

from flask_babel import lazy_gettext as _l
from flask_wtf import FlaskForm
from wtforms import DateField, SelectChoice, SelectField, StringField
from wtforms.validators import DataRequired, Email, Length, Optional, Regexp

from portal.drivers.models import LANGUAGES
from portal.validators import in_calendar

LANGUAGE_LABELS = {"nl": _l("Nederlands"), "en": _l("Engels")}
STATUS_FILTERS = ("actief", "inactief", "alle")
PHONE = r"^\+?[0-9][0-9 ()./-]{4,38}[0-9]$"


class DriverSearchForm(FlaskForm):
    """The list's search and status filter, read from the query string."""

    class Meta:
        csrf = False

    q = StringField(_l("Zoeken"), validators=[Optional(), Length(max=100)])
    status = SelectField(
        _l("Status"),
        choices=[
            SelectChoice("actief", _l("Actief")),
            SelectChoice("inactief", _l("Gedeactiveerd")),
            SelectChoice("alle", _l("Alle chauffeurs")),
        ],
        default="actief",
        validators=[Optional()],
    )


class DriverForm(FlaskForm):
    """Create or edit a driver."""

    naam = StringField(
        _l("Naam"),
        validators=[DataRequired(_l("Vul de naam in.")), Length(max=200)],
        render_kw={"autocomplete": "off"},
    )
    email = StringField(
        _l("E-mailadres"),
        validators=[
            Optional(),
            Length(max=254),
            Email(_l("Vul een geldig e-mailadres in, bijvoorbeeld jan@voorbeeld.nl.")),
        ],
        render_kw={"type": "email", "autocomplete": "off", "inputmode": "email"},
        description=_l("Optioneel; nodig om met een wachtwoord in te loggen in de app."),
    )
    telefoon = StringField(
        _l("Telefoon"),
        validators=[
            Optional(),
            Length(max=40),
            Regexp(PHONE, message=_l("Vul een telefoonnummer in, bijvoorbeeld 06-12345678.")),
        ],
        render_kw={"type": "tel", "autocomplete": "off", "inputmode": "tel"},
    )
    taal = SelectField(
        _l("Taal van de app"),
        choices=[SelectChoice(code, LANGUAGE_LABELS[code]) for code in LANGUAGES],
        default="nl",
    )


class TrackForm(FlaskForm):
    """The day of a driver's track."""

    class Meta:
        csrf = False

    datum = DateField(_l("Datum"), validators=[Optional(), in_calendar])
