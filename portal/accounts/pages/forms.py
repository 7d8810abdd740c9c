"""Portal forms of sign-in, language, password links and the admin section."""

from __future__ import annotations

import math

from flask_babel import format_decimal
from flask_babel import lazy_gettext as _l
from wtforms import (
    EmailField,
    FloatField,
    HiddenField,
    IntegerField,
    PasswordField,
    SelectChoice,
    SelectField,
    SelectMultipleField,
    StringField,
)
from wtforms.validators import (
    DataRequired,
    Email,
    EqualTo,
    Length,
    NumberRange,
    Optional,
    StopValidation,
)
from wtforms.widgets import TextInput

from portal.validators import PortalForm


class LoginForm(PortalForm):
    email = EmailField(_l("E-mailadres"), validators=[DataRequired(), Length(max=254)])
    password = PasswordField(_l("Wachtwoord"), validators=[DataRequired(), Length(max=1024)])
    next = HiddenField()


class LanguageForm(PortalForm):
    taal = SelectField(choices=[SelectChoice("nl", "Nederlands"), SelectChoice("en", "English")])
    next = HiddenField()


class LogoutForm(PortalForm):
    pass


# --- the admin section (/beheer) -------------------------------------------------------

ROLE_LABELS = {
    "planner": _l("Planner"),
    "author": _l("Auteur"),
    "admin": _l("Beheerder"),
}
# How a shipper's proof of delivery names who delivered (Carrier.bewijs_chauffeur)
PROOF_DRIVER_LABELS = {
    "voornaam": _l("Voornaam (Jan)"),
    "initialen": _l("Initialen (J.d.V.)"),
}
ROLE_HELP = {
    "planner": _l("plant taken, chauffeurs, voertuigen, uren en facturatie"),
    "author": _l("maakt vragenlijsten en leest de antwoorden"),
    "admin": _l("alles, plus gebruikers, API-sleutels en instellingen"),
}


def _role_choices() -> list[SelectChoice]:
    return [SelectChoice(rol, label) for rol, label in ROLE_LABELS.items()]


class InviteForm(PortalForm):
    naam = StringField(
        _l("Naam"),
        validators=[DataRequired(_l("Vul de naam in.")), Length(max=200)],
        render_kw={"autocomplete": "off"},
    )
    email = StringField(
        _l("E-mailadres"),
        validators=[
            DataRequired(_l("Vul het e-mailadres in.")),
            Length(max=254),
            Email(_l("Vul een geldig e-mailadres in, bijvoorbeeld els@voorbeeld.nl.")),
        ],
        render_kw={"type": "email", "autocomplete": "off", "inputmode": "email"},
    )
    rol = SelectField(_l("Rol"), choices=_role_choices(), default="planner")


class UserForm(PortalForm):
    naam = StringField(
        _l("Naam"),
        validators=[DataRequired(_l("Vul de naam in.")), Length(max=200)],
        render_kw={"autocomplete": "off"},
    )
    rol = SelectField(_l("Rol"), choices=_role_choices())


class SetPasswordForm(PortalForm):
    password = PasswordField(
        _l("Nieuw wachtwoord"),
        validators=[
            DataRequired(_l("Kies een wachtwoord.")),
            Length(min=10, max=1024, message=_l("Minstens 10 tekens.")),
        ],
        render_kw={"autocomplete": "new-password"},
    )
    confirm = PasswordField(
        _l("Herhaal het wachtwoord"),
        validators=[
            DataRequired(_l("Herhaal het wachtwoord.")),
            EqualTo("password", _l("De wachtwoorden zijn niet gelijk.")),
        ],
        render_kw={"autocomplete": "new-password"},
    )


class ApiKeyForm(PortalForm):
    naam = StringField(
        _l("Naam"),
        validators=[DataRequired(_l("Geef de sleutel een naam.")), Length(max=200)],
        description=_l("Waarvoor de sleutel is, bijvoorbeeld “TMS” of “Boekhouding”."),
        render_kw={"autocomplete": "off"},
    )
    scopes = SelectMultipleField(
        _l("Rechten"),
        choices=[],
        validators=[DataRequired(_l("Kies minstens één recht."))],
    )


class CoordinateField(FloatField):
    """A decimal number typed the Dutch way (52,2215) or the English way (52.2215)."""

    def process_formdata(self, valuelist):
        raw = (valuelist[0] if valuelist else "").strip()
        self.data = None
        if not raw:
            return
        try:
            value = float(raw.replace(",", "."))
        except ValueError:
            value = math.nan
        if not math.isfinite(value):
            raise ValueError(_l("Vul een getal in, bijvoorbeeld 52,2215."))
        self.data = value

    def _value(self) -> str:
        if self.raw_data:
            return self.raw_data[0]
        if self.data is None:
            return ""
        return format_decimal(self.data, format="#0.0#####")


class DaysField(IntegerField):
    """A whole number of days; what is no number stays in the field with a Dutch message.
    A text input, not type=number: a browser posts that empty when it holds no number, which
    would read as the default."""

    widget = TextInput()

    def process_formdata(self, valuelist):
        raw = (valuelist[0] if valuelist else "").strip()
        self.data = None
        if not raw:
            return
        try:
            self.data = int(raw)
        except ValueError:
            raise ValueError(_l("Vul een aantal dagen in, bijvoorbeeld 30.")) from None

    def pre_validate(self, form) -> None:
        if self.process_errors:
            raise StopValidation()  # no number: the range check has nothing to add


class IbanField(StringField):
    """An IBAN, shown in groups of four (NL91 ABNA 0417 1643 00); stored compact."""

    def _value(self) -> str:
        if self.raw_data:
            return self.raw_data[0]
        compact = self.data or ""
        return " ".join(compact[i : i + 4] for i in range(0, len(compact), 4))


class SettingsForm(PortalForm):
    naam = StringField(
        _l("Naam van de transporteur"),
        validators=[DataRequired(_l("Vul de naam in.")), Length(max=200)],
    )
    # The choices (IANA zones by region, portal/timezones.py) are set by the view; the
    # service refuses a zone the zone database does not know.
    tijdzone = SelectField(
        _l("Tijdzone"),
        choices=[],
        validate_choice=False,
        validators=[DataRequired(_l("Kies een tijdzone.")), Length(max=64)],
        description=_l("Alle tijden in het portaal staan in deze tijdzone."),
    )
    thuisbasis_straat = StringField(
        _l("Straat en huisnummer"), validators=[Optional(), Length(max=200)]
    )
    thuisbasis_postcode = StringField(_l("Postcode"), validators=[Optional(), Length(max=16)])
    thuisbasis_plaats = StringField(_l("Plaats"), validators=[Optional(), Length(max=100)])
    thuisbasis_land = SelectField(_l("Land"), choices=[], validate_choice=False)
    thuisbasis_lat = CoordinateField(
        _l("Breedtegraad"),
        validators=[
            Optional(),
            NumberRange(-90, 90, _l("Een breedtegraad ligt tussen -90 en 90.")),
        ],
        render_kw={"inputmode": "decimal"},
    )
    thuisbasis_lng = CoordinateField(
        _l("Lengtegraad"),
        validators=[
            Optional(),
            NumberRange(-180, 180, _l("Een lengtegraad ligt tussen -180 en 180.")),
        ],
        render_kw={"inputmode": "decimal"},
    )
    # The invoicing details: the service checks and compacts them (portal.accounts.invoicing)
    btw_nummer = StringField(
        _l("Btw-nummer"),
        description=_l("Bijvoorbeeld NL123456789B01, of een btw-nummer uit een ander EU-land."),
        render_kw={"autocomplete": "off", "autocapitalize": "characters", "spellcheck": "false"},
    )
    kvk_nummer = StringField(
        _l("KvK-nummer"),
        description=_l("Het inschrijvingsnummer bij de Kamer van Koophandel."),
        render_kw={"autocomplete": "off", "inputmode": "numeric", "spellcheck": "false"},
    )
    iban = IbanField(
        _l("IBAN"),
        description=_l("Het rekeningnummer waarop klanten betalen."),
        render_kw={"autocomplete": "off", "autocapitalize": "characters", "spellcheck": "false"},
    )
    factuur_email = StringField(
        _l("E-mail voor facturen"),
        description=_l("Voor vragen van klanten over een factuur."),
        render_kw={"type": "email", "autocomplete": "off", "inputmode": "email"},
    )
    betaaltermijn_dagen = DaysField(
        _l("Betaaltermijn in dagen"),
        default=30,
        validators=[
            Optional(),
            NumberRange(1, 365, _l("Een betaaltermijn is 1 tot en met 365 dagen.")),
        ],
        description=_l("Dagen na de factuurdatum; leeg is 30."),
        render_kw={"inputmode": "numeric"},
    )
    bewijs_chauffeur = SelectField(
        _l("Chauffeur op het bewijs van aflevering"),
        choices=[SelectChoice(value, label) for value, label in PROOF_DRIVER_LABELS.items()],
        default="voornaam",
        description=_l(
            "Zo noemt het bewijs dat een verlader via een link ziet wie afleverde; nooit de "
            "volledige naam."
        ),
    )
